package traces

import (
	"cmp"
	"iter"
	"slices"
)

// The caps of one trial's trace (docs/otel.md). A span over a cap is
// dropped and counted in Trace.Dropped.
const (
	// MaxRequestBytes bounds one request's body, once decompressed.
	MaxRequestBytes = 4 << 20
	// MaxSpans bounds the spans one trial keeps.
	MaxSpans = 10_000
	// MaxAttributes bounds a span's attributes, its events and its
	// links, and the attributes of each of its events and links: the
	// OpenTelemetry SDKs' own default limits.
	MaxAttributes = 128
	// MaxString bounds every string a span keeps (its name, an
	// attribute's value, an event's name): longer ones are cut, at a
	// character's boundary.
	MaxString = 256
	// MaxTraceBytes bounds what one trial's spans hold in memory, strings
	// counted once however many spans share them.
	MaxTraceBytes = 8 << 20
)

// Kind is a span's kind, as OpenTelemetry names them.
type Kind uint8

// The kinds of a span.
const (
	KindUnspecified Kind = iota
	KindInternal
	KindServer
	KindClient
	KindProducer
	KindConsumer
)

var kindNames = [...]string{"", "internal", "server", "client", "producer", "consumer"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return ""
}

// Status is a span's status code.
type Status uint8

// The status codes of a span.
const (
	StatusUnset Status = iota
	StatusOK
	StatusError
)

var statusNames = [...]string{"", "ok", "error"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return ""
}

// TraceID and SpanID identify spans, as in W3C trace context.
type (
	TraceID [16]byte
	SpanID  [8]byte
)

// IsZero reports whether id is the invalid all-zero id.
func (id SpanID) IsZero() bool { return id == SpanID{} }

// IsZero reports whether id is the invalid all-zero id.
func (id TraceID) IsZero() bool { return id == TraceID{} }

// Span is what a trial keeps of one span an agent sent: nothing that can
// carry content but its name and the names of its events, both cut to
// MaxString.
type Span struct {
	Trace  TraceID
	ID     SpanID
	Parent SpanID // zero for a root span
	Name   string
	Kind   Kind
	Status Status
	// Start and End are the span's times in nanoseconds since the Unix
	// epoch, as the agent's clock read them; End ≥ Start.
	Start, End uint64

	// The GenAI semantic-convention attributes kept (AllowedAttributes);
	// "" or -1 when the span has none.
	Operation     string // gen_ai.operation.name: chat, execute_tool, invoke_agent, ...
	RequestModel  string // gen_ai.request.model
	ResponseModel string // gen_ai.response.model
	InputTokens   int64  // gen_ai.usage.input_tokens
	OutputTokens  int64  // gen_ai.usage.output_tokens
	Tool          string // gen_ai.tool.name
	Agent         string // gen_ai.agent.name
	ErrorType     string // error.type

	// Events are the names of the span's events, in the order sent.
	Events []string
}

// StringAttributes yields the key and value of each string attribute
// the span holds (its value not ""), in AllowedAttributes' order.
func (s *Span) StringAttributes() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for i, key := range &stringAttributes {
			if v := *s.stringField(i); v != "" && !yield(key, v) {
				return
			}
		}
	}
}

// DurationNs is the span's duration in nanoseconds.
func (s *Span) DurationNs() uint64 { return s.End - s.Start }

// Model is the model the span reports: the response's, else the
// request's.
func (s *Span) Model() string { return cmp.Or(s.ResponseModel, s.RequestModel) }

// IsError reports whether the span ended in error: its status, or an
// error.type attribute.
func (s *Span) IsError() bool { return s.Status == StatusError || s.ErrorType != "" }

// The GenAI operations the summaries and checks tell apart
// (gen_ai.operation.name).
const (
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
)

// IsModelCall reports whether the span is a call of a model: an
// operation that the GenAI conventions give a model (chat, text
// completion, content generation, embeddings).
func (s *Span) IsModelCall() bool {
	switch s.Operation {
	case OpChat, "text_completion", "generate_content", "embeddings":
		return true
	}
	return false
}

// IsToolCall reports whether the span runs a tool (execute_tool).
func (s *Span) IsToolCall() bool { return s.Operation == OpExecuteTool }

// Trace is what one trial's agent sent: its spans, within the caps,
// ordered by start time, then by end time (the longer first), then as
// received; and what was not kept.
type Trace struct {
	Spans []Span
	// Dropped counts the spans not kept: over the trial's quota, over a
	// span's caps, over the trial's byte budget.
	Dropped int64
	// Invalid counts the allow-listed attributes whose value was not one
	// the conventions allow (a token count that is negative, not an
	// integer, or not finite), which were not kept.
	Invalid int64
	// Refused counts the requests refused whole: a body over the cap or
	// not decodable, a path or method the receiver does not serve, a
	// request over the trial's quota of requests or bytes.
	Refused int64
}

// sort orders the spans as Trace says.
func (t *Trace) sort() {
	slices.SortStableFunc(t.Spans, func(a, b Span) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return cmp.Compare(b.End, a.End)
	})
}
