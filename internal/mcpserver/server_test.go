package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/loopback"
	"github.com/evalgate/evalgate/internal/waittest"
	"github.com/evalgate/evalgate/suites"
)

func testFixtures(tag string) *suites.Fixtures {
	return &suites.Fixtures{
		ToolResponses: []suites.ToolResponse{
			{Tool: "crm:lookup", Args: json.RawMessage(`{"orderId":"A-17"}`), Response: json.RawMessage(`{"order":"A-17","owner":"` + tag + `"}`)},
			{Tool: "crm:lookup", Error: "order not found"},
			{Tool: "notes.read", Response: json.RawMessage(`"a note of ` + tag + `"`)},
			{Tool: "slow", Response: json.RawMessage(`1`), DelayMs: 3_600_000}, // ends only when interrupted
		},
		MemorySeed: []json.RawMessage{json.RawMessage(`{"customer": "` + tag + `"}`)},
	}
}

// testTools is the toolset of testTrial, shared by its trials as a
// suite's trials share theirs.
var testTools = NewToolset([]Tool{
	{Served: "crm_lookup", Name: "crm:lookup", Description: "look an order up", InputSchema: json.RawMessage(`{"type":"object","properties":{"orderId":{"type":"string"}}}`)},
	{Served: "notes.read", Name: "notes.read"},
	{Served: "slow", Name: "slow"},
})

func testTrial(sess *fixtures.Session, f *suites.Fixtures) Trial {
	return Trial{
		Tools:    testTools,
		Memory:   f.MemorySeed,
		Answer:   sess,
		MaxDepth: 8,
	}
}

func connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	assert.NilError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// openTrial starts a server and opens a trial on it with the fixtures of
// testFixtures("ann"); both close when the test ends.
func openTrial(t *testing.T) (*Server, *Endpoint, *fixtures.Session) {
	t.Helper()
	srv, err := Listen()
	assert.NilError(t, err)
	t.Cleanup(func() { srv.Close() })
	f := testFixtures("ann")
	sess := fixtures.NewSession(f, fixtures.Options{})
	e, err := srv.Open(t.Context(), testTrial(sess, f))
	assert.NilError(t, err)
	t.Cleanup(e.Close)
	return srv, e, sess
}

func TestEndpointServesTheFixtures(t *testing.T) {
	_, e, sess := openTrial(t)
	cs := connect(t, e.URL)

	tools, err := cs.ListTools(t.Context(), nil)
	assert.NilError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	assert.DeepEqual(t, names, []string{"crm_lookup", "notes.read", "slow"})

	type testCase struct {
		name       string
		tool       string
		args       any
		wantText   string
		wantError  bool
		wantStruct bool
	}
	for _, tc := range []testCase{
		{name: "matching args", tool: "crm_lookup", args: map[string]any{"orderId": "A-17"}, wantText: `{"order":"A-17","owner":"ann"}`, wantStruct: true},
		{name: "other args get the error entry", tool: "crm_lookup", args: map[string]any{"orderId": "B-2"}, wantText: "order not found", wantError: true},
		{name: "a string response", tool: "notes.read", wantText: "a note of ann"},
		{name: "an undeclared tool", tool: "rm", args: map[string]any{}, wantText: `no fixture for tool "rm"`, wantError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			assert.NilError(t, err)
			assert.Check(t, is.Equal(text(res), tc.wantText))
			assert.Check(t, is.Equal(res.IsError, tc.wantError))
			assert.Check(t, is.Equal(res.StructuredContent != nil, tc.wantStruct))
		})
	}

	trace := sess.Trace()
	var got []string
	for _, c := range trace {
		got = append(got, c.ID+" "+c.Name+" "+string(c.Args))
	}
	assert.DeepEqual(t, got, []string{
		`mcp-1 crm:lookup {"orderId":"A-17"}`,
		`mcp-2 crm:lookup {"orderId":"B-2"}`,
		`mcp-3 notes.read {}`,
		`mcp-4 rm {}`,
	})
	assert.Check(t, is.Len(sess.Findings(), 1))

	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: MemoryURI(0)})
	assert.NilError(t, err)
	assert.Check(t, is.Len(res.Contents, 1))
	assert.Check(t, is.Equal(res.Contents[0].Text, `{"customer":"ann"}`))
	assert.Check(t, is.Equal(res.Contents[0].MIMEType, "application/json"))
	list, err := cs.ListResources(t.Context(), nil)
	assert.NilError(t, err)
	assert.Check(t, is.Len(list.Resources, 1))
}

