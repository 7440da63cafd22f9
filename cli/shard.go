package cli

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/results"
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
