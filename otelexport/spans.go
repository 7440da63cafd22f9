package otelexport

import (
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/traces"
)

// Span names of the run's trace.
const (
	SpanRun      = "evalgate.run"
	SpanSuite    = "evalgate.suite"
	SpanTask     = "evalgate.task"
	SpanTrial    = "evalgate.trial"
	SpanToolCall = "evalgate.tool_call"
	SpanJudge    = "evalgate.judge"
)

// scopeName is the instrumentation scope of every span evalgate sends.
const scopeName = "github.com/evalgate/evalgate"

// flags are every span's flags: sampled (the W3C trace flag), and
// whether its parent is remote known (it never is), as the OpenTelemetry
// SDKs set them.
const flags = 0x01 | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)

// resourceSpans holds the run's spans, or a batch of them, for one
// export request: resource service.name=evalgate, scope scopeName.
func resourceSpans(spans []*tracepb.Span) []*tracepb.ResourceSpans {
	return []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", "evalgate")}},
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &commonpb.InstrumentationScope{Name: scopeName},
			Spans: spans,
		}},
	}}
}

// spans are the run's spans: the run, its suites and tasks (spanning
// their trials), the trials with their tool calls and judge calls, and
// the forwarded spans.
func (e *Exporter) spans(run *results.Run) []*tracepb.Span {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []*tracepb.Span{e.span(SpanRun, e.runID, traces.SpanID{}, run.StartedAt, run.FinishedAt,
		str("evalgate.run_id", run.RunID), boolean("evalgate.passed", run.Passed),
		float("evalgate.score", run.AggregateScore), integer("evalgate.tasks", int64(run.TaskCount)))}
	type group struct {
		id         traces.SpanID
		start, end time.Time
	}
	suiteSpans := map[string]*group{}
	taskSpans := map[[2]string]*group{}
	widen := func(g *group, start, end time.Time) {
		if g.start.IsZero() || start.Before(g.start) {
			g.start = start
		}
		if end.After(g.end) {
			g.end = end
		}
	}
	for _, tr := range e.trials {
		sg := suiteSpans[tr.key.suite]
		if sg == nil {
			sg = &group{id: newSpanID()}
			suiteSpans[tr.key.suite] = sg
		}
		widen(sg, tr.start, tr.end)
		tk := [2]string{tr.key.suite, tr.key.task}
		tg := taskSpans[tk]
		if tg == nil {
			tg = &group{id: newSpanID()}
			taskSpans[tk] = tg
		}
		widen(tg, tr.start, tr.end)
		r := &tr.result
		var failed []string
		for _, c := range r.Checks {
			if !c.Passed {
				failed = append(failed, c.ID)
			}
		}
		ts := e.span(SpanTrial, tr.id, tg.id, tr.start, tr.end,
			integer("evalgate.trial", int64(tr.key.trial)), str("evalgate.status", r.Status),
			float("evalgate.score", r.Score), strs("evalgate.failed_checks", failed))
		if r.ErrorKind != "" {
			ts.Attributes = append(ts.Attributes, str("error.type", r.ErrorKind))
			ts.Status.Code = tracepb.Status_STATUS_CODE_ERROR
		}
		out = append(out, ts)
		for _, c := range tr.callRecs {
			cs := e.span(SpanToolCall, newSpanID(), tr.id, c.start, c.end, str("gen_ai.tool.name", c.name))
			if c.isError {
				cs.Status.Code = tracepb.Status_STATUS_CODE_ERROR
			}
			out = append(out, cs)
		}
		for _, j := range tr.judgeRecs {
			js := e.span(SpanJudge, newSpanID(), tr.id, j.Start, j.Start.Add(j.Duration),
				str("evalgate.judge.kind", j.Kind), str("evalgate.judge.outcome", j.Outcome))
			if len(j.Checks) > 0 {
				js.Attributes = append(js.Attributes, strs("evalgate.checks", j.Checks))
			}
			if j.Score >= 0 {
				js.Attributes = append(js.Attributes, float("evalgate.score", j.Score))
			}
			if j.Outcome == results.JudgeErrored {
				js.Status.Code = tracepb.Status_STATUS_CODE_ERROR
			}
			out = append(out, js)
		}
		out = append(out, e.forwarded(tr)...)
	}
	for i := range run.Suites {
		s := &run.Suites[i]
		sg := suiteSpans[s.ID]
		if sg == nil {
			continue
		}
		out = append(out, e.span(SpanSuite, sg.id, e.runID, sg.start, sg.end,
			str("evalgate.suite", s.ID), boolean("evalgate.passed", s.Passed), float("evalgate.score", s.AggregateScore)))
		for j := range s.Tasks {
			t := &s.Tasks[j]
			if tg := taskSpans[[2]string{s.ID, t.ID}]; tg != nil {
				out = append(out, e.span(SpanTask, tg.id, sg.id, tg.start, tg.end,
					str("evalgate.task", t.ID), str("evalgate.status", t.Status), float("evalgate.score", t.Score)))
			}
		}
	}
	return out
}

