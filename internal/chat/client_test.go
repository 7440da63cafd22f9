package chat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
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
		`{"error":{"code":429,"message":"secret"}}`:                                           "",
		`{"error":{"message":"secret"}}`:                                                      "",
		`<html>secret</html>`:                                                                 "",
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
