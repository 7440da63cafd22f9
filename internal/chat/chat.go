package chat

import (
	"encoding/json"
	"fmt"
)

// Pricing turns token usage into cost, in US dollars per million tokens.
type Pricing struct {
	InputPerMTok  float64
	OutputPerMTok float64
}

// Cost prices a number of input and output tokens.
func (p Pricing) Cost(input, output int64) float64 {
	return (float64(input)*p.InputPerMTok + float64(output)*p.OutputPerMTok) / 1e6
}

// Request is the body of POST /chat/completions. Fields left empty are not
// sent, except stream: evalgate reads whole answers, so it always asks for
// one, whatever a server's default.
type Request struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Tools          json.RawMessage `json:"tools,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"` // the server's default when nil
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
	Stream         bool            `json:"stream"`
}

// Message is one message of a conversation, asked or answered.
type Message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"` // null in an assistant message that only calls tools
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Text is the message's content; "" when it is null.
func (m *Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// ToolCall is a function the model calls in an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function of a ToolCall and its arguments.
type FunctionCall struct {
	Name string `json:"name"`
	// Arguments is a JSON string holding the arguments' JSON text; some
	// servers send the arguments object itself, which is accepted too.
	Arguments json.RawMessage `json:"arguments"`
}

// ResponseFormat asks for a kind of answer, e.g. {"type": "json_object"},
// or {"type": "json_schema", "json_schema": {...}} for structured output.
type ResponseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is the schema a structured answer must follow.
type JSONSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

// Response is a chat completion.
type Response struct {
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   *Usage   `json:"usage"`
	// Error is the error object some servers answer with instead, even
	// with status 200. Its message may quote the conversation.
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Choice is one of a completion's answers; evalgate asks for one.
type Choice struct {
	Message Message `json:"message"`
}

// Usage is the tokens a completion took, as the server counts them.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// MaxTokens bounds any one token count a server or an agent reports:
// more than a model uses in a trial, small enough that no sum of such
// counts over a run overflows, and no cost made of them stops being a
// finite number.
const MaxTokens = 1 << 40

// ErrUsageOutOfRange is Decode's error for token counts that are negative
// or above MaxTokens.
var ErrUsageOutOfRange = fmt.Errorf("usage: token counts must be between 0 and %d", int64(MaxTokens))

// inRange reports whether both counts are between 0 and MaxTokens.
func (u *Usage) inRange() bool {
	return u.PromptTokens >= 0 && u.PromptTokens <= MaxTokens && u.CompletionTokens >= 0 && u.CompletionTokens <= MaxTokens
}
