package traces

import (
	"testing"
)

// FuzzDecode holds the decoders to their caps on any body: no panic, no
// span kept over the caps, and a body refused whole keeps nothing.
func FuzzDecode(f *testing.F) {
	f.Add(false, marshal(&testing.T{}, request(chatSpan(2, nil), toolSpan(3, id(2, 8), "lookup", true))))
	f.Add(true, []byte(jsonBody))
	f.Add(true, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"a","value":{"arrayValue":{"values":[{},{}]}}}]}]}]}]}`))
	f.Add(true, []byte(`{"resource_spans":[{"scope_spans":[{"spans":[{"name":"a\"b","events":[{"name":"x","attributes":[]}]},1,null]}]}]}`))
	f.Fuzz(func(t *testing.T, isJSON bool, body []byte) {
		decode := decodeProto
		if isJSON {
			decode = decodeJSON
		}
		var tab table
		s := &tableSink{t: &tab}
		err := decode(body, s)
		if err != nil && len(tab.trace.Spans) > 0 {
			t.Fatalf("a request refused whole kept %d spans", len(tab.trace.Spans))
		}
		if len(tab.trace.Spans) > MaxSpans {
			t.Fatalf("kept %d spans", len(tab.trace.Spans))
		}
		for _, sp := range tab.trace.Spans {
			if len(sp.Name) > MaxString || len(sp.Events) > MaxAttributes {
				t.Fatalf("a span over the caps: %q, %d events", sp.Name, len(sp.Events))
			}
		}
	})
}
