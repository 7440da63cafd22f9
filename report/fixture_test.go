package report

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

func ptr[T any](v T) *T { return &v }

// refundsSuite is a suite result with one passing, one failing and one
// errored task, findings, a schema check and a regression.
func refundsSuite() results.Suite {
	return results.Suite{
		ID:         "acme.support.evals.refunds",
		Version:    "1.0.0",
		File:       "evals/refunds.yaml",
		RunID:      "run-refunds",
		ModelClass: "general",
		Modes:      []string{"golden", "adversarial"},
		Trials:     1,
		Thresholds: results.Thresholds{PassScore: 0.9, MaxCostUsd: ptr(0.5), MaxP95LatencyMs: ptr(int64(2000))},
		Passed:     false,
		Stats: results.Stats{
			AggregateScore: 0.5, PassRate: 1.0 / 3, PassedCount: 1, TaskCount: 3, ErroredCount: 1,
			TotalCostUsd: 0.0123, AgentCostUsd: 0.0103, JudgeCostUsd: 0.002, P95LatencyMs: 840,
			Findings: results.Findings{High: 1, Low: 1},
		},
		Regression: &results.SuiteRegression{
			BaselineRunID: "run-41", ScoreDelta: -0.25, NewFailures: 1, NewConsistentFailures: 1, Fixed: 0, PValue: 0.5,
			Added: []string{"late-fee"}, Removed: []string{"old-task"},
		},
		Tasks: []results.Task{
			{
				ID: "refund-window", File: "evals/refunds.yaml", Line: 12, Kind: "golden", Tags: []string{"smoke"},
				Status: results.StatusPassed, Score: 1, PassScore: 0.9, Passed: true, PassAtK: true, TrialsPassed: 1,
				LatencyMs: 420, CostUsd: 0.004, AgentCostUsd: 0.004, Tokens: results.Tokens{Input: 812, Output: 95},
				ToolCalls: 1, SchemaValid: ptr(true),
				Trials: []results.Trial{{
					Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true, LatencyMs: 420,
					AgentCostUsd: 0.004, Tokens: results.Tokens{Input: 812, Output: 95}, ToolCalls: 1, SchemaValid: ptr(true),
					Checks: []results.Check{{ID: "match", Kind: "exact", Weight: 1, Passed: true}},
				}},
			},
			{
				ID: "late-fee", File: "evals/refunds.yaml", Line: 31, Kind: "golden",
				Status: results.StatusFailed, Score: 0.5, PassScore: 0.9, TrialsPassed: 0,
				LatencyMs: 840, CostUsd: 0.0083, AgentCostUsd: 0.0063, JudgeCostUsd: 0.002,
				Tokens: results.Tokens{Input: 1200, Output: 210}, ToolCalls: 3, SchemaValid: ptr(false),
				FailedChecks: []string{"match", "no-refund-tool"},
				Findings: []results.Finding{
					{Kind: "unfixtured-tool-call", Severity: results.SeverityLow},
					{Kind: "unsafe-tool-call", Severity: results.SeverityHigh},
				},
				Trials: []results.Trial{{
					Trial: 1, Status: results.StatusFailed, Score: 0.5, LatencyMs: 840,
					AgentCostUsd: 0.0063, JudgeCostUsd: 0.002, Tokens: results.Tokens{Input: 1200, Output: 210},
					ToolCalls: 3, SchemaValid: ptr(false),
					Checks: []results.Check{
						{ID: "match", Kind: "json-match", Weight: 1, Passed: false, Reason: "mismatch"},
						{ID: "no-refund-tool", Kind: "toolNotCalled", Weight: 1, Passed: false, Reason: "called"},
						{ID: "rubric[0]", Kind: "criterion", Weight: 1, Passed: true, Judged: true},
					},
					Findings: []results.Finding{
						{Kind: "unfixtured-tool-call", Severity: results.SeverityLow},
						{Kind: "unsafe-tool-call", Severity: results.SeverityHigh},
					},
				}},
			},
			{
				ID: "slow-lookup", File: "evals/refunds.yaml", Line: 47, Kind: "rubric",
				Status: results.StatusError, ErrorKind: results.ErrTimeout, Score: 0, PassScore: 0.9,
				Trials: []results.Trial{{Trial: 1, Status: results.StatusError, ErrorKind: results.ErrTimeout, Checks: []results.Check{}}},
			},
		},
	}
}

