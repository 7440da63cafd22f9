package judges

import (
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

func TestAssert(t *testing.T) {
	type testCase struct {
		name  string
		check *suites.Check
		obs   Observation // Output defaults to the JSON string "{\"answer\":42}"
		want  string      // the reason; "" for a pass
	}
	e := func(src string) *suites.Check {
		return &suites.Check{Kind: suites.CheckExpr, Expr: src, Program: compileExpr(t, src)}
	}
	call := func(name, args string) fixtures.Call {
		return fixtures.Call{Name: name, Args: json.RawMessage(args), Result: json.RawMessage(`{"ok":true,"n":3}`)}
	}
	trace := []fixtures.Call{
		call("crm:lookup", `{"orderId":"A-17","verbose":true}`),
		call("kb:search", `{"q":"refund window"}`),
		call("crm:lookup", `{"orderId":"B-2"}`),
		{Name: "mail:send", Args: json.RawMessage(`{"to":"x"}`), Result: json.RawMessage(`"no fixture for tool mail:send"`), IsError: true},
	}
	run := func(t *testing.T, tc testCase) {
		obs := tc.obs
		if obs.Output == nil {
			obs.Output = json.RawMessage(`"{\"answer\":42}"`)
		}
		tc.check.ID, tc.check.Weight = "c1", 2
		checks, _ := Golden(goldenTask(nil, tc.check), &obs)
		want := []results.Check{{ID: "c1", Kind: tc.check.Kind, Weight: 2, Passed: tc.want == "", Reason: tc.want}}
		assert.Check(t, is.DeepEqual(want, checks), "checks")
	}
	testCases := []testCase{
		{name: "expr true", check: e(`fromJSON(output).answer == 42`)},
		{name: "expr false", check: e(`fromJSON(output).answer == 43`), want: "mismatch"},
		{name: "expr contains", check: e(`output contains "\"answer\":42"`)},
		{name: "expr matches", check: e(`output matches "^\\{\"answer\":\\d+\\}$"`)},
		{name: "expr string output stays a string", check: e(`type(output) == "string"`)},
		{name: "expr object output", check: e(`output.answer == 42 && output.tags[1] == "b"`), obs: Observation{Output: json.RawMessage(`{"answer":42.0,"tags":["a","b"]}`)}},
		{name: "expr null output", check: e(`output == nil`), obs: Observation{Output: json.RawMessage(`null`)}},
		{name: "expr input", check: e(`input.orderId == "A-17" && input.qty == 2`), obs: Observation{Input: json.RawMessage(`{"orderId":"A-17","qty":2}`)}},
		{name: "expr string input", check: e(`input startsWith "task"`), obs: Observation{Input: json.RawMessage(`"task t1"`)}},
		{name: "expr trace", check: e(`len(trace) == 4 && trace[0].name == "crm:lookup" && trace[0].args.orderId == "A-17" && trace[1].result.n == 3 && trace[3].isError`), obs: Observation{Trace: trace}},
		{name: "expr trace with a predicate", check: e(`any(trace, .name == "kb:search" && .args.q contains "refund")`), obs: Observation{Trace: trace}},
		{name: "expr toolCalls", check: e(`toolCalls == 4`), obs: Observation{Trace: trace}},
		{name: "expr latencyMs and costUsd", check: e(`latencyMs < 1500 && latencyMs == 1200 && costUsd <= 0.002`), obs: Observation{LatencyMs: 1200, CostUsd: 0.0015}},
		{name: "expr runtime error", check: e(`fromJSON(output).answer == 42`), obs: Observation{Output: json.RawMessage(`"not json"`)}, want: "expr-error"},
		{name: "expr member of a string", check: e(`output.answer == 42`), want: "expr-error"},
		{name: "expr not bool", check: e(`output`), want: "not-bool"},
		{name: "expr nil result is false", check: e(`input`), obs: Observation{Input: json.RawMessage(`null`)}, want: "mismatch"},
		{name: "expr number result", check: e(`toolCalls`), want: "not-bool"},
		{name: "expr output not JSON", check: e(`true`), obs: Observation{Output: json.RawMessage(`oops`)}, want: "invalid-json"},
		{name: "expr compiled when it runs", check: &suites.Check{Kind: suites.CheckExpr, Expr: `fromJSON(output).answer == 42`}},
		{name: "expr that does not compile", check: &suites.Check{Kind: suites.CheckExpr, Expr: "output =="}, want: "expr-error"},
		{name: "expr without source", check: &suites.Check{Kind: suites.CheckExpr}, want: "expr-error"},
		{name: "toolCalled", check: &suites.Check{Kind: suites.CheckToolCalled, Tool: "kb:search"}, obs: Observation{Trace: trace}},
		{name: "toolCalled not called", check: &suites.Check{Kind: suites.CheckToolCalled, Tool: "kb:write"}, obs: Observation{Trace: trace}, want: "not-called"},
		{name: "toolCalled empty trace", check: &suites.Check{Kind: suites.CheckToolCalled, Tool: "kb:search"}, want: "not-called"},
		{name: "toolCalled args subset of some call", check: &suites.Check{Kind: suites.CheckToolCalled, Tool: "crm:lookup", Args: json.RawMessage(`{"orderId":"B-2"}`)}, obs: Observation{Trace: trace}},
		{name: "toolCalled args subset ignores extra keys", check: &suites.Check{Kind: suites.CheckToolCalled, Tool: "crm:lookup", Args: json.RawMessage(`{"verbose":true}`)}, obs: Observation{Trace: trace}},
		{name: "toolCalled args of no call", check: &suites.Check{Kind: suites.CheckToolCalled, Tool: "crm:lookup", Args: json.RawMessage(`{"orderId":"C-9"}`)}, obs: Observation{Trace: trace}, want: "not-called"},
		{name: "toolCalled args of another tool", check: &suites.Check{Kind: suites.CheckToolCalled, Tool: "crm:lookup", Args: json.RawMessage(`{"q":"refund window"}`)}, obs: Observation{Trace: trace}, want: "not-called"},
		{name: "toolNotCalled", check: &suites.Check{Kind: suites.CheckToolNotCalled, Tool: "kb:write"}, obs: Observation{Trace: trace}},
		{name: "toolNotCalled called", check: &suites.Check{Kind: suites.CheckToolNotCalled, Tool: "mail:send"}, obs: Observation{Trace: trace}, want: "called"},
		{name: "toolOrder", check: &suites.Check{Kind: suites.CheckToolOrder, Order: []string{"crm:lookup", "kb:search", "mail:send"}}, obs: Observation{Trace: trace}},
		{name: "toolOrder uses first calls", check: &suites.Check{Kind: suites.CheckToolOrder, Order: []string{"kb:search", "crm:lookup"}}, obs: Observation{Trace: trace}, want: "out-of-order"},
		{name: "toolOrder with a tool not called", check: &suites.Check{Kind: suites.CheckToolOrder, Order: []string{"crm:lookup", "kb:write"}}, obs: Observation{Trace: trace}, want: "not-called"},
		{name: "toolOrder reversed", check: &suites.Check{Kind: suites.CheckToolOrder, Order: []string{"mail:send", "crm:lookup"}}, obs: Observation{Trace: trace}, want: "out-of-order"},
		{name: "maxToolCalls at the limit", check: &suites.Check{Kind: suites.CheckMaxToolCalls, MaxToolCalls: 4}, obs: Observation{Trace: trace}},
		{name: "maxToolCalls over", check: &suites.Check{Kind: suites.CheckMaxToolCalls, MaxToolCalls: 3}, obs: Observation{Trace: trace}, want: "over-limit"},
		{name: "maxToolCalls zero with no calls", check: &suites.Check{Kind: suites.CheckMaxToolCalls, MaxToolCalls: 0}},
		{name: "maxLatencyMs at the limit", check: &suites.Check{Kind: suites.CheckMaxLatencyMs, MaxLatencyMs: 500}, obs: Observation{LatencyMs: 500}},
		{name: "maxLatencyMs over", check: &suites.Check{Kind: suites.CheckMaxLatencyMs, MaxLatencyMs: 500}, obs: Observation{LatencyMs: 501}, want: "over-limit"},
		{name: "maxCostUsd under", check: &suites.Check{Kind: suites.CheckMaxCostUsd, MaxCostUsd: 0.01}, obs: Observation{CostUsd: 0.0099}},
		{name: "maxCostUsd float rounding", check: &suites.Check{Kind: suites.CheckMaxCostUsd, MaxCostUsd: 0.3}, obs: Observation{CostUsd: 0.1 + 0.2}},
		{name: "maxCostUsd over", check: &suites.Check{Kind: suites.CheckMaxCostUsd, MaxCostUsd: 0.01}, obs: Observation{CostUsd: 0.0101}, want: "over-limit"},
		{name: "unknown kind", check: &suites.Check{Kind: "toolMaybe"}, want: "unsupported"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestGoldenWeightsToScore(t *testing.T) {
	type testCase struct {
		name   string
		output string
		want   float64
	}
	task := goldenTask(newMatch(t, "exact", `"yes"`),
		&suites.Check{ID: "a", Kind: suites.CheckExpr, Weight: 2, Program: compileExpr(t, `output startsWith "y"`)},
		&suites.Check{ID: "b", Kind: suites.CheckExpr, Weight: 0.5, Program: compileExpr(t, `len(output) <= 3`)},
		&suites.Check{ID: "c", Kind: suites.CheckMaxToolCalls, Weight: 0.5, MaxToolCalls: 0},
	)
	run := func(t *testing.T, tc testCase) {
		checks, _ := Golden(task, &Observation{Output: json.RawMessage(tc.output)})
		got := Score(checks)
		assert.Check(t, got == tc.want, "Score = %v, want %v (checks %+v)", got, tc.want, checks)
	}
	testCases := []testCase{
		{name: "all pass", output: `"yes"`, want: 1},
		{name: "match fails", output: `"yep"`, want: 3.0 / 4},
		{name: "match and a fail", output: `"yeah"`, want: 2.5 / 4},
		{name: "only the tool limit holds", output: `"no way"`, want: 0.5 / 4},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestRubricTaskChecksOnlySchema(t *testing.T) {
	task := &suites.Task{ID: "r", Expected: suites.Expected{
		Kind:   suites.KindRubric,
		Rubric: []suites.Criterion{{Criterion: "polite", Weight: 1}},
		Assert: []*suites.Check{{ID: "x", Kind: suites.CheckMaxToolCalls, Weight: 1}},
	}}
	checks, schemaValid := Golden(task, &Observation{Output: json.RawMessage(`"hi"`)})
	assert.Check(t, len(checks) == 0 && schemaValid == nil, "got checks %+v, schemaValid %v; want none", checks, schemaValid)
}

// BenchmarkGoldenBench judges one task of the shared benchmark workload:
// an exact match and three expression assertions over a plain agent's
// string output.
func BenchmarkGoldenBench(b *testing.B) {
	line := `{"id":"t7","answer":1093,"text":"The sum of 512 and 581 is 1093"}`
	value, _ := json.Marshal(line)
	task := goldenTask(&suites.Match{Strategy: suites.StrategyExact, Value: value},
		&suites.Check{ID: "assert[0]", Kind: suites.CheckExpr, Weight: 1, Program: compileExpr(b, `output contains "\"answer\":1093"`)},
		&suites.Check{ID: "assert[1]", Kind: suites.CheckExpr, Weight: 1, Program: compileExpr(b, `output matches "^\\{\"id\":\"t7\",\"answer\":\\d+,"`)},
		&suites.Check{ID: "assert[2]", Kind: suites.CheckExpr, Weight: 1, Program: compileExpr(b, `fromJSON(output).answer == 1093`)},
	)
	obs := &Observation{Input: json.RawMessage(`"task t7: add 512 581"`), Output: value, LatencyMs: 3}
	b.ReportAllocs()
	for b.Loop() {
		checks, _ := Golden(task, obs)
		if Score(checks) != 1 {
			b.Fatalf("checks failed: %+v", checks)
		}
	}
}
