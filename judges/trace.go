package judges

import (
	"slices"

	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

// trace decides a trace check over the spans the agent sent: the spans it
// selects number as its count says, none lasts longer than maxDurationMs,
// none ended in error with noErrors, the spans its order names start in
// that order, and its events are among the selected spans' events.
func (r *checker) trace(c *suites.Check) (string, error) {
	tr := r.obs.Spans
	if tr == nil {
		return ReasonNoTrace, nil
	}
	tc := c.Trace
	var n int64
	var events []string
	for i := range tr.Spans {
		sp := &tr.Spans[i]
		if !selects(tc.Span, sp) {
			continue
		}
		n++
		switch {
		case tc.MaxDurationMs > 0 && float64(sp.DurationNs())/1e6 > tc.MaxDurationMs:
			return ReasonOverLimit, nil
		case tc.NoErrors && sp.IsError():
			return ReasonSpanError, nil
		}
		if len(tc.Events) > 0 {
			events = append(events, sp.Events...)
		}
	}
	if !tc.Count.Holds(n) {
		return ReasonSpanCount, nil
	}
	for _, e := range tc.Events {
		if !slices.Contains(events, e) {
			return ReasonMissingEvent, nil
		}
	}
	return order(tc.Order, func(name string) int {
		return slices.IndexFunc(tr.Spans, func(sp traces.Span) bool {
			return sp.Name == name || (sp.IsToolCall() && sp.Tool == name)
		})
	}, ReasonSpanMissing), nil
}

// selects reports whether span sp is one m selects; nil selects every
// span.
func selects(m *suites.SpanMatch, sp *traces.Span) bool {
	if m == nil {
		return true
	}
	return (m.Name == "" || m.Name == sp.Name) &&
		(m.Operation == "" || m.Operation == sp.Operation) &&
		(m.Tool == "" || m.Tool == sp.Tool) &&
		(m.Model == "" || m.Model == sp.Model())
}

// events decides an events check: each name is a span's, or one of a
// span's events' (seed 003's observability events: tool.called,
// error.handled, ... as agents write them).
func (r *checker) events(c *suites.Check) (string, error) {
	if r.obs.Spans == nil {
		return ReasonNoTrace, nil
	}
	for _, name := range c.Events {
		if !r.obs.Spans.HasEvent(name) {
			return ReasonMissingEvent, nil
		}
	}
	return "", nil
}

// spansVar is what trace.spans and the other members of
// suites.TraceFields read: counts over the spans, zeros when the run
// received none.
func spansVar(tr *traces.Trace) map[string]any {
	var t traces.Totals
	if tr != nil {
		t = tr.Totals()
	}
	return map[string]any{
		"spans":      float64(t.Spans),
		"llmCalls":   float64(t.LLMCalls),
		"toolCalls":  float64(t.ToolCalls),
		"errors":     float64(t.Errors),
		"tokens":     map[string]any{"input": float64(t.InputTokens), "output": float64(t.OutputTokens)},
		"durationMs": float64(t.DurationNs) / 1e6,
	}
}
