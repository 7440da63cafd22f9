package assess

import (
	"fmt"
	"maps"
	"slices"

	"github.com/evalgate/evalgate/results"
)

// capability measures the capability dimensions over tasks; perf is the
// performance axis's dimensions over all of them, for learning_rate.
func (o Options) capability(tasks []*results.Task, perf []Dimension) []Dimension {
	now := o.axis(Performance, slices.Clone(perf), false).Score
	return []Dimension{
		o.domainBreadth(tasks),
		o.ceiling(tasks, ComplexityCeiling, "complexity", "complexity", 5, func(t *results.Task) (int, bool) {
			return complexity(t), complexity(t) > 0
		}),
		o.toolProficiency(tasks),
		o.ceiling(tasks, AutonomyLevel, "autonomyLevel", "autonomy", 3, func(t *results.Task) (int, bool) {
			if t.Metadata == nil || t.Metadata.AutonomyLevel == nil {
				return 0, false
			}
			return *t.Metadata.AutonomyLevel, true
		}),
		o.learningRate(now),
		o.category(tasks, DelegationCapability, "delegation"),
		o.category(tasks, OrchestrationSkills, "orchestration"),
	}
}

// reaches reports whether P(S) reaches bar, within the tolerance.
func reaches(p *float64, bar float64) bool { return p != nil && *p+tolerance >= bar }

// domainBreadth: the share of the taxonomy's domains with at least 3 tasks
// and P(domain) ≥ 0.40.
func (o Options) domainBreadth(tasks []*results.Task) Dimension {
	byDomain := map[string][]*results.Task{}
	labelled := 0
	for _, t := range tasks {
		if t.Metadata != nil && t.Metadata.Domain != "" {
			labelled++
			byDomain[t.Metadata.Domain] = append(byDomain[t.Metadata.Domain], t)
		}
	}
	ev := map[string]int{"taxonomy": len(o.Taxonomy), "tasksWithDomain": labelled, "domainsMeasured": 0, "domainsReached": 0}
	most, mostName := 0, ""
	for _, d := range o.Taxonomy {
		n := len(byDomain[d])
		if n > most {
			most, mostName = n, d
		}
		if n < minSubsetTasks {
			continue
		}
		ev["domainsMeasured"]++
		if reaches(o.p(byDomain[d]), 0.40) {
			ev["domainsReached"]++
		}
	}
	switch {
	case labelled == 0:
		return unmeasured(DomainBreadth, "no task carries a domain", ev)
	case ev["domainsMeasured"] == 0 && most == 0:
		return unmeasured(DomainBreadth, "no task's domain is in the taxonomy", ev)
	case ev["domainsMeasured"] == 0:
		return unmeasured(DomainBreadth, fmt.Sprintf("no domain of the taxonomy has %d tasks; the most is %s with %d", minSubsetTasks, mostName, most), ev)
	}
	return measured(DomainBreadth, float64(ev["domainsReached"])/float64(len(o.Taxonomy)), ev)
}

// ceiling: the highest level L with at least 3 tasks and P(L) ≥ 0.60, over
// top (0 when no level reaches it). field names the metadata in a
// reason, label the level. level returns a task's level and
// whether it has one.
func (o Options) ceiling(tasks []*results.Task, name, field, label string, top int, level func(*results.Task) (int, bool)) Dimension {
	byLevel := map[int][]*results.Task{}
	labelled := 0
	for _, t := range tasks {
		if l, ok := level(t); ok {
			labelled++
			byLevel[l] = append(byLevel[l], t)
		}
	}
	ev := map[string]int{"tasksWithLevel": labelled, "levelsMeasured": 0, "ceiling": 0}
	best := -1
	for l := 0; l <= top; l++ {
		if len(byLevel[l]) < minSubsetTasks {
			continue
		}
		ev["levelsMeasured"]++
		if reaches(o.p(byLevel[l]), 0.60) {
			best = l
		}
	}
	switch {
	case labelled == 0:
		return unmeasured(name, "no task carries "+field, ev)
	case ev["levelsMeasured"] == 0:
		return unmeasured(name, fmt.Sprintf("no %s level has %d tasks", label, minSubsetTasks), ev)
	case best < 0:
		return measured(name, 0, ev)
	}
	ev["ceiling"] = best
	return measured(name, float64(best)/float64(top), ev)
}

