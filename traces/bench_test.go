package traces

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// countingSink keeps nothing, and has room for MaxSpans.
type countingSink struct{ kept, dropped int }

func (s *countingSink) full() bool        { return s.kept >= MaxSpans }
func (s *countingSink) room() bool        { return !s.full() }
func (s *countingSink) add(*tracepb.Span) { s.kept++ }
func (s *countingSink) drop()             { s.dropped++ }

// hostileBodies are requests of MaxRequestBytes made of the smallest
// values: what costs a decoder the most memory for its bytes.
func hostileBodies(tb testing.TB) map[string]struct {
	ctype string
	body  []byte
} {
	fill := func(head, unit, tail string) []byte {
		var b strings.Builder
		b.WriteString(head)
		for b.Len() < MaxRequestBytes-len(tail)-len(unit) {
			b.WriteString(unit)
		}
		b.WriteString(tail)
		return []byte(b.String())
	}
	protoSpan := func(s *tracepb.Span) []byte {
		b, err := proto.Marshal(request(s))
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	var attrs []*commonpb.KeyValue
	for range MaxRequestBytes / 4 {
		attrs = append(attrs, &commonpb.KeyValue{})
	}
	var values []*commonpb.AnyValue
	for range MaxRequestBytes / 4 {
		values = append(values, &commonpb.AnyValue{})
	}
	nested := []*commonpb.KeyValue{{Key: "k", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: values}}}}}
	spans := make([]*tracepb.Span, MaxRequestBytes/8)
	for i := range spans {
		spans[i] = &tracepb.Span{}
	}
	flood, err := proto.Marshal(request(spans...))
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]struct {
		ctype string
		body  []byte
	}{
		"JSON attributes":     {jsonType, fill(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"a","attributes":[`, `{},`, `{}]}]}]}]}`)},
		"JSON nested values":  {jsonType, fill(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":{"arrayValue":{"values":[`, `{},`, `{}]}}}]}]}]}]}`)},
		"JSON span flood":     {jsonType, fill(`{"resourceSpans":[{"scopeSpans":[{"spans":[`, `{},`, `{}]}]}]}`)},
		"proto attributes":    {protoType, protoSpan(&tracepb.Span{Attributes: attrs})},
		"proto nested values": {protoType, protoSpan(&tracepb.Span{Attributes: nested})},
		"proto span flood":    {protoType, flood},
	}
}

// BenchmarkHostileBodies measures what the requests that cost the most
// for their bytes cost: each is dropped or cut at the quota without being
// decoded whole (bytes/op, the memory decoding took, stays far below the
// request's own size times the cost of a decoded value).
func BenchmarkHostileBodies(b *testing.B) {
	for name, hb := range hostileBodies(b) {
		decode := decodeProto
		if hb.ctype == jsonType {
			decode = decodeJSON
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(hb.body)))
			for b.Loop() {
				if err := decode(hb.body, &countingSink{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// trialBody is a request of n spans as an agent's SDK sends them: model
// calls and tool calls with their content attributes, which are dropped.
func trialBody(tb testing.TB, n int) []byte {
	spans := make([]*tracepb.Span, 0, n)
	for i := range n {
		var s *tracepb.Span
		if i%2 == 0 {
			s = chatSpan(byte(i), id(1, 8))
		} else {
			s = toolSpan(byte(i), id(1, 8), fmt.Sprint("tool", i%5), i%7 == 0)
		}
		s.SpanId = []byte{0, 0, 0, 0, 0, 0, byte(i >> 8), byte(i)}
		spans = append(spans, s)
	}
	b, err := proto.Marshal(request(spans...))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkTrial100Spans is what a trial of 100 spans costs evalgate: a
// trial's endpoint opened, the request received and decoded, the endpoint
// closed, the trace summarised, priced and turned into tool calls.
func BenchmarkTrial100Spans(b *testing.B) {
	r, err := Listen()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	body := gzipped(b, trialBody(b, 100))
	client := &http.Client{}
	b.ReportAllocs()
	before := cpuTime()
	for b.Loop() {
		e, err := r.Open(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, e.URL+"/v1/traces", bytes.NewReader(body))
		req.Header.Set("Content-Type", protoType)
		req.Header.Set("Content-Encoding", "gzip")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		tr := e.Close()
		if len(tr.Spans) != 100 {
			b.Fatalf("kept %d spans", len(tr.Spans))
		}
		tr.Summary()
		tr.Usage(nil)
		tr.ToolCalls(0)
	}
	// The process's CPU, the client's sending included: an upper bound
	// of evalgate's (bench/README.md).
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user and system CPU this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// tableSink keeps spans in a table, with room for MaxSpans.
type tableSink struct {
	t    *table
	used int
}

func (s *tableSink) full() bool { return s.used >= MaxSpans }
func (s *tableSink) room() bool {
	if s.full() {
		return false
	}
	s.used++
	return true
}
func (s *tableSink) add(sp *tracepb.Span) { s.t.add(sp) }
func (s *tableSink) drop()                { s.t.trace.Dropped++ }
