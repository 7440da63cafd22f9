package main

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// hostileMcpCases are the hostile agents of an MCP trial: they hold a
// request open, flood the server with sessions, or call a tool by a name
// made to forge workflow commands and markup (docs/security.md).
func hostileMcpCases() []hostileCase {
	const mcp = "  mcp: true\n"
	return []hostileCase{
		{
			name: "an MCP request held open by a daemon with an empty environment", agent: "mcp-held.sh", suite: "plain.yaml", config: mcp,
			wantExit: 0, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				assert.Check(t, r.elapsed < 30*time.Second, "the held request held the run for %s", r.elapsed)
			},
		},
		{
			name: "SIGINT while an MCP request is held open", agent: "mcp-held.sh", suite: "plain.yaml", config: mcp,
			env:      map[string]string{"HOSTILE_HOLD": "wait"},
			wantExit: 130, outputs: true,
		},
		{
			name: "an agent that opens 10,000 MCP sessions", agent: "mcp-flood.sh", suite: "plain.yaml", config: mcp,
			wantExit: 1, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				res := readOut(t, dir, "results.json")
				assert.Check(t, is.Contains(res, `"errorKind": "output-too-large"`))
				assert.Check(t, is.Contains(res, "quota of 100 sessions"))
			},
		},
		{
			name: "a tool name that forges workflow commands and markup", agent: "undeclared.sh", exec: true, suite: "plain.yaml", config: mcp,
			env:      map[string]string{"GITHUB_ACTIONS": "true"},
			args:     []string{"--no-publish", "--transcripts"},
			wantExit: 0, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				res := readOut(t, dir, "results.json")
				for _, forged := range []string{"forged", "<script>", `\u001b`, `\u003cscript`} {
					assert.Check(t, !strings.Contains(res, forged), "results.json holds %q", forged)
				}
				assert.Check(t, is.Contains(res, `"name": "(undeclared)"`))
				assert.Check(t, is.Contains(res, `"calls": 2`))
			},
		},
	}
}