// toolUse is one tool's use over every trial.
type toolUse struct {
	calls, matched, repeats    int
	errorTrials, recoveredWith int
}

// toolProficiency: the mean over tools called at least 10 times of
// 0.5·correct + 0.3·recovery + 0.2·(1 − unnecessary); without an error of
// the tool, recovery is left out and the other two weights renormalised.
func (o Options) toolProficiency(tasks []*results.Task) Dimension {
	tools := map[string]*toolUse{}
	for _, t := range tasks {
		for _, tr := range t.Trials {
			for _, u := range tr.Tools {
				tu := tools[u.Name]
				if tu == nil {
					tu = &toolUse{}
					tools[u.Name] = tu
				}
				tu.calls += u.Calls
				tu.matched += u.Matched
				tu.repeats += u.Repeats
				if u.Errors > 0 {
					tu.errorTrials++
					if tr.Passed {
						tu.recoveredWith++
					}
				}
			}
		}
	}
	names := slices.Sorted(maps.Keys(tools))
	ev := map[string]int{"tools": 0, "calls": 0, "toolsUnder10Calls": 0, "withoutErrors": 0}
	var sum float64
	most, mostName := 0, ""
	for _, n := range names {
		u := tools[n]
		if u.calls > most {
			most, mostName = u.calls, n
		}
		if u.calls < minToolCalls {
			ev["toolsUnder10Calls"]++
			continue
		}
		ev["tools"]++
		ev["calls"] += u.calls
		calls := float64(u.calls)
		correct, necessary := float64(u.matched)/calls, 1-float64(u.repeats)/calls
		if u.errorTrials == 0 {
			ev["withoutErrors"]++
			sum += (0.5*correct + 0.2*necessary) / 0.7
			continue
		}
		sum += 0.5*correct + 0.3*float64(u.recoveredWith)/float64(u.errorTrials) + 0.2*necessary
	}
	switch {
	case len(names) == 0:
		return unmeasured(ToolProficiency, "no tool was called", ev)
	case ev["tools"] == 0:
		return unmeasured(ToolProficiency, fmt.Sprintf("no tool was called %d times; the most is %s with %d", minToolCalls, mostName, most), ev)
	}
	return measured(ToolProficiency, sum/float64(ev["tools"]), ev)
}

// learningRate: clamp((P(now) − mean P of the earliest ≤ 5 history
// entries) / 0.30, 0, 1).
func (o Options) learningRate(now *float64) Dimension {
	if o.Window != nil {
		return o.learningSlope(now)
	}
	var hist []HistoryEntry
	for _, h := range o.History {
		if h.Performance != nil {
			hist = append(hist, h)
		}
	}
	slices.SortStableFunc(hist, func(a, b HistoryEntry) int { return a.Time.Compare(b.Time) })
	hist = hist[:min(len(hist), historyEntries)]
	ev := map[string]int{"historyEntries": len(hist)}
	switch {
	case len(o.History) == 0:
		return unmeasured(LearningRate, "no history", ev)
	case len(hist) == 0:
		return unmeasured(LearningRate, "no history entry has a performance composite", ev)
	case now == nil:
		return unmeasured(LearningRate, "no performance composite now", ev)
	}
	var mean float64
	for _, h := range hist {
		mean += *h.Performance
	}
	mean /= float64(len(hist))
	return measured(LearningRate, clamp((*now-mean)/learningSpan, 0, 1), ev)
}

// category: P over the tasks of a category, from 3 tasks.
func (o Options) category(tasks []*results.Task, name, cat string) Dimension {
	var sub []*results.Task
	for _, t := range tasks {
		if t.Metadata != nil && t.Metadata.Category == cat {
			sub = append(sub, t)
		}
	}
	ev := map[string]int{"tasks": len(sub)}
	if len(sub) < minSubsetTasks {
		return unmeasured(name, fmt.Sprintf("%d tasks of category %s; %d needed", len(sub), cat, minSubsetTasks), ev)
	}
	p := o.p(sub)
	if p == nil {
		return unmeasured(name, "no performance composite over the tasks of category "+cat, ev)
	}
	return measured(name, *p, ev)
}

// FromRun is a history entry of an earlier results.json: its performance
// composite under opts, dated by its start.
func FromRun(source string, run *results.Run, opts Options) HistoryEntry {
	o := opts.withDefaults()
	return HistoryEntry{Source: source, Time: run.StartedAt, Performance: o.p(Tasks([]*results.Run{run}))}
}
