package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/results"
)

// writeShards writes the results.json of shards shards of one run of a
// suite, tasks tasks each, as bench/shardgen does: one trial and four
// checks a task, every seventh task failed, and returns their folders.
func writeShards(tb testing.TB, dir string, shards, tasks int) []string {
	tb.Helper()
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var dirs []string
	for s := 1; s <= shards; s++ {
		suite := results.Suite{
			ID: "bench.evals.merge", Version: "1.0.0", File: "evals/merge.json", RunID: fmt.Sprintf("run-%d", s),
			Modes: []string{"golden"}, Trials: 1, Thresholds: results.Thresholds{PassScore: 1},
		}
		for k := range tasks {
			i := k*shards + s - 1 // round robin: every task in one shard
			passed := i%7 != 0
			checks := []results.Check{
				{ID: "match", Kind: "exact", Weight: 1, Passed: passed},
				{ID: "assert[0]", Kind: "expr", Weight: 1, Passed: true},
				{ID: "assert[1]", Kind: "expr", Weight: 1, Passed: true},
				{ID: "assert[2]", Kind: "expr", Weight: 0.5, Passed: true},
			}
			task := results.Task{
				ID: fmt.Sprintf("t%06d", i), File: suite.File, Line: i + 2, Kind: "golden", Status: results.StatusPassed,
				Score: 1, PassScore: 1, Passed: true, PassAtK: true, TrialsPassed: 1, LatencyMs: int64(20 + i%13), CostUsd: 0.0001,
				Trials: []results.Trial{{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true, LatencyMs: int64(20 + i%13), AgentCostUsd: 0.0001, Checks: checks}},
			}
			if !passed {
				task.Status, task.Score, task.Passed, task.PassAtK, task.TrialsPassed = results.StatusFailed, 0.7, false, false, 0
				task.FailedChecks = []string{"match"}
				task.Trials[0].Status, task.Trials[0].Score, task.Trials[0].Passed = results.StatusFailed, 0.7, false
			}
			suite.Tasks = append(suite.Tasks, task)
		}
		suite.Stats = gates.Aggregate(suite.Tasks)
		run := &results.Run{
			Schema: results.Schema, RunID: fmt.Sprintf("run-%d", s), Tool: results.Tool{Name: "evalgate", Version: "bench"},
			StartedAt: start, FinishedAt: start.Add(time.Minute),
			Shard: &results.Shard{Index: s, Count: shards}, Gates: []results.Gate{},
			Suites: []results.Suite{suite},
		}
		run.Stats = gates.Combine(run.Suites)
		d := filepath.Join(dir, fmt.Sprintf("shard-%d", s))
		assert.NilError(tb, results.Write(filepath.Join(d, "results.json"), run))
		dirs = append(dirs, d)
	}
	return dirs
}

// mergeShards runs evalgate merge of dirs into out.
func mergeShards(tb testing.TB, out string, dirs []string) (code int, stderr string) {
	var stdout, errOut bytes.Buffer
	c := &Command{Stdout: &stdout, Stderr: &errOut, Getenv: func(string) string { return "" }, IsTerminal: func() bool { return false }}
	code = c.Main(append([]string{"evalgate", "merge", "--quiet", "--out", out, "--gate", "true"}, dirs...))
	return code, errOut.String()
}

// TestMergeKeepsEveryTrial checks that the merged results.json holds every
// task of the shards as they hold it, trials included: those of passed
// tasks were spilled while the shards were read, most left in the shards'
// files, which a merge into a shard's folder replaces as it writes.
func TestMergeKeepsEveryTrial(t *testing.T) {
	type testCase struct {
		name string
		out  func(dir string, shards []string) string
	}
	run := func(t *testing.T, tc testCase) {
		dir, scratch := t.TempDir(), t.TempDir()
		t.Setenv("TMPDIR", scratch) // where the spill file goes
		// 240 tasks make a shard larger than the reader's chunk
		// (results.streamChunk), and far more than the tasks whose trials
		// it encodes before it leaves the rest in the file.
		dirs := writeShards(t, dir, 3, 240)
		want := map[string]results.Task{}
		for _, d := range dirs {
			sh, err := results.Read(filepath.Join(d, "results.json"))
			assert.NilError(t, err)
			for _, task := range sh.Suites[0].Tasks {
				want[task.ID] = task
			}
		}
		out := tc.out(dir, dirs)
		code, stderr := mergeShards(t, out, dirs)
		assert.Equal(t, code, 0, stderr)

		merged, err := results.Read(filepath.Join(out, "results.json"))
		assert.NilError(t, err)
		got := merged.Suites[0].Tasks
		assert.Equal(t, len(got), len(want))
		for k, task := range got {
			if diff := gocmp.Diff(want[task.ID], task); diff != "" {
				t.Fatalf("task %d (-shard +merged):\n%s", k, diff)
			}
			if k > 0 {
				assert.Assert(t, got[k-1].Line < task.Line, "tasks out of order at %d", k)
			}
		}
		left, err := os.ReadDir(scratch)
		assert.NilError(t, err)
		assert.Equal(t, len(left), 0, "the spill file was left behind")
	}
	for _, tc := range []testCase{
		{name: "into a folder of its own", out: func(dir string, _ []string) string { return filepath.Join(dir, "merged") }},
		{name: "into a shard's folder", out: func(_ string, shards []string) string { return shards[1] }},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// BenchmarkMerge merges 4 shards of 2,500 tasks each (bench/shard.sh merges
// 4 of 50,000 under /usr/bin/time).
func BenchmarkMerge(b *testing.B) {
	dir := b.TempDir()
	dirs := writeShards(b, dir, 4, 2500)
	out := filepath.Join(dir, "merged")
	b.ReportAllocs()
	for b.Loop() {
		if code, stderr := mergeShards(b, out, dirs); code != 0 {
			b.Fatalf("merge exited %d: %s", code, stderr)
		}
	}
}
