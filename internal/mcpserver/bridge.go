package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bridge carries MCP messages between a client speaking over in and out
// (newline-delimited JSON-RPC, the stdio transport) and the streamable
// HTTP server at url, until in ends (and the answers to the requests read
// so far are written), the server goes away or ctx ends.
// It reads no message itself: each goes through as the client sent it.
func Bridge(ctx context.Context, url string, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	local, err := (&mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}}).Connect(ctx)
	if err != nil {
		return err
	}
	defer local.Close()
	remote, err := (&mcp.StreamableClientTransport{
		Endpoint:             url,
		HTTPClient:           &http.Client{},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}).Connect(ctx)
	if err != nil {
		return fmt.Errorf("could not reach the trial's MCP server: %w", err)
	}
	defer remote.Close()

	// When in ends, the answers still owed to the client are carried
	// before the bridge returns.
	var (
		mu      sync.Mutex
		pending int
		inDone  bool
		done    = make(chan error, 1)
	)
	finish := func(err error) {
		select {
		case done <- err:
		default: // the first reason is the one returned
		}
	}
	settle := func() {
		if inDone && pending == 0 {
			finish(nil)
		}
	}
	go func() {
		for {
			msg, err := local.Read(ctx)
			if err != nil {
				mu.Lock()
				inDone = true
				settle()
				mu.Unlock()
				if !errors.Is(err, io.EOF) {
					finish(err)
				}
				return
			}
			if r, ok := msg.(*jsonrpc.Request); ok && r.ID.IsValid() {
				mu.Lock()
				pending++
				mu.Unlock()
			}
			if err := remote.Write(ctx, msg); err != nil {
				finish(err)
				return
			}
		}
	}()
	go func() {
		for {
			msg, err := remote.Read(ctx)
			if err != nil {
				finish(err)
				return
			}
			if err := local.Write(ctx, msg); err != nil {
				finish(err)
				return
			}
			if _, ok := msg.(*jsonrpc.Response); ok {
				mu.Lock()
				pending--
				settle()
				mu.Unlock()
			}
		}
	}()
	err = <-done
	if ctx.Err() != nil {
		return nil
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
