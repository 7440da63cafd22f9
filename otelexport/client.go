package otelexport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/evalgate/evalgate/traces"
)

// client sends export requests to the collector: one POST of protobuf to
// its traces path each. The SDK's otlptracehttp client would do the same,
// but it links gRPC and its gateway into evalgate: 3.3 MB more binary and
// 2.1 MiB more peak RSS at every start, measured on `evalgate version`
// (bench/README.md).
type client struct {
	url     string
	headers []header
	http    *http.Client
}

// upload sends one export request: a TracesData has the wire form of an
// ExportTraceServiceRequest.
func (c *client) upload(ctx context.Context, rs []*tracepb.ResourceSpans) error {
	body, err := proto.Marshal(&tracepb.TracesData{ResourceSpans: rs})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	for _, h := range c.headers {
		req.Header.Set(h.name, h.value)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the collector answered %s", resp.Status)
	}
	return nil
}

// header is one header for the collector: its value decoded, and as the
// environment wrote it.
type header struct{ name, value, raw string }

// envHeaders are the headers the environment gives an SDK for its
// collector: OTEL_EXPORTER_OTLP_HEADERS, then
// OTEL_EXPORTER_OTLP_TRACES_HEADERS, which wins for a name both set;
// name=value pairs, comma-separated, values URL-encoded.
func envHeaders(getenv func(string) string) []header {
	var out []header
	for _, name := range traces.HeaderVariables {
		for pair := range strings.SplitSeq(getenv(name), ",") {
			k, v, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				continue
			}
			h := header{name: k, raw: strings.TrimSpace(v)}
			h.value = h.raw
			if d, err := url.QueryUnescape(h.raw); err == nil {
				h.value = d
			}
			out = append(out, h)
		}
	}
	return out
}
