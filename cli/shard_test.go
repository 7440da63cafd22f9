package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
)

func TestBalance(t *testing.T) {
	plan := func(suite string, ids ...string) runner.Planned {
		p := runner.Planned{Suite: &suites.Suite{ID: suite}}
		for _, id := range ids {
			p.Tasks = append(p.Tasks, &suites.TaskRef{ID: id})
		}
		return p
	}
	history := func(latencies map[string]int64) *results.Run {
		s := results.Suite{ID: "s"}
		for id, ms := range latencies {
			s.Tasks = append(s.Tasks, results.Task{ID: id, LatencyMs: ms})
		}
		return &results.Run{Suites: []results.Suite{s}}
	}
	type testCase struct {
		name        string
		plan        []runner.Planned
		history     *results.Run
		n           int
		wantOK      bool
		wantAssign  map[string]int // task id in suite s -> shard
		wantPlanned []int64
	}
	run := func(t *testing.T, tc testCase) {
		assign, planned, ok, err := balance(tc.plan, tc.history, tc.n)
		assert.NilError(t, err)
		assert.Equal(t, ok, tc.wantOK)
		if !ok {
			return
		}
		got := map[string]int{}
		for k, shard := range assign {
			got[k.task] = shard
		}
		assert.DeepEqual(t, got, tc.wantAssign)
		assert.DeepEqual(t, planned, tc.wantPlanned)
		// Each shard computes the assignment alone: it must come out the same.
		again, _, _, _ := balance(tc.plan, tc.history, tc.n)
		assert.DeepEqual(t, again, assign)
	}
	for _, tc := range []testCase{
		{
			name: "no history: the caller keeps the hash", n: 2,
			plan:    []runner.Planned{plan("s", "a", "b")},
			history: history(map[string]int64{"other": 10}),
		},
		{
			// Longest first to the least-loaded shard, the lowest index
			// among equals: 100 90 | 50 to 2 | 40 to 1 | 30 to 1 | 20 to 2.
			name: "longest first to the least loaded", n: 2, wantOK: true,
			plan:        []runner.Planned{plan("s", "a", "b", "c", "d", "e", "f")},
			history:     history(map[string]int64{"a": 100, "b": 90, "c": 50, "d": 40, "e": 30, "f": 20}),
			wantAssign:  map[string]int{"a": 1, "b": 2, "c": 2, "d": 1, "e": 1, "f": 2},
			wantPlanned: []int64{170, 160},
		},
		{
			// x and y are new: each weighs the median of the planned tasks'
			// latencies (40 50 100: 50; z is not planned and does not count).
			name: "tasks without history weigh the median", n: 2, wantOK: true,
			plan:        []runner.Planned{plan("s", "a", "c", "d", "x", "y")},
			history:     history(map[string]int64{"a": 100, "c": 50, "d": 40, "z": 1}),
			wantAssign:  map[string]int{"a": 1, "c": 2, "x": 2, "y": 1, "d": 2},
			wantPlanned: []int64{150, 140},
		},
		{
			name: "more shards than tasks leaves some empty", n: 3, wantOK: true,
			plan:        []runner.Planned{plan("s", "a", "b")},
			history:     history(map[string]int64{"a": 5, "b": 5}),
			wantAssign:  map[string]int{"a": 1, "b": 2},
			wantPlanned: []int64{5, 5, 0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestBalanceBeatsHashOnSkew: 400 tasks, most 20 ms and one in twenty 2 s
// (a fixed seed), over 4 shards. Balanced, the slowest shard's planned time
// is within 10% of the mean shard's; hashed, it is further off.
func TestBalanceBeatsHashOnSkew(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := runner.Planned{Suite: &suites.Suite{ID: "acme.bench.evals.skew"}}
	past := results.Suite{ID: p.Suite.ID}
	latency := map[string]int64{}
	for i := range 400 {
		id := fmt.Sprintf("t%03d", i)
		ms := int64(20)
		if rng.IntN(20) == 0 {
			ms = 2000
		}
		latency[id] = ms
		p.Tasks = append(p.Tasks, &suites.TaskRef{ID: id})
		past.Tasks = append(past.Tasks, results.Task{ID: id, LatencyMs: ms})
	}
	const n = 4
	ratio := func(load []int64) float64 {
		var sum int64
		for _, l := range load {
			sum += l
		}
		return float64(slices.Max(load)) / (float64(sum) / n)
	}
	assign, planned, ok, err := balance([]runner.Planned{p}, &results.Run{Suites: []results.Suite{past}}, n)
	assert.NilError(t, err)
	assert.Assert(t, ok)
	hashed := make([]int64, n)
	seen := 0
	for _, task := range p.Tasks {
		hashed[ShardOf(p.Suite.ID, task.ID, n)-1] += latency[task.ID]
		shard := assign[taskKey{p.Suite.ID, task.ID}]
		assert.Assert(t, shard >= 1 && shard <= n, "task %s in shard %d", task.ID, shard)
		seen++
	}
	assert.Equal(t, seen, len(assign), "every task in exactly one shard")
	b, h := ratio(planned), ratio(hashed)
	t.Logf("slowest over mean shard: balanced %.3f, hashed %.3f", b, h)
	assert.Check(t, b <= 1.10, "balanced %.3f", b)
	assert.Check(t, b < h, "balanced %.3f, hashed %.3f", b, h)
}

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
