package pipeline

import (
	"cmp"
	"context"
	"errors"
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
// summed latency. A history whose latencies put more on one shard than
// results.MaxLatencyMs, what a shard's plannedMs may be, is an
// *overPlannedError: the shards would run, and their merge refuse them.
func balance(plan []runner.Planned, history *results.Run, n int) (assign map[taskKey]int, planned []int64, ok bool, err error) {
	type past struct {
		latency      int64
		suite, index int // in history
	}
	pasts := map[taskKey]past{}
	for i := range history.Suites {
		s := &history.Suites[i]
		for k := range s.Tasks {
			pasts[taskKey{s.ID, s.Tasks[k].ID}] = past{s.Tasks[k].LatencyMs, i, k}
		}
	}
	type weighted struct {
		key     taskKey
		latency int64
		known   bool
		past    past
	}
	var tasks []weighted
	var known []int64
	for _, p := range plan {
		for _, t := range p.Tasks {
			w := weighted{key: taskKey{p.Suite.ID, t.ID}}
			w.past, w.known = pasts[w.key]
			if w.known {
				w.latency = w.past.latency
				known = append(known, w.latency)
			}
			tasks = append(tasks, w)
		}
	}
	if len(known) == 0 {
		return nil, nil, false, nil
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
		if planned[least]+t.latency > results.MaxLatencyMs {
			// Sorted longest first: the longest known latency leads.
			longest := tasks[slices.IndexFunc(tasks, func(w weighted) bool { return w.known })]
			return nil, nil, false, &overPlannedError{task: longest.key, latency: longest.latency,
				pointer: fmt.Sprintf("/suites/%d/tasks/%d/latencyMs", longest.past.suite, longest.past.index)}
		}
		planned[least] += t.latency
		assign[t.key] = least + 1
	}
	return assign, planned, true, nil
}

// overPlannedError is a history whose latencies put more on one shard
// than its plan may hold; task is the one of the longest latency, at
// pointer in the history.
type overPlannedError struct {
	task    taskKey
	latency int64
	pointer string
}

func (e *overPlannedError) Error() string {
	return fmt.Sprintf("%s: the past latencies put more than 1e12 ms (some 30 years) on one shard, more than a shard's plan may hold; the longest, of task %q of suite %q, is %d ms: expected the latencies of a real run; name the results of one, or leave --balance out to shard by hash",
		e.pointer, e.task.task, e.task.suite, e.latency)
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
	history, err := regression.LoadResults(context.Background(), spec, "")
	if err != nil {
		return invalid(fmt.Errorf("--balance: %w", err))
	}
	whole := *sel
	whole.Shard = nil
	assign, planned, ok, err := balance(runner.Plan(all, whole), history, j.shard.Count)
	if over, isOver := errors.AsType[*overPlannedError](err); isOver {
		return invalid(fmt.Errorf("--balance %s: %w", regression.Position(context.Background(), spec, "", over.pointer), err))
	}
	if !ok {
		j.c.Say(j.c.Stderr, "evalgate: --balance %s: no task of this run has a past latency there; its shards are assigned by hash\n", spec)
		return nil
	}
	index := j.shard.Index
	sel.Shard = func(suiteID, taskID string) bool { return assign[taskKey{suiteID, taskID}] == index }
	j.shard.Balanced, j.shard.PlannedMs = true, planned[index-1]
	return nil
}
