package traces

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const (
	protoType = "application/x-protobuf"
	jsonType  = "application/json"
)

// jsonOptionsForTests write the protobuf JSON mapping, ids in base64,
// which the receiver takes too.
var jsonOptionsForTests = protojson.MarshalOptions{}

// secret is content an agent puts in attributes that carry content: it
// must never be kept.
const secret = "SECRET-PROMPT-7f3a"

func open(t *testing.T) (*Receiver, *Endpoint) {
	t.Helper()
	r, err := Listen()
	assert.NilError(t, err)
	t.Cleanup(func() { r.Close() })
	e, err := r.Open(t.Context())
	assert.NilError(t, err)
	t.Cleanup(func() { e.Close() })
	return r, e
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func integer(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

func double(k string, v float64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}}}
}

func id(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

// chatSpan is a model call as the GenAI conventions write it, with its
// prompt and completion in attributes that carry content, some named in
// odd case.
func chatSpan(n byte, parent []byte) *tracepb.Span {
	return &tracepb.Span{
		TraceId: id(1, 16), SpanId: id(n, 8), ParentSpanId: parent,
		Name: "chat gpt-4o", Kind: tracepb.Span_SPAN_KIND_CLIENT,
		StartTimeUnixNano: 1_000_000_000 + uint64(n)*1_000_000, EndTimeUnixNano: 1_000_000_000 + uint64(n)*1_000_000 + 500_000,
		Attributes: []*commonpb.KeyValue{
			str("gen_ai.operation.name", "chat"),
			str("gen_ai.request.model", "gpt-4o"),
			str("gen_ai.response.model", "gpt-4o-2024"),
			integer("gen_ai.usage.input_tokens", 100),
			double("gen_ai.usage.output_tokens", 20),
			str("gen_ai.input.messages", secret),
			str("GEN_AI.OUTPUT.MESSAGES", secret),
			str("Gen_Ai.Prompt.0.Content", secret),
			str("gen_ai.completion.0.content", secret),
			str("input.value", secret),
			str("Output.Value", secret),
			str("GEN_AI.REQUEST.MODEL", secret),
		},
		Events: []*tracepb.Span_Event{{Name: "gen_ai.content.prompt", Attributes: []*commonpb.KeyValue{str("gen_ai.prompt", secret)}}},
		Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK, Message: secret},
	}
}

func toolSpan(n byte, parent []byte, tool string, failed bool) *tracepb.Span {
	s := &tracepb.Span{
		TraceId: id(1, 16), SpanId: id(n, 8), ParentSpanId: parent,
		Name: "execute_tool " + tool, Kind: tracepb.Span_SPAN_KIND_INTERNAL,
		StartTimeUnixNano: 1_000_000_000 + uint64(n)*1_000_000, EndTimeUnixNano: 1_000_000_000 + uint64(n)*1_000_000 + 200_000,
		Attributes: []*commonpb.KeyValue{
			str("gen_ai.operation.name", "execute_tool"),
			str("gen_ai.tool.name", tool),
			str("gen_ai.tool.call.arguments", secret),
			str("gen_ai.tool.call.result", secret),
		},
		Events: []*tracepb.Span_Event{{Name: "tool.called"}},
	}
	if failed {
		s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR}
		s.Attributes = append(s.Attributes, str("error.type", "TimeoutError"))
		s.Events = append(s.Events, &tracepb.Span_Event{Name: "tool.failed"})
	}
	return s
}

func request(spans ...*tracepb.Span) *tracepb.TracesData {
	return &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}},
	}}}
}

func marshal(t *testing.T, td *tracepb.TracesData) []byte {
	t.Helper()
	b, err := proto.Marshal(td)
	assert.NilError(t, err)
	return b
}

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(b)
	assert.NilError(t, err)
	assert.NilError(t, zw.Close())
	return buf.Bytes()
}

type reply struct {
	status int
	body   []byte
	ctype  string
}

