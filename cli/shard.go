package cli

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
)

// parseShard parses "i/n" (1 <= i <= n).
func parseShard(s string) (*results.Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("--shard: expected i/n with 1 <= i <= n, such as 2/4, got %q", s)
	}
	return &results.Shard{Index: i, Count: n}, nil
}

// shardFilter keeps the tasks whose suiteId/taskId hash falls in the shard.
// The hash depends only on the ids, so a task stays in its shard as suites
// grow and every task lands in exactly one shard.
func shardFilter(sh results.Shard) func(suiteID, taskID string) bool {
	return func(suiteID, taskID string) bool {
		return ShardOf(suiteID, taskID, sh.Count) == sh.Index
	}
}

// ShardOf returns the 1-based shard of a task among n shards.
func ShardOf(suiteID, taskID string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(suiteID))
	h.Write([]byte{'/'})
	h.Write([]byte(taskID))
	return int(h.Sum64()%uint64(n)) + 1
}

// taskKey names a task across suites.
type taskKey struct{ suite, task string }

// balance assigns the planned tasks to n shards by their past latency:
// the longest first, each to the least-loaded shard (the lowest index
// among equals), a task without history weighing the median of those with
// one. Every shard computes the same assignment from the same plan and
// history, with no coordination. ok is false when no planned task has a
// history: the caller then shards by hash. planned holds each shard's
// summed latency.
func balance(plan []runner.Planned, history *results.Run, n int) (assign map[taskKey]int, planned []int64, ok bool) {
	past := map[taskKey]int64{}
	for i := range history.Suites {
		s := &history.Suites[i]
		for k := range s.Tasks {
			past[taskKey{s.ID, s.Tasks[k].ID}] = s.Tasks[k].LatencyMs
		}
	}
	type weighted struct {
		key     taskKey
		latency int64
		known   bool
	}
	var tasks []weighted
	var known []int64
	for _, p := range plan {
		for _, t := range p.Tasks {
			w := weighted{key: taskKey{p.Suite.ID, t.ID}}
			w.latency, w.known = past[w.key]
			if w.known {
				known = append(known, w.latency)
			}
			tasks = append(tasks, w)
		}
	}
	if len(known) == 0 {
		return nil, nil, false
	}
	slices.Sort(known)
	median := known[len(known)/2]
	if len(known)%2 == 0 {
		median = (known[len(known)/2-1] + known[len(known)/2]) / 2
	}
	for i := range tasks {
		if !tasks[i].known {
			tasks[i].latency = median
		}
	}
	slices.SortStableFunc(tasks, func(a, b weighted) int {
		return cmp.Or(cmp.Compare(b.latency, a.latency), strings.Compare(a.key.suite, b.key.suite), strings.Compare(a.key.task, b.key.task))
	})
	assign = make(map[taskKey]int, len(tasks))
	planned = make([]int64, n)
	for _, t := range tasks {
		least := 0
		for i := 1; i < n; i++ {
			if planned[i] < planned[least] {
				least = i
			}
		}
		planned[least] += t.latency
		assign[t.key] = least + 1
	}
	return assign, planned, true
}

// balanceShards makes the shard filter of sel assign tasks by their past
// latency in the results at spec (a results.json, a folder holding one, a
// baseline or git:<ref>:<path>), over the tasks sel chooses. Without a
// past latency for any of them, it says so and leaves the hash; "none"
// leaves it silently, as --baseline none compares with nothing.
func (j *job) balanceShards(all []*suites.Suite, sel *runner.Selection, spec string) error {
	if spec == NoBaseline {
		return nil // as --baseline none: nothing to go by, the hash stays
	}
	if strings.HasPrefix(spec, regression.ArtifactPrefix) {
		return invalid(fmt.Errorf("--balance %q: an artifact must be downloaded first: `evalgate baseline fetch` writes it to a file (the Action does this with its baseline input); pass that file", spec))
	}
	history, err := regression.Load(context.Background(), spec, "")
	if err != nil {
		return invalid(fmt.Errorf("--balance: %w", err))
	}
	whole := *sel
	whole.Shard = nil
	assign, planned, ok := balance(runner.Plan(all, whole), history, j.shard.Count)
	if !ok {
		j.c.say(j.c.Stderr, "evalgate: --balance %s: no task of this run has a past latency there; its shards are assigned by hash\n", spec)
		return nil
	}
	index := j.shard.Index
	sel.Shard = func(suiteID, taskID string) bool { return assign[taskKey{suiteID, taskID}] == index }
	j.shard.Balanced, j.shard.PlannedMs = true, planned[index-1]
	return nil
}
