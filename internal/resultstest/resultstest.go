// Package resultstest holds runs for tests of results.json and of what
// renders it (package report): a suite of each kind of task, a failing run,
// a run with every field of the model set, a 1,000-task suite, and checks
// of a document against a JSON Schema compiled as a consumer would.
package resultstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

// Ptr returns a pointer to v, for the optional fields of the model.
func Ptr[T any](v T) *T { return &v }

// Refunds is a suite result with one passing, one failing and one
// errored task, findings, a schema check and a regression.
func Refunds() results.Suite {
	return results.Suite{
		ID:         "acme.support.evals.refunds",
		Version:    "1.0.0",
		File:       "evals/refunds.yaml",
		RunID:      "run-refunds",
		ModelClass: "general",
		Modes:      []string{"golden", "adversarial"},
		Trials:     1,
		Thresholds: results.Thresholds{PassScore: 0.9, MaxCostUsd: Ptr(0.5), MaxP95LatencyMs: Ptr(int64(2000))},
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
				ToolCalls: 1, SchemaValid: Ptr(true),
				Trials: []results.Trial{{
					Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true, LatencyMs: 420,
					AgentCostUsd: 0.004, Tokens: results.Tokens{Input: 812, Output: 95}, ToolCalls: 1, SchemaValid: Ptr(true),
					Checks: []results.Check{{ID: "match", Kind: "exact", Weight: 1, Passed: true}},
				}},
			},
			{
				ID: "late-fee", File: "evals/refunds.yaml", Line: 31, Kind: "golden",
				Status: results.StatusFailed, Score: 0.5, PassScore: 0.9, TrialsPassed: 0,
				LatencyMs: 840, CostUsd: 0.0083, AgentCostUsd: 0.0063, JudgeCostUsd: 0.002,
				Tokens: results.Tokens{Input: 1200, Output: 210}, ToolCalls: 3, SchemaValid: Ptr(false),
				FailedChecks: []string{"match", "no-refund-tool"},
				Findings: []results.Finding{
					{Kind: "unfixtured-tool-call", Severity: results.SeverityLow},
					{Kind: "unsafe-tool-call", Severity: results.SeverityHigh},
				},
				Trials: []results.Trial{{
					Trial: 1, Status: results.StatusFailed, Score: 0.5, LatencyMs: 840,
					AgentCostUsd: 0.0063, JudgeCostUsd: 0.002, Tokens: results.Tokens{Input: 1200, Output: 210},
					ToolCalls: 3, SchemaValid: Ptr(false),
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

// Greeting is a small suite that passed, with no thresholds of its own.
func Greeting() results.Suite {
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

// Failing is a run of both suites in which two of three gates failed.
func Failing() *results.Run {
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
		Suites: []results.Suite{Refunds(), Greeting()},
	}
}

// CompileSchema compiles a schema independently of the package's own
// compiled copy, as a consumer of the file would.
func CompileSchema(t testing.TB, data []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	assert.NilError(t, err)
	c := jsonschema.NewCompiler()
	assert.NilError(t, c.AddResource("schema.json", doc))
	sch, err := c.Compile("schema.json")
	assert.NilError(t, err)
	return sch
}

// Validate reports whether data is valid against sch.
func Validate(t testing.TB, sch *jsonschema.Schema, data []byte) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	assert.NilError(t, err)
	return sch.Validate(doc)
}

// SchemaEdit changes a valid document; WantErr is what validation must then
// report ("" when the document stays valid).
type SchemaEdit struct {
	Name    string
	Edit    func(doc map[string]any)
	WantErr string
}

// CheckSchemaEdits applies each edit to a fresh copy of the valid document
// doc and validates the result against sch.
func CheckSchemaEdits(t *testing.T, sch *jsonschema.Schema, doc []byte, edits []SchemaEdit) {
	t.Helper()
	run := func(t *testing.T, tc SchemaEdit) {
		var d map[string]any
		assert.NilError(t, json.Unmarshal(doc, &d))
		tc.Edit(d)
		edited, err := json.Marshal(d)
		assert.NilError(t, err)
		err = Validate(t, sch, edited)
		if tc.WantErr == "" {
			assert.NilError(t, err)
			return
		}
		assert.ErrorContains(t, err, tc.WantErr)
	}
	for _, tc := range edits {
		t.Run(tc.Name, func(t *testing.T) { run(t, tc) })
	}
}

// Full is Failing with every optional field of the model set, so that
// validating it proves the schema describes every field.
func Full() *results.Run {
	r := Failing()
	r.Interrupted = true
	r.Shard = &results.Shard{Index: 2, Count: 4, Balanced: true, PlannedMs: 61_000}
	r.Shards = []results.ShardRun{{Index: 1, PlannedMs: 60_000, WallMs: 63_500}, {Index: 2, PlannedMs: 61_000, WallMs: 60_250}}
	r.Selection = &results.Selection{Tasks: []string{"refund-window", "lost-parcel"}, Tags: []string{"smoke"}, Mode: "golden"}
	r.Judge = &results.JudgeInfo{ID: "openai:judge-model", Calibrated: true, Agreement: Ptr(0.86), CacheRejected: 2}
	r.Gates[2].Error = "unknown name findings.severe"
	r.Regression.Warnings = []string{"baseline ran a different suite version"}
	r.Regression.Fixed = 1
	r.Regression.CIHigh = 0.125
	r.Findings = results.Findings{Critical: 1, High: 1, Medium: 1, Low: 1}
	r.Stats.UserCostUsd = 0.003
	r.Assessment = Assessment()
	s := &r.Suites[0]
	s.Findings = r.Findings
	s.Regression.Fixed = 1
	s.Tools = &results.SuiteTools{Declared: 2, WithSchema: 1, SideEffect: 1}
	s.Tasks[2].Tags = []string{"slow"}
	s.Tasks[2].FailedChecks = []string{"rubric[0]"}
	s.Tasks[2].Findings = []results.Finding{{Kind: "canary-leak", Severity: results.SeverityCritical}}
	s.Tasks[2].SchemaValid = Ptr(false)
	s.Tasks[2].PassAtK = true
	s.Tasks[2].TrialsPassed = 1
	s.Tasks[2].LatencyMs = 120000
	s.Tasks[2].CostUsd = 0.01
	s.Tasks[2].AgentCostUsd = 0.01
	s.Tasks[2].JudgeCostUsd = 0.001
	s.Tasks[2].Tokens = results.Tokens{Input: 1, Output: 2}
	s.Tasks[2].ToolCalls = 4
	s.Tasks[2].Passed = true
	s.Tasks[2].Score = 0.1
	s.Tasks[2].ErrorMessage = "timed out after 2m"
	s.Tasks[2].LinesAfterFinal = 2
	s.Tasks[2].Faults = []string{"raw", "timeout"}
	s.Tasks[2].Idempotent = Ptr(false)
	s.Tasks[2].Flaky = results.FlakyKnown
	r.History = &results.History{Store: "dir:.evalgate/history", Runs: 2, Skipped: 1, NewFailures: 2, NewFailuresNotFlaky: 1, KnownFlaky: 1,
		Suites: []results.SuiteHistory{{SuiteID: s.ID, NewFailures: 2, NewFailuresNotFlaky: 1, Trend: []results.TrendPoint{
			{RunID: "0f3e5a1c9b2d4e6f8a0b1c2d3e4f5a6b", StartedAt: r.StartedAt.Add(-48 * time.Hour), Score: 0.75, PassRate: 0.5, CostUsd: 0.02, P95LatencyMs: 1300},
			{RunID: "1a2b3c4d5e6f708192a3b4c5d6e7f809", StartedAt: r.StartedAt.Add(-24 * time.Hour), Score: 0.5, PassRate: 0.25, CostUsd: 0.03, P95LatencyMs: 1500},
		}}}}
	r.Health = &results.Health{Passed: false, Message: "exit status 1"}
	r.Trust = &results.Trust{Score: 78, Level: 3, LevelName: "Autonomous", Dimensions: results.TrustDimensions{
		ContractClarity: 16, Idempotency: 15, Observability: 17, ErrorContainment: 15, Governance: 15,
	}, BaselineLevel: Ptr(4), BaselineScore: Ptr(91.5)}
	s.Tasks[2].Trials[0] = results.Trial{
		Trial: 1, Status: results.StatusError, ErrorKind: results.ErrTimeout, ErrorMessage: "timed out after 2m", LinesAfterFinal: 2, Score: 0.1, Passed: true,
		LatencyMs: 120000, AgentCostUsd: 0.01, JudgeCostUsd: 0.001, Tokens: results.Tokens{Input: 1, Output: 2},
		ToolCalls: 4, SchemaValid: Ptr(false), UsageReported: true,
		Checks:   []results.Check{{ID: "rubric[0]", Kind: "criterion", Weight: 0.5, Passed: true, Reason: "not-met", Judged: true}},
		Findings: []results.Finding{{Kind: "canary-leak", Severity: results.SeverityCritical}},
	}
	return r
}

// Assessment is an assessment summary with every field set: a
// provisional Proficient performance that rose by 0.2 (flagged) and a
// Narrow capability with one dimension measured.
func Assessment() *results.Assessment {
	return &results.Assessment{
		ID: "asm-7", TaskCount: 4, BaselineRunID: "run-41", TasksAdded: 1,
		Performance: results.AssessmentAxis{
			Score: Ptr(0.6225), Tier: "Proficient", Provisional: true,
			Dimensions: map[string]*float64{"task_completion_rate": Ptr(0.625), "accuracy": Ptr(0.55),
				"speed": Ptr(0.875), "consistency": nil, "review_compliance": Ptr(0.5)},
			Reasons: map[string]string{"consistency": "no group of tasks (category, else domain, by complexity) holds 5 tasks; the largest holds 4"},
			Delta:   Ptr(0.2), Flagged: true,
		},
		Capability: results.AssessmentAxis{
			Score: Ptr(0.25), Tier: "Narrow", Provisional: true,
			Dimensions: map[string]*float64{"domain_breadth": nil, "complexity_ceiling": Ptr(0.25),
				"tool_proficiency": nil, "autonomy_level": nil, "learning_rate": nil,
				"delegation_capability": nil, "orchestration_skills": nil},
			Reasons: map[string]string{"domain_breadth": "no task carries a domain", "tool_proficiency": "no tool was called",
				"autonomy_level": "no task carries autonomyLevel", "learning_rate": "no history",
				"delegation_capability": "0 tasks of category delegation; 3 needed",
				"orchestration_skills":  "0 tasks of category orchestration; 3 needed"},
			Delta: Ptr(-0.05),
		},
	}
}

// Suite1k is Refunds with 1,000 copies of its second task.
func Suite1k() results.Suite {
	s := Refunds()
	template := s.Tasks[1]
	s.Tasks = make([]results.Task, 1000)
	for i := range s.Tasks {
		s.Tasks[i] = template
		s.Tasks[i].ID = fmt.Sprintf("task-%04d", i)
	}
	s.TaskCount = len(s.Tasks)
	return s
}
