package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestBalanceLatenciesInRange: a history whose latencies, each within
// range, would put more on one shard than a shard's plannedMs may be (what
// merge accepts) is exit 2 at the file:line:col of the longest latency,
// before any agent runs; latencies that fill a shard's plan exactly are
// taken, and the shard's results merge.
func TestBalanceLatenciesInRange(t *testing.T) {
	ids := []string{"status-in-transit", "status-gold-member", "status-delivered-exact", "refund-json-answer"}
	history := func(t *testing.T, latency int64) string {
		var tasks []string
		for _, id := range ids {
			tasks = append(tasks, fmt.Sprintf("\n        {\"taskId\": %q, \"status\": \"passed\", \"score\": 1, \"passed\": true,\n         \"latencyMs\": %d}", id, latency))
		}
		path := filepath.Join(t.TempDir(), "history.json")
		assert.NilError(t, os.WriteFile(path, []byte(`{
  "runId": "past",
  "suites": [
    {"suiteId": "acme.support.evals.order-status",
      "tasks": [`+strings.Join(tasks, ",")+`]}
  ]
}
`), 0o644))
		return path
	}
	run := func(t *testing.T, hist string, args ...string) result {
		out := filepath.Join(t.TempDir(), "out")
		return runCLI(t, "", nil, append([]string{"run", "--agent-cmd", "true", "--gate", "true", "--out", out, "--balance", hist}, append(args, "../examples/evals/order-status.json")...)...)
	}

	// 4 tasks of 1e12 ms on 2 shards: 2e12 ms on each.
	hist := history(t, 1e12)
	r := run(t, hist, "--shard", "1/2")
	assert.Equal(t, r.code, ExitInvalid, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	// The longest come first, by id among equals: refund-json-answer, the
	// fourth task, whose latencyMs is on line 13.
	assert.Check(t, is.Contains(r.stderr, "evalgate: --balance "+hist+":13:23: /suites/0/tasks/3/latencyMs: the past latencies put more than 1e12 ms (some 30 years) on one shard"), r.stderr)
	assert.Check(t, is.Contains(r.stderr, `the longest, of task "refund-json-answer" of suite "acme.support.evals.order-status", is 1000000000000 ms`), r.stderr)
	// 1 shard of 4 tasks of 2.5e11 ms: a plan of exactly 1e12 ms.
	r = run(t, history(t, 25e10), "--shard", "1/1")
	assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	// One ms more is over.
	r = run(t, history(t, 25e10+1), "--shard", "1/1")
	assert.Equal(t, r.code, ExitInvalid, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
}
