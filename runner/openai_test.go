package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/internal/waittest"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// seenRequest is a chat completions request as the fake model received it.
type seenRequest struct {
	Auth string
	Body map[string]any
	Raw  []byte
}

// reply is one scripted answer of the fake model.
type reply struct {
	status     int // 200 when 0
	body       string
	retryAfter string
	hang       bool // wait until the client gives up
}

// fakeModel is an OpenAI-compatible server on 127.0.0.1 that answers from a
// script, one reply per request (the last one repeats), and records every
// request it gets.
type fakeModel struct {
	srv     *httptest.Server
	mu      sync.Mutex
	seen    []seenRequest
	replies []reply
}

func newFakeModel(t testing.TB, replies ...reply) *fakeModel {
	return startFakeModel(t, nil, replies...)
}

// startFakeModel starts a fake model after configure has set up its server.
func startFakeModel(t testing.TB, configure func(*http.Server), replies ...reply) *fakeModel {
	f := &fakeModel{replies: replies}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		n := len(f.seen)
		f.seen = append(f.seen, seenRequest{Auth: r.Header.Get("Authorization"), Body: body, Raw: raw})
		rp := f.replies[min(n, len(f.replies)-1)]
		f.mu.Unlock()
		if rp.hang {
			<-r.Context().Done()
			return
		}
		if rp.retryAfter != "" {
			w.Header().Set("Retry-After", rp.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(max(rp.status, http.StatusOK))
		_, _ = io.WriteString(w, rp.body)
	})
	f.srv = httptest.NewUnstartedServer(mux)
	if configure != nil {
		configure(f.srv.Config)
	}
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeModel) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