// TestCapabilities: a trial states resources when it has memory to serve,
// as a server of its own did once it had added them, and tools when its
// suite declares some.
func TestCapabilities(t *testing.T) {
	srv, err := Listen()
	assert.NilError(t, err)
	defer srv.Close()
	f := testFixtures("ann")
	for _, tc := range []struct {
		name             string
		trial            Trial
		tools, resources bool
	}{
		{name: "tools and memory", trial: testTrial(fixtures.NewSession(f, fixtures.Options{}), f), tools: true, resources: true},
		{name: "tools only", trial: Trial{Tools: testTools, Answer: fixtures.NewSession(f, fixtures.Options{})}, tools: true},
		{name: "memory only", trial: Trial{Memory: f.MemorySeed, Answer: fixtures.NewSession(f, fixtures.Options{})}, resources: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := srv.Open(t.Context(), tc.trial)
			assert.NilError(t, err)
			defer e.Close()
			caps := connect(t, e.URL).InitializeResult().Capabilities
			assert.Check(t, is.Equal(caps.Tools != nil, tc.tools))
			assert.Check(t, is.Equal(caps.Resources != nil, tc.resources))
		})
	}
}

// TestTrialsAreIsolated runs trials at once, sharing a toolset as a
// suite's trials do, each calling through its own URL, and checks each
// sees its own fixtures and memory only, each trace holds its own calls
// only, and no other path answers.
func TestTrialsAreIsolated(t *testing.T) {
	srv, err := Listen()
	assert.NilError(t, err)
	defer srv.Close()
	const n = 8
	sessions := make([]*fixtures.Session, n)
	urls := make([]string, n)
	for i := range n {
		f := testFixtures(fmt.Sprint("owner", i))
		for j := range i % 3 { // trials hold 1 to 3 memory entries
			f.MemorySeed = append(f.MemorySeed, json.RawMessage(fmt.Sprintf(`{"entry":%d,"of":"owner%d"}`, j+1, i)))
		}
		sessions[i] = fixtures.NewSession(f, fixtures.Options{})
		e, err := srv.Open(t.Context(), testTrial(sessions[i], f))
		assert.NilError(t, err)
		defer e.Close()
		urls[i] = e.URL
	}
	type seen struct {
		answer, memory, last string
		resources            int
		beyond               error
	}
	var wg sync.WaitGroup
	got := make([]seen, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: urls[i], MaxRetries: -1}, nil)
			if err != nil {
				errs[i] = err
				return
			}
			defer cs.Close()
			for range 5 {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "crm_lookup", Arguments: map[string]any{"orderId": "A-17"}})
				if err != nil {
					errs[i] = err
					return
				}
				got[i].answer = text(res)
			}
			list, err := cs.ListResources(t.Context(), nil)
			if err != nil {
				errs[i] = err
				return
			}
			got[i].resources = len(list.Resources)
			for k, r := range list.Resources {
				mem, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: r.URI})
				if err != nil {
					errs[i] = err
					return
				}
				if k == 0 {
					got[i].memory = mem.Contents[0].Text
				}
				got[i].last = mem.Contents[0].Text
			}
			_, got[i].beyond = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: MemoryURI(len(list.Resources))})
		})
	}
	wg.Wait()
	for i := range n {
		assert.Check(t, errs[i])
		assert.Check(t, is.Equal(got[i].answer, fmt.Sprintf(`{"order":"A-17","owner":"owner%d"}`, i)))
		assert.Check(t, is.Len(sessions[i].Trace(), 5))
		assert.Check(t, is.Equal(got[i].resources, 1+i%3))
		assert.Check(t, is.Equal(got[i].memory, fmt.Sprintf(`{"customer":"owner%d"}`, i)))
		if i%3 > 0 {
			assert.Check(t, is.Equal(got[i].last, fmt.Sprintf(`{"entry":%d,"of":"owner%d"}`, i%3, i)))
		}
		assert.Check(t, got[i].beyond != nil, "trial %d read a memory entry it does not hold", i)
	}

	base := urls[0][:strings.LastIndex(urls[0], "/")+1]
	for _, path := range []string{"", "mcp", urls[0][len(base) : len(base)+10], urls[0][len(base):] + "/x", strings.ToUpper(urls[0][len(base):])} {
		status, body := post(t, base+path)
		assert.Check(t, is.Equal(status, http.StatusNotFound), "path %q", path)
		assert.Check(t, is.Equal(body, ""), "path %q", path)
	}
}

