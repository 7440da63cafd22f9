package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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
	ID     json.RawMessage `json:"id"`
	Result *struct {
		SupportedVersions []string `json:"supportedVersions"`
	} `json:"result"`
	Error *struct {
		Code int `json:"code"`
		Data struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		} `json:"data"`
	} `json:"error"`
}

// serveDirect has the SDK's handler of e answer r, as e's path does but
// for refuseDiscover.
func serveDirect(e *Endpoint, w http.ResponseWriter, r *http.Request) {
	e.handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), endpointKey{}, e)))
}

// TestDiscoverIsRefused: a sessionless client's server/discover is
// answered with CodeUnsupportedProtocolVersion and the versions the SDK's
// own handler lists for it, without a session; whatever is not plainly
// such a request still reaches the SDK.
func TestDiscoverIsRefused(t *testing.T) {
	_, e, _ := openTrial(t)

	// What the SDK's handler answers, asked directly.
	rec := httptest.NewRecorder()
	serveDirect(e, rec, discoverRequest(e.URL, discoverBody, nil))
	var sdk rpcAnswer
	assert.NilError(t, json.Unmarshal(rec.Body.Bytes(), &sdk), rec.Body.String())
	assert.Assert(t, sdk.Result != nil, rec.Body.String())

	resp, err := http.DefaultClient.Do(discoverRequest(e.URL, discoverBody, nil))
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
	assert.Check(t, is.Equal(got.Error.Code, -32022))
	assert.Check(t, is.DeepEqual(got.Error.Data.Supported, sdk.Result.SupportedVersions))
	assert.Check(t, is.Equal(got.Error.Data.Requested, "2026-07-28"))
	for range e.mcp.Sessions() {
		t.Error("a session was left open")
	}

	for _, tc := range []struct {
		name   string
		body   string
		header map[string]string
	}{
		{"another host", discoverBody, map[string]string{"Host": "evil.example"}},
		{"a method header that differs", discoverBody, map[string]string{"Mcp-Method": "tools/list"}},
		{"not JSON", discoverBody, map[string]string{"Content-Type": "text/plain"}},
		{"an unknown session", discoverBody, map[string]string{"Mcp-Session-Id": "nope"}},
		{"a fractional id", strings.Replace(discoverBody, `"id":7`, `"id":7.5`, 1), nil},
		{"a notification", strings.Replace(discoverBody, `"id":7,`, ``, 1), nil},
		{"no capabilities", strings.Replace(discoverBody, `"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},`, ``, 1), nil},
		{"capabilities of the wrong shape", strings.Replace(discoverBody, `{"roots":{"listChanged":true}}`, `{"roots":5}`, 1), nil},
		{"a client info of the wrong shape", strings.Replace(discoverBody, `{"name":"t","version":"1"}`, `{"name":5}`, 1), nil},
		{"a version that differs from the header", strings.Replace(discoverBody, `protocolVersion":"2026-07-28"`, `protocolVersion":"2026-07-29"`, 1), nil},
		{"another method", strings.Replace(discoverBody, `server/discover`, `tools/list`, 1), map[string]string{"Mcp-Method": "tools/list"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			request := func() *http.Request {
				req := discoverRequest(e.URL, tc.body, tc.header)
				if h := tc.header["Host"]; h != "" {
					req.Host = h
				}
				return req
			}
			rec := httptest.NewRecorder()
			direct := request()
			// as the HTTP server sets it, for the SDK's check of the Host
			serveDirect(e, rec, direct.WithContext(context.WithValue(direct.Context(), http.LocalAddrContextKey, e.s.ln.Addr())))
			resp, err := http.DefaultClient.Do(request())
			assert.NilError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Check(t, is.Equal(resp.StatusCode, rec.Code), "the SDK's answer: %s\ngot: %s", rec.Body, body)
			assert.Check(t, is.Equal(strings.Contains(string(body), "-32022"), strings.Contains(rec.Body.String(), "-32022")), string(body))
		})
	}
}

// BenchmarkDiscover is a sessionless client's first request, server/discover,
// over loopback HTTP; the endpoint refuses it for initialize to follow.
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
