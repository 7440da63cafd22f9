package otelexport

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

// collector is an OTLP/HTTP collector on loopback that keeps each
// request's body, decoded.
type collector struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*tracepb.TracesData
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		assert.Check(t, err)
		td := &tracepb.TracesData{}
		assert.Check(t, proto.Unmarshal(b, td))
		c.mu.Lock()
		c.requests = append(c.requests, td)
		c.mu.Unlock()
	}))
	t.Cleanup(c.Close)
	return c
}

// TestWireMatchesGolden sends a run that uses every kind of span and
// attribute the export writes, and compares what the collector decoded,
// field by field, with testdata/wire.golden.json: the export requests as
// the OpenTelemetry Go SDK's OTLP exporter wrote them for the same run
// (go test ./otelexport -run TestWireMatchesGolden -update). The ids
// evalgate draws at random are replaced, in order of appearance, by
// 00…01, 00…02, …; the agent's own span ids are kept.
func TestWireMatchesGolden(t *testing.T) {
	c := newCollector(t)
	e := New(c.URL, true)
	start := time.Unix(1_700_000_000, 123_456_789)
	ms := time.Millisecond
	s1, s2 := &suites.Suite{ID: "s1"}, &suites.Suite{ID: "s2"}
	a, b := &suites.Task{ID: "a"}, &suites.Task{ID: "b"}

	p := e.Parent(&runner.Request{SuiteID: "s1", TaskID: "a", Trial: 1})
	agent := []traces.Span{
		{ID: agentID(1), Parent: p.Span, Name: "invoke_agent orders", Kind: traces.KindInternal, Start: uint64(start.UnixNano()), End: uint64(start.Add(9 * ms).UnixNano()),
			Operation: "invoke_agent", Agent: "orders", InputTokens: -1, OutputTokens: -1},
		{ID: agentID(2), Parent: agentID(1), Name: "chat m", Kind: traces.KindClient, Status: traces.StatusOK, Start: uint64(start.Add(ms).UnixNano()), End: uint64(start.Add(3 * ms).UnixNano()),
			Operation: traces.OpChat, RequestModel: "m", ResponseModel: "m-2024", InputTokens: 5, OutputTokens: 0, Events: []string{"gen_ai.choice", "tool.called"}},
		{ID: agentID(3), Parent: agentID(1), Name: "execute_tool lookup", Kind: traces.KindInternal, Status: traces.StatusError, Start: uint64(start.Add(4 * ms).UnixNano()), End: uint64(start.Add(5 * ms).UnixNano()),
			Operation: traces.OpExecuteTool, Tool: "lookup", ErrorType: "timeout", InputTokens: 7, OutputTokens: -1},
		// Its parent is not among the trial's spans: it goes under the trial.
		{ID: agentID(4), Parent: agentID(99), Name: "orphan", Kind: traces.KindServer, InputTokens: -1, OutputTokens: -1},
		// Its own parent: under the trial too.
		{ID: agentID(5), Parent: agentID(5), Name: "self", Kind: traces.KindProducer, InputTokens: -1, OutputTokens: -1},
		// No id: it gets one of evalgate's.
		{Parent: agentID(1), Name: "no id", Kind: traces.KindConsumer, InputTokens: -1, OutputTokens: -1},
		// A kind OpenTelemetry does not have, a start past int64's
		// nanoseconds and a chat with tokens of -1 (none sent).
		{ID: agentID(6), Parent: agentID(1), Name: "odd", Kind: traces.Kind(9), Start: math.MaxUint64, End: math.MaxUint64,
			Operation: traces.OpChat, InputTokens: -1, OutputTokens: 3},
	}
	e.Trial(s1, a, &runner.TrialRecord{
		Trial: 1, Start: start,
		Result: results.Trial{Trial: 1, Status: results.StatusFailed, Score: 0.25, LatencyMs: 20,
			Checks: []results.Check{{ID: "c1", Passed: true}, {ID: "c2"}, {ID: "c3"}}},
		Trace: []fixtures.Call{{Name: "lookup", StartMs: 2, DurationMs: 3}, {Name: "refund", StartMs: 6, DurationMs: 1, IsError: true}},
		Judges: []results.JudgeCall{
			{Kind: results.JudgeRubric, Checks: []string{"rubric[0]", "rubric[1]"}, Start: start.Add(21 * ms), Duration: 4 * ms, Outcome: results.JudgeFailed, Score: 0.5},
			{Kind: results.JudgeProgram, Start: start.Add(22 * ms), Duration: ms, Outcome: results.JudgeErrored, Score: -1},
		},
		Spans: &traces.Trace{Spans: agent},
	})
	e.Trial(s1, a, &runner.TrialRecord{
		Trial: 2, Start: start.Add(30 * ms),
		Result: results.Trial{Trial: 2, Status: results.StatusPassed, Score: 1, LatencyMs: 7, Checks: []results.Check{{ID: "c1", Passed: true}}},
	})
	e.Trial(s2, b, &runner.TrialRecord{
		Trial: 1, Start: start.Add(-5 * ms),
		Result: results.Trial{Trial: 1, Status: results.StatusError, ErrorKind: "timeout", LatencyMs: 50},
	})
	run := &results.Run{RunID: "run-1", Passed: false, StartedAt: start.Add(-10 * ms), FinishedAt: start.Add(time.Second),
		Suites: []results.Suite{
			{ID: "s1", Passed: true, Tasks: []results.Task{
				{ID: "a", Status: results.StatusFailed, Score: 0.625},
				{ID: "never-run", Status: results.StatusPassed},
			}},
			{ID: "s0-never-run"},
			{ID: "s2", Tasks: []results.Task{{ID: "b", Status: results.StatusError}}},
		}}
	run.AggregateScore, run.TaskCount = 0.625, 3
	run.Suites[0].AggregateScore = 0.625
	assert.NilError(t, e.Export(t.Context(), run))
	assert.Assert(t, is.Len(c.requests, 1))

	kept := map[string]bool{}
	for _, sp := range agent {
		kept[string(sp.ID[:])] = true
	}
	got := normalizeIDs(c.requests[0], kept)
	if golden.FlagUpdate() {
		golden.Assert(t, protoJSON(t, got), "wire.golden.json")
		return
	}
	want := &tracepb.TracesData{}
	assert.NilError(t, protojson.Unmarshal(golden.Get(t, "wire.golden.json"), want))
	assert.Check(t, is.DeepEqual(got, want, protocmp.Transform()))
	// The same message has the same wire form.
	opts := proto.MarshalOptions{Deterministic: true}
	gotWire, err := opts.Marshal(got)
	assert.NilError(t, err)
	wantWire, err := opts.Marshal(want)
	assert.NilError(t, err)
	assert.Check(t, bytes.Equal(gotWire, wantWire), "the wire forms differ")
}