// TestSessionsStayWithTheirTrial: two trials share a toolset, and so an MCP
// server; a session opened at one trial's path is unknown at the other's,
// so a request there that names it is 404 and reaches neither trial.
func TestSessionsStayWithTheirTrial(t *testing.T) {
	srv, err := Listen()
	assert.NilError(t, err)
	defer srv.Close()
	open := func(tag string) (*Endpoint, *fixtures.Session) {
		f := testFixtures(tag)
		sess := fixtures.NewSession(f, fixtures.Options{})
		e, err := srv.Open(t.Context(), testTrial(sess, f))
		assert.NilError(t, err)
		t.Cleanup(e.Close)
		return e, sess
	}
	a, aSess := open("ann")
	b, bSess := open("bob")

	rpc := func(url, session, body string) (*http.Response, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
		assert.NilError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		assert.NilError(t, err)
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		return resp, string(got)
	}
	resp, _ := rpc(a.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	assert.Assert(t, session != "")
	rpc(a.URL, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crm_lookup","arguments":{"orderId":"A-17"}}}`
	const read = `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"evalgate://memory/0"}}`
	for _, body := range []string{call, read} {
		resp, got := rpc(b.URL, session, body)
		assert.Check(t, is.Equal(resp.StatusCode, http.StatusNotFound), got)
		assert.Check(t, !strings.Contains(got, "ann") && !strings.Contains(got, "bob"), got)
	}
	assert.Check(t, is.Len(aSess.Trace(), 0))
	assert.Check(t, is.Len(bSess.Trace(), 0))

	_, got := rpc(a.URL, session, call)
	assert.Check(t, is.Contains(got, `\"owner\":\"ann\"`))
	_, got = rpc(a.URL, session, read)
	assert.Check(t, is.Contains(got, `\"customer\":\"ann\"`))
	assert.Check(t, is.Len(aSess.Trace(), 1))
	assert.Check(t, is.Len(bSess.Trace(), 0))

	// Closing a trial closes its sessions only.
	cs := connect(t, b.URL)
	a.Close()
	resp, _ = rpc(a.URL, session, call)
	assert.Check(t, is.Equal(resp.StatusCode, http.StatusNotFound))
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "crm_lookup", Arguments: map[string]any{"orderId": "A-17"}})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(text(res), `{"order":"A-17","owner":"bob"}`))
}

// TestSessionAfterTheEnd: a session the SDK gets to initialize only after
// its trial has ended (its request gone) is closed there and then, not
// left open on the suite's shared server. Such a session is hard to time,
// so a live one of another trial stands in for it.
func TestSessionAfterTheEnd(t *testing.T) {
	srv, ended, _ := openTrial(t)
	ended.Close()
	f := testFixtures("bob")
	live, err := srv.Open(t.Context(), testTrial(fixtures.NewSession(f, fixtures.Options{}), f))
	assert.NilError(t, err)
	defer live.Close()
	connect(t, live.URL)
	open := slices.Collect(live.mcp.Sessions())
	assert.Assert(t, is.Len(open, 1))

	ended.track(open[0])
	done := make(chan error, 1)
	go func() { done <- open[0].Wait() }()
	waittest.Receive(t, "the session to be closed", done)
}

