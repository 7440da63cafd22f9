package judges

import (
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

// agentTrace is an agent's spans: its own, a model call, two tool calls
// (the second in error) with seed 003's events, as the receiver keeps
// them.
func agentTrace() *traces.Trace {
	ms := uint64(1e6)
	return &traces.Trace{Spans: []traces.Span{
		{Name: "invoke_agent support", Operation: "invoke_agent", Start: 0, End: 90 * ms, InputTokens: -1, OutputTokens: -1},
		{Name: "chat m1", Operation: "chat", RequestModel: "m1", Start: 1 * ms, End: 21 * ms, InputTokens: 300, OutputTokens: 40},
		{Name: "execute_tool lookup", Operation: "execute_tool", Tool: "lookup", Start: 22 * ms, End: 30 * ms, InputTokens: -1, OutputTokens: -1, Events: []string{"tool.called"}},
		{Name: "execute_tool refund", Operation: "execute_tool", Tool: "refund", Start: 31 * ms, End: 80 * ms, InputTokens: -1, OutputTokens: -1,
			Status: traces.StatusError, ErrorType: "timeout", Events: []string{"tool.called", "tool.failed", "error.handled"}},
	}}
}

// TestTraceChecks decides trace and events checks, and the trace.*
// variables of expressions, through the one executor.
func TestTraceChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		check  string // one assert entry, YAML
		spans  *traces.Trace
		reason string
	}{
		{name: "a span by name", check: `{trace: {span: "chat m1"}}`},
		{name: "by operation and model, counted", check: `{trace: {span: {operation: chat, model: m1}, count: 1}}`},
		{name: "count compared", check: `{trace: {span: {operation: execute_tool}, count: "<= 1"}}`, reason: ReasonSpanCount},
		{name: "absent span", check: `{trace: {span: {tool: delete}}}`, reason: ReasonSpanCount},
		{name: "absent span, negated", check: `{trace: {span: {tool: delete}}, negate: true}`},
		{name: "duration", check: `{trace: {span: {operation: execute_tool}, maxDurationMs: 10}}`, reason: ReasonOverLimit},
		{name: "duration holds", check: `{trace: {span: {tool: lookup}, maxDurationMs: 10}}`},
		{name: "no errors", check: `{trace: {noErrors: true}}`, reason: ReasonSpanError},
		{name: "order", check: `{trace: {order: [chat m1, lookup, refund]}}`},
		{name: "out of order", check: `{trace: {order: [refund, lookup]}}`, reason: ReasonOutOfOrder},
		{name: "order of a missing span", check: `{trace: {order: [lookup, delete]}}`, reason: ReasonSpanMissing},
		{name: "events of the selected spans", check: `{trace: {span: {tool: refund}, events: [tool.failed, error.handled]}}`},
		{name: "events of other spans", check: `{trace: {span: {tool: lookup}, events: [tool.failed]}}`, reason: ReasonMissingEvent},
		{name: "events check", check: `{events: [tool.called, error.handled, "chat m1"]}`},
		{name: "events check, missing", check: `{events: [tool.called, fallback.activated]}`, reason: ReasonMissingEvent},
		{name: "no trace received", check: `{trace: {span: "chat m1"}}`, spans: &traces.Trace{}, reason: ReasonSpanCount},
		{name: "expression", check: `{expr: "trace.llmCalls == 1 && trace.toolCalls == 2 && trace.errors == 1 && trace.spans == 4 && trace.tokens.input == 300 && trace.tokens.output == 40 && trace.durationMs == 90"}`},
		{name: "expression keeps trace the tool calls", check: `{expr: "len(trace) == 0 && trace.spans == 4"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "suiteId: acme.x.evals.trace\nversion: 1.0.0\nmodes: [golden]\ntasks:\n" +
				"  - {taskId: a, input: x, expected: {kind: golden, assert: [" + tc.check + "]}}\n"
			s, err := suites.Parse("trace.yaml", []byte(src))
			assert.NilError(t, err)
			obs := &Observation{Output: json.RawMessage(`"ok"`), Spans: tc.spans}
			if obs.Spans == nil {
				obs.Spans = agentTrace()
			}
			task, err := s.Full(s.Tasks[0])
			assert.NilError(t, err)
			checks, _ := Golden(task, obs)
			assert.Assert(t, is.Len(checks, 1))
			assert.Check(t, is.Equal(checks[0].Reason, tc.reason))
			assert.Check(t, is.Equal(checks[0].Passed, tc.reason == ""))
		})
	}
}

// TestTraceChecksWithoutSpans fails trace and events checks of a run
// that received no spans with a reason saying so, and an expression
// reads zeros.
func TestTraceChecksWithoutSpans(t *testing.T) {
	src := "suiteId: acme.x.evals.trace\nversion: 1.0.0\nmodes: [golden]\ntasks:\n" +
		"  - {taskId: a, input: x, expected: {kind: golden, assert: [{trace: {}}, {events: [tool.called]}, {expr: 'trace.spans == 0'}]}}\n"
	s, err := suites.Parse("trace.yaml", []byte(src))
	assert.NilError(t, err)
	obs := &Observation{Output: json.RawMessage(`"ok"`)}
	task, err := s.Full(s.Tasks[0])
	assert.NilError(t, err)
	checks, _ := Golden(task, obs)
	assert.Assert(t, is.Len(checks, 3))
	assert.Check(t, is.Equal(checks[0].Reason, ReasonNoTrace))
	assert.Check(t, is.Equal(checks[1].Reason, ReasonNoTrace))
	assert.Check(t, checks[2].Passed)
	var lines []string
	for _, e := range Explain(task, obs, checks, nil) {
		lines = append(lines, e.Lines()...)
	}
	assert.DeepEqual(t, lines, []string{
		`assert[0] (trace): expected spans numbering >= 1, got no spans: the run did not receive the agent's (set agent.otel: true or pass --otel)`,
		`assert[1] (events): expected spans or span events named tool.called, got no spans: the run did not receive the agent's (set agent.otel: true or pass --otel)`,
	})
}