func send(t *testing.T, method, url, ctype, encoding string, body []byte) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, bytes.NewReader(body))
	assert.NilError(t, err)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := http.DefaultClient.Do(req)
	assert.NilError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	assert.NilError(t, err)
	return reply{resp.StatusCode, b, resp.Header.Get("Content-Type")}
}

// jsonBody is a request in the JSON encoding of OTLP, ids in hex as its
// specification writes them, enums as numbers, 64-bit integers as
// strings, and keys in either case of the protobuf JSON mapping.
var jsonBody = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"agent"}}]},
"scopeSpans":[{"scope":{"name":"x"},"spans":[
 {"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"1112131415161718","name":"invoke_agent support","kind":1,
  "startTimeUnixNano":"1000000000","endTimeUnixNano":"1900000000",
  "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},{"key":"gen_ai.agent.name","value":{"stringValue":"support"}}]},
 {"traceId":"0102030405060708090A0B0C0D0E0F10","spanId":"2122232425262728","parentSpanId":"1112131415161718","name":"chat m","kind":3,
  "startTimeUnixNano":1100000000,"endTimeUnixNano":"1500000000",
  "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"m"}},
   {"key":"gen_ai.usage.input_tokens","value":{"intValue":"12"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":3}},
   {"key":"gen_ai.input.messages","value":{"stringValue":"` + secret + `"}}],
  "events":[{"name":"tool.called","timeUnixNano":"1200000000"}],
  "status":{"code":2,"message":"` + secret + `"},
  "futureField":{"x":1}}
]}]}]}`

func TestReceiverKeepsWhatCarriesNoContent(t *testing.T) {
	type testCase struct {
		name     string
		ctype    string
		encoding string
		body     func(t *testing.T) []byte
		want     []Span
	}
	root := Span{Trace: TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, ID: SpanID{0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18},
		Name: "invoke_agent support", Kind: KindInternal, Start: 1_000_000_000, End: 1_900_000_000,
		Operation: "invoke_agent", Agent: "support", InputTokens: -1, OutputTokens: -1}
	chat := Span{Trace: root.Trace, ID: SpanID{0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28}, Parent: root.ID,
		Name: "chat m", Kind: KindClient, Status: StatusError, Start: 1_100_000_000, End: 1_500_000_000,
		Operation: "chat", RequestModel: "m", InputTokens: 12, OutputTokens: 3, Events: []string{"tool.called"}}
	fromProto := []Span{
		{Trace: TraceID(id(1, 16)), ID: SpanID(id(2, 8)), Name: "chat gpt-4o", Kind: KindClient, Status: StatusOK,
			Start: 1_002_000_000, End: 1_002_500_000, Operation: "chat", RequestModel: "gpt-4o", ResponseModel: "gpt-4o-2024",
			InputTokens: 100, OutputTokens: 20, Events: []string{"gen_ai.content.prompt"}},
		{Trace: TraceID(id(1, 16)), ID: SpanID(id(3, 8)), Parent: SpanID(id(2, 8)), Name: "execute_tool lookup", Kind: KindInternal,
			Status: StatusError, Start: 1_003_000_000, End: 1_003_200_000, Operation: "execute_tool", Tool: "lookup", ErrorType: "TimeoutError",
			InputTokens: -1, OutputTokens: -1, Events: []string{"tool.called", "tool.failed"}},
	}
	protoBody := func(t *testing.T) []byte {
		return marshal(t, request(chatSpan(2, nil), toolSpan(3, id(2, 8), "lookup", true)))
	}
	for _, tc := range []testCase{
		{name: "protobuf", ctype: protoType, body: protoBody, want: fromProto},
		{name: "protobuf, gzip", ctype: protoType, encoding: "gzip", body: func(t *testing.T) []byte { return gzipped(t, protoBody(t)) }, want: fromProto},
		{name: "JSON", ctype: jsonType, body: func(*testing.T) []byte { return []byte(jsonBody) }, want: []Span{root, chat}},
		{name: "JSON, gzip, with a charset", ctype: jsonType + "; charset=utf-8", encoding: "gzip", body: func(t *testing.T) []byte { return gzipped(t, []byte(jsonBody)) }, want: []Span{root, chat}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, e := open(t)
			r := send(t, http.MethodPost, e.URL+"/v1/traces", tc.ctype, tc.encoding, tc.body(t))
			assert.Equal(t, r.status, http.StatusOK, "%s", r.body)
			assert.Check(t, is.Len(r.body, map[bool]int{true: 2, false: 0}[strings.HasPrefix(tc.ctype, jsonType)]))
			tr := e.Close()
			assert.DeepEqual(t, tr.Spans, tc.want)
			assert.Equal(t, tr.Dropped+tr.Invalid+tr.Refused, int64(0))
			kept, err := json.Marshal(tr.Summary())
			assert.NilError(t, err)
			assert.Check(t, !bytes.Contains(kept, []byte(secret)), "%s", kept)
		})
	}
}

// TestReceiverRefuses checks what is refused whole: it is counted, the
// answer's body holds nothing the client sent, and no span is kept.
func TestReceiverRefuses(t *testing.T) {
	type testCase struct {
		name     string
		method   string
		path     string
		ctype    string
		encoding string
		body     []byte
		status   int
	}
	good := marshal(&testing.T{}, request(chatSpan(2, nil)))
	big := marshal(&testing.T{}, request(&tracepb.Span{Name: strings.Repeat("x", MaxRequestBytes)}))
	for _, tc := range []testCase{
		{name: "another path", method: "POST", path: "/v1/other", ctype: protoType, body: good, status: 404},
		{name: "a GET", method: "GET", path: "/v1/traces", status: 405},
		{name: "a content type not OTLP's", method: "POST", path: "/v1/traces", ctype: "text/plain", body: good, status: 415},
		{name: "an encoding not gzip", method: "POST", path: "/v1/traces", ctype: protoType, encoding: "br", body: good, status: 415},
		{name: "gzip that is not", method: "POST", path: "/v1/traces", ctype: protoType, encoding: "gzip", body: good, status: 400},
		{name: "protobuf that is not", method: "POST", path: "/v1/traces", ctype: protoType, body: []byte{0x0a, 0xff, 0xff, 0xff}, status: 400},
		{name: "JSON that is not", method: "POST", path: "/v1/traces", ctype: jsonType, body: []byte(`{"resourceSpans":[` + secret), status: 400},
		{name: "a body over the cap", method: "POST", path: "/v1/traces", ctype: protoType, body: big, status: 413},
		{name: "a body over the cap once decompressed", method: "POST", path: "/v1/traces", ctype: protoType, encoding: "gzip", body: gzipped(&testing.T{}, big), status: 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, e := open(t)
			r := send(t, tc.method, e.URL+tc.path, tc.ctype, tc.encoding, tc.body)
			assert.Equal(t, r.status, tc.status)
			assert.Check(t, is.Len(r.body, 0))
			tr := e.Close()
			assert.Check(t, is.Len(tr.Spans, 0))
			assert.Check(t, is.Equal(tr.Refused, int64(1)))
		})
	}
}

func TestPathsOfNoTrialAreNotFound(t *testing.T) {
	r, e := open(t)
	body := marshal(t, request(chatSpan(2, nil)))
	closed, err := r.Open(t.Context())
	assert.NilError(t, err)
	closed.Close()
	for _, u := range []string{closed.URL + "/v1/traces", e.URL[:len(e.URL)-1] + "/v1/traces", strings.ToUpper(e.URL) + "/v1/traces"} {
		rep := send(t, http.MethodPost, u, protoType, "", body)
		assert.Check(t, is.Equal(rep.status, http.StatusNotFound), u)
		assert.Check(t, is.Len(rep.body, 0))
	}
	assert.Check(t, is.Len(closed.Close().Spans, 0))
	assert.Check(t, is.Len(e.Close().Spans, 0))
}

func TestMetricsAndLogsAreTakenAndDiscarded(t *testing.T) {
	_, e := open(t)
	for _, p := range []string{"/v1/metrics", "/v1/logs"} {
		r := send(t, http.MethodPost, e.URL+p, protoType, "", []byte{0x0a, 0x00})
		assert.Check(t, is.Equal(r.status, http.StatusOK), p)
	}
	tr := e.Close()
	assert.Check(t, is.Len(tr.Spans, 0))
	assert.Check(t, is.Equal(tr.Refused, int64(0)))
}

// rejected reads the partial_success of an ExportTraceServiceResponse.
func rejected(t *testing.T, ctype string, body []byte) int64 {
	t.Helper()
	if len(body) == 0 || string(body) == "{}" {
		return 0
	}
	if ctype == jsonType {
		var v struct {
			PartialSuccess struct {
				RejectedSpans int64 `json:"rejectedSpans,string"`
			} `json:"partialSuccess"`
		}
		assert.NilError(t, json.Unmarshal(body, &v))
		return v.PartialSuccess.RejectedSpans
	}
	var n int64
	err := embedded(body, 1, func(ps []byte) error {
		num, typ, l := protowire.ConsumeTag(ps)
		assert.Assert(t, num == 1 && typ == protowire.VarintType && l > 0)
		v, _ := protowire.ConsumeVarint(ps[l:])
		n = int64(v)
		return nil
	})
	assert.NilError(t, err)
	return n
}

// TestCaps checks the caps of a trial's spans: what goes over them is
// dropped and counted, the rest kept, and the SDK told how many were
// rejected.
func TestCaps(t *testing.T) {
	many := func(n int, f func(i int) *commonpb.KeyValue) []*commonpb.KeyValue {
		out := make([]*commonpb.KeyValue, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	attr := func(i int) *commonpb.KeyValue { return str(fmt.Sprint("k", i), "v") }
	type testCase struct {
		name    string
		spans   []*tracepb.Span
		kept    int
		dropped int64
		invalid int64
	}
	events := func(n, attrs int) []*tracepb.Span_Event {
		out := make([]*tracepb.Span_Event, n)
		for i := range out {
			out[i] = &tracepb.Span_Event{Name: "e", Attributes: many(attrs, attr)}
		}
		return out
	}
	for _, tc := range []testCase{
		{name: "128 attributes", spans: []*tracepb.Span{{Name: "a", Attributes: many(MaxAttributes, attr)}}, kept: 1},
		{name: "129 attributes", spans: []*tracepb.Span{{Name: "a", Attributes: many(MaxAttributes+1, attr)}, {Name: "b"}}, kept: 1, dropped: 1},
		{name: "129 events", spans: []*tracepb.Span{{Name: "a", Events: events(MaxAttributes+1, 0)}}, dropped: 1},
		{name: "an event of 129 attributes", spans: []*tracepb.Span{{Name: "a", Events: events(1, MaxAttributes+1)}}, dropped: 1},
		{name: "129 links", spans: []*tracepb.Span{{Name: "a", Links: make([]*tracepb.Span_Link, MaxAttributes+1)}}, dropped: 1},
		{name: "a name over the cap is cut", spans: []*tracepb.Span{{Name: strings.Repeat("é", MaxString)}}, kept: 1},
		{name: "token counts that are not", spans: []*tracepb.Span{{Name: "c", Attributes: []*commonpb.KeyValue{
			str("gen_ai.operation.name", "chat"),
			integer("gen_ai.usage.input_tokens", -1),
			double("gen_ai.usage.output_tokens", math.NaN()),
			double("gen_ai.usage.input_tokens", math.Inf(1)),
			double("gen_ai.usage.output_tokens", 1.5),
			double("gen_ai.usage.output_tokens", 1e300),
			str("gen_ai.usage.input_tokens", "12"),
			integer("gen_ai.request.model", 4),
		}}}, kept: 1, invalid: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, ct := range []string{protoType, jsonType} {
				_, e := open(t)
				body := marshal(t, request(tc.spans...))
				if ct == jsonType {
					var err error
					body, err = jsonOptionsForTests.Marshal(request(tc.spans...))
					assert.NilError(t, err)
				}
				r := send(t, http.MethodPost, e.URL+"/v1/traces", ct, "", body)
				assert.Equal(t, r.status, http.StatusOK)
				assert.Check(t, is.Equal(rejected(t, ct, r.body), tc.dropped), ct)
				tr := e.Close()
				assert.Check(t, is.Len(tr.Spans, tc.kept), ct)
				assert.Check(t, is.Equal(tr.Dropped, tc.dropped), ct)
				assert.Check(t, is.Equal(tr.Invalid, tc.invalid), ct)
				for _, s := range tr.Spans {
					assert.Check(t, len(s.Name) <= MaxString)
					assert.Check(t, s.InputTokens == -1 && s.OutputTokens == -1 || s.Operation == "")
				}
			}
		})
	}
}

// TestSpanQuota sends more spans than a trial keeps, in several requests:
// the first MaxSpans are kept, the rest dropped and counted.
func TestSpanQuota(t *testing.T) {
	_, e := open(t)
	const per = 3000
	spans := make([]*tracepb.Span, per)
	for i := range spans {
		spans[i] = &tracepb.Span{Name: "s", SpanId: []byte{0, 0, 0, 0, 0, 0, byte(i >> 8), byte(i)}}
	}
	body := gzipped(t, marshal(t, request(spans...)))
	var rej int64
	for range 4 {
		r := send(t, http.MethodPost, e.URL+"/v1/traces", protoType, "gzip", body)
		assert.Equal(t, r.status, http.StatusOK)
		rej += rejected(t, protoType, r.body)
	}
	tr := e.Close()
	assert.Check(t, is.Len(tr.Spans, MaxSpans))
	assert.Check(t, is.Equal(tr.Dropped, int64(4*per-MaxSpans)))
	assert.Check(t, is.Equal(rej, int64(4*per-MaxSpans)))
}

// TestDeepParentChains sends a chain of spans each the parent of the
// next, and a cycle: the summary is made without following them.
func TestDeepParentChains(t *testing.T) {
	_, e := open(t)
	const n = 5000
	spans := make([]*tracepb.Span, n)
	for i := range spans {
		spans[i] = &tracepb.Span{Name: "s", SpanId: []byte{1, 0, 0, 0, 0, 0, byte(i >> 8), byte(i)}, StartTimeUnixNano: uint64(i), EndTimeUnixNano: uint64(2*n - i)}
		if i > 0 {
			spans[i].ParentSpanId = spans[i-1].SpanId
		} else {
			last := n - 1
			spans[i].ParentSpanId = []byte{1, 0, 0, 0, 0, 0, byte(last >> 8), byte(last)} // a cycle
		}
	}
	r := send(t, http.MethodPost, e.URL+"/v1/traces", protoType, "", marshal(t, request(spans...)))
	assert.Equal(t, r.status, http.StatusOK)
	s := e.Close().Summary()
	assert.Check(t, is.Equal(s.Count, n))
	assert.Check(t, is.Len(s.List, MaxRecordedSpans))
	assert.Check(t, is.Equal(s.Omitted, n-MaxRecordedSpans))
	assert.Check(t, is.Equal(s.List[0].Parent, -1))
	for i := 1; i < len(s.List); i++ {
		assert.Check(t, is.Equal(s.List[i].Parent, i-1))
	}
}