// post sends a tools/list request and returns the status and body.
func post(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	assert.NilError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	assert.NilError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestEndpointEndsWithTheTrial closes endpoints by Close and by the end of
// the trial's context, with a call in progress: the call returns at once,
// its trace entry is complete, and the path is 404 from then on.
func TestEndpointEndsWithTheTrial(t *testing.T) {
	type testCase struct {
		name string
		end  func(e *Endpoint, cancel context.CancelFunc)
	}
	run := func(t *testing.T, tc testCase) {
		srv, err := Listen()
		assert.NilError(t, err)
		defer srv.Close()
		f := testFixtures("ann")
		sess := fixtures.NewSession(f, fixtures.Options{})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		e, err := srv.Open(ctx, testTrial(sess, f))
		assert.NilError(t, err)
		cs := connect(t, e.URL)

		done := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, _ := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
			done <- res
		}()
		waittest.Until(t, "the call to start", func() bool { return len(sess.Trace()) > 0 })
		tc.end(e, cancel)
		e.Close() // returns once the call has, which only an interruption ends
		trace := sess.Trace()
		assert.Assert(t, is.Len(trace, 1))
		assert.Check(t, trace[0].IsError, "the interrupted call is an error: %s", trace[0].Result)
		waittest.Receive(t, "the call in progress to end", done)
		status, body := post(t, e.URL)
		assert.Check(t, is.Equal(status, http.StatusNotFound))
		assert.Check(t, is.Equal(body, ""))
	}
	for _, tc := range []testCase{
		{name: "close", end: func(e *Endpoint, _ context.CancelFunc) { e.Close() }},
		{name: "the trial's context ends", end: func(_ *Endpoint, cancel context.CancelFunc) { cancel() }},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestDeepArgumentsAreRefused(t *testing.T) {
	_, e, sess := openTrial(t)
	cs := connect(t, e.URL)
	var deep any = "x"
	for range 10 {
		deep = map[string]any{"a": deep}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "crm_lookup", Arguments: deep})
	assert.Check(t, err != nil || res.IsError, "a call nested 10 levels under a bound of 8 is refused")
	assert.Check(t, is.Len(sess.Trace(), 0))
}

func TestToolResult(t *testing.T) {
	for _, tc := range []struct {
		in         fixtures.Result
		wantText   string
		wantStruct bool
	}{
		{in: fixtures.Result{Content: json.RawMessage(`{ "a": 1 }`)}, wantText: `{"a":1}`, wantStruct: true},
		{in: fixtures.Result{Content: json.RawMessage(`"hi"`)}, wantText: "hi"},
		{in: fixtures.Result{Content: json.RawMessage(`[1, 2]`)}, wantText: "[1,2]"},
		{in: fixtures.Result{Content: json.RawMessage(`null`)}, wantText: "null"},
		{in: fixtures.Result{Content: json.RawMessage(`"boom"`), IsError: true}, wantText: "boom"},
	} {
		got := toolResult(tc.in)
		assert.Check(t, is.Equal(text(got), tc.wantText))
		assert.Check(t, is.Equal(got.IsError, tc.in.IsError))
		assert.Check(t, is.Equal(got.StructuredContent != nil, tc.wantStruct), "%s", tc.in.Content)
	}
}

// TestBridge drives an endpoint through Bridge with the SDK's client over
// stdio, and with raw lines whose stdin ends before the answers come.
func TestBridge(t *testing.T) {
	srv, e, sess := openTrial(t)
	f := testFixtures("ann")

	t.Run("sdk client", func(t *testing.T) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		bridged := make(chan error, 1)
		go func() { bridged <- Bridge(t.Context(), e.URL, inR, outW); outW.Close() }()
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
		assert.NilError(t, err)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "crm_lookup", Arguments: map[string]any{"orderId": "A-17"}})
		assert.NilError(t, err)
		assert.Check(t, is.Equal(text(res), `{"order":"A-17","owner":"ann"}`))
		mem, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: MemoryURI(0)})
		assert.NilError(t, err)
		assert.Check(t, is.Equal(mem.Contents[0].Text, `{"customer":"ann"}`))
		cs.Close()
		assert.NilError(t, waittest.Receive(t, "the bridge to end with its stdin", bridged))
	})

	t.Run("stdin ends before the answers", func(t *testing.T) {
		in := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notes.read","arguments":{}}}` + "\n")
		var out strings.Builder
		assert.NilError(t, Bridge(t.Context(), e.URL, in, &out))
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		assert.Assert(t, is.Len(lines, 3), out.String())
		assert.Check(t, is.Contains(out.String(), `"a note of ann"`))
	})

	t.Run("a closed trial", func(t *testing.T) {
		e2, err := srv.Open(t.Context(), testTrial(sess, f))
		assert.NilError(t, err)
		e2.Close()
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
		var out strings.Builder
		err = Bridge(t.Context(), e2.URL, in, &out)
		assert.Check(t, err != nil, "a bridge to a closed trial fails")
		assert.Check(t, is.Equal(out.String(), ""))
	})
}

