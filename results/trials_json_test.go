package results_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// TestAppendTrialsIsEncodingJSON checks that appendTrials writes what
// encoding/json writes, for trials with every field set and with none.
func TestAppendTrialsIsEncodingJSON(t *testing.T) {
	type testCase struct {
		name   string
		trials []results.Trial
	}
	run := func(t *testing.T, tc testCase) {
		want, err := results.EncodeTrials(tc.trials)
		assert.NilError(t, err)
		got, err := results.AppendTrials(tc.trials)
		assert.NilError(t, err)
		assert.Equal(t, string(got), string(want))
	}
	yes, one, three := true, 1, 3
	every := results.Trial{
		Trial: 2, Status: results.StatusError, ErrorKind: results.ErrTimeout, ErrorMessage: "timed out <after> 5s & \"more\"\n\tà\u2028\x01\xff\\",
		Score: 0.25, Passed: true, LatencyMs: 1234, AgentCostUsd: 1e-7, JudgeCostUsd: 2.5e21, UserCostUsd: 0.125,
		Tokens: results.Tokens{Input: 10, Output: 20}, ToolCalls: 3, SchemaValid: &yes,
		Tools: []results.ToolUse{
			{Name: "search", Calls: 3, Matched: 2, Errors: 1, Repeats: 1, MaxSame: 2, SchemaViolations: 1, SideEffectRepeats: 1},
			{Name: "send"},
		},
		Checks: []results.Check{
			{ID: "rubric[0]", Kind: "criterion", Weight: 0.5, Passed: true, Reason: "low", Judged: true, Criterion: &one, Level: &three, Scale: &results.Scale{Min: 1, Max: 4}},
			{ID: "match", Kind: "exact", Weight: 1},
		},
		Findings:        []results.Finding{{Kind: "pii", Severity: results.SeverityHigh}, {Kind: "x", Severity: results.SeverityLow}},
		LinesAfterFinal: 2, UsageReported: true,
		Spans: &results.AgentTrace{
			Count: 3, Dropped: 4, Invalid: 5, Refused: 6, LLMCalls: 1, ToolCalls: 1, Errors: 1,
			Tokens: results.Tokens{Input: 7, Output: 8}, DurationMs: 12.345, ModelMs: 1.5, ToolMs: 0.001,
			Events: []results.EventCount{{Name: "tool.called", Count: 2}, {Name: "<é>", Count: 1}},
			List: []results.AgentSpan{
				{Name: "chat m", Kind: "client", Parent: -1, Status: "error", StartMs: 0, DurationMs: 3.25, Operation: "chat", Model: "m",
					Tool: "t", Agent: "a", ErrorType: "timeout", InputTokens: 7, OutputTokens: 8, Events: []string{"x", "\u2028"}},
				{Parent: 0},
			},
			Omitted: 9,
		},
	}
	var fixture []results.Trial
	for _, s := range append(resultstest.Full().Suites, resultstest.Suite1k()) {
		for _, task := range s.Tasks {
			fixture = append(fixture, task.Trials...)
		}
	}
	for _, tc := range []testCase{
		{name: "every field", trials: []results.Trial{every, {Checks: []results.Check{}}}},
		{name: "every field, filled by reflection", trials: []results.Trial{filled[results.Trial]()}},
		{name: "no field", trials: []results.Trial{{}}},
		{name: "an empty trace", trials: []results.Trial{{Spans: &results.AgentTrace{}}}},
		{name: "negative zero and tiny numbers", trials: []results.Trial{{Score: math.Copysign(0, -1), AgentCostUsd: 1e-6, JudgeCostUsd: 123456789.125, Checks: []results.Check{{Weight: 1e20}}}}},
		{name: "none", trials: []results.Trial{}},
		{name: "null", trials: nil},
		{name: "the fixtures", trials: fixture},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestAppendTaskIsEncodingJSON checks that appendTask writes what
// encoding/json writes, for tasks with every field set and with none.
func TestAppendTaskIsEncodingJSON(t *testing.T) {
	yes, no, two := true, false, 2
	every := results.Task{
		ID: "t-1", File: "evals/a b.yaml", Line: 7, Kind: "rubric", Tags: []string{"x", "é\u2028"},
		Metadata: &results.Metadata{Domain: "support", Complexity: 3, AutonomyLevel: &two, Category: "refunds"},
		Status:   results.StatusError, ErrorKind: results.ErrTimeout, ErrorMessage: "timed out <after> 5s & \"more\"\n\x01\xff",
		Score: 0.125, PassScore: 0.8, Passed: true, PassAtK: true, TrialsPassed: 2, LatencyMs: 1234,
		CostUsd: 1e-7, AgentCostUsd: 2.5e21, JudgeCostUsd: 0.5, UserCostUsd: 0.25,
		Tokens: results.Tokens{Input: 1, Output: 2}, ToolCalls: 4, SchemaValid: &no,
		FailedChecks: []string{"match", "rubric[0]"}, Levels: []results.Level{{Check: "tone", Criterion: 1, Level: 3}},
		Findings:        []results.Finding{{Kind: "pii", Severity: results.SeverityHigh}},
		LinesAfterFinal: 1, Faults: []string{"error", "delay"}, Idempotent: &yes,
		Trials: []results.Trial{{Trial: 1, Status: results.StatusPassed, Checks: []results.Check{{ID: "match", Kind: "exact", Weight: 1, Passed: true}}}},
	}
	var fixture []results.Task
	for _, s := range append(resultstest.Full().Suites, resultstest.Suite1k()) {
		fixture = append(fixture, s.Tasks...)
	}
	for name, tasks := range map[string][]results.Task{
		"every field":                       {every},
		"every field, filled by reflection": {filled[results.Task]()},
		"no field":                          {{}},
		"empty metadata":                    {{Metadata: &results.Metadata{}, Trials: []results.Trial{}, Tags: []string{}}},
		"negative zero":                     {{UserCostUsd: math.Copysign(0, -1), Score: math.Copysign(0, -1)}},
		"the fixtures":                      fixture,
	} {
		t.Run(name, func(t *testing.T) {
			for i := range tasks {
				want, err := results.EncodeTask(&tasks[i])
				assert.NilError(t, err)
				got, err := results.AppendTask(&tasks[i])
				assert.NilError(t, err)
				assert.Equal(t, string(got), string(want))
			}
		})
	}
}

// filled returns a T with every field set, through every pointer and
// list, to a value that is not its zero value: a field added to a task or
// a trial is then in the fixtures the reader and the writer are held to
// encoding/json with, with no edit of the tests.
func filled[T any]() T {
	var v T
	fill(reflect.ValueOf(&v).Elem(), 1)
	return v
}

func fill(v reflect.Value, seed int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d-%s", seed, v.Type().Name()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(seed))
	case reflect.Float64:
		v.SetFloat(float64(seed) + 0.125)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), seed+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), seed+i+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed+i)
			}
		}
	default:
		panic(fmt.Sprintf("filled: a field of kind %s: add it here", v.Kind()))
	}
}
