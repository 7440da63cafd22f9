package traces

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// MaxRecordedSpans bounds the spans of a trial results.json lists (the
// waterfall of a failing task): the first ones by start time. The counts
// cover every span kept.
const MaxRecordedSpans = 256

// MaxRecordedEvents bounds the event names of a trial results.json counts:
// the most frequent ones.
const MaxRecordedEvents = 64

// Summary is what results.json records of the trace: counts over every
// span, and the first MaxRecordedSpans spans, content-free.
func (t *Trace) Summary() *results.AgentTrace {
	sorted := t.Spans
	tot := t.Totals()
	s := &results.AgentTrace{
		Count:      tot.Spans,
		Dropped:    t.Dropped,
		Invalid:    t.Invalid,
		Refused:    t.Refused,
		LLMCalls:   tot.LLMCalls,
		ToolCalls:  tot.ToolCalls,
		Errors:     tot.Errors,
		Tokens:     results.Tokens{Input: tot.InputTokens, Output: tot.OutputTokens},
		DurationMs: ms(tot.DurationNs),
	}
	first := tot.First
	var model, tool []interval
	events := map[string]int{}
	for i := range sorted {
		sp := &sorted[i]
		switch {
		case sp.IsModelCall():
			model = append(model, interval{sp.Start, sp.End})
		case sp.IsToolCall():
			tool = append(tool, interval{sp.Start, sp.End})
		}
		for _, e := range sp.Events {
			events[e]++
		}
	}
	s.ModelMs = ms(union(model))
	s.ToolMs = ms(union(tool))
	s.Events = topEvents(events)
	n := min(len(sorted), MaxRecordedSpans)
	s.Omitted = len(sorted) - n
	index := make(map[SpanID]int, n)
	for i := range n {
		if !sorted[i].ID.IsZero() {
			if _, dup := index[sorted[i].ID]; !dup {
				index[sorted[i].ID] = i
			}
		}
	}
	s.List = make([]results.AgentSpan, n)
	for i := range n {
		sp := &sorted[i]
		parent := -1
		if j, ok := index[sp.Parent]; ok && !sp.Parent.IsZero() && j != i {
			parent = j
		}
		s.List[i] = results.AgentSpan{
			Name:         sp.Name,
			Kind:         sp.Kind.String(),
			Parent:       parent,
			Status:       sp.Status.String(),
			StartMs:      ms(sp.Start - first),
			DurationMs:   ms(sp.DurationNs()),
			Operation:    sp.Operation,
			Model:        sp.Model(),
			Tool:         sp.Tool,
			Agent:        sp.Agent,
			ErrorType:    sp.ErrorType,
			InputTokens:  max(sp.InputTokens, 0),
			OutputTokens: max(sp.OutputTokens, 0),
			Events:       sp.Events,
		}
	}
	return s
}

// Totals are counts over a trace's spans.
type Totals struct {
	Spans, LLMCalls, ToolCalls, Errors int
	// InputTokens and OutputTokens are the model calls' tokens.
	InputTokens, OutputTokens int64
	// First is the earliest start, DurationNs the time from it to the
	// latest end.
	First, DurationNs uint64
}

// Totals counts the trace's spans: model calls (chat, text completion,
// content generation, embeddings) and their tokens, execute_tool spans,
// spans in error, and the time they cover.
func (t *Trace) Totals() Totals {
	tot := Totals{Spans: len(t.Spans)}
	var last uint64
	for i := range t.Spans {
		sp := &t.Spans[i]
		if i == 0 || sp.Start < tot.First {
			tot.First = sp.Start
		}
		last = max(last, sp.End)
		switch {
		case sp.IsModelCall():
			tot.LLMCalls++
			tot.InputTokens += max(sp.InputTokens, 0)
			tot.OutputTokens += max(sp.OutputTokens, 0)
		case sp.IsToolCall():
			tot.ToolCalls++
		}
		if sp.IsError() {
			tot.Errors++
		}
	}
	if tot.Spans > 0 {
		tot.DurationNs = last - tot.First
	}
	return tot
}

// ms is a duration in nanoseconds as milliseconds, to the microsecond.
func ms(ns uint64) float64 { return math.Round(float64(ns)/1e3) / 1e3 }

type interval struct{ start, end uint64 }

