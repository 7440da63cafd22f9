package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/waittest"
)

// TestRawClient drives the SDK's own server with the raw client, answering
// as JSON bodies and as event streams: initialize, a call, an error result
// and the session's end.
func TestRawClient(t *testing.T) {
	run := func(t *testing.T, jsonResponse bool) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "calc.add", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in struct{ A, B int }
				if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
					return nil, err
				}
				if in.A < 0 {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "negative"}}}, nil
				}
				return &mcp.CallToolResult{StructuredContent: map[string]int{"sum": in.A + in.B}, Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
			})
		h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
		defer h.Close()

		c, err := connectRaw(t.Context(), h.URL)
		assert.NilError(t, err)
		assert.Check(t, c.session != "")
		assert.Check(t, is.Equal(c.version, rawVersions[0]))
		res, err := c.callTool(t.Context(), "calc.add", json.RawMessage(`{"a":1,"b":2}`))
		assert.NilError(t, err)
		assert.Check(t, is.Equal(string(res), `{"sum":3}`))
		_, err = c.callTool(t.Context(), "calc.add", json.RawMessage(`{"a":-1,"b":2}`))
		assert.Check(t, is.ErrorContains(err, "negative"))
		_, err = c.callTool(t.Context(), "calc.sub", json.RawMessage(`{}`))
		assert.Check(t, err != nil, "an unknown tool is an error")
		assert.Check(t, is.Len(slices.Collect(srv.Sessions()), 1))
		assert.NilError(t, c.close(t.Context()))
		// The session ends as the DELETE is answered, or just after.
		waittest.Poll(t, func() bool { return len(slices.Collect(srv.Sessions())) == 0 })
		assert.Check(t, is.Len(slices.Collect(srv.Sessions()), 0), "the DELETE ended the session")
	}
	t.Run("JSON answers", func(t *testing.T) { run(t, true) })
	t.Run("event streams", func(t *testing.T) { run(t, false) })
}
