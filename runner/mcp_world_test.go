//go:build unix

package runner

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// TestMCPWorld: a world's stateful fixtures answer an MCP agent as they
// answer an evalgate/1 one, from the same session: concurrent trials each
// change their own world, and the end-state checks score it.
func TestMCPWorld(t *testing.T) {
	suite := loadSuite(t, `suiteId: acme.t.evals.mcp-world
version: 1.0.0
modes: [golden]
tools:
  - {name: get_order, inputSchema: {type: object, properties: {orderId: {type: string}}}}
  - {name: refund_order, inputSchema: {type: object, properties: {orderId: {type: string}}}}
fixtures:
  state: {orders: {A-1: {status: delivered}, A-2: {status: delivered}}}
  toolResponses:
    - tool: get_order
      from: /orders/{args.orderId}
    - tool: refund_order
      effect:
        - {op: test, path: "/orders/{args.orderId}/status", value: delivered}
        - {op: replace, path: "/orders/{args.orderId}/status", value: refunded}
      from: /orders/{args.orderId}
tasks:
  - taskId: t
    input:
      quiet: true
      call:
        - {name: get_order, arguments: {orderId: A-1}}
        - {name: refund_order, arguments: {orderId: A-1}}
        - {name: refund_order, arguments: {orderId: A-1}}
    expected:
      kind: golden
      match: {strategy: exact, value: done}
      state: {orders: {A-1: {status: refunded}}}
      unchanged: [/orders/A-2]
`)
	for _, tc := range []struct {
		name  string
		agent Agent
	}{
		{name: "evalgate/1", agent: testAgentExec("tools", nil)},
		{name: "mcp", agent: &MCP{Agent: testAgentExec("mcp-exec", nil)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := &traceRecorder{}
			got, err := Run(t.Context(), Plan([]*suites.Suite{suite}, Selection{}), Options{Agent: tc.agent, Scorer: scored(), Observer: obs, Trials: 4, Concurrency: 4})
			assert.NilError(t, err)
			if m, ok := tc.agent.(*MCP); ok {
				assert.NilError(t, m.Close())
			}
			task := got[0].Tasks[0]
			assert.Equal(t, task.Status, results.StatusPassed, "%+v", task)
			for _, trial := range task.Trials {
				passed := map[string]bool{}
				for _, c := range trial.Checks {
					passed[c.ID] = c.Passed
				}
				assert.Check(t, passed["state"] && passed["unchanged"], "%+v", trial.Checks)
			}
			// The second refund finds the order refunded already: a tool
			// error, the world unchanged.
			assert.Assert(t, is.Len(obs.trace, 3))
			assert.DeepEqual(t, obs.trace[1].Effects, []fixtures.Effect{{Op: "replace", Path: "/orders/A-1/status"}})
			assert.Check(t, obs.trace[2].IsError && obs.trace[2].Effects == nil)
		})
	}
}
