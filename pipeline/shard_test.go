package pipeline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gotest.tools/v3/assert"

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
