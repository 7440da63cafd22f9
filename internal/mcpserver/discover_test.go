package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/suites"
)

const discoverBody = `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`

func discoverRequest(url, body string, header map[string]string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "server/discover")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req
}

type rpcAnswer struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// serveDirect has the SDK's handler of e answer r, as e's path does but
// for refuseUnserved.
func serveDirect(e *Endpoint, w http.ResponseWriter, r *http.Request) {
	// as the HTTP server sets it, for the SDK's check of the Host
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}))
	e.handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), endpointKey{}, e)))
}

// initialized opens a session at e with a raw initialize and returns its id.
func initialized(t *testing.T, e *Endpoint) string {
	t.Helper()
	req := discoverRequest(e.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, map[string]string{"Mcp-Protocol-Version": "", "Mcp-Method": ""})
	resp, err := http.DefaultClient.Do(req)
	assert.NilError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	assert.Assert(t, session != "")
	req = discoverRequest(e.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Protocol-Version": "2025-06-18", "Mcp-Method": "", "Mcp-Session-Id": session})
	resp, err = http.DefaultClient.Do(req)
	assert.NilError(t, err)
	resp.Body.Close()
	return session
}

// TestUnservedIsMethodNotFound: server/discover of a sessionless client,
// any request of a sessionless version, and a method the server does not
// have are answered -32601 (method not found), in a JSON body with status
// 200, without a session, never -32022, upon which some clients give up;
// whatever is not plainly such a request still reaches the SDK.
func TestUnservedIsMethodNotFound(t *testing.T) {
	_, e, _ := openTrial(t)
	session := initialized(t, e)
	sessions := len(slices.Collect(e.mcp.Sessions()))

	for _, tc := range []struct {
		name   string
		body   string
		header map[string]string
	}{
		{name: "server/discover", body: discoverBody},
		{name: "server/discover of no version", body: discoverBody, header: map[string]string{"Mcp-Protocol-Version": "", "Mcp-Method": ""}},
		{name: "server/discover in a session", body: discoverBody, header: map[string]string{"Mcp-Protocol-Version": "2025-06-18", "Mcp-Session-Id": session}},
		{name: "server/discover without its _meta", body: `{"jsonrpc":"2.0","id":7,"method":"server/discover"}`},
		{name: "tools/list of a sessionless version", body: `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, header: map[string]string{"Mcp-Method": "tools/list"}},
		{name: "a method the server does not have", body: `{"jsonrpc":"2.0","id":7,"method":"tasks/list"}`, header: map[string]string{"Mcp-Protocol-Version": "2025-06-18", "Mcp-Method": "", "Mcp-Session-Id": session}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.DefaultClient.Do(discoverRequest(e.URL, tc.body, tc.header))
			assert.NilError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Check(t, is.Equal(resp.StatusCode, http.StatusOK))
			assert.Check(t, is.Equal(resp.Header.Get("Content-Type"), "application/json"))
			assert.Check(t, is.Equal(resp.Header.Get("Mcp-Session-Id"), ""))
			var got rpcAnswer
			assert.NilError(t, json.Unmarshal(body, &got), string(body))
			assert.Assert(t, got.Error != nil, string(body))
			assert.Check(t, is.Equal(string(got.ID), "7"))
			assert.Check(t, is.Equal(got.Error.Code, -32601), got.Error.Message)
			assert.Check(t, is.Len(slices.Collect(e.mcp.Sessions()), sessions), "a session was opened")
		})
	}

	for _, tc := range []struct {
		name   string
		body   string
		header map[string]string
	}{
		{"another host", discoverBody, map[string]string{"Host": "evil.example"}},
		{"not JSON", discoverBody, map[string]string{"Content-Type": "text/plain"}},
		{"a notification", strings.Replace(discoverBody, `"id":7,`, ``, 1), nil},
		{"a fractional id", strings.Replace(discoverBody, `"id":7`, `"id":7.5`, 1), nil},
		{"a batch", "[" + discoverBody + "]", nil},
	} {
		t.Run("left to the SDK: "+tc.name, func(t *testing.T) {
			request := func() *http.Request {
				req := discoverRequest(e.URL, tc.body, tc.header)
				if h := tc.header["Host"]; h != "" {
					req.Host = h
				}
				return req
			}
			rec := httptest.NewRecorder()
			serveDirect(e, rec, request())
			resp, err := http.DefaultClient.Do(request())
			assert.NilError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Check(t, is.Equal(resp.StatusCode, rec.Code), "the SDK's answer: %s\ngot: %s", rec.Body, body)
			assert.Check(t, !strings.Contains(string(body), "-32601"), string(body))
		})
	}
}

// TestServedMethods: the SDK server answers each method the endpoint
// leaves to it (servedMethods) in a session, rather than failing the
// request as it does a method it does not have.
func TestServedMethods(t *testing.T) {
	_, e, _ := openTrial(t)
	session := initialized(t, e)
	unknown := httptest.NewRecorder()
	serveDirect(e, unknown, discoverRequest(e.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/list"}`, map[string]string{"Mcp-Protocol-Version": "2025-06-18", "Mcp-Method": "", "Mcp-Session-Id": session}))
	assert.Assert(t, is.Equal(unknown.Code, http.StatusBadRequest), "the SDK answers a method it does not have so: %s", unknown.Body)
	for method := range servedMethods {
		if method == "initialize" {
			continue // answered above
		}
		rec := httptest.NewRecorder()
		serveDirect(e, rec, discoverRequest(e.URL, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{}}`, map[string]string{"Mcp-Protocol-Version": "2025-06-18", "Mcp-Method": "", "Mcp-Session-Id": session}))
		assert.Check(t, is.Equal(rec.Code, http.StatusOK), "%s: %s", method, rec.Body)
		assert.Check(t, !strings.Contains(rec.Body.String(), "unsupported"), "%s: %s", method, rec.Body)
	}
}

// BenchmarkDiscover is a sessionless client's first request, server/discover,
// over loopback HTTP; the endpoint answers it -32601 for initialize to
// follow.
func BenchmarkDiscover(b *testing.B) {
	srv, err := Listen()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	f := &suites.Fixtures{ToolResponses: []suites.ToolResponse{{Tool: "calc.add", Response: json.RawMessage(`{"sum":3}`)}}}
	e, err := srv.Open(b.Context(), Trial{Tools: NewToolset([]Tool{{Served: "calc.add", Name: "calc.add"}}), Answer: fixtures.NewSession(f, fixtures.Options{})})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.DefaultClient.Do(discoverRequest(e.URL, discoverBody, nil))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
