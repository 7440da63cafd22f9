package traces

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// errMalformed is a body that is not an export request of its encoding.
var errMalformed = errors.New("not an OTLP trace export request")

// MaxValues bounds the values a span's attributes hold at any depth, its
// events' and links' included: what decoding a span costs grows with
// them, and a value may nest many (an array of a million).
const MaxValues = 32 << 10

// sink takes the spans of a request as they are decoded.
type sink interface {
	// full reports whether the trial's quota of spans is used up: the
	// spans left are dropped without a look.
	full() bool
	// room charges one span to the trial's quota, and reports whether
	// it was allowed; a span is decoded only once it was.
	room() bool
	// add keeps what carries no content of a decoded span.
	add(*tracepb.Span)
	// drop counts a span not kept: over a span's caps, over the quota,
	// or not decodable.
	drop()
}

// The field numbers of the messages the protobuf decoder walks. An
// ExportTraceServiceRequest has the wire form of a TracesData: its field 1
// holds the ResourceSpans.
const (
	fieldResourceSpans protowire.Number = 1 // of ExportTraceServiceRequest
	fieldScopeSpans    protowire.Number = 2 // of ResourceSpans
	fieldSpans         protowire.Number = 2 // of ScopeSpans
	fieldAttributes    protowire.Number = 9 // of Span
	fieldEvents        protowire.Number = 11
	fieldLinks         protowire.Number = 13
	fieldEventAttrs    protowire.Number = 3 // of Span.Event
	fieldLinkAttrs     protowire.Number = 4 // of Span.Link
	fieldKVValue       protowire.Number = 2 // of KeyValue
	fieldArrayValue    protowire.Number = 5 // of AnyValue
	fieldKVListValue   protowire.Number = 6
	fieldValues        protowire.Number = 1 // of ArrayValue and KeyValueList
)

// decodeProto hands each span of a protobuf export request to s. It walks
// the request's framing without decoding it first, so a malformed request
// is refused whole, before any of its spans is kept; each span is then
// decoded on its own, with the Span message of the OpenTelemetry
// project's definitions, once its caps are known to hold and the quota
// has room: a request of a million attributes, or of a million spans,
// costs no more memory than its bytes.
func decodeProto(body []byte, s sink) error {
	if err := eachSpan(body, nil); err != nil {
		return err
	}
	var span tracepb.Span
	return eachSpan(body, func(b []byte) {
		switch {
		case s.full(), overWireCaps(b):
			s.drop()
		case !s.room():
			s.drop()
		case proto.Unmarshal(b, &span) != nil:
			s.drop()
		default:
			s.add(&span)
		}
	})
}

// eachSpan calls f with the bytes of each span of an export request, when
// f is not nil, and reports a request whose framing does not decode.
func eachSpan(body []byte, f func([]byte)) error {
	return embedded(body, fieldResourceSpans, func(rs []byte) error {
		return embedded(rs, fieldScopeSpans, func(ss []byte) error {
			return embedded(ss, fieldSpans, func(span []byte) error {
				if f != nil {
					f(span)
				}
				return nil
			})
		})
	})
}

// embedded calls f with the bytes of each embedded message of field num
// in the message b, skipping the other fields.
func embedded(b []byte, num protowire.Number, f func([]byte) error) error {
	return fields(b, func(n protowire.Number, v []byte) error {
		if n == num {
			return f(v)
		}
		return nil
	})
}

// fields calls f with each length-delimited field of the message b,
// until f returns an error, which fields returns; a malformed b is
// errMalformed.
func fields(b []byte, f func(protowire.Number, []byte) error) error {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return errMalformed
		}
		b = b[l:]
		if typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return errMalformed
			}
			if err := f(n, v); err != nil {
				return err
			}
			b = b[l:]
			continue
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return errMalformed
		}
		b = b[l:]
	}
	return nil
}

// errOver stops a walk of a span over its caps.
var errOver = errors.New("over the caps")

// overWireCaps reports whether the span encoded in b is over a span's
// caps: more than MaxAttributes attributes, events or links, an event or
// link with more attributes, or more than MaxValues values in all of them.
// It counts fields without decoding them; a span that does not decode is
// over the caps too.
func overWireCaps(b []byte) bool {
	var attrs, events, links int
	values := 0
	err := fields(b, func(n protowire.Number, v []byte) error {
		switch n {
		case fieldAttributes:
			attrs++
			if attrs > MaxAttributes {
				return errOver
			}
			return keyValue(v, &values, 0)
		case fieldEvents, fieldLinks:
			c, attrNum := &events, fieldEventAttrs
			if n == fieldLinks {
				c, attrNum = &links, fieldLinkAttrs
			}
			*c++
			if *c > MaxAttributes {
				return errOver
			}
			nattrs := 0
			return fields(v, func(n protowire.Number, v []byte) error {
				if n != attrNum {
					return nil
				}
				if nattrs++; nattrs > MaxAttributes {
					return errOver
				}
				return keyValue(v, &values, 0)
			})
		}
		return nil
	})
	return err != nil
}

// maxDepth bounds how deeply a span's values nest.
const maxDepth = 64

// keyValue counts the values of the KeyValue b into values, and stops
// with errOver past MaxValues or maxDepth.
func keyValue(b []byte, values *int, depth int) error {
	return fields(b, func(n protowire.Number, v []byte) error {
		if n == fieldKVValue {
			return anyValue(v, values, depth+1)
		}
		return nil
	})
}

