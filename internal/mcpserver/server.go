package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/loopback"
	"github.com/evalgate/evalgate/jsonvalue"
)

// Tools answers a trial's tool calls; a *fixtures.Session is one.
type Tools interface {
	Call(ctx context.Context, id, name string, args json.RawMessage) fixtures.Result
}

// Tool is one tool a trial serves.
type Tool struct {
	Served      string // the name on the wire, legal in MCP
	Name        string // the suite's name, which the fixtures and the trace use
	Description string
	InputSchema json.RawMessage // nil: any object
}

// Trial is what one trial's endpoint serves.
type Trial struct {
	Tools  *Toolset          // nil: none
	Memory []json.RawMessage // each entry is the resource evalgate://memory/<index>
	Answer Tools
	// MaxDepth bounds how deeply a call's arguments nest; a deeper call is
	// refused with a protocol error and never reaches Answer. 0: no bound.
	MaxDepth int
	// MaxRequestBytes bounds one HTTP request body; 0: the SDK's default.
	MaxRequestBytes int64
	// Quota bounds the requests, request bytes and sessions of the
	// trial's clients; a field left 0 takes loopback.DefaultQuota's. What
	// goes over it is refused: 429 for a request or a session.
	Quota loopback.Quota
	// WhenOver, if set, is called once, as the trial's clients first go
	// over Quota; it must not block.
	WhenOver func(*loopback.QuotaError)
}

// MemoryURI is the resource URI of memory seed entry i.
func MemoryURI(i int) string { return "evalgate://memory/" + strconv.Itoa(i) }

// Server is the one MCP listener of a run, on 127.0.0.1 at a port the
// system picks, with the deadlines, caps and shutdown of every server
// evalgate runs (internal/loopback). It serves each open trial at a path
// of its own, 32 random bytes in hex; any other path, a closed trial's
// included, is 404 with an empty body, so one trial's address says nothing
// about another's.
type Server struct {
	lb   *loopback.Server
	open sync.WaitGroup // endpoints not yet closed
}

// Listen starts a Server on a free loopback port.
func Listen() (*Server, error) {
	lb, err := loopback.Listen(loopback.Limits{})
	if err != nil {
		return nil, fmt.Errorf("could not listen for MCP clients: %w", err)
	}
	return &Server{lb: lb}, nil
}

// Close stops listening and closes the trials still open, without waiting
// on any client: their requests in progress are cut off.
func (s *Server) Close() error {
	err := s.lb.Close()
	s.open.Wait()
	return err
}

// endpointKey is the context key of the Endpoint a request reached.
type endpointKey struct{}

// endpointOf is the trial a request's handler serves.
func endpointOf(ctx context.Context) (*Endpoint, error) {
	e, _ := ctx.Value(endpointKey{}).(*Endpoint)
	if e == nil {
		return nil, errNoTrial
	}
	return e, nil
}

// errNoTrial is an answer to a request that reached no trial, which the
// endpoint's routing does not let happen.
var errNoTrial = errors.New("no trial")

// Endpoint is one trial's MCP server.
type Endpoint struct {
	// URL is where the trial's MCP client connects (streamable HTTP).
	URL string

	s       *Server
	tenant  *loopback.Tenant
	trial   Trial
	memory  []*mcp.Resource // the resources of trial.Memory
	handler http.Handler
	mcp     *mcp.Server  // the toolset's, shared
	next    atomic.Int64 // the number of the next call, for its trace id
	once    sync.Once

	mu       sync.Mutex
	sessions []*mcp.ServerSession // opened at this endpoint, closed with it
	calls    sync.WaitGroup       // tool calls in progress, which the SDK runs apart from their requests
	ended    bool                 // no request runs any more: a session found now is closed at once, a call refused
}

// Open serves t until the endpoint is closed or ctx ends, whichever comes
// first. Calls in progress when ctx ends see their context end.
func (s *Server) Open(ctx context.Context, t Trial) (*Endpoint, error) {
	e := &Endpoint{s: s, trial: t}
	e.memory = make([]*mcp.Resource, len(t.Memory))
	for i := range t.Memory {
		n := strconv.Itoa(i)
		e.memory[i] = &mcp.Resource{URI: MemoryURI(i), Name: "memory-" + n, Description: "memory seed entry " + n, MIMEType: "application/json"}
	}
	// Listed in the SDK's order, by URI, as when they were its resources.
	slices.SortFunc(e.memory, func(a, b *mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
	srv := t.Tools.server(len(t.Memory) > 0)
	e.mcp = srv
	// The handler is the trial's own, holding its sessions only; the MCP
	// server behind it is its toolset's, shared with the suite's other
	// trials.
	e.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		// A session per client connection, so a call is decoded once
		// rather than also to set up a session of its own (half the
		// memory and two thirds the time of a stateless call,
		// BenchmarkToolCall); each answer is one JSON body. The
		// sessions end with the endpoint (Close).
		JSONResponse:        true,
		MaxRequestBodyBytes: t.MaxRequestBytes,
	})
	var opts []loopback.Option
	if t.WhenOver != nil {
		opts = append(opts, loopback.WhenOver(t.WhenOver))
	}
	tenant, err := s.lb.Open(ctx, http.HandlerFunc(e.serve), t.Quota, opts...)
	if err != nil {
		return nil, err
	}
	e.tenant, e.URL = tenant, tenant.URL
	s.open.Add(1)
	context.AfterFunc(tenant.Context(), e.Close)
	return e, nil
}