// union is the time the intervals cover, overlaps counted once.
func union(iv []interval) uint64 {
	slices.SortFunc(iv, func(a, b interval) int { return cmp.Compare(a.start, b.start) })
	var total, end uint64
	for _, x := range iv {
		switch {
		case x.start >= end:
			total += x.end - x.start
			end = x.end
		case x.end > end:
			total += x.end - end
			end = x.end
		}
	}
	return total
}

// topEvents are the MaxRecordedEvents most frequent event names, the most
// frequent first, then by name. The events a scenario requires
// (suites.ScenarioEvents) are kept whatever their count: trust reads them
// from results.json.
func topEvents(m map[string]int) []results.EventCount {
	if len(m) == 0 {
		return nil
	}
	out := make([]results.EventCount, 0, len(m))
	for name, n := range m {
		out = append(out, results.EventCount{Name: name, Count: n})
	}
	byCount := func(a, b results.EventCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Name, b.Name))
	}
	if len(out) > MaxRecordedEvents {
		required := func(e results.EventCount) int {
			for _, name := range suites.ScenarioEvents {
				if e.Name == name {
					return 0
				}
			}
			return 1
		}
		slices.SortFunc(out, func(a, b results.EventCount) int { return cmp.Or(cmp.Compare(required(a), required(b)), byCount(a, b)) })
		out = out[:MaxRecordedEvents]
	}
	slices.SortFunc(out, byCount)
	return out
}

// Usage is what the trace's model calls report: their tokens, and their
// cost as pricing prices each call's model. Unpriced lists the models of
// calls that reported tokens and that pricing does not price, sorted.
type Usage struct {
	Model        string // the model of the last call that named one
	InputTokens  int64
	OutputTokens int64
	CostUsd      float64
	Reported     bool // some model call reported tokens
	Unpriced     []string
}

// Usage sums the tokens of the trace's model calls (chat, text
// completion, content generation, embeddings), and prices each by its
// model's entry in pricing. Spans of other operations (an agent's, a
// workflow's) are not counted: the conventions let them repeat their
// calls' totals.
func (t *Trace) Usage(pricing map[string]chat.Pricing) Usage {
	var u Usage
	unpriced := map[string]bool{}
	for _, sp := range t.Spans {
		if !sp.IsModelCall() {
			continue
		}
		model := sp.Model()
		if model != "" {
			u.Model = model
		}
		in, out := max(sp.InputTokens, 0), max(sp.OutputTokens, 0)
		if sp.InputTokens < 0 && sp.OutputTokens < 0 {
			continue
		}
		u.Reported = true
		u.InputTokens += in
		u.OutputTokens += out
		p, ok := pricing[model]
		if !ok {
			if in+out > 0 {
				unpriced[model] = true
			}
			continue
		}
		u.CostUsd += p.Cost(in, out)
	}
	for m := range unpriced {
		u.Unpriced = append(u.Unpriced, m)
	}
	slices.Sort(u.Unpriced)
	return u
}

// SourceTrace is the Source of a tool call taken from a trace.
const SourceTrace = "trace"

// ToolCalls are the trace's execute_tool spans as tool calls, in the order
// they started: the tool named by gen_ai.tool.name, else by the span's
// name after "execute_tool ", as the conventions name the span; no
// arguments and no result, which a trace never holds; an error when the
// span is one. start is the trial's start, in nanoseconds since the Unix
// epoch, which the calls' StartMs count from.
func (t *Trace) ToolCalls(start uint64) []fixtures.Call {
	var calls []fixtures.Call
	for _, sp := range t.Spans {
		if !sp.IsToolCall() {
			continue
		}
		name := sp.Tool
		if name == "" {
			name = strings.TrimPrefix(sp.Name, OpExecuteTool+" ")
		}
		var startMs int64
		if sp.Start > start {
			startMs = int64((sp.Start - start) / 1e6)
		}
		calls = append(calls, fixtures.Call{
			ID:         "span-" + strconv.Itoa(len(calls)+1),
			Name:       name,
			IsError:    sp.IsError(),
			Fixture:    -1,
			StartMs:    startMs,
			DurationMs: int64(sp.DurationNs() / 1e6),
			Source:     SourceTrace,
		})
	}
	return calls
}

// HasEvent reports whether a span of the trace has an event of that name,
// or is itself so named: seed 003's observability events (tool.called,
// error.handled, ...) are one or the other as agents write them.
func (t *Trace) HasEvent(name string) bool {
	for i := range t.Spans {
		sp := &t.Spans[i]
		if sp.Name == name || slices.Contains(sp.Events, name) {
			return true
		}
	}
	return false
}
