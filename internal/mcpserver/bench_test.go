package mcpserver

import (
	"encoding/json"
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
		Tools:  []Tool{{Served: "calc.add", Name: "calc.add"}},
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
	tools := []Tool{{Served: "calc.add", Name: "calc.add"}}
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
