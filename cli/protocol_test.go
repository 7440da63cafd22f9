package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

// protocolSuiteYAML exercises the tricky parts of the contracts against an
// agent written independently of evalgate (runner/testdata/agent.py, Python,
// speaking only what the README's "The agent protocol" says).
const protocolSuiteYAML = `suiteId: acme.e2e.evals.protocol
version: 1.0.0
modes: [golden]
tools:
  - {name: "crm:lookup", description: Look an order up}
tasks:
  - taskId: json-string-42-vs-42-0
    input: {answer: '{"total": 42}'}
    expected: {kind: golden, match: {strategy: json-match, value: {total: 42.0}}}
  - taskId: args-listed-in-the-wrong-order
    input: {call: [{name: "crm:lookup", arguments: {orderId: A-1, extra: true}}], answerFromTool: true}
    expected: {kind: golden, match: {strategy: json-match, value: {who: A}}}
    fixtures:
      toolResponses:
        - {tool: "crm:lookup", args: {orderId: B-2}, response: {who: B}}
        - {tool: "crm:lookup", args: {orderId: A-1}, response: {who: A}}
  - taskId: error-once-then-good
    input: {call: [{name: flaky}, {name: flaky}], behaviour: results}
    expected:
      kind: golden
      match: {strategy: json-subset, value: [{isError: true}, {isError: false, content: {ok: true}}]}
      assert:
        - {expr: 'trace[0].isError && !trace[1].isError'}
    fixtures:
      toolResponses:
        - {tool: flaky, error: boom, times: 1}
        - {tool: flaky, response: {ok: true}}
  - taskId: memory-seed
    input: {behaviour: memory}
    expected: {kind: golden, match: {strategy: json-match, value: {memory: [{key: tier, value: gold}], tools: ["crm:lookup"]}}}
    fixtures:
      memorySeed: [{key: tier, value: gold}]
  - taskId: unfixtured-call
    input: {call: [{name: "kb:search", arguments: {q: x}}], answerFromTool: true}
    expected: {kind: golden, match: {strategy: contains, value: no fixture for tool}}
  - taskId: crash
    input: {behaviour: crash}
    expected: {kind: golden, match: {strategy: exact, value: never}}
  - taskId: hang
    timeoutMs: 1500
    input: {behaviour: hang}
    expected: {kind: golden, match: {strategy: exact, value: never}}
  - taskId: garbage
    input: {behaviour: garbage}
    expected: {kind: golden, match: {strategy: exact, value: never}}
  - taskId: agent-error
    input: {behaviour: error, message: gave up}
    expected: {kind: golden, match: {strategy: exact, value: never}}
`

// protocolSuiteJSON is strictly openwop-portable.
const protocolSuiteJSON = `{
  "suiteId": "acme.e2e.evals.portable",
  "version": "1.0.0",
  "modes": ["golden"],
  "tasks": [
    {"taskId": "exact-number", "input": {"answer": 42.0}, "expected": {"kind": "golden", "match": {"strategy": "exact", "value": 42}}},
    {"taskId": "echo-string", "input": "hello", "expected": {"kind": "golden", "match": {"strategy": "exact", "value": "hello"}}},
    {"taskId": "null-is-not-missing", "input": {"answer": {"a": null}}, "expected": {"kind": "golden", "match": {"strategy": "json-match", "value": {}}}},
    {"taskId": "tool-answer", "input": {"call": [{"name": "crm:lookup", "arguments": {"orderId": "Z-9"}}], "answerFromTool": true},
     "expected": {"kind": "golden", "match": {"strategy": "json-match", "value": {"status": "lost"}}},
     "fixtures": {"toolResponses": [{"tool": "crm:lookup", "response": {"status": "lost"}}]}}
  ]
}
`

func TestIndependentAgentVerdicts(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	agent, err := filepath.Abs("../runner/testdata/agent.py")
	assert.NilError(t, err)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/protocol.yaml": protocolSuiteYAML,
		"evals/portable.json": protocolSuiteJSON,
	})
	r := runCLI(t, dir, nil, "run", "--agent-cmd", python+" "+agent, "--concurrency", "4", "evals")
	// Errored tasks pull the protocol suite under its bar: the default gate fails.
	assert.Equal(t, r.code, 1, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	run, err := results.Read(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
	type verdict struct{ Status, ErrorKind string }
	got := map[string]verdict{}
	findings := map[string][]results.Finding{}
	for _, s := range run.Suites {
		for _, task := range s.Tasks {
			got[task.ID] = verdict{task.Status, task.ErrorKind}
			findings[task.ID] = task.Findings
		}
	}
	want := map[string]verdict{
		"json-string-42-vs-42-0":         {results.StatusPassed, ""},
		"args-listed-in-the-wrong-order": {results.StatusPassed, ""},
		"error-once-then-good":           {results.StatusPassed, ""},
		"memory-seed":                    {results.StatusPassed, ""},
		"unfixtured-call":                {results.StatusPassed, ""},
		"crash":                          {results.StatusError, results.ErrAgentExit},
		"hang":                           {results.StatusError, results.ErrTimeout},
		"garbage":                        {results.StatusError, results.ErrProtocol},
		"agent-error":                    {results.StatusError, results.ErrAgentReported},
		"exact-number":                   {results.StatusPassed, ""},
		"echo-string":                    {results.StatusPassed, ""},
		"null-is-not-missing":            {results.StatusFailed, ""},
		"tool-answer":                    {results.StatusPassed, ""},
	}
	assert.DeepEqual(t, got, want)
	assert.DeepEqual(t, findings["unfixtured-call"], []results.Finding{{Kind: "unfixtured-tool-call", Severity: "low"}})
	assert.Equal(t, run.Suites[0].ErroredCount+run.Suites[1].ErroredCount, 4)

	// The run went on past the crash, the hang and the garbage, and the
	// summaries are there for both suites.
	for _, id := range []string{"acme.e2e.evals.protocol", "acme.e2e.evals.portable"} {
		_, err := os.Stat(filepath.Join(dir, "evalgate-out", "summaries", id+".json"))
		assert.NilError(t, err)
	}
}
