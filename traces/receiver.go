package traces

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/evalgate/evalgate/internal/loopback"
)

// The variables an OpenTelemetry SDK reads that Endpoint.Env sets.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvTraceparent    = "TRACEPARENT"
)

// HeaderVariables are the variables that hold the headers an SDK sends
// its collector, credentials among them: an agent is never given them
// (docs/otel.md).
var HeaderVariables = []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"}

// Paths under a trial's endpoint: the SDKs' default ones for each signal.
// Metrics and logs are taken and discarded, so an SDK set up to send them
// too reports no error; any other path is 404.
const (
	pathTraces  = "/v1/traces"
	pathMetrics = "/v1/metrics"
	pathLogs    = "/v1/logs"
)

// decoding bounds the requests whose bodies are decoded at once in a
// run, whatever their trials: decoding is CPU work, and a request of many
// small values costs several times its bytes while it lasts.
const decoding = 2

// perTrial bounds the requests of one trial read at once: an SDK sends
// one at a time; an agent holding more open holds only its own trial's.
const perTrial = 4

// Receiver is the one OTLP/HTTP listener of a run, on 127.0.0.1 at a port
// the system picks, with the deadlines, caps and shutdown of every server
// evalgate runs (internal/loopback). Each open trial is served at a path
// of 32 random bytes in hex; any other path, a closed trial's included,
// is 404 with an empty body.
type Receiver struct {
	lb     *loopback.Server
	decode chan struct{}
}

// Listen starts a Receiver on a free loopback port.
func Listen() (*Receiver, error) {
	lb, err := loopback.Listen(loopback.Limits{MaxBodyBytes: MaxRequestBytes})
	if err != nil {
		return nil, fmt.Errorf("could not listen for OpenTelemetry spans: %w", err)
	}
	return &Receiver{lb: lb, decode: make(chan struct{}, decoding)}, nil
}

// Close stops listening and closes the trials still open, without waiting
// on any client.
func (r *Receiver) Close() error { return r.lb.Close() }

// quota is what one trial's clients may send: the spans of MaxSpans, and
// as many bytes as that many spans of a few kilobytes.
var quota = loopback.Quota{Spans: MaxSpans, Bytes: 64 << 20}

// Endpoint is one trial's receiver.
type Endpoint struct {
	// URL is the trial's OTLP/HTTP endpoint, the base an SDK appends
	// /v1/traces to: http://127.0.0.1:PORT/<64 hex digits>.
	URL string

	r      *Receiver
	tenant *loopback.Tenant
	reads  chan struct{}

	mu     sync.Mutex
	table  table
	closed bool
	// busy counts the trial's requests being served; idle is closed when
	// it falls to 0, and made anew when it rises from 0.
	busy int
	idle chan struct{}
}

// Open serves a trial until the endpoint is closed or ctx ends.
func (r *Receiver) Open(ctx context.Context) (*Endpoint, error) {
	e := &Endpoint{r: r, reads: make(chan struct{}, perTrial), idle: make(chan struct{})}
	close(e.idle)
	t, err := r.lb.Open(ctx, http.HandlerFunc(e.serve), quota)
	if err != nil {
		return nil, err
	}
	// Under the lock the trial's requests take: a request comes through the
	// agent, a process, so nothing in Go orders it after this write.
	e.mu.Lock()
	e.tenant, e.URL = t, t.URL
	e.mu.Unlock()
	return e, nil
}

// Env is what the agent is given to send its spans here: the endpoint and
// protocol, for every signal and for traces alone (so a traces endpoint
// the environment held does not send them elsewhere), and TRACEPARENT,
// the trial's span its spans are children of.
func (e *Endpoint) Env(parent Parent) []string {
	return []string{
		EnvEndpoint + "=" + e.URL,
		EnvTracesEndpoint + "=" + e.URL + pathTraces,
		EnvProtocol + "=http/protobuf",
		EnvTracesProtocol + "=http/protobuf",
		EnvTraceparent + "=" + parent.String(),
	}
}

