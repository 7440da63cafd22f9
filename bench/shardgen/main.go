// Command shardgen writes the sharding benchmark's inputs (bench/shard.sh):
//
//	go run ./bench/shardgen -suite DIR [-n 400] [-seed 1]
//	    a project of n tasks whose latencies are skewed: most take 20 ms,
//	    one in twenty 2 s (drawn from the seed), each told by its input how
//	    long to take, with the plain shell agent that sleeps that long
//	go run ./bench/shardgen -results DIR [-shards 4] [-tasks 50000]
//	    shard-1 ... shard-N/results.json of one run of that many tasks each,
//	    for timing `evalgate merge`
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/results"
)

func main() {
	suite := flag.String("suite", "", "write the skewed project into this folder")
	n := flag.Int("n", 400, "tasks of the skewed project")
	seed := flag.Uint64("seed", 1, "seed of the skew")
	out := flag.String("results", "", "write shard results into this folder")
	shards := flag.Int("shards", 4, "shards to write")
	tasks := flag.Int("tasks", 50_000, "tasks per shard")
	flag.Parse()
	var err error
	switch {
	case *suite != "":
		err = writeSuite(*suite, *n, *seed)
	case *out != "":
		err = writeResults(*out, *shards, *tasks)
	default:
		err = fmt.Errorf("-suite or -results is required")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shardgen:", err)
		os.Exit(2)
	}
}

const agent = `#!/bin/sh
# Sleeps as long as its input says, then answers.
read -r seconds
sleep "$seconds"
echo ok
`

func writeSuite(dir string, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, seed))
	var b strings.Builder
	b.WriteString(`{"suiteId": "bench.evals.skew", "version": "1.0.0", "modes": ["golden"], "tasks": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		seconds := "0.02"
		if rng.IntN(20) == 0 {
			seconds = "2"
		}
		fmt.Fprintf(&b, `{"taskId": "t%04d", "input": %q, "expected": {"kind": "golden", "match": {"strategy": "exact", "value": "ok"}}}`, i, seconds)
	}
	b.WriteString("]}\n")
	files := map[string]string{
		"evals/skew.json": b.String(),
		"agent.sh":        agent,
		"evalgate.yaml":   "suites: [evals/]\nagent:\n  plain: [sh, agent.sh]\ntimeout: 30s\n",
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeResults writes the results of shards shards of one run, each
// holding tasks passed tasks of one suite with one trial and four checks.
func writeResults(dir string, shards, tasks int) error {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for s := 1; s <= shards; s++ {
		suite := results.Suite{
			ID: "bench.evals.merge", Version: "1.0.0", File: "evals/merge.json", RunID: fmt.Sprintf("run-%d", s),
			Modes: []string{"golden"}, Trials: 1, Thresholds: results.Thresholds{PassScore: 1},
		}
		checks := []results.Check{
			{ID: "match", Kind: "exact", Weight: 1, Passed: true},
			{ID: "assert[0]", Kind: "expr", Weight: 1, Passed: true},
			{ID: "assert[1]", Kind: "expr", Weight: 1, Passed: true},
			{ID: "assert[2]", Kind: "expr", Weight: 1, Passed: true},
		}
		for k := range tasks {
			i := k*shards + s - 1 // round robin: every task in one shard
			suite.Tasks = append(suite.Tasks, results.Task{
				ID: fmt.Sprintf("t%06d", i), File: suite.File, Line: i + 2, Kind: "golden", Status: results.StatusPassed,
				Score: 1, PassScore: 1, Passed: true, PassAtK: true, TrialsPassed: 1, LatencyMs: 20,
				Trials: []results.Trial{{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true, LatencyMs: 20, Checks: checks}},
			})
		}
		suite.Stats = gates.Aggregate(suite.Tasks)
		suite.Passed = true
		run := &results.Run{
			Schema: results.Schema, RunID: fmt.Sprintf("run-%d", s), Tool: results.Tool{Name: "evalgate", Version: "bench"},
			StartedAt: start, FinishedAt: start.Add(time.Duration(tasks) * 20 * time.Millisecond / 8),
			Shard: &results.Shard{Index: s, Count: shards}, Passed: true, Gates: []results.Gate{},
			Suites: []results.Suite{suite},
		}
		run.Stats = gates.Combine(run.Suites)
		path := filepath.Join(dir, fmt.Sprintf("shard-%d", s), "results.json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := results.Write(path, run); err != nil {
			return err
		}
	}
	return nil
}
