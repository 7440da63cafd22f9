// Package traces receives what the agents under test report through
// OpenTelemetry and keeps the part of it that carries no content
// (docs/otel.md).
//
// A Receiver is one OTLP/HTTP listener per run on 127.0.0.1, built on
// internal/loopback: each trial is an Endpoint at a path of 32 random
// bytes, given to the agent as OTEL_EXPORTER_OTLP_ENDPOINT (Endpoint.Env).
// It takes protobuf and JSON bodies, gzip or not, decoded with the
// OpenTelemetry project's own protobuf definitions
// (go.opentelemetry.io/proto/otlp), under the bounds every loopback server
// has and those of a trace: 4 MiB a request (once decompressed), 10,000
// spans a trial, 128 attributes, events and links a span, and a byte
// budget for what a trial keeps. What goes over is dropped and counted,
// never printed, never fatal.
//
// Of each span only its name, kind, parent, status, times, event names and
// the allow-listed GenAI semantic-convention attributes are kept (Span);
// every other attribute, prompts, completions, messages and tool
// arguments among them, is never kept, whatever the case of its name.
//
//	rcv, err := traces.Listen()
//	...
//	ep, err := rcv.Open(ctx)
//	env := ep.Env(traces.NewParent()) // added to the agent's environment
//	// ... the agent runs, its SDK exports to ep.URL
//	tr := ep.Close() // the trial's spans, once no request of it runs
//	sum := tr.Summary()
package traces
