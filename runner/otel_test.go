//go:build unix

package runner

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

// otelSecret is content the test agent puts in its spans' content
// attributes: it must reach no result.
const otelSecret = "SECRET-PROMPT-otel-41"

// otelTestAgent is an agent whose model and tools live inside it: it
// reports them only as spans, sent as an OpenTelemetry SDK sends them (an
// OTLP/HTTP protobuf POST to the endpoint its environment names, under
// the TRACEPARENT it was given). "otel" sends them before its final line,
// "otel-late" after it, as an SDK flushing at exit does; "otel-usage" also
// writes a usage line, which wins.
func otelTestAgent(behaviour string, in *bufio.Reader) int {
	if _, err := in.ReadString('\n'); err != nil {
		return 9
	}
	final := func() {
		fmt.Printf(`{"type":"final","output":{"traceparent":%q}}`+"\n", os.Getenv(traces.EnvTraceparent))
	}
	if behaviour == "otel-usage" {
		fmt.Println(`{"type":"usage","model":"m-otel","inputTokens":7,"outputTokens":3,"costUsd":0.5}`)
	}
	if behaviour == "otel-late" {
		final()
	}
	if err := sendTestSpans(); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 7
	}
	if behaviour != "otel-late" {
		final()
	}
	return 0
}

// sendTestSpans posts an agent's span, its model call and its tool call.
func sendTestSpans() error {
	parts := strings.Split(os.Getenv(traces.EnvTraceparent), "-")
	if len(parts) != 4 {
		return fmt.Errorf("TRACEPARENT %q", os.Getenv(traces.EnvTraceparent))
	}
	traceID, _ := hex.DecodeString(parts[1])
	parent, _ := hex.DecodeString(parts[2])
	now := uint64(time.Now().UnixNano())
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	num := func(k string, v int64) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
	}
	agentID, chatID, toolID := []byte("agent001"), []byte("chat0001"), []byte("tool0001")
	data := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{
		{
			TraceId: traceID, SpanId: agentID, ParentSpanId: parent, Name: "invoke_agent support",
			StartTimeUnixNano: now, EndTimeUnixNano: now + 30e6,
			Attributes: []*commonpb.KeyValue{str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", "support")},
		},
		{
			TraceId: traceID, SpanId: chatID, ParentSpanId: agentID, Name: "chat m-otel", Kind: tracepb.Span_SPAN_KIND_CLIENT,
			StartTimeUnixNano: now + 1e6, EndTimeUnixNano: now + 11e6,
			Attributes: []*commonpb.KeyValue{
				str("gen_ai.operation.name", "chat"), str("gen_ai.request.model", "m-otel"),
				num("gen_ai.usage.input_tokens", 1000), num("gen_ai.usage.output_tokens", 200),
				str("gen_ai.input.messages", otelSecret),
			},
		},
		{
			TraceId: traceID, SpanId: toolID, ParentSpanId: agentID, Name: "execute_tool lookup",
			StartTimeUnixNano: now + 12e6, EndTimeUnixNano: now + 20e6,
			Attributes: []*commonpb.KeyValue{str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", "lookup"), str("gen_ai.tool.call.arguments", otelSecret)},
			Events:     []*tracepb.Span_Event{{Name: "tool.called", TimeUnixNano: now + 12e6}},
		},
	}}}}}}
	body, err := proto.Marshal(data)
	if err != nil {
		return err
	}
	resp, err := http.Post(os.Getenv(traces.EnvTracesEndpoint), "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("export answered %s", resp.Status)
	}
	return nil
}

func otelSuite(t *testing.T) *suites.Suite {
	return loadSuite(t, `suiteId: acme.t.evals.otel
version: 1.0.0
modes: [golden]
tools: [{name: lookup}]
tasks:
  - taskId: t
    input: {}
    expected:
      kind: golden
      assert:
        - {toolCalled: lookup}
        - {maxCostUsd: 0.01}
`)
}

// TestOTelTrial runs agents that report their model and tool calls only
// through OpenTelemetry: the trial records their spans without content,
// prices their tokens when no usage line did, and takes their
// execute_tool spans as its tool calls.
func TestOTelTrial(t *testing.T) {
	pricing := map[string]chat.Pricing{"m-otel": {InputPerMTok: 1, OutputPerMTok: 2}}
	for _, tc := range []struct {
		behaviour string
		cost      float64
		tokens    results.Tokens
		status    string
	}{
		{behaviour: "otel", cost: 0.0014, tokens: results.Tokens{Input: 1000, Output: 200}, status: results.StatusPassed},
		{behaviour: "otel-late", cost: 0.0014, tokens: results.Tokens{Input: 1000, Output: 200}, status: results.StatusPassed},
		// The usage line wins, alone: its cost fails maxCostUsd.
		{behaviour: "otel-usage", cost: 0.5, tokens: results.Tokens{Input: 7, Output: 3}, status: results.StatusFailed},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			o := &OTel{Agent: testAgentExec(tc.behaviour, nil), Pricing: pricing}
			defer o.Close()
			obs := &traceRecorder{}
			got, err := Run(t.Context(), Plan([]*suites.Suite{otelSuite(t)}, Selection{}), Options{Agent: o, Scorer: scored(), Observer: obs, Trials: 2})
			assert.NilError(t, err)
			for _, tr := range got[0].Tasks[0].Trials {
				assert.Check(t, is.Equal(tr.Status, tc.status), "%+v", tr)
				assert.Check(t, is.DeepEqual(tr.Tools, []results.ToolUse{{Name: "lookup", Calls: 1, MaxSame: 1}}))
				assert.Check(t, is.Equal(tr.Tokens, tc.tokens))
				assert.Check(t, is.Equal(tr.AgentCostUsd, tc.cost))
				assert.Check(t, is.Equal(tr.ToolCalls, 1))
				assert.Assert(t, tr.Spans != nil)
				assert.Check(t, is.Equal(tr.Spans.Count, 3))
				assert.Check(t, is.Equal(tr.Spans.LLMCalls, 1))
				assert.Check(t, is.Equal(tr.Spans.ToolCalls, 1))
				assert.Check(t, is.DeepEqual(tr.Spans.Events, []results.EventCount{{Name: "tool.called", Count: 1}}))
				b, _ := json.Marshal(tr)
				assert.Check(t, !bytes.Contains(b, []byte(otelSecret)), "content kept: %s", b)
			}
			assert.Check(t, is.Len(obs.trace, 1))
			assert.Check(t, is.Equal(obs.trace[0].Source, traces.SourceTrace))
			assert.Check(t, is.Equal(obs.trace[0].Name, "lookup"))
			assert.Check(t, is.Len(o.Unpriced(), 0))
		})
	}
}

// TestOTelEnv checks what the agent is given: its trial's endpoint and a
// TRACEPARENT, a different one each trial.
func TestOTelEnv(t *testing.T) {
	o := &OTel{Agent: testAgentExec("otel", nil)}
	defer o.Close()
	seen := map[string]bool{}
	for range 2 {
		out := o.Run(t.Context(), &Request{SuiteID: "s", TaskID: "t", Trial: 1, Input: json.RawMessage("{}"), Timeout: time.Minute}, nil)
		assert.Assert(t, out.Err == nil, "%+v %s", out.Err, out.Stderr)
		var got struct{ Traceparent string }
		assert.NilError(t, json.Unmarshal(out.Output, &got))
		assert.Check(t, is.Regexp(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`, got.Traceparent))
		assert.Check(t, !seen[got.Traceparent], "TRACEPARENT repeated")
		seen[got.Traceparent] = true
		assert.Check(t, is.Len(out.Spans.Spans, 3))
	}
}
