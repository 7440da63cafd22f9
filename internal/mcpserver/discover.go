package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionless is the first MCP version without sessions (SEP-2575): a
// client of that version starts with server/discover rather than
// initialize. A trial's endpoint keeps sessions (see Open), so it serves
// only the versions before it.
const sessionless = "2026-07-28"

// legacyVersions are the versions the endpoint serves, newest first: the
// SDK's, less the sessionless ones.
var legacyVersions = slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= sessionless })

// servedMethods are the requests the endpoint's SDK server answers at the
// versions it serves: the SDK's own methods, less those of the sessionless
// versions (server/discover, subscriptions/listen). TestServedMethods
// checks that the SDK answers each of them.
var servedMethods = map[string]bool{
	"initialize": true, "ping": true,
	"tools/list": true, "tools/call": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"prompts/list": true, "prompts/get": true,
	"completion/complete": true, "logging/setLevel": true,
}

// maxPeekBytes bounds the body refuseUnserved reads; a larger one is left
// to the SDK.
const maxPeekBytes = 16 << 10

// refuseUnserved answers a request the endpoint does not serve with the
// error a server of the session-era versions sends for it: -32601, method
// not found. That is a request of a method the SDK server does not answer
// (the SDK would fail the HTTP request with 400, which a client takes for
// a broken server), and any request of a sessionless version, server/discover
// first among them: the SDK answers those with -32022, unsupported protocol
// version, which marks a server of the sessionless versions, and upon which
// some clients (the Vercel AI SDK's) give up rather than initialize. Upon
// -32601 every client falls back to initialize. The answer is a JSON body
// with status 200, as for any other call of a session-era server, so that
// a client's transport, evalgate mcp stdio's included, hands it to the
// client rather than failing; it opens no session.
//
// It reports whether it answered. Anything it is not sure of (not a single
// request, a request the SDK would refuse for its headers, a body it
// cannot read) is left to the SDK, which answers it as before.
func refuseUnserved(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost || !loopbackHost(r.Host) || !jsonRequest(r) {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPeekBytes+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxPeekBytes {
		return false
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.JSONRPC != "2.0" || msg.Method == "" {
		return false
	}
	id, ok := requestID(msg.ID)
	if !ok {
		return false // a notification has no answer
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	var text string
	switch {
	case version >= sessionless:
		text = fmt.Sprintf("method %q is not served at protocol version %q: initialize with one of %s", msg.Method, version, strings.Join(legacyVersions, ", "))
	case !servedMethods[msg.Method]:
		text = fmt.Sprintf("method %q not found", msg.Method)
	default:
		return false
	}
	answer, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: text}})
	if err != nil {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Write(answer) //nolint:errcheck // the client went away
	return true
}

// requestID is a request's id, a string or an integer; ok is false for
// anything else, a notification's missing id included.
func requestID(raw json.RawMessage) (id jsonrpc.ID, ok bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return id, false
	}
	if f, isNum := v.(float64); isNum && f != float64(int64(f)) {
		return id, false
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil && id.IsValid()
}

// jsonRequest reports whether r is a POST the SDK's handler takes: a JSON
// body, and an Accept header taking both JSON and an event stream.
func jsonRequest(r *http.Request) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	var jsonOK, streamOK bool
	for _, v := range r.Header.Values("Accept") {
		for t := range strings.SplitSeq(v, ",") {
			t, _, _ = strings.Cut(t, ";")
			switch strings.ToLower(strings.TrimSpace(t)) {
			case "application/json":
				jsonOK = true
			case "text/event-stream":
				streamOK = true
			}
		}
	}
	return jsonOK && streamOK
}

// loopbackHost reports whether the Host header names this machine, as the
// SDK requires of a request to a loopback listener (DNS rebinding).
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.Trim(host, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// readCloser reads the body back for the SDK, and closes the original.
type readCloser struct {
	io.Reader
	io.Closer
}
