// Package loopback runs the servers evalgate opens on 127.0.0.1 for the
// agents it runs (the MCP server of agent.mcp, and any receiver after it),
// with the bounds every such server needs whatever it speaks, so that no
// client can hold a run open or grow its memory without limit:
//
//   - read deadlines for a request's headers and for the whole request,
//     an idle deadline for a kept-alive connection, a cap on the
//     connections open at once, on header bytes and on one request's body;
//   - a quota per tenant (one trial): requests, body bytes, and what the
//     protocol counts itself, sessions or spans; what goes over is refused
//     and reported, never held;
//   - a shutdown that never waits on a client: when a tenant ends, the
//     connections of its requests in progress are closed, so a request
//     whose body never comes ends at once.
//
// One Server listens per run; each trial is a Tenant at a path of 32
// random bytes, any other path being 404 with an empty body. A server adds
// only its protocol:
//
//	srv, err := loopback.Listen(loopback.Limits{})
//	...
//	t, err := srv.Open(ctx, handler, loopback.Quota{Sessions: 100})
//	// the client is given t.URL; handler sees each request of it, with
//	// the tenant in its context (TenantOf) and the path under t.URL
//	t.Close() // returns once no request of the tenant runs
//
// docs/security.md lists these bounds and their tests.
package loopback
