package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/retry"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
)

// DefaultMaxTurns is the number of model requests an OpenAI-compatible
// agent may make in one trial when OpenAI.MaxTurns is unset.
const DefaultMaxTurns = 10

// DefaultMaxResponseBytes caps one chat completions response body.
const DefaultMaxResponseBytes = chat.DefaultMaxAnswerBytes

// DefaultAttempts is how many times a model request is tried when the API
// answers 429 or 5xx or the network fails.
const DefaultAttempts = 4

// retryInterval is the wait before the first retry of a model request; it
// doubles with every further retry. A variable so tests can shrink it.
var retryInterval = 500 * time.Millisecond

// OpenAI drives a model behind an OpenAI-compatible /v1/chat/completions
// endpoint (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM): the runner is the
// agent loop. The conversation starts with the system prompt, the task's
// memory seed as a second system message ({"memory":[...]}) and the input
// as the user message (a string as it is, anything else as JSON). The
// suite's tools are offered as functions, their names mapped reversibly to
// ^[a-zA-Z0-9_-]{1,64}$ (see FunctionNames). Every tool call is answered
// from the fixtures, in the order of the reply, as a role "tool" message:
// the response as it is when it is a string, else its JSON; a tool error as
// {"error": message}. The loop ends at a reply without tool calls, whose
// content is the output (a JSON string), or after MaxTurns requests with
// the error kind max-turns.
//
// Requests that get 429, a 5xx or a network error are retried with
// backoff, honouring Retry-After; after the last attempt, or at once for
// any other status, the trial is an error of kind model. A server that
// cannot be reached at all (connection refused after every attempt) stops
// the run like an agent that cannot start. The context's deadline makes the
// trial an error of kind timeout.
//
// One OpenAI serves every trial of a run concurrently: share one Client
// (see NewHTTPClient) so connections are kept alive across tasks.
type OpenAI struct {
	BaseURL      string // e.g. http://127.0.0.1:8000/v1; /chat/completions is appended
	Model        string
	APIKey       string // sent as a bearer token when set
	SystemPrompt string
	MaxTurns     int      // DefaultMaxTurns when 0
	Temperature  *float64 // the server's default when nil
	Pricing      chat.Pricing
	Client       *http.Client // http.DefaultClient when nil
	Attempts     int          // DefaultAttempts when 0
	// MaxResponseBytes caps a response body; DefaultMaxResponseBytes when 0.
	MaxResponseBytes int64
	// Redact is applied to an error body before it is cut to an excerpt:
	// a server may echo the key it was sent, and a cut key is one no later
	// redaction recognises. nil redacts URL passwords only.
	Redact *redact.Redactor

	tools    sync.Map // *suites.Tool (first of a suite's list) -> *functionSet
	wireOnce sync.Once
	wire     *chat.Client
}

var _ Agent = (*OpenAI)(nil)

// NewHTTPClient returns a client for model APIs that keeps up to conns
// idle connections per host alive, so a run of thousands of tasks reuses
// them instead of dialling for each request. Pass at least the run's
// concurrency: no more connections than requests in flight are ever kept.
func NewHTTPClient(conns int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(conns, 1) * 2
	t.MaxIdleConnsPerHost = max(conns, 1)
	return &http.Client{Transport: t}
}

