package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// mcpSuite has a tool whose name MCP serves mapped (crm:lookup as
// crm_lookup) and a fixture that plants a canary.
const mcpSuite = `suiteId: acme.cli.evals.mcp
version: 1.0.0
modes: [golden]
tools:
  - {name: "crm:lookup", inputSchema: {type: object}}
tasks:
  - taskId: lookup
    input: A-17
    expected: {kind: golden, match: {strategy: contains, value: '\"owner\":\"ann\"'}}
    fixtures:
      toolResponses:
        - {tool: "crm:lookup", args: {orderId: A-17}, response: {owner: ann}}
`

// TestRunMCPAgent runs a plain agent whose tools are reached over MCP
// through `evalgate mcp stdio`: the whole path from the config's
// agent.mcp to the fixture and back into results.json.
func TestRunMCPAgent(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/mcp.yaml": mcpSuite,
		// A stdio MCP client in a few lines: initialize, one tools/call;
		// the call's answer is the agent's output.
		"agent.sh": `#!/bin/sh
read order
{
  echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"crm_lookup","arguments":{"orderId":"%s"}}}\n' "$order"
} | "$EVALGATE_BIN" mcp stdio | tail -n 1
`,
		"evalgate.yaml": "suites: [evals/]\nagent:\n  plain: [./agent.sh]\n  mcp: true\n  env:\n    EVALGATE_BIN: " + os.Args[0] + "\n    " + asEvalgate + ": '1'\n",
	})
	r := runCLI(t, dir, nil, "run")
	assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	data, err := os.ReadFile(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
	var res struct {
		Suites []struct {
			Tasks []struct {
				Trials []struct {
					ToolCalls int `json:"toolCalls"`
					Tools     []struct {
						Name    string `json:"name"`
						Matched int    `json:"matched"`
					} `json:"tools"`
				} `json:"trials"`
			} `json:"tasks"`
		} `json:"suites"`
	}
	assert.NilError(t, json.Unmarshal(data, &res))
	trial := res.Suites[0].Tasks[0].Trials[0]
	assert.Check(t, is.Equal(trial.ToolCalls, 1))
	assert.Check(t, is.Len(trial.Tools, 1))
	assert.Check(t, is.Equal(trial.Tools[0].Name, "crm:lookup"), "the trace keeps the suite's name")
	assert.Check(t, is.Equal(trial.Tools[0].Matched, 1))
}

func TestMCPStdioInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{name: "no subcommand", args: []string{"mcp"}, want: "evalgate: mcp: expected \"stdio\"\n"},
		{name: "no URL", env: map[string]string{"EVALGATE_MCP_URL": ""}, args: []string{"mcp", "stdio"},
			want: "evalgate: mcp stdio: EVALGATE_MCP_URL is not set; evalgate sets it for agents with agent.mcp: true\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, "", tc.env, tc.args...)
			assert.Check(t, is.Equal(r.code, ExitInvalid))
			assert.Check(t, is.Equal(r.stderr, tc.want))
		})
	}
}