// anyValue counts the AnyValue b and the values it holds.
func anyValue(b []byte, values *int, depth int) error {
	if *values++; *values > MaxValues || depth > maxDepth {
		return errOver
	}
	return fields(b, func(n protowire.Number, v []byte) error {
		switch n {
		case fieldArrayValue:
			return embedded(v, fieldValues, func(e []byte) error { return anyValue(e, values, depth+1) })
		case fieldKVListValue:
			return embedded(v, fieldValues, func(kv []byte) error { return keyValue(kv, values, depth+1) })
		}
		return nil
	})
}

// decodeJSON hands each span of a JSON export request to s, decoded with
// the OpenTelemetry project's definitions through the protobuf JSON
// mapping, one span at a time: the request's structure down to its spans
// is walked first, and a span is decoded only once its caps are known to
// hold and the quota has room, so that decoding costs no more memory than
// a span within the caps.
func decodeJSON(body []byte, s sink) error {
	if !json.Valid(body) {
		return errMalformed
	}
	var span tracepb.Span
	b := body[ws(body, 0):]
	if len(b) == 0 || b[0] != '{' {
		return errMalformed
	}
	members(b, func(k string, rs []byte) {
		if k != "resourceSpans" && k != "resource_spans" {
			return
		}
		elements(rs, func(rs []byte) {
			members(rs, func(k string, ss []byte) {
				if k != "scopeSpans" && k != "scope_spans" {
					return
				}
				elements(ss, func(ss []byte) {
					members(ss, func(k string, spans []byte) {
						if k != "spans" {
							return
						}
						elements(spans, func(raw []byte) {
							switch {
							case s.full(), overJSONCaps(raw):
								s.drop()
							case !s.room():
								s.drop()
							case jsonOptions.Unmarshal(raw, &span) != nil:
								s.drop()
							default:
								span.TraceId = hexID(span.TraceId, 16)
								span.SpanId = hexID(span.SpanId, 8)
								span.ParentSpanId = hexID(span.ParentSpanId, 8)
								s.add(&span)
							}
						})
					})
				})
			})
		})
	})
	return nil
}

// jsonOptions decode the JSON encoding of OTLP: fields the definitions
// do not know (a newer version's) are skipped, as the protobuf decoder
// skips them.
var jsonOptions = protojson.UnmarshalOptions{DiscardUnknown: true}

// overJSONCaps reports whether the span raw, valid JSON, is over a span's
// caps, as overWireCaps does for protobuf; values are counted as the
// objects, arrays and commas in it, an upper bound of what it holds.
func overJSONCaps(raw []byte) bool {
	if values(raw) > 4*MaxValues {
		return true
	}
	if len(raw) == 0 || raw[0] != '{' {
		return false // not a span: its decoding fails
	}
	over := false
	members(raw, func(k string, v []byte) {
		switch k {
		case "attributes":
			over = over || count(v) > MaxAttributes
		case "events", "links":
			over = over || count(v) > MaxAttributes
			elements(v, func(e []byte) {
				members(e, func(k string, v []byte) {
					if k == "attributes" {
						over = over || count(v) > MaxAttributes
					}
				})
			})
		}
	})
	return over
}

// values counts the objects, arrays and commas in the JSON raw outside
// its strings.
func values(raw []byte) int {
	n := 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = skipString(raw, i) - 1
		case '{', '[', ',':
			n++
		}
	}
	return n
}

// count is the number of elements of the JSON array raw; 0 when raw is
// not an array.
func count(raw []byte) int {
	n := 0
	elements(raw, func([]byte) { n++ })
	return n
}

// members calls f with the key and the value of each member of the JSON
// object obj, valid JSON; nothing when obj is not an object.
func members(obj []byte, f func(key string, val []byte)) {
	if len(obj) == 0 || obj[0] != '{' {
		return
	}
	for i := ws(obj, 1); i < len(obj) && obj[i] != '}'; {
		if obj[i] == ',' {
			i = ws(obj, i+1)
		}
		ks := i
		i = skipString(obj, i)
		key := obj[ks:i]
		i = ws(obj, ws(obj, i)+1) // the colon
		vs := i
		i = skipValue(obj, i)
		f(unquote(key), obj[vs:i])
		i = ws(obj, i)
	}
}

// elements calls f with each element of the JSON array arr, valid JSON;
// nothing when arr is not an array.
func elements(arr []byte, f func([]byte)) {
	if len(arr) == 0 || arr[0] != '[' {
		return
	}
	for i := ws(arr, 1); i < len(arr) && arr[i] != ']'; {
		if arr[i] == ',' {
			i = ws(arr, i+1)
		}
		vs := i
		i = skipValue(arr, i)
		f(arr[vs:i])
		i = ws(arr, i)
	}
}

// unquote is the JSON string s as text.
func unquote(s []byte) string {
	for _, c := range s {
		if c == '\\' {
			var v string
			if json.Unmarshal(s, &v) != nil {
				return ""
			}
			return v
		}
	}
	if len(s) < 2 {
		return ""
	}
	return string(s[1 : len(s)-1])
}

// ws skips white space from i.
func ws(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index after the JSON string starting at i.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the JSON value starting at i, in
// valid JSON.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of what holds a number or a literal
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\n', '\r', '\t', ':':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

// hexID is the id of n bytes that the JSON encoding of OTLP writes in hex
// (it departs there from the protobuf JSON mapping, which writes bytes in
// base64), read by the protobuf JSON decoder as base64: 2n hex digits are
// valid base64 of 3n/2 bytes, whose base64 encoding gives the digits back.
// An id of any other length is returned as it is.
func hexID(b []byte, n int) []byte {
	if len(b) != n*3/2 {
		return b
	}
	id, err := hex.DecodeString(base64.StdEncoding.EncodeToString(b))
	if err != nil {
		return nil
	}
	return id
}
