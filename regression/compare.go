package regression

import (
	"fmt"
	"math"
	"strings"

	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/results"
)

// Options configure a comparison.
type Options struct {
	// Source names the baseline in results.json (baselineFile).
	Source string
	// InSuites reports whether a task is in the suite files of this run.
	// A baseline task the run does not have but its suite still holds was
	// left out by --task, --tag or --shard: it is not compared, rather than
	// listed as removed. nil: every baseline task the run lacks is removed.
	InSuites func(suiteID, taskID string) bool
}

// changeEpsilon is the smallest score movement reported as a change.
const changeEpsilon = 1e-12

// Compare compares head with base task by task and records the result in
// head: head.Regression for the run and each suite's Regression (left nil
// for a suite the baseline does not have). It also returns head.Regression.
//
// A task is compared when both runs have it. scoreDelta is the mean of the
// per-task score deltas over the compared tasks (head − base; with trials,
// each task's score is its mean over trials); newFailures counts the tasks
// that passed in the baseline and do not now (pass^k when a suite runs
// trials), fixed the reverse. pValue is McNemar's exact test over those
// flips, and ciLow/ciHigh the bootstrap interval of the mean score delta.
// Regression.Tasks lists the compared tasks whose verdict or score moved,
// then the added and removed ones; a different suite version, trial count or
// task set is compared all the same, with a warning.
func Compare(base, head *results.Run, opts Options) *results.Regression {
	reg := &results.Regression{BaselineRunID: base.RunID, BaselineFile: opts.Source}
	baseSuites := map[string]*results.Suite{}
	for i := range base.Suites {
		baseSuites[base.Suites[i].ID] = &base.Suites[i]
	}
	inHead := map[string]bool{}
	var deltas []float64
	var newFailures, consistent, fixed int
	for i := range head.Suites {
		hs := &head.Suites[i]
		inHead[hs.ID] = true
		bs, ok := baseSuites[hs.ID]
		if !ok {
			hs.Regression = nil
			reg.Warnings = append(reg.Warnings, fmt.Sprintf("suite %s is not in the baseline: its %d %s listed as added",
				hs.ID, len(hs.Tasks), words.Plural(len(hs.Tasks), "task is", "tasks are")))
			for j := range hs.Tasks {
				reg.Tasks = append(reg.Tasks, results.TaskDiff{SuiteID: hs.ID, TaskID: hs.Tasks[j].ID, Change: results.ChangeAdded})
			}
			continue
		}
		c := compareSuite(baseRunID(base, bs), bs, hs, opts)
		hs.Regression = c.reg
		reg.Warnings = append(reg.Warnings, c.warnings...)
		reg.Tasks = append(reg.Tasks, c.diffs...)
		deltas = append(deltas, c.deltas...)
		newFailures += c.reg.NewFailures
		consistent += c.reg.NewConsistentFailures
		fixed += c.reg.Fixed
	}
	for i := range base.Suites {
		if id := base.Suites[i].ID; !inHead[id] {
			reg.Warnings = append(reg.Warnings, fmt.Sprintf("suite %s is in the baseline but not in this run: not compared", id))
		}
	}
	reg.NewFailures, reg.NewConsistentFailures, reg.Fixed = newFailures, consistent, fixed
	reg.ScoreDelta = mean(deltas)
	reg.PValue = McNemar(newFailures, fixed)
	reg.CILow, reg.CIHigh = Bootstrap(deltas)
	head.Regression = reg
	return reg
}

// CompareSuite compares one suite of a run with its baseline: the suite's
// share of Compare, for writing it before the run is over (the openwop
// eval.completed event). nil when the baseline does not have the suite.
func CompareSuite(base *results.Run, hs *results.Suite, opts Options) *results.SuiteRegression {
	for i := range base.Suites {
		if bs := &base.Suites[i]; bs.ID == hs.ID {
			return compareSuite(baseRunID(base, bs), bs, hs, opts).reg
		}
	}
	return nil
}

// baseRunID is the run id a suite's regression names: the baseline suite's
// own openwop run id, else the baseline run's.
func baseRunID(base *results.Run, bs *results.Suite) string {
	if bs.RunID != "" {
		return bs.RunID
	}
	return base.RunID
}

type suiteComparison struct {
	reg      *results.SuiteRegression
	deltas   []float64 // per compared task, in head order
	diffs    []results.TaskDiff
	warnings []string
}

