package otelexport

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

func TestHeaderSecrets(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":        "api-key=abc%20secret%2Cvalue, x=y",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "authorization=Bearer t0ken",
	}
	got := HeaderSecrets(func(k string) string { return env[k] })
	assert.DeepEqual(t, got, []string{"abc%20secret%2Cvalue", "abc secret,value", "y", "Bearer t0ken"})
}

// TestSpanTree builds the run's spans: each trial under its task, each
// task under its suite, the suite under the run, a tool call under its
// trial, a judge call under its trial (which spans it, the judges deciding
// after the agent ended) with what it decided and nothing it was told,
// and the agent's spans under their trial (the one whose parent was
// TRACEPARENT) or their own parent.
func TestSpanTree(t *testing.T) {
	e := New("http://127.0.0.1:4318", true)
	s := &suites.Suite{ID: "s"}
	task := &suites.Task{ID: "t"}
	parent := e.Parent(&runner.Request{SuiteID: "s", TaskID: "t", Trial: 1})
	start := time.Unix(1_000, 0)
	agent := traces.Span{ID: traces.SpanID{1}, Parent: parent.Span, Name: "invoke_agent a", Kind: traces.KindInternal, InputTokens: -1, OutputTokens: -1}
	chat := traces.Span{ID: traces.SpanID{2}, Parent: traces.SpanID{1}, Name: "chat m", Operation: traces.OpChat, RequestModel: "m", InputTokens: 5, OutputTokens: 2, Events: []string{"tool.called"}}
	e.Trial(s, task, &runner.TrialRecord{
		Trial: 1, Start: start,
		Result: results.Trial{Trial: 1, Status: results.StatusFailed, LatencyMs: 20, Checks: []results.Check{{ID: "a", Passed: true}, {ID: "b"}}},
		Trace:  []fixtures.Call{{Name: "lookup", StartMs: 2, DurationMs: 3}},
		Judges: []results.JudgeCall{{Kind: results.JudgeRubric, Checks: []string{"rubric[0]"}, Start: start.Add(21 * time.Millisecond),
			Duration: 4 * time.Millisecond, Outcome: results.JudgeFailed, Score: 0.5}},
		Spans: &traces.Trace{Spans: []traces.Span{agent, chat}},
	})
	run := &results.Run{RunID: "r", StartedAt: start, FinishedAt: start.Add(time.Second),
		Suites: []results.Suite{{ID: "s", Tasks: []results.Task{{ID: "t", Status: results.StatusFailed}}}}}
	names := map[string]string{} // name -> parent's name
	byID := map[string]string{}
	spans := e.spans(run)
	for _, sp := range spans {
		byID[string(sp.SpanId)] = sp.Name
		assert.Check(t, is.DeepEqual(sp.TraceId, e.traceID[:]), "%s is in another trace", sp.Name)
	}
	for _, sp := range spans {
		names[sp.Name] = byID[string(sp.ParentSpanId)]
	}
	assert.DeepEqual(t, names, map[string]string{
		SpanRun: "", SpanSuite: SpanRun, SpanTask: SpanSuite, SpanTrial: SpanTask, SpanToolCall: SpanTrial, SpanJudge: SpanTrial,
		"invoke_agent a": SpanTrial, "chat m": "invoke_agent a",
	})
	for _, sp := range spans {
		switch sp.Name {
		case SpanTrial:
			assert.Check(t, is.DeepEqual(sp.SpanId, parent.Span[:]), "the trial is not the agent's TRACEPARENT")
			assert.Check(t, is.Equal(sp.EndTimeUnixNano-sp.StartTimeUnixNano, uint64(25*time.Millisecond)))
		case SpanJudge:
			assert.Check(t, is.Equal(sp.StartTimeUnixNano, uint64(start.Add(21*time.Millisecond).UnixNano())))
			assert.Check(t, is.Equal(sp.EndTimeUnixNano-sp.StartTimeUnixNano, uint64(4*time.Millisecond)))
			assert.Check(t, is.DeepEqual(sp.Attributes, []*commonpb.KeyValue{
				str("evalgate.judge.kind", "rubric"), str("evalgate.judge.outcome", "failed"),
				strs("evalgate.checks", []string{"rubric[0]"}), float("evalgate.score", 0.5),
			}, protocmp.Transform()))
		case "chat m":
			assert.Check(t, is.Len(sp.Attributes, 4)) // operation, request model, tokens in and out
			assert.Check(t, is.Len(sp.Events, 1))
		}
	}
}

// TestExportSendsHeadersFromTheEnvironment sends a run to a collector on
// loopback: one protobuf request holding the run's spans, with the
// environment's headers; a collector that refuses it is an error naming
// the endpoint.
func TestExportSendsHeadersFromTheEnvironment(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-key=a%20b")
	var got struct {
		key, ct, path string
		spans         int
	}
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.key, got.ct, got.path = r.Header.Get("X-Key"), r.Header.Get("Content-Type"), r.URL.Path
		b, _ := io.ReadAll(r.Body)
		var td tracepb.TracesData
		if proto.Unmarshal(b, &td) == nil {
			for _, rs := range td.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					got.spans += len(ss.Spans)
				}
			}
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	start := time.Unix(1_000, 0)
	run := &results.Run{RunID: "r", StartedAt: start, FinishedAt: start.Add(time.Second)}
	assert.NilError(t, New(srv.URL, true).Export(t.Context(), run))
	assert.Check(t, is.Equal(got.key, "a b"))
	assert.Check(t, is.Equal(got.ct, "application/x-protobuf"))
	assert.Check(t, is.Equal(got.path, "/v1/traces"))
	assert.Check(t, is.Equal(got.spans, 1))

	status = http.StatusUnauthorized
	err := New(srv.URL+"/v1/traces", true).Export(t.Context(), run)
	assert.Check(t, is.ErrorContains(err, "could not send the run's trace to "+srv.URL+"/v1/traces: the collector answered 401 Unauthorized"))
}