// forwarded are the agent's spans of a trial in the run's trace: their
// parents kept where they are among them, else the trial; only the
// attributes evalgate keeps.
func (e *Exporter) forwarded(tr *trialRec) []*tracepb.Span {
	ids := make(map[traces.SpanID]bool, len(tr.forwarded))
	for _, sp := range tr.forwarded {
		ids[sp.ID] = true
	}
	out := make([]*tracepb.Span, 0, len(tr.forwarded))
	for i := range tr.forwarded {
		sp := &tr.forwarded[i]
		parent := tr.id
		if ids[sp.Parent] && sp.Parent != sp.ID {
			parent = sp.Parent
		}
		var attrs []*commonpb.KeyValue
		for k, v := range sp.StringAttributes() {
			attrs = append(attrs, str(k, v))
		}
		if sp.InputTokens >= 0 && sp.IsModelCall() {
			attrs = append(attrs, integer(traces.AttrInputTokens, sp.InputTokens))
		}
		if sp.OutputTokens >= 0 && sp.IsModelCall() {
			attrs = append(attrs, integer(traces.AttrOutputTokens, sp.OutputTokens))
		}
		id := sp.ID
		if id.IsZero() {
			id = newSpanID()
		}
		// A time past int64's nanoseconds (year 2262) is sent as 0.
		start, end := time.Unix(0, int64(sp.Start)), time.Unix(0, int64(sp.End))
		s := e.span(sp.Name, id, parent, start, end, attrs...)
		s.Kind = tracepb.Span_SPAN_KIND_UNSPECIFIED
		if sp.Kind <= traces.KindConsumer {
			s.Kind = tracepb.Span_SpanKind(sp.Kind) // traces.Kind numbers the kinds as OTLP does
		}
		if sp.Status == traces.StatusError {
			s.Status.Code = tracepb.Status_STATUS_CODE_ERROR
		}
		for _, ev := range sp.Events {
			s.Events = append(s.Events, &tracepb.Span_Event{Name: ev, TimeUnixNano: s.StartTimeUnixNano})
		}
		out = append(out, s)
	}
	return out
}

// span is one span of the run's trace, an internal one with its status
// unset; parent is zero for the root.
func (e *Exporter) span(name string, id, parent traces.SpanID, start, end time.Time, attrs ...*commonpb.KeyValue) *tracepb.Span {
	s := &tracepb.Span{
		TraceId:           e.traceID[:],
		SpanId:            id[:],
		Flags:             flags,
		Name:              name,
		Kind:              tracepb.Span_SPAN_KIND_INTERNAL,
		StartTimeUnixNano: unixNano(start),
		EndTimeUnixNano:   unixNano(end),
		Attributes:        attrs,
		Status:            &tracepb.Status{},
	}
	if !parent.IsZero() {
		s.ParentSpanId = parent[:]
	}
	return s
}

// unixNano is t in nanoseconds since the Unix epoch, 0 before it.
func unixNano(t time.Time) uint64 { return uint64(max(0, t.UnixNano())) }

// The attributes, by type.

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: strValue(v)}
}

func strValue(v string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}
}

func strs(k string, vs []string) *commonpb.KeyValue {
	arr := &commonpb.ArrayValue{Values: make([]*commonpb.AnyValue, len(vs))}
	for i, v := range vs {
		arr.Values[i] = strValue(v)
	}
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: arr}}}
}

func boolean(k string, v bool) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v}}}
}

func integer(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

func float(k string, v float64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}}}
}
