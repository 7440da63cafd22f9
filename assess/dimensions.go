package assess

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/evalgate/evalgate/results"
)

// processChecks are the check kinds review_compliance counts: what the
// agent did, not what it answered. "outputSchema" is the schemaValid check.
var processChecks = map[string]bool{
	"toolCalled": true, "toolNotCalled": true, "toolOrder": true, "maxToolCalls": true, "outputSchema": true,
}

// performance measures the performance dimensions over tasks.
func (o Options) performance(tasks []*results.Task) []Dimension {
	return []Dimension{
		o.taskCompletion(tasks),
		o.accuracy(tasks),
		o.speed(tasks),
		o.consistency(tasks),
		o.reviewCompliance(tasks),
	}
}

// p is P(S): the performance composite over the tasks of S alone.
func (o Options) p(tasks []*results.Task) *float64 {
	dims := o.performance(tasks)
	for i := range dims {
		dims[i].Weight = o.Weights[dims[i].Name]
	}
	return composite(dims)
}

func measured(name string, v float64, ev map[string]int) Dimension {
	return Dimension{Name: name, Value: ptr(v), Evidence: ev}
}

func unmeasured(name, reason string, ev map[string]int) Dimension {
	return Dimension{Name: name, Reason: reason, Evidence: ev}
}

func completed(t *results.Task) bool { return t.Status != results.StatusError }

// taskCompletion: (passed + Σ score of completed, not passed tasks) / all tasks.
func (o Options) taskCompletion(tasks []*results.Task) Dimension {
	ev := map[string]int{"tasks": len(tasks)}
	if len(tasks) == 0 {
		return unmeasured(TaskCompletionRate, "no tasks", ev)
	}
	var sum float64
	for _, t := range tasks {
		switch {
		case t.Passed:
			sum++
			ev["passed"]++
		case completed(t):
			sum += t.Score
		}
		if completed(t) {
			ev["completed"]++
		}
	}
	return measured(TaskCompletionRate, sum/float64(len(tasks)), ev)
}

// accuracy: 0.6·(1 − revised/completed) + 0.4·(1 − min(1, weighted/completed)).
func (o Options) accuracy(tasks []*results.Task) Dimension {
	var done, revised, failed, severe, other int
	for _, t := range tasks {
		if !completed(t) {
			continue
		}
		done++
		if !t.Passed {
			revised++
		}
		failed += len(t.FailedChecks)
		for _, f := range t.Findings {
			if f.Severity == results.SeverityCritical || f.Severity == results.SeverityHigh {
				severe++
			} else {
				other++
			}
		}
	}
	ev := map[string]int{"completed": done, "revised": revised, "failedChecks": failed,
		"criticalHighFindings": severe, "mediumLowFindings": other}
	if done == 0 {
		return unmeasured(Accuracy, "no completed task", ev)
	}
	n := float64(done)
	weighted := float64(failed) + 3*float64(severe) + 0.5*float64(other)
	return measured(Accuracy, 0.6*(1-float64(revised)/n)+0.4*(1-min(1, weighted/n)), ev)
}

// speed: mean over completed tasks of clamp(2 − latency/baseline, 0, 1).
func (o Options) speed(tasks []*results.Task) Dimension {
	var sum float64
	done := 0
	for _, t := range tasks {
		if !completed(t) {
			continue
		}
		done++
		sum += clamp(2-float64(t.LatencyMs)/o.latencyBaseline(t), 0, 1)
	}
	ev := map[string]int{"completed": done}
	if done == 0 {
		return unmeasured(Speed, "no completed task", ev)
	}
	return measured(Speed, sum/float64(done), ev)
}

func (o Options) latencyBaseline(t *results.Task) float64 {
	level := complexity(t)
	if level == 0 {
		level = 3
	}
	if b := o.LatencyBaselineMs[level]; b > 0 {
		return b
	}
	return DefaultLatencyBaselineMs[level]
}

func complexity(t *results.Task) int {
	if t.Metadata == nil {
		return 0
	}
	return t.Metadata.Complexity
}

// groupKey is a task's consistency group: its category, else its domain,
// else the one group, crossed with its complexity.
func groupKey(t *results.Task) string {
	label := ""
	if m := t.Metadata; m != nil {
		label = cmp.Or(m.Category, m.Domain)
	}
	return label + "\x00" + strconv.Itoa(complexity(t))
}

// consistency: 1 − min(1, 0.6·cvScore + 0.4·cvPass) per group of at least
// 5 tasks, the groups averaged weighted by their task count.
func (o Options) consistency(tasks []*results.Task) Dimension {
	groups := map[string][]*results.Task{}
	var keys []string
	for _, t := range tasks {
		k := groupKey(t)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], t)
	}
	slices.Sort(keys)
	var sum float64
	ev := map[string]int{"groups": 0, "tasks": 0, "smallGroups": 0}
	largest := 0
	for _, k := range keys {
		g := groups[k]
		largest = max(largest, len(g))
		if len(g) < minGroupTasks {
			ev["smallGroups"]++
			continue
		}
		var scores, passes []float64
		for _, t := range g {
			for _, tr := range trials(t) {
				scores = append(scores, tr.Score)
				passes = append(passes, b2f(tr.Passed))
			}
		}
		ev["groups"]++
		ev["tasks"] += len(g)
		sum += float64(len(g)) * (1 - min(1, 0.6*cv(scores)+0.4*cv(passes)))
	}
	if ev["groups"] == 0 {
		return unmeasured(Consistency, fmt.Sprintf("no group of tasks (category, else domain, by complexity) holds %d tasks; the largest holds %d", minGroupTasks, largest), ev)
	}
	return measured(Consistency, sum/float64(ev["tasks"]), ev)
}

// trials are a task's trials; a task that holds none counts as one trial
// with the task's own score and verdict.
func trials(t *results.Task) []results.Trial {
	if len(t.Trials) > 0 {
		return t.Trials
	}
	return []results.Trial{{Score: t.Score, Passed: t.Passed}}
}

// cv is the coefficient of variation: population standard deviation over
// mean; 1 for a mean of 0.
func cv(xs []float64) float64 {
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if mean == 0 {
		return 1
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss/float64(len(xs))) / mean
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// reviewCompliance: the share of process checks that passed, over the
// trials of completed tasks.
func (o Options) reviewCompliance(tasks []*results.Task) Dimension {
	var checks, passed int
	for _, t := range tasks {
		if !completed(t) {
			continue
		}
		for _, tr := range t.Trials {
			for _, c := range tr.Checks {
				if processChecks[c.Kind] {
					checks++
					if c.Passed {
						passed++
					}
				}
			}
		}
	}
	ev := map[string]int{"processChecks": checks, "passed": passed}
	if checks == 0 {
		return unmeasured(ReviewCompliance, "no completed task has a process check (toolCalled, toolNotCalled, toolOrder, maxToolCalls, outputSchema)", ev)
	}
	return measured(ReviewCompliance, float64(passed)/float64(checks), ev)
}