// greetingSuite is a small suite that passed, with no thresholds of its own.
func greetingSuite() results.Suite {
	return results.Suite{
		ID: "acme.support.evals.greeting", Version: "2.1.0", File: "evals/greeting.json", RunID: "run-greeting",
		Modes: []string{"golden"}, Trials: 3,
		Thresholds: results.Thresholds{PassScore: 1},
		Passed:     true,
		Stats: results.Stats{
			AggregateScore: 1, PassRate: 1, PassedCount: 1, TaskCount: 1, TotalCostUsd: 0, P95LatencyMs: 1250,
		},
		Tasks: []results.Task{{
			ID: "hello", File: "evals/greeting.json", Line: 9, Kind: "golden",
			Status: results.StatusPassed, Score: 1, PassScore: 1, Passed: true, PassAtK: true, TrialsPassed: 3, LatencyMs: 1250,
			Trials: []results.Trial{
				{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true, LatencyMs: 1200, Checks: []results.Check{{ID: "match", Kind: "contains", Weight: 1, Passed: true}}},
				{Trial: 2, Status: results.StatusPassed, Score: 1, Passed: true, LatencyMs: 1250, Checks: []results.Check{{ID: "match", Kind: "contains", Weight: 1, Passed: true}}},
				{Trial: 3, Status: results.StatusPassed, Score: 1, Passed: true, LatencyMs: 1300, Checks: []results.Check{{ID: "match", Kind: "contains", Weight: 1, Passed: true}}},
			},
		}},
	}
}

// failingRun is a run of both suites in which two of three gates failed.
func failingRun() *results.Run {
	start := time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)
	return &results.Run{
		Schema:     results.Schema,
		RunID:      "run-42",
		Tool:       results.Tool{Name: "evalgate", Version: "0.3.0"},
		GitSHA:     "0123456789abcdef0123456789abcdef01234567",
		StartedAt:  start,
		FinishedAt: start.Add(93 * time.Second),
		Passed:     false,
		Stats: results.Stats{
			AggregateScore: 0.625, PassRate: 0.5, PassedCount: 2, TaskCount: 4, ErroredCount: 1,
			TotalCostUsd: 0.0123, AgentCostUsd: 0.0103, JudgeCostUsd: 0.002, P95LatencyMs: 1250,
			Findings: results.Findings{High: 1, Low: 1},
		},
		Gates: []results.Gate{
			{Expr: "aggregateScore >= 0.6", Passed: true, Values: map[string]any{"aggregateScore": 0.625}},
			{Expr: "regression.newFailures == 0", Passed: false, Values: map[string]any{"regression.newFailures": 1}},
			{Expr: "findings.critical + findings.high == 0", Default: true, Passed: false,
				Values: map[string]any{"findings.critical": 0, "findings.high": 1}},
		},
		Regression: &results.Regression{
			BaselineRunID: "run-41", BaselineFile: ".evalgate/baseline.json", ScoreDelta: -0.125,
			NewFailures: 1, NewConsistentFailures: 1, Fixed: 0, PValue: 0.5, CILow: -0.375, CIHigh: 0,
			Tasks: []results.TaskDiff{{
				SuiteID: "acme.support.evals.refunds", TaskID: "late-fee", Change: results.ChangeNewFailure,
				ScoreDelta: -0.5, CostDeltaUsd: 0.001, LatencyDeltaMs: 120,
			}},
		},
		Suites: []results.Suite{refundsSuite(), greetingSuite()},
	}
}

// compileTestSchema compiles a schema independently of the package's own
// compiled copy, as a consumer of the file would.
func compileTestSchema(t testing.TB, data []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	assert.NilError(t, err)
	c := jsonschema.NewCompiler()
	assert.NilError(t, c.AddResource("schema.json", doc))
	sch, err := c.Compile("schema.json")
	assert.NilError(t, err)
	return sch
}

// validate reports whether data is valid against sch.
func validate(t testing.TB, sch *jsonschema.Schema, data []byte) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	assert.NilError(t, err)
	return sch.Validate(doc)
}

// schemaEdit changes a valid document; wantErr is what validation must then
// report ("" when the document stays valid).
type schemaEdit struct {
	name    string
	edit    func(doc map[string]any)
	wantErr string
}

// checkSchemaEdits applies each edit to a fresh copy of the valid document
// doc and validates the result against sch.
func checkSchemaEdits(t *testing.T, sch *jsonschema.Schema, doc []byte, edits []schemaEdit) {
	t.Helper()
	run := func(t *testing.T, tc schemaEdit) {
		var d map[string]any
		assert.NilError(t, json.Unmarshal(doc, &d))
		tc.edit(d)
		edited, err := json.Marshal(d)
		assert.NilError(t, err)
		err = validate(t, sch, edited)
		if tc.wantErr == "" {
			assert.NilError(t, err)
			return
		}
		assert.ErrorContains(t, err, tc.wantErr)
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