// Run runs one trial. See OpenAI.
func (o *OpenAI) Run(ctx context.Context, req *Request, tools Tools) *Outcome {
	out := &Outcome{Usage: Usage{Model: o.Model}}
	fs, err := o.functions(req.Tools)
	if err != nil {
		out.Err = &AgentError{Kind: results.ErrProtocol, Message: "could not encode the suite's tools", Detail: err.Error()}
		return out
	}
	msgs, err := o.opening(req)
	if err != nil {
		out.Err = &AgentError{Kind: results.ErrProtocol, Message: "could not encode the memory seed", Detail: err.Error()}
		return out
	}
	maxTurns := orDefault(o.MaxTurns, DefaultMaxTurns)
	calls := 0
	for turn := 1; turn <= maxTurns; turn++ {
		resp, aerr, fatal := o.complete(ctx, req, &chat.Request{
			Model:       o.Model,
			Messages:    msgs,
			Tools:       fs.encoded,
			Temperature: o.Temperature,
		})
		if fatal != nil {
			out.Fatal = fatal
			return out
		}
		if aerr != nil {
			out.Err = aerr
			return out
		}
		if resp.Usage != nil {
			out.Usage.Add(Usage{
				Model:        resp.Model,
				InputTokens:  resp.Usage.PromptTokens,
				OutputTokens: resp.Usage.CompletionTokens,
				CostUsd:      o.Pricing.Cost(resp.Usage.PromptTokens, resp.Usage.CompletionTokens),
			})
		}
		msg := resp.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			text := msg.Text()
			next, more, aerr := req.nextTurn(ctx, len(out.Replies), jsonText(text))
			if aerr != nil {
				out.Err = aerr
				return out
			}
			if more {
				// A conversation: the reply answers this turn, and the next
				// user message follows it, with a fresh turn budget.
				out.Replies = append(out.Replies, jsonText(text))
				out.ReplyCalls = append(out.ReplyCalls, calls)
				user := inputText(next)
				msgs = append(msgs, chat.Message{Role: "assistant", Content: &text}, chat.Message{Role: "user", Content: &user})
				turn = 0
				continue
			}
			out.Output = jsonText(msg.Text())
			return out
		}
		assistant := chat.Message{Role: "assistant", Content: msg.Content, ToolCalls: make([]chat.ToolCall, len(msg.ToolCalls))}
		answers := make([]chat.Message, len(msg.ToolCalls))
		for i, tc := range msg.ToolCalls {
			calls++
			if tc.ID == "" {
				tc.ID = "call_" + strconv.Itoa(calls)
			}
			args := callArguments(tc.Function.Arguments)
			if jsonvalue.Depth(args) > MaxDepth {
				out.Err = &AgentError{Kind: results.ErrProtocol, Message: fmt.Sprintf("the arguments of tool call %d are nested deeper than %d levels", calls, MaxDepth)}
				return out
			}
			assistant.ToolCalls[i] = chat.ToolCall{ID: tc.ID, Type: "function", Function: chat.FunctionCall{Name: tc.Function.Name, Arguments: jsonText(string(args))}}
			res := tools.Call(ctx, tc.ID, fs.tool(tc.Function.Name), args)
			content := toolContent(res)
			answers[i] = chat.Message{Role: "tool", Content: &content, ToolCallID: tc.ID}
		}
		msgs = append(msgs, assistant)
		msgs = append(msgs, answers...)
	}
	out.Err = &AgentError{Kind: results.ErrMaxTurns, Message: fmt.Sprintf("the model still called tools after %d turns", maxTurns)}
	return out
}

// opening builds the messages the conversation starts with.
func (o *OpenAI) opening(req *Request) ([]chat.Message, error) {
	msgs := make([]chat.Message, 0, 8)
	if o.SystemPrompt != "" {
		p := o.SystemPrompt
		msgs = append(msgs, chat.Message{Role: "system", Content: &p})
	}
	if len(req.Memory) > 0 {
		b, err := json.Marshal(struct {
			Memory []json.RawMessage `json:"memory"`
		}{req.Memory})
		if err != nil {
			return nil, fmt.Errorf("could not encode the memory seed: %w", err)
		}
		m := string(b)
		msgs = append(msgs, chat.Message{Role: "system", Content: &m})
	}
	user := inputText(req.Input)
	msgs = append(msgs, chat.Message{Role: "user", Content: &user})
	return msgs, nil
}

// inputText is the input as the user message: a JSON string as its text,
// anything else as JSON.
func inputText(input json.RawMessage) string {
	var s string
	if len(input) > 0 && input[0] == '"' && json.Unmarshal(input, &s) == nil {
		return s
	}
	if len(input) == 0 {
		return "null"
	}
	return string(input)
}

// callArguments returns the JSON text of a tool call's arguments: the
// content of the arguments string, or the object some servers send in its
// place; empty arguments are an empty object. Text that is not JSON is
// passed on as it is, and matches no fixture that constrains args.
func callArguments(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage("{}")
	}
	if raw[0] != '"' {
		return raw
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// toolContent renders a tool result as the content of a tool message.
func toolContent(res fixtures.Result) string {
	if res.IsError {
		var msg string
		if json.Unmarshal(res.Content, &msg) != nil {
			msg = string(res.Content)
		}
		b, _ := json.Marshal(map[string]string{"error": msg}) // a map of strings always encodes
		return string(b)
	}
	var s string
	if len(res.Content) > 0 && res.Content[0] == '"' && json.Unmarshal(res.Content, &s) == nil {
		return s
	}
	if len(res.Content) == 0 {
		return "null"
	}
	return string(res.Content)
}

// complete sends one chat completions request, retrying what is worth
// retrying. It returns the response, or the trial's error, or a fatal error
// when the server cannot be reached at all.
func (o *OpenAI) complete(ctx context.Context, req *Request, body *chat.Request) (*chat.Response, *AgentError, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, &AgentError{Kind: results.ErrProtocol, Message: "could not encode the request", Detail: err.Error()}, nil
	}
	ans, err := o.client().Post(ctx, payload)
	switch {
	case ctx.Err() != nil:
		return nil, contextError(ctx, req), nil
	case err != nil:
		aerr, fatal := o.noAnswer(err)
		return nil, aerr, fatal
	}
	resp, ae := o.read(ans)
	switch {
	case ae == nil:
		return resp, nil, nil
	case ae.retryable: // and retried until the attempts ran out
		msg := fmt.Sprintf("the model API failed after %d attempts (%s)", orDefault(o.Attempts, DefaultAttempts), ae.text())
		return nil, &AgentError{Kind: results.ErrModel, Message: msg, Detail: ae.Error()}, nil
	}
	return nil, &AgentError{Kind: results.ErrModel, Message: ae.text(), Detail: ae.body}, nil
}

