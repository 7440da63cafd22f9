package traces

import (
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/evalgate/evalgate/internal/chat"
)

// AllowedAttributes are the only attributes a span keeps, matched exactly:
// the GenAI semantic conventions' names of what carries no content.
// Every other attribute is dropped unread, prompts, completions, messages,
// tool arguments and results among them, in whatever case their names are
// written. They are the token counts and stringAttributes.
var AllowedAttributes = []string{
	"gen_ai.operation.name",
	"gen_ai.request.model",
	"gen_ai.response.model",
	AttrInputTokens,
	AttrOutputTokens,
	"gen_ai.tool.name",
	"gen_ai.agent.name",
	"error.type",
}

// The token counts a span keeps (Span.InputTokens, Span.OutputTokens).
const (
	AttrInputTokens  = "gen_ai.usage.input_tokens"
	AttrOutputTokens = "gen_ai.usage.output_tokens"
)

// stringAttributes are the kept attributes whose value is a string, in
// AllowedAttributes' order; Span.stringField(i) is where the i-th goes.
var stringAttributes = [...]string{
	"gen_ai.operation.name",
	"gen_ai.request.model",
	"gen_ai.response.model",
	"gen_ai.tool.name",
	"gen_ai.agent.name",
	"error.type",
}

// stringField is the field of s that holds stringAttributes[i].
func (s *Span) stringField(i int) *string {
	switch i {
	case 0:
		return &s.Operation
	case 1:
		return &s.RequestModel
	case 2:
		return &s.ResponseModel
	case 3:
		return &s.Tool
	case 4:
		return &s.Agent
	default:
		return &s.ErrorType
	}
}

// table is one trial's trace as it grows: the spans kept, the strings
// they share, and the bytes they hold against MaxTraceBytes.
type table struct {
	trace   Trace
	strings map[string]string
	bytes   int64
}

// spanBytes is what a Span holds besides its strings.
const spanBytes = int64(unsafe.Sizeof(Span{}))

// add keeps what carries no content of s, or drops it when it is over
// the trial's byte budget.
func (t *table) add(s *tracepb.Span) {
	sp := Span{
		Name:         s.Name,
		Kind:         kindOf(s.Kind),
		Start:        s.StartTimeUnixNano,
		End:          max(s.EndTimeUnixNano, s.StartTimeUnixNano),
		InputTokens:  -1,
		OutputTokens: -1,
	}
	copy(sp.Trace[:], fixedID(s.TraceId, 16))
	copy(sp.ID[:], fixedID(s.SpanId, 8))
	copy(sp.Parent[:], fixedID(s.ParentSpanId, 8))
	if st := s.Status; st != nil {
		switch st.Code {
		case tracepb.Status_STATUS_CODE_OK:
			sp.Status = StatusOK
		case tracepb.Status_STATUS_CODE_ERROR:
			sp.Status = StatusError
		}
	}
	for _, kv := range s.Attributes {
		t.attribute(&sp, kv)
	}
	// What the span costs, its strings as they are before interning: a
	// string already held costs again, which keeps the budget an upper
	// bound and the interning a saving.
	cost := spanBytes + int64(len(s.Events))*16 + int64(min(len(s.Name), MaxString))
	for i := range stringAttributes {
		cost += int64(len(*sp.stringField(i)))
	}
	for _, e := range s.Events {
		cost += int64(min(len(e.Name), MaxString))
	}
	if t.bytes+cost > MaxTraceBytes {
		t.trace.Dropped++
		return
	}
	t.bytes += cost
	sp.Name = t.intern(s.Name)
	if len(s.Events) > 0 {
		sp.Events = make([]string, len(s.Events))
		for i, e := range s.Events {
			sp.Events[i] = t.intern(e.Name)
		}
	}
	t.trace.Spans = append(t.trace.Spans, sp)
}

// attribute keeps kv in sp when the allow-list names it and its value is
// one the conventions allow; an allow-listed attribute with any other
// value is counted as invalid and not kept.
func (t *table) attribute(sp *Span, kv *commonpb.KeyValue) {
	switch kv.Key {
	case AttrInputTokens, AttrOutputTokens:
		n, ok := tokenCount(kv.Value)
		if !ok {
			t.trace.Invalid++
			return
		}
		if kv.Key == AttrInputTokens {
			sp.InputTokens = n
		} else {
			sp.OutputTokens = n
		}
		return
	}
	for i, key := range &stringAttributes {
		if key != kv.Key {
			continue
		}
		s, ok := kv.Value.GetValue().(*commonpb.AnyValue_StringValue)
		if !ok {
			t.trace.Invalid++
			return
		}
		*sp.stringField(i) = t.intern(s.StringValue)
		return
	}
}

// tokenCount is a token count attribute's value: an integer from 0 to
// chat.MaxTokens, sent as an int or as a double holding one.
func tokenCount(v *commonpb.AnyValue) (int64, bool) {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_IntValue:
		if x.IntValue >= 0 && x.IntValue <= chat.MaxTokens {
			return x.IntValue, true
		}
	case *commonpb.AnyValue_DoubleValue:
		f := x.DoubleValue
		if f >= 0 && f <= chat.MaxTokens && f == math.Trunc(f) { // NaN fails every comparison
			return int64(f), true
		}
	}
	return 0, false
}

// intern returns s cut to MaxString, shared with every equal string the
// trial keeps.
func (t *table) intern(s string) string {
	s = cut(s)
	if s == "" {
		return ""
	}
	if v, ok := t.strings[s]; ok {
		return v
	}
	if t.strings == nil {
		t.strings = map[string]string{}
	}
	s = strings.Clone(s) // a cut string would hold the whole of the decoded one
	t.strings[s] = s
	return s
}

// cut shortens s to at most MaxString bytes, at a character's boundary.
func cut(s string) string {
	if len(s) <= MaxString {
		return s
	}
	n := MaxString
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func kindOf(k tracepb.Span_SpanKind) Kind {
	if k >= 0 && int(k) < len(kindNames) {
		return Kind(k)
	}
	return KindUnspecified
}

// fixedID is id when it has n bytes, else nil: an id of any other length
// is no id.
func fixedID(id []byte, n int) []byte {
	if len(id) == n {
		return id
	}
	return nil
}
