package chat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/retry"
)

func TestPost(t *testing.T) {
	type testCase struct {
		name      string
		apiKey    string
		status    int
		body      string
		limit     int64
		wantAuth  string
		wantBody  string
		wantLarge bool
	}
	run := func(t *testing.T, tc testCase) {
		var got struct{ auth, contentType, accept, path, body string }
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got.auth, got.contentType, got.accept = r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Header.Get("Accept")
			got.path, got.body = r.Method+" "+r.URL.Path, string(b)
			w.WriteHeader(tc.status)
			_, _ = io.WriteString(w, tc.body)
		}))
		t.Cleanup(srv.Close)
		c := NewClient(Options{BaseURL: srv.URL + "/v1/", APIKey: tc.apiKey, MaxAnswerBytes: tc.limit})
		ans, err := c.Post(context.Background(), []byte(`{"model":"m"}`))
		assert.NilError(t, err)
		assert.Equal(t, got.path, "POST /v1/chat/completions")
		assert.Equal(t, got.body, `{"model":"m"}`)
		assert.Equal(t, got.contentType, "application/json")
		assert.Equal(t, got.accept, "application/json")
		assert.Equal(t, got.auth, tc.wantAuth)
		assert.Equal(t, ans.StatusCode, tc.status)
		assert.Equal(t, string(ans.Body), tc.wantBody)
		assert.Equal(t, ans.TooLarge, tc.wantLarge)
	}
	testCases := []testCase{
		{name: "an answer", status: 200, body: `{"choices":[]}`, wantBody: `{"choices":[]}`},
		{name: "a key is a bearer token", apiKey: "sk-test", status: 200, body: `{}`, wantAuth: "Bearer sk-test", wantBody: `{}`},
		{name: "an error status is an answer too", status: 503, body: "busy", wantBody: "busy"},
		{name: "exactly the cap", status: 200, body: "12345", limit: 5, wantBody: "12345"},
		{name: "over the cap keeps one byte more", status: 200, body: "123456789", limit: 5, wantBody: "123456", wantLarge: true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestPostErrors(t *testing.T) {
	c := NewClient(Options{BaseURL: "http://bad host/v1"})
	_, err := c.Post(context.Background(), nil)
	var rerr *RequestError
	assert.Assert(t, errors.As(err, &rerr), "got %v", err)

	// A server that promises more than it sends breaks the answer mid-body.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		_, _ = io.WriteString(w, `{"choices":`)
	}))
	t.Cleanup(srv.Close)
	_, err = NewClient(Options{BaseURL: srv.URL}).Post(context.Background(), nil)
	var read *ReadError
	assert.Assert(t, errors.As(err, &read), "got %v", err)
}

