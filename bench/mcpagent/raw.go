package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
)

// rawVersions are the protocol versions the raw client speaks, newest
// first: those of the session era, whose messages it writes.
var rawVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// rawClient is a minimal streamable HTTP MCP client on net/http and
// encoding/json alone: initialize, the initialized notification, tools/call
// and the session's DELETE, each answer read as a JSON body or as an event
// stream, as the transport allows a server to answer. It is the -mcp-client
// raw of the MCP workload, so that evalgate's side can be measured without
// the cost of the SDK's client beside it.
type rawClient struct {
	url     string
	http    *http.Client
	session string // Mcp-Session-Id, if the server gave one
	version string // negotiated at initialize
	nextID  int64
}

// connectRaw initializes a session at url.
func connectRaw(ctx context.Context, url string) (*rawClient, error) {
	c := &rawClient{url: url, http: &http.Client{}}
	params := map[string]any{
		"protocolVersion": rawVersions[0],
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "bench-raw", "version": "1"},
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	header, err := c.call(ctx, "initialize", params, &init)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(rawVersions, init.ProtocolVersion) {
		c.close(ctx)
		return nil, fmt.Errorf("the server offers protocol version %q, which this client does not speak", init.ProtocolVersion)
	}
	c.session = header.Get("Mcp-Session-Id")
	c.version = init.ProtocolVersion
	resp, err := c.post(ctx, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("notifications/initialized: %s", resp.Status)
	}
	return c, nil
}

// callTool calls the tool name and returns its result's structuredContent.
func (c *rawClient) callTool(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	var res struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if _, err := c.call(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, &res); err != nil {
		return nil, err
	}
	if res.IsError {
		var text []string
		for _, b := range res.Content {
			text = append(text, b.Text)
		}
		return nil, fmt.Errorf("%s: %s", name, strings.Join(text, " "))
	}
	return res.StructuredContent, nil
}

// close ends the session with a DELETE; a server that does not let clients
// end sessions answers 405, which is no error.
func (c *rawClient) close(ctx context.Context) error {
	if c.session == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return err
	}
	c.setHeaders(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body) //nolint:errcheck // only to reuse the connection
	resp.Body.Close()
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusMethodNotAllowed {
		return fmt.Errorf("DELETE: %s", resp.Status)
	}
	return nil
}

func (c *rawClient) setHeaders(req *http.Request) {
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
}

func (c *rawClient) post(ctx context.Context, msg any) (*http.Response, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.setHeaders(req)
	return c.http.Do(req)
}

// call sends one request and decodes its result into result; it returns
// the answer's HTTP header.
func (c *rawClient) call(ctx context.Context, method string, params, result any) (http.Header, error) {
	c.nextID++
	id := c.nextID
	resp, err := c.post(ctx, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("%s: %s %s", method, resp.Status, bytes.TrimSpace(b))
	}
	var answer []byte
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		if answer, err = io.ReadAll(resp.Body); err != nil {
			return nil, err
		}
	case "text/event-stream":
		if answer, err = readEvents(resp.Body, id); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
	default:
		return nil, fmt.Errorf("%s: an answer of type %q", method, mt)
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &msg); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if msg.Error != nil {
		return nil, fmt.Errorf("%s: %s (%d)", method, msg.Error.Message, msg.Error.Code)
	}
	if string(msg.ID) != fmt.Sprint(id) {
		return nil, fmt.Errorf("%s: the answer is to request %s", method, msg.ID)
	}
	return resp.Header, json.Unmarshal(msg.Result, result)
}

// readEvents reads an event stream up to the message that answers request
// id, and returns it; the server may send requests and notifications of its
// own before it, which are skipped.
func readEvents(r io.Reader, id int64) ([]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var (
		data  []byte
		event string
		want  = fmt.Sprint(id)
	)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(data) > 0 && (event == "" || event == "message") {
				var head struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if json.Unmarshal(data, &head) == nil && head.Method == "" && string(head.ID) == want {
					return data, nil
				}
			}
			data, event = data[:0], ""
		case strings.HasPrefix(line, ":"): // a comment
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "data":
				if len(data) > 0 {
					data = append(data, '\n')
				}
				data = append(data, value...)
			case "event":
				event = value
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, errors.New("the event stream ended before the answer")
}
