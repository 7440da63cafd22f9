package gates

import (
	"slices"

	"github.com/evalgate/evalgate/results"
)

// tolerance absorbs float rounding when a mean or a sum of costs is
// compared with a bar, so that a mean of exactly 0.9 computed as
// 0.8999999999999999 still meets passScore 0.9.
const tolerance = 1e-9

// P95 returns the nearest-rank 95th percentile of latencies: the value at
// 1-based rank ceil(0.95·n) in ascending order, and 0 for no latencies.
func P95(ms []int64) int64 {
	n := len(ms)
	if n == 0 {
		return 0
	}
	sorted := slices.Clone(ms)
	slices.Sort(sorted)
	rank := (95*n + 99) / 100 // ceil(0.95·n) in integers, free of float rounding
	return sorted[rank-1]
}

// SuitePassed reports a suite's openwop `passed`: the aggregate score meets
// passScore, and the total cost and the p95 latency stay within their
// limits when the suite sets them.
func SuitePassed(th results.Thresholds, st results.Stats) bool {
	if st.AggregateScore+tolerance < th.PassScore {
		return false
	}
	if th.MaxCostUsd != nil && st.TotalCostUsd > *th.MaxCostUsd+tolerance {
		return false
	}
	if th.MaxP95LatencyMs != nil && st.P95LatencyMs > *th.MaxP95LatencyMs {
		return false
	}
	return true
}

// Aggregate computes the figures of a set of task results: the mean task
// score, the pass rate, the counts (a task with status error counts as
// errored), agent, judge and total cost, the p95 of task latencies and the
// findings by severity. An empty set gives zero stats.
func Aggregate(tasks []results.Task) results.Stats {
	var a aggregator
	for i := range tasks {
		a.add(&tasks[i])
	}
	return a.stats()
}

// Combine computes the run's figures over every task of every suite: the
// mean is over all tasks (not a mean of suite means) and the p95 over all
// task latencies.
func Combine(suites []results.Suite) results.Stats {
	var a aggregator
	for i := range suites {
		for j := range suites[i].Tasks {
			a.add(&suites[i].Tasks[j])
		}
	}
	return a.stats()
}

// aggregator accumulates task results into Stats.
type aggregator struct {
	st        results.Stats
	scores    float64
	latencies []int64
}

func (a *aggregator) add(t *results.Task) {
	a.st.TaskCount++
	a.scores += t.Score
	if t.Passed {
		a.st.PassedCount++
	}
	if t.Status == results.StatusError {
		a.st.ErroredCount++
	}
	a.st.AgentCostUsd += t.AgentCostUsd
	a.st.JudgeCostUsd += t.JudgeCostUsd
	a.st.UserCostUsd += t.UserCostUsd
	a.latencies = append(a.latencies, t.LatencyMs)
	for _, f := range t.Findings {
		a.st.Findings.Add(f.Severity)
	}
}

func (a *aggregator) stats() results.Stats {
	st := a.st
	st.TotalCostUsd = st.AgentCostUsd + st.JudgeCostUsd
	st.P95LatencyMs = P95(a.latencies)
	if st.TaskCount > 0 {
		st.AggregateScore = a.scores / float64(st.TaskCount)
		st.PassRate = float64(st.PassedCount) / float64(st.TaskCount)
	}
	return st
}
