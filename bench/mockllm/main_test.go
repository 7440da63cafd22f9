package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestChat(t *testing.T) {
	type testCase struct {
		name   string
		method string
		path   string
		body   string
		status int
		want   string // a substring of the reply
	}
	m := &mock{}
	srv := httptest.NewServer(m.routes())
	defer srv.Close()
	run := func(t *testing.T, tc testCase) {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		assert.NilError(t, err)
		resp, err := srv.Client().Do(req)
		assert.NilError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		assert.NilError(t, err)
		assert.Equal(t, resp.StatusCode, tc.status, string(body))
		assert.Assert(t, strings.Contains(string(body), tc.want), string(body))
	}
	for _, tc := range []testCase{
		{
			name: "task", method: "POST", path: "/v1/chat/completions", status: 200,
			body: `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"task t7: add 627 2"}]}`,
			want: `"content":"{\"id\":\"t7\",\"answer\":629,\"text\":\"The sum of 627 and 2 is 629\"}"`,
		},
		{
			name: "parts", method: "POST", path: "/chat/completions", status: 200,
			body: `{"messages":[{"role":"user","content":[{"type":"text","text":"task t1: add 1 2"}]}]}`,
			want: `\"answer\":3,`,
		},
		{
			name: "echo", method: "POST", path: "/v1/completions", status: 200,
			body: `{"prompt":"hello"}`,
			want: `"content":"{\"echo\":\"hello\"}"`,
		},
		{name: "bad json", method: "POST", path: "/v1/chat/completions", body: `{`, status: 400, want: "could not read the request"},
		{name: "get", method: "GET", path: "/v1/chat/completions", status: 405, want: ""},
		{name: "stats", method: "GET", path: "/stats", status: 200, want: `{"requests":4}`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestNewServer(t *testing.T) {
	type testCase struct {
		addr string
		want string // error substring; "" for none
	}
	run := func(t *testing.T, tc testCase) {
		_, err := newServer(tc.addr)
		if tc.want == "" {
			assert.NilError(t, err)
			return
		}
		assert.ErrorContains(t, err, tc.want)
	}
	for _, tc := range []testCase{
		{addr: "127.0.0.1:18080"},
		{addr: "[::1]:18080"},
		{addr: "localhost:0"},
		{addr: "0.0.0.0:18080", want: "loopback only"},
		{addr: "192.168.1.4:80", want: "loopback only"},
		{addr: "18080", want: "could not read address"},
	} {
		t.Run(tc.addr, func(t *testing.T) { run(t, tc) })
	}
}
