package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bridge carries MCP messages between a client speaking over in and out
// (newline-delimited JSON-RPC, the stdio transport) and the streamable
// HTTP server at url, until in ends, the server goes away or ctx ends.
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

	errs := make(chan error, 2)
	pump := func(from, to mcp.Connection) {
		for {
			msg, err := from.Read(ctx)
			if err != nil {
				errs <- err
				return
			}
			if err := to.Write(ctx, msg); err != nil {
				errs <- err
				return
			}
		}
	}
	go pump(local, remote)
	go pump(remote, local)
	err = <-errs
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