// noAnswer is the trial's error, or the run's when the server could not be
// reached at all, of a request that got no answer.
func (o *OpenAI) noAnswer(err error) (*AgentError, error) {
	var (
		rerr *chat.RequestError
		op   *net.OpError
	)
	switch {
	case errors.As(err, &rerr):
		return &AgentError{Kind: results.ErrModel, Message: "could not build the request", Detail: rerr.Err.Error()}, nil
	case errors.As(err, &op) && op.Op == "dial":
		return nil, fmt.Errorf("could not reach the model API at %s: %w", o.BaseURL, err)
	}
	msg := fmt.Sprintf("the model API failed after %d attempts (no answer)", orDefault(o.Attempts, DefaultAttempts))
	return &AgentError{Kind: results.ErrModel, Message: msg, Detail: err.Error()}, nil
}

// apiError is an HTTP answer other than 200, or a 200 that is not a usable
// completion.
type apiError struct {
	status int
	// message is evalgate's words; body what the server said, which may
	// echo the conversation: transcripts only.
	message   string
	body      string
	retryable bool
	rejected  bool // 401 or 403: the key is missing or wrong
}

// text describes the answer without what the server said in it.
func (e *apiError) text() string {
	switch {
	case e.status == 0:
		return e.message
	case e.rejected:
		return fmt.Sprintf("the model API rejected the credentials (%d): check the API key", e.status)
	case e.message == "":
		return fmt.Sprintf("the model API answered %d", e.status)
	}
	return fmt.Sprintf("the model API answered %d: %s", e.status, e.message)
}

func (e *apiError) Error() string {
	if e.body == "" {
		return e.text()
	}
	return e.text() + ": " + e.body
}

// read takes the chat completion out of an answer.
func (o *OpenAI) read(ans *chat.Answer) (*chat.Response, *apiError) {
	switch {
	case ans.TooLarge:
		limit := orDefault(o.MaxResponseBytes, DefaultMaxResponseBytes)
		return nil, &apiError{status: ans.StatusCode, message: fmt.Sprintf("the response is larger than %d bytes", limit)}
	case ans.StatusCode != http.StatusOK:
		body := o.Redact.String(string(bytes.TrimSpace(ans.Body)))
		return nil, &apiError{status: ans.StatusCode, body: excerpt([]byte(body)), retryable: retry.TemporaryStatus(ans.StatusCode), rejected: ans.Rejected()}
	}
	resp, err := ans.Decode()
	if errors.Is(err, chat.ErrUsageOutOfRange) {
		return nil, &apiError{status: ans.StatusCode, message: "the response's " + err.Error()}
	}
	if err != nil {
		return nil, &apiError{status: ans.StatusCode, message: "the response is not a chat completion", body: err.Error()}
	}
	switch {
	case resp.Error != nil:
		return nil, &apiError{status: ans.StatusCode, message: "the response is an error object", body: resp.Error.Message}
	case len(resp.Choices) == 0:
		return nil, &apiError{status: ans.StatusCode, message: "the response has no choices"}
	}
	return resp, nil
}

// client is the wire to the model API, built on first use.
func (o *OpenAI) client() *chat.Client {
	o.wireOnce.Do(func() {
		limit := orDefault(o.MaxResponseBytes, DefaultMaxResponseBytes)
		o.wire = chat.NewClient(chat.Options{
			BaseURL:        o.BaseURL,
			APIKey:         o.APIKey,
			HTTP:           o.Client,
			MaxAnswerBytes: limit,
			Retry: retry.Policy{
				Attempts: orDefault(o.Attempts, DefaultAttempts),
				Interval: retryInterval,
				// An answer over the cap is final, whatever its status: the
				// next would be as large.
				Retryable: func(req *http.Request, resp *http.Response, err error) bool {
					return retry.Temporary(req, resp, err) && (err != nil || resp.ContentLength <= limit)
				},
			},
		})
	})
	return o.wire
}
