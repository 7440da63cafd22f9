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

// maxDiscoverBytes bounds the body refuseDiscover reads; a larger one is
// left to the SDK.
const maxDiscoverBytes = 16 << 10

// refuseDiscover answers a server/discover request of a sessionless client
// with the error a server without that version sends (SEP-2575):
// CodeUnsupportedProtocolVersion, listing the versions it serves, upon
// which the client falls back to initialize. The SDK's handler answers it
// with the same list, but first sets up a session of its own to do so and
// closes it again: for the SDK's client, which discovers first, that was
// the dearest request of a trial (BenchmarkDiscover). The answer is a JSON
// body with status 200, as for any other call of a session-era server, so
// that a client's transport, evalgate mcp stdio's included, hands it to
// the client rather than failing.
//
// It reports whether it answered. Anything it is not sure of (another
// method, a session header, a request the SDK would refuse for its headers,
// a body it cannot read) is left to the SDK, which answers it as before.
func refuseDiscover(w http.ResponseWriter, r *http.Request) bool {
	version := r.Header.Get("Mcp-Protocol-Version")
	if r.Method != http.MethodPost || version < sessionless || r.Header.Get("Mcp-Session-Id") != "" ||
		!loopbackHost(r.Host) || !jsonRequest(r) {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxDiscoverBytes+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxDiscoverBytes {
		return false
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  struct {
			Meta struct {
				ProtocolVersion string              `json:"io.modelcontextprotocol/protocolVersion"`
				ClientInfo      *mcp.Implementation `json:"io.modelcontextprotocol/clientInfo"`
				Capabilities    *clientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
			} `json:"_meta"`
		} `json:"params"`
	}
	// What the SDK checks before it answers: a request it would refuse
	// for its _meta is left to it.
	if json.Unmarshal(body, &msg) != nil || msg.JSONRPC != "2.0" || msg.Method != "server/discover" ||
		msg.Params.Meta.ProtocolVersion != version || msg.Params.Meta.Capabilities == nil {
		return false
	}
	if m := r.Header.Get("Mcp-Method"); m != "" && m != msg.Method {
		return false
	}
	id, ok := requestID(msg.ID)
	if !ok {
		return false
	}
	data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: legacyVersions, Requested: version}) // always encodes
	answer, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code:    mcp.CodeUnsupportedProtocolVersion,
		Message: fmt.Sprintf("protocol version %q is not supported by this server", version),
		Data:    data,
	}})
	if err != nil {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Write(answer) //nolint:errcheck // the client went away
	return true
}

// clientCapabilities is the shape the SDK decodes a sessionless client's
// capabilities into.
type clientCapabilities struct {
	mcp.ClientCapabilities
	//lint:ignore SA1019 the SDK still decodes a client's roots into this type, so the shape stays the SDK's
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
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