func TestErrorKind(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"type":"server_error","code":"busy","message":"the prompt was: secret"}}`: "server_error, busy",
		`{"error":{"type":"invalid_request_error","code":null,"message":"secret"}}`:          "invalid_request_error",
		`{"error":{"code":429,"message":"secret"}}`:                                          "",
		`{"error":{"message":"secret"}}`:                                                     "",
		`<html>secret</html>`:                                                                "",
	} {
		got := (&Answer{Body: []byte(body)}).ErrorKind()
		assert.Equal(t, got, want, body)
		assert.Assert(t, !strings.Contains(got, "secret"))
	}
}

func TestDecode(t *testing.T) {
	ans := &Answer{Body: []byte(`{"model":"fake","choices":[{"message":{"role":"assistant","content":null,
		"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}}],
		"usage":{"prompt_tokens":3,"completion_tokens":2}}`)}
	resp, err := ans.Decode()
	assert.NilError(t, err)
	assert.Equal(t, resp.Model, "fake")
	assert.Equal(t, resp.Choices[0].Message.Text(), "")
	assert.Equal(t, resp.Choices[0].Message.ToolCalls[0].Function.Name, "f")
	assert.Equal(t, *resp.Usage, Usage{PromptTokens: 3, CompletionTokens: 2})

	_, err = (&Answer{Body: []byte(`<html>`)}).Decode()
	assert.Assert(t, err != nil)
}

func TestRequestEncoding(t *testing.T) {
	content := "hi"
	b, err := json.Marshal(&Request{Model: "m", Messages: []Message{{Role: "user", Content: &content}}})
	assert.NilError(t, err)
	assert.Equal(t, string(b), `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":false}`)
}

func TestPricingCost(t *testing.T) {
	p := Pricing{InputPerMTok: 0.15, OutputPerMTok: 0.60}
	assert.Equal(t, p.Cost(4000, 300), (4000*0.15+300*0.60)/1e6)
	assert.Equal(t, Pricing{}.Cost(4000, 300), 0.0)
}

// TestPostRetries checks that an answer is read whole within its attempt,
// so that one broken mid-body is retried like any network error, and that
// the retry policy's hook sees how much of an answer there was.
func TestPostRetries(t *testing.T) {
	type testCase struct {
		name      string
		answers   []func(w http.ResponseWriter) // one per request; the last repeats
		retryable func(req *http.Request, resp *http.Response, err error) bool
		wantCalls int
		wantBody  string
		wantErr   bool
	}
	broken := func(w http.ResponseWriter) {
		w.Header().Set("Content-Length", "100")
		_, _ = io.WriteString(w, `{"ch`)
	}
	status := func(code int, body string) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.WriteHeader(code)
			_, _ = io.WriteString(w, body)
		}
	}
	run := func(t *testing.T, tc testCase) {
		var mu sync.Mutex
		calls := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls++
			answer := tc.answers[min(calls, len(tc.answers))-1]
			mu.Unlock()
			answer(w)
		}))
		t.Cleanup(srv.Close)
		c := NewClient(Options{BaseURL: srv.URL, MaxAnswerBytes: 10, Retry: retry.Policy{
			Attempts: 3, Interval: time.Millisecond, Retryable: tc.retryable,
		}})
		ans, err := c.Post(context.Background(), []byte(`{}`))
		assert.Equal(t, calls, tc.wantCalls)
		if tc.wantErr {
			var read *ReadError
			assert.Assert(t, errors.As(err, &read), "got %v", err)
			return
		}
		assert.NilError(t, err)
		assert.Equal(t, string(ans.Body), tc.wantBody)
	}
	testCases := []testCase{
		{name: "a body broken mid-answer is retried", answers: []func(http.ResponseWriter){broken, status(200, "{}")},
			wantCalls: 2, wantBody: "{}"},
		{name: "a body broken every time is a read error", answers: []func(http.ResponseWriter){broken},
			wantCalls: 3, wantErr: true},
		{name: "503 then 200", answers: []func(http.ResponseWriter){status(503, "busy"), status(200, "{}")},
			wantCalls: 2, wantBody: "{}"},
		{name: "the last answer when the attempts run out", answers: []func(http.ResponseWriter){status(503, "busy")},
			wantCalls: 3, wantBody: "busy"},
		{
			name:    "the hook sees the length read, one over the cap when cut",
			answers: []func(http.ResponseWriter){status(503, strings.Repeat("x", 50)), status(200, "{}")},
			retryable: func(req *http.Request, resp *http.Response, err error) bool {
				return retry.Temporary(req, resp, err) && (err != nil || resp.ContentLength <= 10)
			},
			wantCalls: 1, wantBody: strings.Repeat("x", 11),
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestDecodeUsageRange(t *testing.T) {
	for _, tc := range []struct {
		name  string
		usage string
		ok    bool
	}{
		{"counts", `{"prompt_tokens":10,"completion_tokens":5}`, true},
		{"zero", `{"prompt_tokens":0,"completion_tokens":0}`, true},
		{"negative prompt", `{"prompt_tokens":-1,"completion_tokens":5}`, false},
		{"negative completion", `{"prompt_tokens":1,"completion_tokens":-5}`, false},
		{"above the bound", `{"prompt_tokens":1099511627777,"completion_tokens":0}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Answer{StatusCode: 200, Body: []byte(`{"choices":[{"message":{"content":"x"}}],"usage":` + tc.usage + `}`)}
			_, err := a.Decode()
			if tc.ok {
				assert.NilError(t, err)
				return
			}
			assert.ErrorIs(t, err, ErrUsageOutOfRange)
		})
	}
}