// completion renders a chat completion with content or tool calls.
func completion(content string, calls [][2]string, in, out int) string {
	msg := map[string]any{"role": "assistant", "content": content}
	if len(calls) > 0 {
		msg["content"] = nil
		var tcs []map[string]any
		for i, c := range calls {
			tcs = append(tcs, map[string]any{
				"id": fmt.Sprintf("call_%d", i+1), "type": "function",
				"function": map[string]any{"name": c[0], "arguments": c[1]},
			})
		}
		msg["tool_calls"] = tcs
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "fake-model",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
	return string(b)
}

var supportTools = []suites.Tool{
	{Name: "crm:lookup", Description: "Look an order up.", InputSchema: json.RawMessage(`{"type":"object","properties":{"orderId":{"type":"string"}},"required":["orderId"]}`)},
	{Name: "kb:search"},
}

func supportFixtures() *suites.Fixtures {
	return &suites.Fixtures{
		OnUnmatched: suites.OnUnmatchedError,
		ToolResponses: []suites.ToolResponse{
			{Tool: "crm:lookup", Args: json.RawMessage(`{"orderId":"A-17"}`), Response: json.RawMessage(`{"status":"delivered","total":49.9}`)},
			{Tool: "kb:search", Response: json.RawMessage(`"Refunds within 30 days."`)},
			{Tool: "crm:refund", Error: "CRM down"},
		},
	}
}

func withFastRetries(t *testing.T) {
	old := retryInterval
	retryInterval = time.Millisecond
	t.Cleanup(func() { retryInterval = old })
}

func messages(t *testing.T, r seenRequest) []map[string]any {
	t.Helper()
	raw, _ := r.Body["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i], _ = m.(map[string]any)
	}
	return out
}

func assertJSONEqual(t *testing.T, what, got, want string) {
	t.Helper()
	g, err1 := jsonvalue.Decode([]byte(got))
	w, err2 := jsonvalue.Decode([]byte(want))
	assert.Check(t, err1 == nil && err2 == nil && jsonvalue.Equal(g, w), "%s = %s, want %s", what, got, want)
}

// TestOpenAIToolLoop is the done-when case of the OpenAI-compatible agent:
// a model that calls a tool gets the fixture's answer and the memory seed,
// and the trial's cost is priced from the reported usage.
func TestOpenAIToolLoop(t *testing.T) {
	m := newFakeModel(t,
		reply{body: completion("", [][2]string{{"crm_lookup", `{"orderId":"A-17"}`}}, 1000, 200)},
		reply{body: completion("Refund approved for A-17.", nil, 3000, 100)},
	)
	temp := 0.0
	agent := &OpenAI{
		BaseURL:      m.srv.URL + "/v1",
		Model:        "gpt-test",
		APIKey:       "test-key",
		SystemPrompt: "You are a support agent.",
		Temperature:  &temp,
		Pricing:      chat.Pricing{InputPerMTok: 0.15, OutputPerMTok: 0.60},
		Client:       NewHTTPClient(4),
	}
	req := &Request{
		SuiteID: "acme.support.evals.refunds", TaskID: "refund", Trial: 1, Mode: "golden",
		Input:  json.RawMessage(`"Refund order A-17 please"`),
		Memory: []json.RawMessage{json.RawMessage(`{"key":"tier","value":"gold"}`)},
		Tools:  supportTools,
	}
	sess := fixtures.NewSession(supportFixtures(), fixtures.Options{})
	out := agent.Run(context.Background(), req, sess)
	assert.Assert(t, out.Err == nil && out.Fatal == nil, "Run: err %v, fatal %v", out.Err, out.Fatal)
	assert.Check(t, string(out.Output) == `"Refund approved for A-17."`, "output = %s", out.Output)
	wantCost := (4000*0.15 + 300*0.60) / 1e6
	assert.Check(t, out.Usage.InputTokens == 4000 && out.Usage.OutputTokens == 300 && math.Abs(out.Usage.CostUsd-wantCost) <= 1e-12 && out.Usage.Model == "fake-model", "usage = %+v, want 4000/300 tokens costing %v", out.Usage, wantCost)

	reqs := m.requests()
	assert.Assert(t, len(reqs) == 2, "the model got %d requests, want 2", len(reqs))
	first := reqs[0]
	assert.Check(t, first.Auth == "Bearer test-key" && first.Body["model"] == "gpt-test" && first.Body["temperature"] == 0.0 && first.Body["stream"] == false, "first request: auth %q, body %s", first.Auth, first.Raw)
	msgs := messages(t, first)
	assert.Assert(t, len(msgs) == 3, "first request has %d messages, want 3: %s", len(msgs), first.Raw)
	assert.Check(t, msgs[0]["role"] == "system" && msgs[0]["content"] == "You are a support agent.", "system prompt message = %v", msgs[0])
	assert.Check(t, msgs[1]["role"] == "system", "memory message role = %v", msgs[1]["role"])
	assertJSONEqual(t, "memory message", msgs[1]["content"].(string), `{"memory":[{"key":"tier","value":"gold"}]}`)
	assert.Check(t, msgs[2]["role"] == "user" && msgs[2]["content"] == "Refund order A-17 please", "user message = %v", msgs[2])
	tools, _ := json.Marshal(first.Body["tools"])
	assertJSONEqual(t, "tools", string(tools), `[
		{"type":"function","function":{"name":"crm_lookup","description":"Look an order up.","parameters":{"type":"object","properties":{"orderId":{"type":"string"}},"required":["orderId"]}}},
		{"type":"function","function":{"name":"kb_search","parameters":{"type":"object"}}}]`)

	msgs = messages(t, reqs[1])
	assert.Assert(t, len(msgs) == 5, "second request has %d messages, want 5: %s", len(msgs), reqs[1].Raw)
	assistant, _ := json.Marshal(msgs[3])
	assertJSONEqual(t, "assistant message", string(assistant), `{"role":"assistant","content":null,"tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"crm_lookup","arguments":"{\"orderId\":\"A-17\"}"}}]}`)
	assert.Check(t, msgs[4]["role"] == "tool" && msgs[4]["tool_call_id"] == "call_1", "tool message = %v", msgs[4])
	// The tool message carries exactly the fixture's response.
	assertJSONEqual(t, "tool message content", msgs[4]["content"].(string), `{"status":"delivered","total":49.9}`)

	// The whole second request, as the wire format's specification.
	var pretty bytes.Buffer
	assert.NilError(t, json.Indent(&pretty, reqs[1].Raw, "", "  "))
	golden.Assert(t, pretty.String()+"\n", "openai-tool-loop-request.golden")

	trace := sess.Trace()
	assert.Check(t, len(trace) == 1 && trace[0].Name == "crm:lookup" && trace[0].Fixture == 0 && trace[0].ID == "call_1", "trace = %+v", trace)
}

func TestOpenAIOutcomes(t *testing.T) {
	withFastRetries(t)
	type testCase struct {
		name    string
		replies []reply
		agent   func(a *OpenAI)
		req     func(r *Request)
		// expire: the deadline passes once the model has the request.
		expire   bool
		wantOut  string // the output JSON; "" when the trial errs
		wantKind string
		// wantMsg is the error's message, exactly: it goes to results.json,
		// so it must not quote the server.
		wantMsg  string
		wantReqs int
		check    func(t *testing.T, reqs []seenRequest, sess *fixtures.Session, out *Outcome)
	}
	run := func(t *testing.T, tc testCase) {
		m := newFakeModel(t, tc.replies...)
		agent := &OpenAI{BaseURL: m.srv.URL + "/v1/", Model: "m", Client: NewHTTPClient(2), Attempts: 3}
		if tc.agent != nil {
			tc.agent(agent)
		}
		req := &Request{SuiteID: "s", TaskID: "t", Trial: 1, Input: json.RawMessage(`"hi"`), Tools: supportTools}
		if tc.req != nil {
			tc.req(req)
		}
		ctx := waittest.Context(t)
		if tc.expire {
			var expire func()
			ctx, expire = waittest.Timeout()
			waittest.Then(t, func() bool { return len(m.requests()) > 0 }, expire)
		}
		sess := fixtures.NewSession(supportFixtures(), fixtures.Options{})
		out := agent.Run(ctx, req, sess)
		assert.Assert(t, out.Fatal == nil, "fatal: %v", out.Fatal)
		gotKind := ""
		if out.Err != nil {
			gotKind = out.Err.Kind
		}
		assert.Check(t, gotKind == tc.wantKind, "error kind = %q, want %q (err %v)", gotKind, tc.wantKind, out.Err)
		if out.Err != nil && tc.wantMsg != "" {
			assert.Check(t, out.Err.Message == tc.wantMsg, "error message = %q, want %q", out.Err.Message, tc.wantMsg)
		}
		assert.Check(t, string(out.Output) == tc.wantOut, "output = %s, want %s", out.Output, tc.wantOut)
		reqs := m.requests()
		if tc.wantReqs > 0 {
			assert.Check(t, len(reqs) == tc.wantReqs, "the model got %d requests, want %d", len(reqs), tc.wantReqs)
		}
		if tc.check != nil {
			tc.check(t, reqs, sess, out)
		}
	}
	final := reply{body: completion("done", nil, 10, 5)}
	lookup := reply{body: completion("", [][2]string{{"crm_lookup", `{"orderId":"A-17"}`}}, 10, 5)}
	testCases := []testCase{
		{
			name:     "a plain reply ends the loop at once",
			replies:  []reply{final},
			wantOut:  `"done"`,
			wantReqs: 1,
		},
		{
			name:     "max turns",
			replies:  []reply{lookup},
			agent:    func(a *OpenAI) { a.MaxTurns = 3 },
			wantKind: results.ErrMaxTurns,
			wantReqs: 3,
			check: func(t *testing.T, _ []seenRequest, _ *fixtures.Session, out *Outcome) {
				assert.Check(t, out.Usage.InputTokens == 30, "usage of the turns that ran = %+v, want 30 input tokens", out.Usage)
			},
		},
		{
			name:     "max turns defaults to ten",
			replies:  []reply{lookup},
			wantKind: results.ErrMaxTurns,
			wantReqs: DefaultMaxTurns,
		},
		{
			name:     "tool call arguments nested deeper than 256 levels",
			replies:  []reply{{body: completion("", [][2]string{{"crm_lookup", strings.Repeat("[", 300) + strings.Repeat("]", 300)}}, 10, 5)}},
			wantKind: results.ErrProtocol,
			wantMsg:  "the arguments of tool call 1 are nested deeper than 256 levels",
			wantReqs: 1,
		},
		{
			name:     "negative token counts from the server are a model error",
			replies:  []reply{{body: completion("done", nil, -10, 5)}},
			wantKind: results.ErrModel,
			wantMsg:  "the model API answered 200: the response's usage: token counts must be between 0 and 1099511627776",
			wantReqs: 1,
		},
		{
			name:     "429 is retried",
			replies:  []reply{{status: 429, body: `{"error":{"message":"slow down"}}`, retryAfter: "0"}, final},
			wantOut:  `"done"`,
			wantReqs: 2,
		},
		{
			name:     "5xx is retried up to the attempts, then a model error",
			replies:  []reply{{status: 503, body: "overloaded"}},
			wantKind: results.ErrModel,
			wantMsg:  "the model API failed after 3 attempts (the model API answered 503)",
			wantReqs: 3,
		},
		{
			name:     "400 is not retried",
			replies:  []reply{{status: 400, body: `{"error":{"message":"bad tools"}}`}, final},
			wantKind: results.ErrModel,
			wantMsg:  "the model API answered 400",
			wantReqs: 1,
			check: func(t *testing.T, _ []seenRequest, _ *fixtures.Session, out *Outcome) {
				assert.Check(t, strings.Contains(out.Err.Detail, "bad tools"), "detail %q: what the server said is kept for the transcripts", out.Err.Detail)
			},
		},
		{
			name:     "401 is not retried",
			replies:  []reply{{status: 401, body: `{"error":{"message":"bad key"}}`}, final},
			wantKind: results.ErrModel,
			wantReqs: 1,
		},
		{
			name:     "an error object in a 200 answer",
			replies:  []reply{{body: `{"error":{"message":"model not loaded"}}`}},
			wantKind: results.ErrModel,
			wantMsg:  "the model API answered 200: the response is an error object",
			wantReqs: 1,
		},
		{
			name:     "an answer without choices",
			replies:  []reply{{body: `{"choices":[]}`}},
			wantKind: results.ErrModel,
			wantMsg:  "the model API answered 200: the response has no choices",
		},
		{
			name:     "an answer that is not JSON",
			replies:  []reply{{body: `<html>proxy error</html>`}},
			wantKind: results.ErrModel,
			wantMsg:  "the model API answered 200: the response is not a chat completion",
		},
		{
			name:     "a response over the cap",
			replies:  []reply{{body: completion(strings.Repeat("x", 2000), nil, 1, 1)}},
			agent:    func(a *OpenAI) { a.MaxResponseBytes = 1000 },
			wantKind: results.ErrModel,
		},
		{
			name:     "the deadline makes a timeout",
			replies:  []reply{{hang: true}},
			expire:   true,
			wantKind: results.ErrTimeout,
			wantReqs: 1,
		},
		{
			name: "parallel tool calls in one reply are all answered, in order",
			replies: []reply{
				{body: completion("", [][2]string{{"crm_lookup", `{"orderId":"A-17"}`}, {"kb_search", `{"query":"refunds"}`}, {"crm:refund", ``}}, 10, 5)},
				final,
			},
			wantOut:  `"done"`,
			wantReqs: 2,
			check: func(t *testing.T, reqs []seenRequest, sess *fixtures.Session, _ *Outcome) {
				msgs := messages(t, reqs[1])
				if len(msgs) != 5 { // user, assistant, three tool answers
					t.Fatalf("second request has %d messages, want 5", len(msgs))
				}
				want := [][2]string{
					{"call_1", `{"status":"delivered","total":49.9}`},
					{"call_2", `Refunds within 30 days.`},
					{"call_3", `{"error":"CRM down"}`}, // a fixture error
				}
				for i, w := range want {
					got := msgs[2+i]
					assert.Check(t, got["role"] == "tool" && got["tool_call_id"] == w[0] && got["content"] == w[1], "tool message %d = %v, want id %s content %s", i, got, w[0], w[1])
				}
				var names []string
				for _, c := range sess.Trace() {
					names = append(names, c.Name)
				}
				assert.Check(t, is.DeepEqual([]string{"crm:lookup", "kb:search", "crm:refund"}, names), "trace")
			},
		},
		{
			name: "arguments sent as an object are accepted",
			replies: []reply{
				{body: `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"x1","type":"function","function":{"name":"crm_lookup","arguments":{"orderId":"A-17"}}}]}}]}`},
				final,
			},
			wantOut: `"done"`,
			check: func(t *testing.T, _ []seenRequest, sess *fixtures.Session, _ *Outcome) {
				tr := sess.Trace()
				assert.Check(t, len(tr) == 1 && tr[0].Fixture == 0, "trace = %+v, want the A-17 fixture", tr)
			},
		},
		{
			name: "a function the request never offered reaches the fixtures by its own name",
			replies: []reply{
				{body: completion("", [][2]string{{"crm_delete", `{}`}}, 1, 1)},
				final,
			},
			wantOut: `"done"`,
			check: func(t *testing.T, reqs []seenRequest, sess *fixtures.Session, _ *Outcome) {
				tr := sess.Trace()
				assert.Check(t, len(tr) == 1 && tr[0].Name == "crm_delete" && tr[0].IsError, "trace = %+v", tr)
				f := sess.Findings()
				assert.Check(t, len(f) == 1 && f[0].Kind == fixtures.FindingUnfixtured, "findings = %v", f)
			},
		},
		{
			name:    "a structured input is sent as JSON; no tools, no tools key",
			replies: []reply{final},
			req: func(r *Request) {
				r.Input = json.RawMessage(`{"message":"hi","orderId":"A-17"}`)
				r.Tools = nil
			},
			wantOut: `"done"`,
			check: func(t *testing.T, reqs []seenRequest, _ *fixtures.Session, _ *Outcome) {
				msgs := messages(t, reqs[0])
				assert.Assert(t, len(msgs) == 1, "messages = %v, want only the user message", msgs)
				assertJSONEqual(t, "user message", msgs[0]["content"].(string), `{"message":"hi","orderId":"A-17"}`)
				_, ok := reqs[0].Body["tools"]
				assert.Check(t, !ok, "request has tools: %s", reqs[0].Raw)
				_, ok = reqs[0].Body["temperature"]
				assert.Check(t, !ok, "request sets a temperature nobody configured: %s", reqs[0].Raw)
				assert.Check(t, reqs[0].Auth == "", "authorization sent without a key: %q", reqs[0].Auth)
			},
		},
		{
			name:    "a null content ends with an empty string",
			replies: []reply{{body: `{"choices":[{"message":{"role":"assistant","content":null}}]}`}},
			wantOut: `""`,
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestOpenAIUnreachableIsFatal(t *testing.T) {
	withFastRetries(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	agent := &OpenAI{BaseURL: url + "/v1", Model: "m", Attempts: 2}
	out := agent.Run(context.Background(), &Request{Input: json.RawMessage(`"hi"`)}, fixtures.NewSession(nil, fixtures.Options{}))
	assert.Check(t, out.Fatal != nil && strings.Contains(out.Fatal.Error(), "could not reach the model API"), "fatal = %v, err = %v; want a fatal error", out.Fatal, out.Err)
}

func TestFunctionNames(t *testing.T) {
	long := strings.Repeat("segment.", 12) + "end" // 99 bytes
	type testCase struct {
		name  string
		tools []string
		want  map[string]string // only the names worth pinning
	}
	run := func(t *testing.T, tc testCase) {
		got := FunctionNames(tc.tools)
		assert.Assert(t, len(got) == len(dedupe(tc.tools)), "mapped %d names, want %d: %v", len(got), len(dedupe(tc.tools)), got)
		back := map[string]string{}
		for tool, fn := range got {
			assert.Check(t, functionName().MatchString(fn), "%q -> %q is not a legal function name", tool, fn)
			other, dup := back[fn]
			assert.Check(t, !dup, "%q and %q both map to %q", tool, other, fn)
			back[fn] = tool
		}
		for tool, fn := range tc.want {
			assert.Check(t, got[tool] == fn, "%q -> %q, want %q", tool, got[tool], fn)
		}
		// The mapping is deterministic.
		assert.Check(t, is.DeepEqual(got, FunctionNames(tc.tools)), "second mapping differs")
	}
	testCases := []testCase{
		{name: "colons", tools: []string{"crm:lookup", "kb:search"}, want: map[string]string{"crm:lookup": "crm_lookup", "kb:search": "kb_search"}},
		{name: "legal names stay", tools: []string{"lookup_order", "get-weather"}, want: map[string]string{"lookup_order": "lookup_order", "get-weather": "get-weather"}},
		{name: "a legal name wins its spelling whatever the order", tools: []string{"crm:lookup", "crm_lookup"}, want: map[string]string{"crm_lookup": "crm_lookup", "crm:lookup": "crm_lookup_" + hash8("crm:lookup")}},
		{name: "dots and colons collide", tools: []string{"a.b", "a:b", "a/b"}, want: map[string]string{"a.b": "a_b", "a:b": "a_b_" + hash8("a:b"), "a/b": "a_b_" + hash8("a/b")}},
		{name: "long names are cut", tools: []string{long}, want: map[string]string{long: strings.Repeat("segment_", 8)}},
		{name: "long names sharing a prefix", tools: []string{long, long + "2"}},
		{name: "unicode and spaces", tools: []string{"crm lookup", "crm:lookup", "ünicode"}},
		{name: "empty name", tools: []string{""}, want: map[string]string{"": "tool"}},
		{name: "duplicates map once", tools: []string{"crm:lookup", "crm:lookup"}, want: map[string]string{"crm:lookup": "crm_lookup"}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestOpenAINameRoundTrip checks, over the wire, that a model calling the
// mapped function names reaches the tools by their original names.
func TestOpenAINameRoundTrip(t *testing.T) {
	long := "mcp.server-with-a-very-long-name:" + strings.Repeat("x", 50)
	tools := []suites.Tool{{Name: "crm:lookup"}, {Name: "crm.lookup"}, {Name: long}}
	fns := FunctionNames([]string{"crm:lookup", "crm.lookup", long})
	m := newFakeModel(t,
		reply{body: completion("", [][2]string{{fns["crm:lookup"], `{}`}, {fns["crm.lookup"], `{}`}, {fns[long], `{}`}}, 1, 1)},
		reply{body: completion("ok", nil, 1, 1)},
	)
	fx := &suites.Fixtures{ToolResponses: []suites.ToolResponse{
		{Tool: "crm:lookup", Response: json.RawMessage(`1`)},
		{Tool: "crm.lookup", Response: json.RawMessage(`2`)},
		{Tool: long, Response: json.RawMessage(`3`)},
	}}
	sess := fixtures.NewSession(fx, fixtures.Options{})
	agent := &OpenAI{BaseURL: m.srv.URL + "/v1", Model: "m"}
	out := agent.Run(context.Background(), &Request{Input: json.RawMessage(`"hi"`), Tools: tools}, sess)
	assert.Assert(t, out.Err == nil, "Run: %v", out.Err)
	var offered []string
	for _, spec := range m.requests()[0].Body["tools"].([]any) {
		offered = append(offered, spec.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	assert.Check(t, is.DeepEqual([]string{fns["crm:lookup"], fns["crm.lookup"], fns[long]}, offered), "offered functions")
	for i, c := range sess.Trace() {
		assert.Check(t, c.Name == tools[i].Name && c.Fixture == i, "call %d reached %q (fixture %d), want %q", i, c.Name, c.Fixture, tools[i].Name)
	}
}

// hash8 is the disambiguating suffix FunctionNames documents.
func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func dedupe(list []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range list {
		m[s] = true
	}
	return m
}

// BenchmarkOpenAI drives tasks with one tool call each through the driver
// against a local fake model, as the 5,000-task benchmark does.
func BenchmarkOpenAI(b *testing.B) {
	mux := http.NewServeMux()
	toolCall := completion("", [][2]string{{"crm_lookup", `{"orderId":"A-17"}`}}, 100, 20)
	final := completion("Refund approved.", nil, 150, 10)
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(string(body), `"role":"tool"`) {
			_, _ = io.WriteString(w, final)
			return
		}
		_, _ = io.WriteString(w, toolCall)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	agent := &OpenAI{BaseURL: srv.URL + "/v1", Model: "m", Client: NewHTTPClient(8), Pricing: chat.Pricing{InputPerMTok: 1, OutputPerMTok: 2}}
	fx := supportFixtures()
	req := &Request{Input: json.RawMessage(`"Refund order A-17"`), Tools: supportTools}
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			out := agent.Run(context.Background(), req, fixtures.NewSession(fx, fixtures.Options{}))
			if out.Err != nil || out.Fatal != nil {
				b.Errorf("Run: %v %v", out.Err, out.Fatal)
				return
			}
		}
	})
}

// TestOpenAIReusesConnections checks that trials share kept-alive
// connections instead of dialling the API for every request.
func TestOpenAIReusesConnections(t *testing.T) {
	var mu sync.Mutex
	dials := 0
	countDials := func(s *http.Server) {
		s.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				mu.Lock()
				dials++
				mu.Unlock()
			}
		}
	}
	m := startFakeModel(t, countDials,
		reply{body: completion("", [][2]string{{"crm_lookup", `{"orderId":"A-17"}`}}, 1, 1)},
		reply{body: completion("ok", nil, 1, 1)},
	)
	agent := &OpenAI{BaseURL: m.srv.URL + "/v1", Model: "m", Client: NewHTTPClient(4)}
	for i := 0; i < 20; i++ {
		out := agent.Run(context.Background(), &Request{Input: json.RawMessage(`"hi"`), Tools: supportTools}, fixtures.NewSession(supportFixtures(), fixtures.Options{}))
		assert.Assert(t, out.Err == nil, "trial %d: %v", i, out.Err)
	}
	got := len(m.requests())
	assert.Check(t, got == 21, "requests = %d, want 21", got)
	mu.Lock()
	defer mu.Unlock()
	assert.Check(t, dials == 1, "%d connections for 21 sequential requests, want 1", dials)
}