func compareSuite(baseRunID string, bs, hs *results.Suite, opts Options) suiteComparison {
	c := suiteComparison{reg: &results.SuiteRegression{BaselineRunID: baseRunID}}
	baseTasks := make(map[string]*results.Task, len(bs.Tasks))
	for i := range bs.Tasks {
		baseTasks[bs.Tasks[i].ID] = &bs.Tasks[i]
	}
	headTasks := make(map[string]bool, len(hs.Tasks))
	var added []results.TaskDiff
	for i := range hs.Tasks {
		ht := &hs.Tasks[i]
		headTasks[ht.ID] = true
		bt, ok := baseTasks[ht.ID]
		if !ok {
			c.reg.Added = append(c.reg.Added, ht.ID)
			added = append(added, results.TaskDiff{SuiteID: hs.ID, TaskID: ht.ID, Change: results.ChangeAdded})
			continue
		}
		d := results.TaskDiff{
			SuiteID:        hs.ID,
			TaskID:         ht.ID,
			ScoreDelta:     ht.Score - bt.Score,
			CostDeltaUsd:   ht.CostUsd - bt.CostUsd,
			LatencyDeltaMs: ht.LatencyMs - bt.LatencyMs,
			Levels:         levelChanges(bt, ht),
		}
		c.deltas = append(c.deltas, d.ScoreDelta)
		switch {
		case bt.Passed && !ht.Passed:
			d.Change = results.ChangeNewFailure
			c.reg.NewFailures++
			if !ht.PassAtK {
				c.reg.NewConsistentFailures++
			}
		case !bt.Passed && ht.Passed:
			d.Change = results.ChangeFixed
			c.reg.Fixed++
		case math.Abs(d.ScoreDelta) > changeEpsilon || len(d.Levels) > 0:
			d.Change = results.ChangeScore
		default:
			continue
		}
		c.diffs = append(c.diffs, d)
	}
	c.diffs = append(c.diffs, added...)
	for i := range bs.Tasks {
		id := bs.Tasks[i].ID
		if headTasks[id] || (opts.InSuites != nil && opts.InSuites(hs.ID, id)) {
			continue
		}
		c.reg.Removed = append(c.reg.Removed, id)
		c.diffs = append(c.diffs, results.TaskDiff{SuiteID: hs.ID, TaskID: id, Change: results.ChangeRemoved})
	}
	c.reg.ScoreDelta = mean(c.deltas)
	c.reg.PValue = McNemar(c.reg.NewFailures, c.reg.Fixed)
	if bs.Version != "" && bs.Version != hs.Version {
		c.warnings = append(c.warnings, fmt.Sprintf("suite %s: the baseline ran version %s, this run %s; compared task by task",
			hs.ID, bs.Version, hs.Version))
	}
	if n, m := len(c.reg.Added), len(c.reg.Removed); n > 0 || m > 0 {
		var moved []string
		if n > 0 {
			moved = append(moved, fmt.Sprintf("%d %s added", n, words.Plural(n, "task was", "tasks were")))
		}
		if m > 0 {
			moved = append(moved, fmt.Sprintf("%d %s removed", m, words.Plural(m, "task was", "tasks were")))
		}
		c.warnings = append(c.warnings, fmt.Sprintf("suite %s: since the baseline %s; compared task by task",
			hs.ID, strings.Join(moved, " and ")))
	}
	if bs.Trials > 0 && hs.Trials > 0 && bs.Trials != hs.Trials {
		c.warnings = append(c.warnings, fmt.Sprintf("suite %s: the baseline ran %d %s per task, this run %d; costs are totals over trials",
			hs.ID, bs.Trials, words.Plural(bs.Trials, "trial", "trials"), hs.Trials))
	}
	return c
}

// mean is the mean of xs, 0 for none. The sum is divided once, so n tasks
// that each lost a full point give exactly -n/total.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// SignTestOf runs the paired sign test over a regression's compared tasks:
// up and down count the tasks whose score rose or fell (the unchanged ones
// are ties, which the test leaves out, and are not listed in Tasks), and p
// is SignTest(up, down). It reads only the regression, so it can be
// computed again from any results.json.
func SignTestOf(r *results.Regression) (up, down int, p float64) {
	if r == nil {
		return 0, 0, 1
	}
	for _, d := range r.Tasks {
		if d.Change == results.ChangeAdded || d.Change == results.ChangeRemoved {
			continue
		}
		switch {
		case d.ScoreDelta > changeEpsilon:
			up++
		case d.ScoreDelta < -changeEpsilon:
			down++
		}
	}
	return up, down, SignTest(up, down)
}

// SuiteBaselineRunID is the baseline run id a suite of the run is compared
// against, as the openwop eval.started event names it; empty when the
// baseline does not have the suite.
func SuiteBaselineRunID(base *results.Run, suiteID string) string {
	if base == nil {
		return ""
	}
	for i := range base.Suites {
		if bs := &base.Suites[i]; bs.ID == suiteID {
			return baseRunID(base, bs)
		}
	}
	return ""
}
