package mcpserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/suites"
)

// BenchmarkToolCall is one tools/call round trip over loopback HTTP, from
// the SDK's client to a trial's endpoint and its fixture session.
func BenchmarkToolCall(b *testing.B) {
	srv, err := Listen()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	f := &suites.Fixtures{ToolResponses: []suites.ToolResponse{{Tool: "calc.add", Response: json.RawMessage(`{"sum":3}`)}}}
	e, err := srv.Open(b.Context(), Trial{
		Tools:  NewToolset([]Tool{{Served: "calc.add", Name: "calc.add"}}),
		Answer: fixtures.NewSession(f, fixtures.Options{}),
	})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(b.Context(), &mcp.StreamableClientTransport{Endpoint: e.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"a": 1, "b": 2}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "calc.add", Arguments: args}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrial is the whole MCP side of a one-call trial: the endpoint
// opened, the SDK's client connecting (initialize), one tools/call, and
// both closed.
func BenchmarkTrial(b *testing.B) {
	srv, err := Listen()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	f := &suites.Fixtures{ToolResponses: []suites.ToolResponse{{Tool: "calc.add", Response: json.RawMessage(`{"sum":3}`)}}}
	tools := NewToolset([]Tool{{Served: "calc.add", Name: "calc.add"}})
	args := map[string]any{"a": 1, "b": 2}
	b.ReportAllocs()
	for b.Loop() {
		e, err := srv.Open(b.Context(), Trial{Tools: tools, Answer: fixtures.NewSession(f, fixtures.Options{})})
		if err != nil {
			b.Fatal(err)
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := c.Connect(b.Context(), &mcp.StreamableClientTransport{Endpoint: e.URL, DisableStandaloneSSE: true}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "calc.add", Arguments: args}); err != nil {
			b.Fatal(err)
		}
		cs.Close()
		e.Close()
	}
}

// rawTrial is the client side of a one-call trial at its cheapest: the
// four requests a session-era client sends (initialize, the initialized
// notification, one tools/call, the session's DELETE) written by hand, so
// that BenchmarkTrialServer measures the endpoint rather than the SDK's
// client. It returns the tools/call answer's body.
func rawTrial(c *http.Client, url string) ([]byte, error) {
	do := func(method, session, body string) (*http.Response, []byte, error) {
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode/100 != 2 {
			err = fmt.Errorf("%s: %s %s", method, resp.Status, b)
		}
		return resp, b, err
	}
	resp, _, err := do(http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if err != nil {
		return nil, err
	}
	session := resp.Header.Get("Mcp-Session-Id")
	if _, _, err := do(http.MethodPost, session, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`); err != nil {
		return nil, err
	}
	_, answer, err := do(http.MethodPost, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calc.add","arguments":{"a":1,"b":2}}}`)
	if err != nil {
		return nil, err
	}
	if _, _, err := do(http.MethodDelete, session, ""); err != nil {
		return nil, err
	}
	return answer, nil
}

// BenchmarkTrialServer is BenchmarkTrial with the client's side written
// by hand (rawTrial): what a one-call trial costs evalgate, endpoint
// opened and closed, with little of the client's cost beside it.
func BenchmarkTrialServer(b *testing.B) {
	srv, err := Listen()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	f := &suites.Fixtures{ToolResponses: []suites.ToolResponse{{Tool: "calc.add", Response: json.RawMessage(`{"sum":3}`)}}}
	tools := NewToolset([]Tool{{Served: "calc.add", Name: "calc.add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`)}})
	c := &http.Client{}
	b.ReportAllocs()
	for b.Loop() {
		e, err := srv.Open(b.Context(), Trial{Tools: tools, Answer: fixtures.NewSession(f, fixtures.Options{})})
		if err != nil {
			b.Fatal(err)
		}
		answer, err := rawTrial(c, e.URL)
		if err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(string(answer), `"sum":3`) {
			b.Fatalf("answer %s", answer)
		}
		e.Close()
	}
}
