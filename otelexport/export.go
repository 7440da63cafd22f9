// Package otelexport sends a run as a trace to an OpenTelemetry collector,
// as OTLP/HTTP protobuf built with the OpenTelemetry project's own
// message types (docs/otel.md):
// evalgate.run → evalgate.suite → evalgate.task → evalgate.trial →
// evalgate.tool_call and evalgate.judge, with outcomes, scores and failed
// check ids as attributes, and, when forwarding, the spans the agent sent
// re-parented under their trial, with only the attributes evalgate keeps
// (no content). The headers come from the environment, as the SDKs read them
// (OTEL_EXPORTER_OTLP_HEADERS). A collector that cannot be reached is an
// error the caller reports as a warning: it changes no verdict.
package otelexport

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

// MaxSpans bounds the spans a run holds for export, forwarded ones
// included; beyond it they are dropped and counted (Exporter.Dropped).
const MaxSpans = 200_000

// batch is how many spans one export request carries.
const batch = 1000

// Timeout bounds each export request.
const Timeout = 10 * time.Second

// Exporter collects a run's trials as they end and sends the run's trace
// once it is over.
type Exporter struct {
	endpoint string
	forward  bool
	client   *client
	traceID  traces.TraceID
	runID    traces.SpanID

	mu      sync.Mutex
	ids     map[trialKey]traces.SpanID
	trials  []*trialRec
	held    int
	dropped int
}

type trialKey struct {
	suite, task string
	trial       int
}

// trialRec is what the trace shows of one trial.
type trialRec struct {
	key        trialKey
	id         traces.SpanID
	start, end time.Time
	result     results.Trial
	callRecs   []callRec
	judgeRecs  []results.JudgeCall
	forwarded  []traces.Span
}

type callRec struct {
	name       string
	start, end time.Time
	isError    bool
}

// New is an exporter to the collector at endpoint, an OTLP/HTTP base URL
// (the SDK's OTEL_EXPORTER_OTLP_ENDPOINT: /v1/traces is added unless the
// path already ends so). forward sends the agents' spans too.
func New(endpoint string, forward bool) *Exporter {
	u := strings.TrimSuffix(endpoint, "/")
	if !strings.HasSuffix(u, "/v1/traces") {
		u += "/v1/traces"
	}
	e := &Exporter{
		endpoint: endpoint,
		forward:  forward,
		client:   &client{url: u, headers: envHeaders(os.Getenv), http: &http.Client{Timeout: Timeout}},
		ids:      map[trialKey]traces.SpanID{},
	}
	rand.Read(e.traceID[:])
	e.runID = newSpanID()
	return e
}

func newSpanID() traces.SpanID {
	var id traces.SpanID
	rand.Read(id[:])
	return id
}

// Parent is the trial's span, which the agent's spans are children of
// (runner.OTel.Parent): the run's trace, and the span the trial will be
// exported as.
func (e *Exporter) Parent(req *runner.Request) traces.Parent {
	id := e.trialID(trialKey{req.SuiteID, req.TaskID, req.Trial})
	return traces.Parent{Trace: e.traceID, Span: id}
}

func (e *Exporter) trialID(k trialKey) traces.SpanID {
	e.mu.Lock()
	defer e.mu.Unlock()
	id, ok := e.ids[k]
	if !ok {
		id = newSpanID()
		e.ids[k] = id
	}
	return id
}

// Trial keeps what the trace shows of a finished trial: its times,
// outcome and checks, its tool calls, its judge calls and, when
// forwarding, the agent's
// spans, within MaxSpans.
func (e *Exporter) Trial(s *suites.Suite, t *suites.Task, rec *runner.TrialRecord) {
	k := trialKey{s.ID, t.ID, rec.Trial}
	id := e.trialID(k)
	tr := &trialRec{key: k, id: id, start: rec.Start, result: rec.Result}
	tr.end = tr.start.Add(time.Duration(rec.Result.LatencyMs) * time.Millisecond)
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.ids, k)
	e.dropped += e.take(1)
	for _, c := range rec.Trace {
		if e.take(1) > 0 {
			e.dropped++
			continue
		}
		start := tr.start.Add(time.Duration(c.StartMs) * time.Millisecond)
		tr.callRecs = append(tr.callRecs, callRec{name: c.Name, start: start, end: start.Add(time.Duration(c.DurationMs) * time.Millisecond), isError: c.IsError})
	}
	for _, j := range rec.Judges {
		if e.take(1) > 0 {
			e.dropped++
			continue
		}
		tr.judgeRecs = append(tr.judgeRecs, j)
		// The judges decide after the agent ended: the trial spans them.
		if end := j.Start.Add(j.Duration); end.After(tr.end) {
			tr.end = end
		}
	}
	if e.forward && rec.Spans != nil {
		n := min(len(rec.Spans.Spans), MaxSpans-e.held)
		e.held += n
		e.dropped += len(rec.Spans.Spans) - n
		tr.forwarded = rec.Spans.Spans[:n:n]
	}
	e.trials = append(e.trials, tr)
}

// take charges n spans to MaxSpans; it returns how many did not fit.
func (e *Exporter) take(n int) int {
	if e.held+n > MaxSpans {
		return n
	}
	e.held += n
	return 0
}

// Dropped counts the spans not exported for MaxSpans.
func (e *Exporter) Dropped() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dropped
}

// Export sends the run's trace. Its error says why the collector did not
// take it; the run's verdict does not depend on it.
func (e *Exporter) Export(ctx context.Context, run *results.Run) error {
	spans := e.spans(run)
	for len(spans) > 0 {
		n := min(len(spans), batch)
		if err := e.client.upload(ctx, resourceSpans(spans[:n])); err != nil {
			return e.err(err)
		}
		spans = spans[n:]
	}
	return nil
}

func (e *Exporter) err(err error) error {
	return fmt.Errorf("could not send the run's trace to %s: %w", e.endpoint, err)
}

// HeaderSecrets are the values of the headers the environment gives the
// SDK for its collector (OTEL_EXPORTER_OTLP_HEADERS and
// OTEL_EXPORTER_OTLP_TRACES_HEADERS), each as written and URL-decoded:
// credentials to redact from everything evalgate prints and writes.
func HeaderSecrets(getenv func(string) string) []string {
	var vals []string
	for _, h := range envHeaders(getenv) {
		vals = append(vals, h.raw)
		if h.value != h.raw {
			vals = append(vals, h.value)
		}
	}
	return vals
}
