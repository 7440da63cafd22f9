package traces

import (
	"fmt"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/results"
)

const msNs = 1_000_000

// sample is an agent's trial: an agent span holding two model calls and
// two tool calls, the second failing; the first model call overlaps the
// first tool call.
func sample() *Trace {
	t := &Trace{Spans: []Span{
		{ID: SpanID{1}, Name: "invoke_agent a", Start: 0, End: 100 * msNs, Operation: "invoke_agent", Agent: "a", InputTokens: 999, OutputTokens: 999},
		{ID: SpanID{2}, Parent: SpanID{1}, Name: "chat m1", Start: 10 * msNs, End: 30 * msNs, Operation: "chat", RequestModel: "m1", ResponseModel: "m1-2025", InputTokens: 100, OutputTokens: 10, Events: []string{"gen_ai.choice"}},
		{ID: SpanID{3}, Parent: SpanID{1}, Name: "execute_tool lookup", Start: 20 * msNs, End: 40 * msNs, Operation: "execute_tool", Tool: "lookup", InputTokens: -1, OutputTokens: -1, Events: []string{"tool.called"}},
		{ID: SpanID{4}, Parent: SpanID{1}, Name: "execute_tool refund", Start: 50 * msNs, End: 55 * msNs, Operation: "execute_tool", Status: StatusError, InputTokens: -1, OutputTokens: -1, Events: []string{"tool.called", "tool.failed"}},
		{ID: SpanID{5}, Parent: SpanID{9}, Name: "chat m2", Start: 60 * msNs, End: 90 * msNs, Operation: "chat", RequestModel: "m2", InputTokens: 50, OutputTokens: -1},
		{ID: SpanID{6}, Parent: SpanID{1}, Name: "error.handled", Start: 95 * msNs, End: 95 * msNs, InputTokens: -1, OutputTokens: -1},
	}, Dropped: 2, Invalid: 1}
	t.sort()
	return t
}

func TestSummary(t *testing.T) {
	s := sample().Summary()
	assert.DeepEqual(t, s, &results.AgentTrace{
		Count: 6, Dropped: 2, Invalid: 1, LLMCalls: 2, ToolCalls: 2, Errors: 1,
		Tokens:     results.Tokens{Input: 150, Output: 10},
		DurationMs: 100, ModelMs: 50, ToolMs: 25,
		Events: []results.EventCount{{Name: "tool.called", Count: 2}, {Name: "gen_ai.choice", Count: 1}, {Name: "tool.failed", Count: 1}},
		List: []results.AgentSpan{
			{Name: "invoke_agent a", Parent: -1, DurationMs: 100, Operation: "invoke_agent", Agent: "a", InputTokens: 999, OutputTokens: 999},
			{Name: "chat m1", Parent: 0, StartMs: 10, DurationMs: 20, Operation: "chat", Model: "m1-2025", InputTokens: 100, OutputTokens: 10, Events: []string{"gen_ai.choice"}},
			{Name: "execute_tool lookup", Parent: 0, StartMs: 20, DurationMs: 20, Operation: "execute_tool", Tool: "lookup", Events: []string{"tool.called"}},
			{Name: "execute_tool refund", Parent: 0, Status: "error", StartMs: 50, DurationMs: 5, Operation: "execute_tool", Events: []string{"tool.called", "tool.failed"}},
			{Name: "chat m2", Parent: -1, StartMs: 60, DurationMs: 30, Operation: "chat", Model: "m2", InputTokens: 50},
			{Name: "error.handled", Parent: 0, StartMs: 95},
		},
	})
	assert.DeepEqual(t, (&Trace{}).Summary(), &results.AgentTrace{List: []results.AgentSpan{}})
}

func TestUsage(t *testing.T) {
	type testCase struct {
		name    string
		pricing map[string]chat.Pricing
		want    Usage
	}
	for _, tc := range []testCase{
		{name: "no pricing", want: Usage{Model: "m2", InputTokens: 150, OutputTokens: 10, Reported: true, Unpriced: []string{"m1-2025", "m2"}}},
		{name: "priced by the response's model, else the request's", pricing: map[string]chat.Pricing{
			"m1-2025": {InputPerMTok: 1e6, OutputPerMTok: 2e6}, // $1 an input token, $2 an output one
			"m2":      {InputPerMTok: 1e4},
			"m1":      {InputPerMTok: 1e9},
		}, want: Usage{Model: "m2", InputTokens: 150, OutputTokens: 10, CostUsd: 100 + 20 + 0.5, Reported: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, sample().Usage(tc.pricing), tc.want)
		})
	}
	assert.DeepEqual(t, (&Trace{Spans: []Span{{Operation: "chat", InputTokens: -1, OutputTokens: -1}}}).Usage(nil), Usage{})
}

func TestToolCalls(t *testing.T) {
	got := sample().ToolCalls(5 * msNs)
	assert.DeepEqual(t, got, []fixtures.Call{
		{ID: "span-1", Name: "lookup", Fixture: -1, StartMs: 15, DurationMs: 20, Source: SourceTrace},
		{ID: "span-2", Name: "refund", IsError: true, Fixture: -1, StartMs: 45, DurationMs: 5, Source: SourceTrace},
	})
	assert.Check(t, is.Len((&Trace{}).ToolCalls(0), 0))
}

func TestHasEvent(t *testing.T) {
	tr := sample()
	for name, want := range map[string]bool{"tool.failed": true, "error.handled": true, "budget.exceeded": false, "": false} {
		assert.Check(t, is.Equal(tr.HasEvent(name), want), name)
	}
}

// TestTopEventsKeepScenarioEvents: past MaxRecordedEvents names the most
// frequent are kept, and the events a scenario requires are kept however
// rare, since trust reads them from results.json.
func TestTopEventsKeepScenarioEvents(t *testing.T) {
	m := map[string]int{"error.handled": 1, "budget.exceeded": 1, "rare": 1}
	for i := range MaxRecordedEvents {
		m[fmt.Sprintf("e%03d", i)] = 2
	}
	got := topEvents(m)
	assert.Assert(t, is.Len(got, MaxRecordedEvents))
	var names []string
	for _, e := range got {
		names = append(names, e.Name)
	}
	assert.Check(t, is.Contains(names, "error.handled"))
	assert.Check(t, is.Contains(names, "budget.exceeded"))
	assert.Check(t, !slices.Contains(names, "rare"))
	assert.Check(t, is.Equal(got[0].Name, "e000"), "the most frequent first")
	assert.Check(t, is.Equal(got[len(got)-1].Name, "error.handled"))
}

// TestAllowedAttributes holds the allow-list to what a span keeps: the
// token counts and the string attributes, each once, in its order.
func TestAllowedAttributes(t *testing.T) {
	kept := stringAttributes[:]
	allowed := slices.DeleteFunc(slices.Clone(AllowedAttributes), func(k string) bool {
		return k == AttrInputTokens || k == AttrOutputTokens
	})
	assert.DeepEqual(t, allowed, kept)
	assert.Equal(t, len(AllowedAttributes), len(kept)+2)

	sp := Span{Operation: "chat", ResponseModel: "m", ErrorType: "timeout"}
	var got []string
	for k, v := range sp.StringAttributes() {
		got = append(got, k+"="+v)
	}
	assert.DeepEqual(t, got, []string{"gen_ai.operation.name=chat", "gen_ai.response.model=m", "error.type=timeout"})
}
