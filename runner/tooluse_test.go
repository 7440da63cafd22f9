package runner

import (
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

func TestToolUse(t *testing.T) {
	call := func(name, args string, fixture int, isError bool) fixtures.Call {
		return fixtures.Call{Name: name, Args: json.RawMessage(args), Fixture: fixture, IsError: isError}
	}
	tests := []struct {
		name  string
		trace []fixtures.Call
		want  []results.ToolUse
	}{
		{"no calls", nil, nil},
		{
			"one matched call",
			[]fixtures.Call{call("lookup", `{"id":1}`, 0, false)},
			[]results.ToolUse{{Name: "lookup", Calls: 1, Matched: 1, MaxSame: 1}},
		},
		{
			// Key order and number spelling do not make another call.
			"repeats compare arguments as JSON values",
			[]fixtures.Call{
				call("lookup", `{"id":1,"x":"a"}`, 0, false),
				call("lookup", `{"x":"a","id":1.0}`, 0, false),
				call("lookup", `{"id":2}`, -1, true),
				call("lookup", `{"id":1,"x":"a"}`, 1, true),
			},
			[]results.ToolUse{{Name: "lookup", Calls: 4, Matched: 3, Errors: 2, Repeats: 2, MaxSame: 3}},
		},
		{
			"tools sorted by name, counted apart",
			[]fixtures.Call{
				call("search", `{}`, -1, true),
				call("fetch", `{}`, 0, false),
				call("search", `{}`, -1, true),
			},
			[]results.ToolUse{
				{Name: "fetch", Calls: 1, Matched: 1, MaxSame: 1},
				{Name: "search", Calls: 2, Errors: 2, Repeats: 1, MaxSame: 2},
			},
		},
		{
			// Names the agent chose are counted under one placeholder,
			// their repeats still told apart by name.
			"undeclared tools",
			[]fixtures.Call{
				call("x\n::error::forged\x1b[31m<script>", `{}`, -1, true),
				call("rm", `{}`, -1, true),
				call("rm", `{}`, -1, true),
				call("fixtured", `{}`, 0, false),
			},
			[]results.ToolUse{
				{Name: results.UndeclaredTool, Calls: 3, Errors: 3, Repeats: 1, MaxSame: 2},
				{Name: "fixtured", Calls: 1, Matched: 1, MaxSame: 1},
			},
		},
		{
			// "refund" is declared sideEffect: its repeats are duplicate side effects.
			"side effects and schema violations",
			[]fixtures.Call{
				call("refund", `{"id":1}`, 0, false),
				call("refund", `{"id":1}`, 0, false),
				{Name: "refund", Args: json.RawMessage(`{"id":"x"}`), Fixture: 0, ArgsInvalid: true},
				call("search", `{}`, 0, false),
				call("search", `{}`, 0, false),
			},
			[]results.ToolUse{
				{Name: "refund", Calls: 3, Matched: 3, Repeats: 1, MaxSame: 2, SchemaViolations: 1, SideEffectRepeats: 1},
				{Name: "search", Calls: 2, Matched: 2, Repeats: 1, MaxSame: 2},
			},
		},
	}
	tools := []suites.Tool{{Name: "refund", SideEffect: true}, {Name: "search"}, {Name: "lookup"}}
	fx := &suites.Fixtures{ToolResponses: []suites.ToolResponse{{Tool: "fetch"}, {Tool: "fixtured"}}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.DeepEqual(t, toolUse(tt.trace, tools, fx), tt.want)
		})
	}
}

func TestIdempotent(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name string
		keys []string
		want *bool
	}{
		{"one trial: unknown", []string{"passed"}, nil},
		{"same verdict and output", []string{"passed\x00\"a\"", "passed\x00\"a\""}, &yes},
		{"same verdict, other output", []string{"passed\x00\"a\"", "passed\x00\"b\""}, &no},
		{"other verdict", []string{"passed", "error"}, &no},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.DeepEqual(t, idempotent(tc.keys), tc.want) })
	}
}

func TestSameKeyIgnoresSpelling(t *testing.T) {
	res := &results.Trial{Status: results.StatusPassed}
	a := sameKey(res, &Outcome{Output: json.RawMessage(`{"a":1,"b":[2.0]}`)})
	b := sameKey(res, &Outcome{Output: json.RawMessage(`{"b":[2],"a":1}`)})
	assert.Equal(t, a, b)
}

func TestAggregateKeepsMetadata(t *testing.T) {
	level := 2
	s := &suites.Suite{ID: "s", Path: "evals/s.yaml"}
	task := &suites.TaskRef{ID: "t", Metadata: &suites.Metadata{Domain: "code", Complexity: 3, AutonomyLevel: &level, Category: "delegation"}}
	got := taskRecord(s, task, []results.Trial{{Trial: 1, Status: results.StatusPassed, Passed: true, Score: 1}})
	assert.DeepEqual(t, got.Metadata, &results.Metadata{Domain: "code", Complexity: 3, AutonomyLevel: &level, Category: "delegation"})

	got = taskRecord(s, &suites.TaskRef{ID: "u"}, []results.Trial{{Trial: 1, Status: results.StatusPassed, Passed: true, Score: 1}})
	assert.Assert(t, got.Metadata == nil)
}
