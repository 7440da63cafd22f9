//go:build unix

package runner

import (
	"context"
	"slices"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// TestRunEvidence runs the tool-calling test agent over fixtures that
// break a schema, repeat a side effect, answer malformed text or time out,
// and checks what results keep of it (docs/trust.md): counts, check ids,
// finding kinds, fault kinds and the idempotency verdict, never content.
func TestRunEvidence(t *testing.T) {
	s := loadSuite(t, `suiteId: acme.t.evals.evidence
version: 1.0.0
modes: [golden]
trials: 2
tools:
  - name: refund
    sideEffect: true
    inputSchema: {type: object, required: [id], properties: {id: {type: string}}}
tasks:
  - taskId: schema-and-side-effect
    input: {call: [{name: refund, arguments: {id: "A"}}, {name: refund, arguments: {id: "A"}}, {name: refund, arguments: {id: 7}}]}
    expected: {kind: golden, match: {strategy: contains, value: "ok"}}
    fixtures: {toolResponses: [{tool: refund, response: ok}]}
  - taskId: faults
    tags: [error-handling, replan-loop]
    toolTimeoutMs: 20
    input: {call: [{name: look}, {name: look}, {name: look}, {name: look}]}
    expected: {kind: golden, match: {strategy: contains, value: "timed out"}}
    fixtures:
      toolResponses:
        - {tool: look, raw: '{"status": ', times: 1}
        - {tool: look, fault: timeout}
`)
	got, err := Run(context.Background(), Plan([]*suites.Suite{s}, Selection{}), Options{Agent: testAgentExec("tools", nil), Scorer: scoring{&judges.Scorer{MaxRepeats: 2}}})
	assert.NilError(t, err)
	tasks := got[0].Tasks
	assert.Equal(t, len(tasks), 2)

	se := tasks[0]
	assert.DeepEqual(t, se.Trials[0].Tools, []results.ToolUse{{Name: "refund", Calls: 3, Matched: 3, Repeats: 1, MaxSame: 2, SchemaViolations: 1, SideEffectRepeats: 1}})
	assert.Assert(t, slices.Contains(se.FailedChecks, judges.CheckToolArgs), "failed checks %v", se.FailedChecks)
	assert.DeepEqual(t, se.Findings, []results.Finding{{Kind: "schema-violation", Severity: results.SeverityLow}})
	assert.Assert(t, se.Idempotent != nil && *se.Idempotent)
	assert.Assert(t, se.Faults == nil)
	assert.Equal(t, se.Trials[0].UsageReported, false)

	f := tasks[1]
	assert.DeepEqual(t, f.Faults, []string{suites.InjectsRaw, suites.InjectsTimeout})
	// The test agent repeats "look" 4 times: over the limit of 2.
	assert.DeepEqual(t, f.FailedChecks, []string{judges.CheckReplanLoop})
	assert.Equal(t, f.Trials[0].Tools[0].Errors, 3)
	assert.Equal(t, f.Status, results.StatusFailed)
}
