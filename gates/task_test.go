package gates

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
)

// TestAggregateTrials: a task's score is the mean of its trials', it
// passes only when every trial passes (pass^k), and an errored trial makes
// it an error.
func TestAggregateTrials(t *testing.T) {
	valid, invalid := true, false
	pass := results.Trial{Status: results.StatusPassed, Passed: true, Score: 1, LatencyMs: 100, AgentCostUsd: 0.01, Tokens: results.Tokens{Input: 10, Output: 5}, ToolCalls: 2, SchemaValid: &valid,
		Checks: []results.Check{{ID: "match", Passed: true}}}
	fail := results.Trial{Status: results.StatusFailed, Score: 0, LatencyMs: 200, AgentCostUsd: 0.01, SchemaValid: &invalid,
		Checks:   []results.Check{{ID: "match", Passed: false}, {ID: "b", Passed: false}},
		Findings: []results.Finding{{Kind: "unfixtured-tool-call", Severity: "low"}}}
	errored := results.Trial{Status: results.StatusError, ErrorKind: results.ErrTimeout, LatencyMs: 300}

	type testCase struct {
		name   string
		trials []results.Trial
		check  func(t *testing.T, got results.Task)
	}
	run := func(t *testing.T, tc testCase) {
		got := results.Task{ID: "t", PassScore: 0.5, Trials: tc.trials}
		AggregateTask(&got)
		tc.check(t, got)
	}
	for _, tc := range []testCase{
		{name: "all pass: pass^k and pass@k", trials: []results.Trial{pass, pass, pass}, check: func(t *testing.T, got results.Task) {
			assert.Check(t, got.Passed && got.PassAtK && got.TrialsPassed == 3 && got.Status == results.StatusPassed && got.Score == 1, "got %+v", got)
			assert.Check(t, got.CostUsd == 0.03 && got.Tokens.Input == 30 && got.ToolCalls == 6 && got.LatencyMs == 100 && *got.SchemaValid, "sums: cost %v tokens %v calls %d latency %d", got.CostUsd, got.Tokens, got.ToolCalls, got.LatencyMs)
		}},
		{name: "flaky: mean score, no pass^k, pass@k", trials: []results.Trial{pass, fail, pass, fail, pass}, check: func(t *testing.T, got results.Task) {
			assert.Check(t, !got.Passed && got.PassAtK && got.TrialsPassed == 3 && got.Status == results.StatusFailed && got.Score == 0.6, "got passed=%v passAtK=%v trialsPassed=%d status=%s score=%v", got.Passed, got.PassAtK, got.TrialsPassed, got.Status, got.Score)
			assert.Check(t, is.DeepEqual([]string{"b", "match"}, got.FailedChecks), "failed checks")
			assert.Check(t, !*got.SchemaValid && len(got.Findings) == 1 && got.LatencyMs == 140, "schemaValid %v findings %v latency %d", *got.SchemaValid, got.Findings, got.LatencyMs)
		}},
		{name: "an errored trial makes the task an error", trials: []results.Trial{pass, errored}, check: func(t *testing.T, got results.Task) {
			assert.Check(t, got.Status == results.StatusError && got.ErrorKind == results.ErrTimeout && !got.Passed && got.Score == 0.5, "got status=%s kind=%s passed=%v score=%v", got.Status, got.ErrorKind, got.Passed, got.Score)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
