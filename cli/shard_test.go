package cli

import (
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
			p.Tasks = append(p.Tasks, &suites.Task{ID: id})
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
		assign, planned, ok := balance(tc.plan, tc.history, tc.n)
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
		again, _, _ := balance(tc.plan, tc.history, tc.n)
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
