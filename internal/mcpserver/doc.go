// Package mcpserver serves a trial's fixture tools over the Model Context
// Protocol, so an agent written against an MCP client reaches the same
// fixtures, trace and findings as an evalgate/1 agent. It is built on the
// official Go SDK: the protocol is the SDK's, this package only decides
// what each trial serves and for how long.
//
// One Server listens per run on 127.0.0.1; each trial is an Endpoint at a
// path of 32 random bytes, served until the trial ends. A suite's tools are
// a Toolset, made ready once and served to each of its trials:
//
//	srv, err := mcpserver.Listen()
//	...
//	tools := mcpserver.NewToolset(suiteTools)
//	e, err := srv.Open(ctx, mcpserver.Trial{Tools: tools, Memory: memory, Answer: session})
//	// the agent gets e.URL (streamable HTTP) and runs
//	e.Close() // the path is 404 from here on
//
// Bridge lets a client that only spawns stdio servers reach an endpoint:
// `evalgate mcp stdio` is Bridge over its own stdin and stdout.
package mcpserver