// serve answers one request of the trial's clients. The standalone GET
// stream is 405: the server sends no message of its own, and a client
// that never closes would hold it open. A request of a method or protocol
// version the server does not serve is -32601 (refuseUnserved). A request
// that opens a session counts against the trial's quota of sessions.
func (e *Endpoint) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "" {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if r.Method == http.MethodGet {
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "Method Not Allowed: this server sends no messages of its own", http.StatusMethodNotAllowed)
		return
	}
	if refuseUnserved(w, r) {
		return
	}
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
		if err := e.tenant.Take(loopback.Sessions, 1); err != nil {
			loopback.Refuse(w, err)
			return
		}
	}
	// A session the request opens keeps this context's values for its
	// handlers (the SDK detaches only its cancellation), so they find the
	// trial there; its handler is the trial's own, so a session is only
	// ever reached at its trial's path.
	e.handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), endpointKey{}, e)))
}

// Close stops serving the trial: its path is 404 from now on, calls in
// progress see their context end and their connections closed, and the
// clients' sessions are closed. It returns once every request has ended,
// and waits on no client.
func (e *Endpoint) Close() {
	e.tenant.Close()
	e.closeSessions()
	e.calls.Wait()
	e.once.Do(e.s.open.Done)
}

// Over is the first request the trial's quota refused, nil while its
// clients have kept to it.
func (e *Endpoint) Over() *loopback.QuotaError { return e.tenant.Over() }

// Busy reports whether a request of the trial's clients is in progress.
func (e *Endpoint) Busy() bool { return e.tenant.Busy() }

// track notes a session opened at the endpoint, for Close; once the
// endpoint has ended it closes the session instead.
func (e *Endpoint) track(ss *mcp.ServerSession) {
	e.mu.Lock()
	ended := e.ended
	if !ended {
		e.sessions = append(e.sessions, ss)
	}
	e.mu.Unlock()
	if ended {
		ss.Close()
	}
}

// closeSessions closes the sessions opened at the endpoint; no request
// runs any more, so any the SDK still initializes after its request has
// gone is closed by track, and any call it still starts is refused.
func (e *Endpoint) closeSessions() {
	e.mu.Lock()
	open := e.sessions
	e.sessions = nil
	e.ended = true
	e.mu.Unlock()
	for _, ss := range open {
		ss.Close()
	}
}

// bound is ctx, ended as well when the endpoint closes.
func (e *Endpoint) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(e.tenant.Context(), cancel)
	return ctx, func() { stop(); cancel() }
}

// Toolset is a list of tools made ready to serve, once for all the trials
// that serve it (a suite's): the SDK decodes and resolves each tool's
// schema as it is added, which for a server per trial was a tenth of the
// bytes a one-call trial allocated (BenchmarkTrialServer). It holds no
// trial's state: a handler finds its trial in its context (endpointOf).
type Toolset struct {
	tools  []Tool
	served map[string]bool

	// The MCP servers, made on first use: one for trials with memory
	// resources and one for trials without, since a server states in its
	// capabilities whether it has resources.
	once       [2]sync.Once
	withMemory *mcp.Server
	noMemory   *mcp.Server
}

// NewToolset makes tools ready to serve; it keeps tools, which must not
// change from then on.
func NewToolset(tools []Tool) *Toolset {
	served := make(map[string]bool, len(tools))
	for _, tool := range tools {
		served[tool.Served] = true
	}
	return &Toolset{tools: tools, served: served}
}

// noTools is the toolset of a trial that serves none.
var noTools = NewToolset(nil)

// server is the toolset's MCP server for trials with memory resources or
// without.
func (ts *Toolset) server(memory bool) *mcp.Server {
	if ts == nil {
		ts = noTools
	}
	if memory {
		ts.once[1].Do(func() { ts.withMemory = ts.build(true) })
		return ts.withMemory
	}
	ts.once[0].Do(func() { ts.noMemory = ts.build(false) })
	return ts.noMemory
}