// TestExportBatches sends a run of more spans than one request carries
// in requests of at most a batch each, every span once.
func TestExportBatches(t *testing.T) {
	c := newCollector(t)
	e := New(c.URL, false)
	start := time.Unix(1_000, 0)
	calls := make([]fixtures.Call, 2*batch)
	for i := range calls {
		calls[i] = fixtures.Call{Name: "lookup", StartMs: int64(i)}
	}
	e.Trial(&suites.Suite{ID: "s"}, &suites.Task{ID: "t"}, &runner.TrialRecord{Trial: 1, Start: start, Trace: calls})
	run := &results.Run{RunID: "r", StartedAt: start, FinishedAt: start.Add(time.Second),
		Suites: []results.Suite{{ID: "s", Tasks: []results.Task{{ID: "t"}}}}}
	assert.NilError(t, e.Export(t.Context(), run))
	var sizes []int
	ids := map[string]bool{}
	for _, td := range c.requests {
		n := 0
		for _, rs := range td.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				n += len(ss.Spans)
				for _, sp := range ss.Spans {
					ids[string(sp.SpanId)] = true
				}
			}
		}
		sizes = append(sizes, n)
	}
	total := 1 + 1 + 1 + 1 + len(calls) // run, suite, task, trial, calls
	assert.Check(t, is.DeepEqual(sizes, []int{batch, batch, total - 2*batch}))
	assert.Check(t, is.Len(ids, total))
}

func agentID(n byte) traces.SpanID { return traces.SpanID{0xa6, 0xe7, 0, 0, 0, 0, 0, n} }

// normalizeIDs replaces, in order of appearance, the trace id and the
// span ids not in kept by 00…01, 00…02, ….
func normalizeIDs(td *tracepb.TracesData, kept map[string]bool) *tracepb.TracesData {
	td = proto.Clone(td).(*tracepb.TracesData)
	seen := map[string][]byte{}
	norm := func(id []byte) []byte {
		if len(id) == 0 || kept[string(id)] {
			return id
		}
		if n, ok := seen[string(id)]; ok {
			return n
		}
		n := make([]byte, len(id))
		n[len(n)-1] = byte(len(seen) + 1)
		seen[string(id)] = n
		return n
	}
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				sp.TraceId = norm(sp.TraceId)
				sp.SpanId = norm(sp.SpanId)
				sp.ParentSpanId = norm(sp.ParentSpanId)
			}
		}
	}
	return td
}

// protoJSON is m in the protobuf JSON mapping, indented the same way
// every time (protojson varies its spacing on purpose).
func protoJSON(t *testing.T, m proto.Message) string {
	t.Helper()
	b, err := protojson.Marshal(m)
	assert.NilError(t, err)
	var compact, out bytes.Buffer
	assert.NilError(t, json.Compact(&compact, b))
	assert.NilError(t, json.Indent(&out, compact.Bytes(), "", "  "))
	return out.String() + "\n"
}
