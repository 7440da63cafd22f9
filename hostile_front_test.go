package main

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// hostileFrontCases are the hostile cases of what evalgate prints to
// explain itself: the explanations of failing checks quote the agent.
func hostileFrontCases() []hostileCase {
	return []hostileCase{
		{
			name: "a failing output explained in a CI log forges commands, escapes and the token", agent: "explained.sh", exec: true, suite: "exact.yaml",
			config:   "  env: {PASSED_ON: \"${GITHUB_TOKEN}\"}\n",
			env:      map[string]string{"GITHUB_ACTIONS": "true", "CI": "true"},
			args:     []string{"--explain", "--no-publish"},
			wantExit: 1, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				// Escaped on the one line it is meant for, the token masked.
				assert.Check(t, is.Contains(r.stdout, `match (exact): expected exactly "ok", got "\n::error::forged in an explanation\x1b[31m `))
				for _, line := range strings.Split(r.stdout, "\n") {
					if strings.Contains(line, "forged in an explanation") {
						assert.Check(t, !strings.Contains(line, hostileCanary), "the token is in the explanation: %s", line)
						assert.Check(t, strings.HasPrefix(line, "    match (exact)"), "the explanation has a line of its own: %q", line)
					}
				}
			},
		},
	}
}