// Settle waits, up to grace, until no request of the trial is being
// served: an SDK flushing its last spans as its program ends is still
// sending them when the agent has gone. It returns at once when none is.
func (e *Endpoint) Settle(grace time.Duration) {
	e.mu.Lock()
	idle := e.idle
	e.mu.Unlock()
	select {
	case <-idle:
		return
	default:
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

// started and ended count a request being served, for Settle.
func (e *Endpoint) started() {
	e.mu.Lock()
	if e.busy == 0 {
		e.idle = make(chan struct{})
	}
	e.busy++
	e.mu.Unlock()
}

func (e *Endpoint) ended() {
	e.mu.Lock()
	e.busy--
	if e.busy == 0 {
		close(e.idle)
	}
	e.mu.Unlock()
}

// Close stops serving the trial: its path is 404 from now on, requests in
// progress are cut off, and Close returns the trial's trace once none
// runs. It may be called again, and returns the same trace.
func (e *Endpoint) Close() *Trace {
	e.tenant.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.closed = true
		e.table.trace.Refused += e.tenant.Refused(loopback.Requests)
		e.table.strings = nil
		e.table.trace.sort()
	}
	return &e.table.trace
}

// refuse answers a request refused whole, and counts it.
func (e *Endpoint) refuse(w http.ResponseWriter, status int) {
	e.mu.Lock()
	e.table.trace.Refused++
	e.mu.Unlock()
	w.WriteHeader(status)
}

// serve answers one request of the trial's SDKs.
func (e *Endpoint) serve(w http.ResponseWriter, r *http.Request) {
	e.started()
	defer e.ended()
	switch r.URL.Path {
	case pathTraces, pathMetrics, pathLogs:
	default:
		e.refuse(w, http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		e.refuse(w, http.StatusMethodNotAllowed)
		return
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var decode func([]byte, sink) error
	switch ct {
	case "application/x-protobuf", "application/protobuf":
		decode = decodeProto
	case "application/json":
		decode = decodeJSON
	default:
		e.refuse(w, http.StatusUnsupportedMediaType)
		return
	}
	if !acquire(r.Context(), e.reads) {
		e.refuse(w, http.StatusServiceUnavailable)
		return
	}
	defer func() { <-e.reads }()
	body, status := readBody(r)
	if status != 0 {
		e.refuse(w, status)
		return
	}
	if r.URL.Path != pathTraces {
		respond(w, ct, 0)
		return
	}
	if !acquire(r.Context(), e.r.decode) {
		e.refuse(w, http.StatusServiceUnavailable)
		return
	}
	rejected, err := e.take(body, decode)
	<-e.r.decode
	if err != nil {
		e.refuse(w, http.StatusBadRequest)
		return
	}
	respond(w, ct, rejected)
}

// take decodes body and keeps its spans, under the trial's lock; it
// returns how many of them were dropped.
func (e *Endpoint) take(body []byte, decode func([]byte, sink) error) (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return 0, nil
	}
	before := e.table.trace.Dropped
	err := decode(body, trialSink{e})
	return e.table.trace.Dropped - before, err
}

// trialSink keeps a request's spans in its trial's table, under its
// quota; the trial's lock is held.
type trialSink struct{ e *Endpoint }

func (s trialSink) full() bool           { return s.e.tenant.Used(loopback.Spans) >= MaxSpans }
func (s trialSink) room() bool           { return s.e.tenant.Take(loopback.Spans, 1) == nil }
func (s trialSink) add(sp *tracepb.Span) { s.e.table.add(sp) }
func (s trialSink) drop()                { s.e.table.trace.Dropped++ }

// acquire takes a slot of sem, unless ctx ends first.
func acquire(ctx context.Context, sem chan struct{}) bool {
	select {
	case sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// readBody reads a request's body, decompressed, up to MaxRequestBytes;
// the status is the answer to a body that cannot be read, else 0.
func readBody(r *http.Request) ([]byte, int) {
	var src io.Reader = r.Body
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, bodyStatus(err)
		}
		defer zr.Close()
		src = zr
	default:
		return nil, http.StatusUnsupportedMediaType
	}
	var buf bytes.Buffer
	if n := r.ContentLength; n > 0 && n <= MaxRequestBytes {
		buf.Grow(int(n))
	}
	n, err := buf.ReadFrom(io.LimitReader(src, MaxRequestBytes+1))
	switch {
	case err != nil:
		return nil, bodyStatus(err)
	case n > MaxRequestBytes:
		return nil, http.StatusRequestEntityTooLarge
	}
	return buf.Bytes(), 0
}

// bodyStatus is the answer to a body that could not be read.
func bodyStatus(err error) int {
	var tooLarge *http.MaxBytesError
	var quota *loopback.QuotaError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.As(err, &quota):
		return http.StatusTooManyRequests
	}
	return http.StatusBadRequest
}

// respond answers an export request taken, in its encoding: an empty
// ExportTraceServiceResponse, or one whose partial_success says how many
// spans were rejected. A rejection is final (the SDKs do not send those
// spans again), and its message holds nothing the client sent.
func respond(w http.ResponseWriter, ct string, rejected int64) {
	w.Header().Set("Content-Type", ct)
	msg := "over the caps of a trial's spans (docs/otel.md)"
	if ct == "application/json" {
		if rejected == 0 {
			io.WriteString(w, "{}")
			return
		}
		fmt.Fprintf(w, `{"partialSuccess":{"rejectedSpans":"%d","errorMessage":%s}}`, rejected, strconv.Quote(msg))
		return
	}
	if rejected == 0 {
		return
	}
	var ps []byte
	ps = protowire.AppendTag(ps, 1, protowire.VarintType) // rejected_spans
	ps = protowire.AppendVarint(ps, uint64(rejected))
	ps = protowire.AppendTag(ps, 2, protowire.BytesType) // error_message
	ps = protowire.AppendString(ps, msg)
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType) // partial_success
	b = protowire.AppendBytes(b, ps)
	w.Write(b)
}

// Parent is the span a trial's spans are children of, given to the agent
// as TRACEPARENT: the trial's span when the run is exported, else one
// that exists only there.
type Parent struct {
	Trace TraceID
	Span  SpanID
}

// NewParent is a parent of random ids.
func NewParent() Parent {
	var p Parent
	rand.Read(p.Trace[:])
	rand.Read(p.Span[:])
	return p
}

// String is the parent in the W3C traceparent form: version 00, sampled.
func (p Parent) String() string {
	return "00-" + hex.EncodeToString(p.Trace[:]) + "-" + hex.EncodeToString(p.Span[:]) + "-01"
}