// TestNoGoroutineLeak ends trials whose clients are still connected, with
// their sessions open: once the server closes, nothing of the trials runs
// on.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	srv, err := Listen()
	assert.NilError(t, err)
	var clients []*mcp.ClientSession
	for range 3 {
		f := testFixtures("ann")
		e, err := srv.Open(t.Context(), testTrial(fixtures.NewSession(f, fixtures.Options{}), f))
		assert.NilError(t, err)
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: e.URL, MaxRetries: -1}, nil)
		assert.NilError(t, err)
		_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "notes.read", Arguments: map[string]any{}})
		assert.NilError(t, err)
		clients = append(clients, cs)
		e.Close()
	}
	assert.NilError(t, srv.Close())
	for _, cs := range clients {
		cs.Close()
	}
	if !waittest.Poll(t, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}

// TestStandaloneStreamIsRefused: the standalone GET stream is 405 with
// the methods allowed, so a client that never closes holds no request
// open; the SDK's client goes on without it.
func TestStandaloneStreamIsRefused(t *testing.T) {
	_, e, _ := openTrial(t)
	cs := connect(t, e.URL)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, e.URL, nil)
	assert.NilError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	resp, err := http.DefaultClient.Do(req)
	assert.NilError(t, err)
	resp.Body.Close()
	assert.Check(t, is.Equal(resp.StatusCode, http.StatusMethodNotAllowed))
	assert.Check(t, is.Equal(resp.Header.Get("Allow"), "POST, DELETE"))
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "notes.read", Arguments: map[string]any{}})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(text(res), "a note of ann"))
}

// TestHeldRequestEndsWithTheTrial: a client sends 10 of the 1,000 body
// bytes it announced and waits; the trial's end cuts the request off at
// once, well before the server's read deadline.
func TestHeldRequestEndsWithTheTrial(t *testing.T) {
	_, e, _ := openTrial(t)
	u, err := url.Parse(e.URL)
	assert.NilError(t, err)
	c, err := net.Dial("tcp", u.Host)
	assert.NilError(t, err)
	defer c.Close()
	_, err = fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"", u.Path, u.Host)
	assert.NilError(t, err)
	waittest.Until(t, "the request to be in flight", e.Busy)
	closed := make(chan struct{})
	go func() { e.Close(); close(closed) }()
	waittest.Receive(t, "the trial's end, which must not wait on the client", closed)
	if deadline, ok := waittest.Deadline(t); ok {
		assert.NilError(t, c.SetReadDeadline(deadline))
	}
	_, err = io.Copy(io.Discard, c)
	ne, ok := errors.AsType[net.Error](err)
	assert.Check(t, !ok || !ne.Timeout(), "the connection was left open: %v", err)
}

// TestSessionQuota: a client that opens session after session is refused
// past the trial's quota, with 429 and before the SDK sets a session up;
// the trial learns of it once, and another trial keeps its own quota.
func TestSessionQuota(t *testing.T) {
	srv, err := Listen()
	assert.NilError(t, err)
	defer srv.Close()
	f := testFixtures("ann")
	var over []*loopback.QuotaError
	var mu sync.Mutex
	trial := testTrial(fixtures.NewSession(f, fixtures.Options{}), f)
	trial.Quota = loopback.Quota{Sessions: 3}
	trial.WhenOver = func(e *loopback.QuotaError) {
		mu.Lock()
		defer mu.Unlock()
		over = append(over, e)
	}
	e, err := srv.Open(t.Context(), trial)
	assert.NilError(t, err)
	defer e.Close()
	other, err := srv.Open(t.Context(), Trial{Tools: testTools, Answer: fixtures.NewSession(f, fixtures.Options{}), Quota: loopback.Quota{Sessions: 3}})
	assert.NilError(t, err)
	defer other.Close()

	initialize := func(url string) int {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		assert.NilError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		assert.NilError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for range 3 {
		assert.Check(t, is.Equal(initialize(e.URL), http.StatusOK))
	}
	for range 3 {
		assert.Check(t, is.Equal(initialize(e.URL), http.StatusTooManyRequests))
	}
	assert.Check(t, is.Len(slices.Collect(e.mcp.Sessions()), 3))
	assert.Assert(t, e.Over() != nil)
	assert.Check(t, is.Equal(e.Over().Resource, loopback.Sessions))
	mu.Lock()
	assert.Check(t, is.Len(over, 1))
	mu.Unlock()
	assert.Check(t, is.Equal(initialize(other.URL), http.StatusOK))
	assert.Check(t, other.Over() == nil)
}
