package otelexport

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

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

var (
	res   = resource.NewSchemaless(attribute.String("service.name", "evalgate"))
	scope = instrumentation.Scope{Name: "github.com/evalgate/evalgate"}
)

// stubs are the run's spans: the run, its suites and tasks (spanning
// their trials), the trials with their tool calls and judge calls, and
// the forwarded spans.
func (e *Exporter) stubs(run *results.Run) []tracetest.SpanStub {
	e.mu.Lock()
	defer e.mu.Unlock()
	sc := func(id trace.SpanID) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: e.traceID, SpanID: id, TraceFlags: trace.FlagsSampled})
	}
	stub := func(name string, id, parent trace.SpanID, start, end time.Time, attrs ...attribute.KeyValue) tracetest.SpanStub {
		s := tracetest.SpanStub{
			Name: name, SpanContext: sc(id), StartTime: start, EndTime: end, Attributes: attrs,
			Resource: res, InstrumentationScope: scope, SpanKind: trace.SpanKindInternal,
		}
		if parent.IsValid() {
			s.Parent = sc(parent)
		}
		return s
	}
	out := []tracetest.SpanStub{stub(SpanRun, e.runID, trace.SpanID{}, run.StartedAt, run.FinishedAt,
		attribute.String("evalgate.run_id", run.RunID), attribute.Bool("evalgate.passed", run.Passed),
		attribute.Float64("evalgate.score", run.AggregateScore), attribute.Int("evalgate.tasks", run.TaskCount))}
	type group struct {
		id         trace.SpanID
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
		ts := stub(SpanTrial, tr.id, tg.id, tr.start, tr.end,
			attribute.Int("evalgate.trial", tr.key.trial), attribute.String("evalgate.status", r.Status),
			attribute.Float64("evalgate.score", r.Score), attribute.StringSlice("evalgate.failed_checks", failed))
		if r.ErrorKind != "" {
			ts.Attributes = append(ts.Attributes, attribute.String("error.type", r.ErrorKind))
			ts.Status = sdktrace.Status{Code: codes.Error}
		}
		out = append(out, ts)
		for _, c := range tr.callRecs {
			cs := stub(SpanToolCall, newSpanID(), tr.id, c.start, c.end, attribute.String("gen_ai.tool.name", c.name))
			if c.isError {
				cs.Status = sdktrace.Status{Code: codes.Error}
			}
			out = append(out, cs)
		}
		for _, j := range tr.judgeRecs {
			js := stub(SpanJudge, newSpanID(), tr.id, j.Start, j.Start.Add(j.Duration),
				attribute.String("evalgate.judge.kind", j.Kind), attribute.String("evalgate.judge.outcome", j.Outcome))
			if len(j.Checks) > 0 {
				js.Attributes = append(js.Attributes, attribute.StringSlice("evalgate.checks", j.Checks))
			}
			if j.Score >= 0 {
				js.Attributes = append(js.Attributes, attribute.Float64("evalgate.score", j.Score))
			}
			if j.Outcome == results.JudgeErrored {
				js.Status = sdktrace.Status{Code: codes.Error}
			}
			out = append(out, js)
		}
		out = append(out, forwarded(tr, stub)...)
	}
	for i := range run.Suites {
		s := &run.Suites[i]
		sg := suiteSpans[s.ID]
		if sg == nil {
			continue
		}
		out = append(out, stub(SpanSuite, sg.id, e.runID, sg.start, sg.end,
			attribute.String("evalgate.suite", s.ID), attribute.Bool("evalgate.passed", s.Passed), attribute.Float64("evalgate.score", s.AggregateScore)))
		for j := range s.Tasks {
			t := &s.Tasks[j]
			if tg := taskSpans[[2]string{s.ID, t.ID}]; tg != nil {
				out = append(out, stub(SpanTask, tg.id, sg.id, tg.start, tg.end,
					attribute.String("evalgate.task", t.ID), attribute.String("evalgate.status", t.Status), attribute.Float64("evalgate.score", t.Score)))
			}
		}
	}
	return out
}

// forwarded are the agent's spans of a trial in the run's trace: their
// parents kept where they are among them, else the trial; only the
// attributes evalgate keeps.
func forwarded(tr *trialRec, stub func(string, trace.SpanID, trace.SpanID, time.Time, time.Time, ...attribute.KeyValue) tracetest.SpanStub) []tracetest.SpanStub {
	ids := make(map[traces.SpanID]bool, len(tr.forwarded))
	for _, sp := range tr.forwarded {
		ids[sp.ID] = true
	}
	out := make([]tracetest.SpanStub, 0, len(tr.forwarded))
	for i := range tr.forwarded {
		sp := &tr.forwarded[i]
		parent := tr.id
		if ids[sp.Parent] && sp.Parent != sp.ID {
			parent = trace.SpanID(sp.Parent)
		}
		var attrs []attribute.KeyValue
		for _, a := range []struct{ k, v string }{
			{"gen_ai.operation.name", sp.Operation}, {"gen_ai.request.model", sp.RequestModel}, {"gen_ai.response.model", sp.ResponseModel},
			{"gen_ai.tool.name", sp.Tool}, {"gen_ai.agent.name", sp.Agent}, {"error.type", sp.ErrorType},
		} {
			if a.v != "" {
				attrs = append(attrs, attribute.String(a.k, a.v))
			}
		}
		if sp.InputTokens >= 0 && sp.IsModelCall() {
			attrs = append(attrs, attribute.Int64("gen_ai.usage.input_tokens", sp.InputTokens))
		}
		if sp.OutputTokens >= 0 && sp.IsModelCall() {
			attrs = append(attrs, attribute.Int64("gen_ai.usage.output_tokens", sp.OutputTokens))
		}
		id := trace.SpanID(sp.ID)
		if !id.IsValid() {
			id = newSpanID()
		}
		s := stub(sp.Name, id, parent, time.Unix(0, int64(sp.Start)), time.Unix(0, int64(sp.End)), attrs...)
		s.SpanKind = trace.SpanKind(sp.Kind)
		if sp.Status == traces.StatusError {
			s.Status = sdktrace.Status{Code: codes.Error}
		}
		for _, ev := range sp.Events {
			s.Events = append(s.Events, sdktrace.Event{Name: ev, Time: s.StartTime})
		}
		out = append(out, s)
	}
	return out
}