// build makes an MCP server of the tools, whose handlers answer from the
// fixtures of the trial in their context. A hook answers what differs from
// trial to trial: calls of undeclared tools, handed to the fixtures too as
// the other drivers do, so they are traced and found unfixtured; and the
// memory resources, listed (in one page) and read from the trial's seed.
func (ts *Toolset) build(memory bool) *mcp.Server {
	opts := &mcp.ServerOptions{}
	if memory {
		// What the SDK states for a server with resources added, which is
		// what a trial's server stated when it added them.
		//lint:ignore SA1019 logging is in the SDK's default capabilities, which these repeat
		opts.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Resources: &mcp.ResourceCapabilities{ListChanged: true}}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "evalgate", Version: "1"}, opts)
	for _, tool := range ts.tools {
		srv.AddTool(&mcp.Tool{Name: tool.Served, Description: tool.Description, InputSchema: objectSchema(tool.InputSchema)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				e, err := endpointOf(ctx)
				if err != nil {
					return nil, err
				}
				return e.call(ctx, tool.Name, req.Params.Arguments)
			})
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			e, err := endpointOf(ctx)
			if err != nil {
				return nil, err
			}
			switch r := req.(type) {
			case *mcp.ServerRequest[*mcp.InitializeParams]:
				e.track(r.Session)
			case *mcp.CallToolRequest:
				if r.Params != nil && !ts.served[r.Params.Name] {
					return e.call(ctx, r.Params.Name, r.Params.Arguments)
				}
			case *mcp.ListResourcesRequest:
				return &mcp.ListResourcesResult{Resources: slices.Clip(e.memory)}, nil
			case *mcp.ReadResourceRequest:
				if r.Params != nil {
					return e.readMemory(r.Params.URI)
				}
			}
			return next(ctx, method, req)
		}
	})
	return srv
}

// readMemory answers a resources/read of the trial's memory, or as the
// SDK answers a resource it does not have.
func (e *Endpoint) readMemory(uri string) (*mcp.ReadResourceResult, error) {
	for i := range e.trial.Memory {
		if MemoryURI(i) == uri {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: compact(e.trial.Memory[i])}}}, nil
		}
	}
	return nil, mcp.ResourceNotFoundError(uri)
}

// errTooDeep refuses arguments nested deeper than the trial allows.
var errTooDeep = errors.New("arguments nested too deeply")

// errEnded refuses a call the SDK starts after its trial has ended.
var errEnded = errors.New("the trial has ended")

// call answers one tools/call from the fixtures under the suite's name.
func (e *Endpoint) call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	t := &e.trial
	if t.MaxDepth > 0 && jsonvalue.Depth(args) > t.MaxDepth {
		return nil, fmt.Errorf("%w: deeper than %d levels", errTooDeep, t.MaxDepth)
	}
	// The SDK runs the handler apart from its request, with a context of
	// its own: Close waits for it, and it ends with the trial, so that a
	// delayed answer is in the trace before the trace is read.
	e.mu.Lock()
	if e.ended {
		e.mu.Unlock()
		return nil, errEnded
	}
	e.calls.Add(1)
	e.mu.Unlock()
	defer e.calls.Done()
	ctx, cancel := e.bound(ctx)
	defer cancel()
	id := "mcp-" + strconv.FormatInt(e.next.Add(1), 10)
	return toolResult(t.Answer.Call(ctx, id, name, args)), nil
}

// toolResult renders a fixture answer: an object as structuredContent and
// one text block of its JSON, a string as one text block, any other value
// as one text block of its JSON; an error as isError with its message.
func toolResult(r fixtures.Result) *mcp.CallToolResult {
	content := bytes.TrimSpace(r.Content)
	out := &mcp.CallToolResult{IsError: r.IsError}
	var text string
	switch {
	case len(content) > 0 && content[0] == '"':
		if err := json.Unmarshal(content, &text); err != nil {
			text = string(content)
		}
	case len(content) > 0 && content[0] == '{' && !r.IsError:
		text = compact(content)
		out.StructuredContent = json.RawMessage(text)
	case len(content) == 0:
		text = "null"
	default:
		text = compact(content)
	}
	out.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	return out
}

// objectSchema is a tool's input schema as MCP requires it, an object
// schema: a missing schema, or one for another type, is served as any
// object (the fixtures match what is sent either way).
func objectSchema(s json.RawMessage) json.RawMessage {
	var head struct {
		Type any `json:"type"`
	}
	if len(s) == 0 || json.Unmarshal(s, &head) != nil || head.Type != "object" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return s
}

func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}
