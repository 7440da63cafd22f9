package gates

import (
	"slices"

	"github.com/evalgate/evalgate/results"
)

// AggregateTask folds a task's trials, t.Trials, into its figures and
// verdict: the score is the mean, the task passes only when every trial
// passes (pass^k), and an errored trial makes the task an error. The
// task's own fields (id, file, kind, tags, pass bar...) are as the runner
// recorded them.
func AggregateTask(t *results.Task) {
	t.Passed = true
	var latency int64
	failed := map[string]bool{}
	allValid, known := true, false
	for _, tr := range t.Trials {
		t.Score += tr.Score
		latency += tr.LatencyMs
		t.AgentCostUsd += tr.AgentCostUsd
		t.JudgeCostUsd += tr.JudgeCostUsd
		t.UserCostUsd += tr.UserCostUsd
		t.Tokens.Input += tr.Tokens.Input
		t.Tokens.Output += tr.Tokens.Output
		t.ToolCalls += tr.ToolCalls
		if tr.Passed {
			t.TrialsPassed++
			t.PassAtK = true
		} else {
			t.Passed = false
		}
		if tr.Status == results.StatusError && t.ErrorKind == "" {
			t.ErrorKind, t.ErrorMessage = tr.ErrorKind, tr.ErrorMessage
		}
		t.LinesAfterFinal += tr.LinesAfterFinal
		for _, c := range tr.Checks {
			if !c.Passed {
				failed[c.ID] = true
			}
		}
		if tr.SchemaValid != nil {
			known = true
			allValid = allValid && *tr.SchemaValid
		}
		t.Findings = append(t.Findings, tr.Findings...)
	}
	n := float64(len(t.Trials))
	t.Score /= n
	t.LatencyMs = int64(float64(latency)/n + 0.5)
	t.CostUsd = t.AgentCostUsd + t.JudgeCostUsd
	t.Findings = results.DedupeFindings(t.Findings)
	if known {
		t.SchemaValid = &allValid
	}
	for id := range failed {
		t.FailedChecks = append(t.FailedChecks, id)
	}
	slices.Sort(t.FailedChecks)
	t.Levels = results.TaskLevels(t.Trials)
	switch {
	case t.ErrorKind != "":
		t.Status = results.StatusError
		t.Passed = false
	case t.Passed:
		t.Status = results.StatusPassed
	default:
		t.Status = results.StatusFailed
	}
}

// AggregateSuite computes a finished suite's figures from its tasks
// (Aggregate) and its verdict from its thresholds (SuitePassed).
func AggregateSuite(s *results.Suite) {
	s.Stats = Aggregate(s.Tasks)
	s.Passed = SuitePassed(s.Thresholds, s.Stats)
}

// AggregateRun computes the figures and verdict of every suite of a run
// put together from parts (a merge of shards), then the run's figures
// (Combine).
func AggregateRun(run *results.Run) {
	for i := range run.Suites {
		AggregateSuite(&run.Suites[i])
	}
	run.Stats = Combine(run.Suites)
}
