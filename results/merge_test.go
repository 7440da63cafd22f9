package results

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestSortTasks checks that merging the shards' runs of tasks gives the
// order a sort gives, by line then id, and that their spans follow.
func TestSortTasks(t *testing.T) {
	type testCase struct {
		name  string
		lines []int // the tasks' lines in the merged list; ids from them
	}
	interleaved := func(shards, n int) []int {
		var lines []int
		for s := range shards {
			for i := s; i < n; i += shards {
				lines = append(lines, i)
			}
		}
		return lines
	}
	reversed := make([]int, 200)
	for i := range reversed {
		reversed[i] = len(reversed) - i
	}
	for _, tc := range []testCase{
		{name: "none"},
		{name: "one", lines: []int{3}},
		{name: "in order", lines: []int{1, 2, 3, 9}},
		{name: "two runs", lines: []int{1, 4, 9, 2, 3, 10}},
		{name: "four shards", lines: interleaved(4, 1000)},
		{name: "a shard empty of tasks, another of one", lines: []int{5, 1, 2, 3, 4, 6}},
		{name: "one line, ids apart", lines: []int{7, 7, 7, 1}},
		{name: "more runs than are merged", lines: reversed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tasks := make([]Task, len(tc.lines))
			spans := make([]Span, len(tc.lines))
			spanOf := map[string]Span{}
			for i, line := range tc.lines {
				tasks[i] = Task{ID: fmt.Sprintf("t%d-%d", line, i), Line: line}
				spans[i] = Span{Off: int64(i), Len: 1}
				spanOf[tasks[i].ID] = spans[i]
			}
			want := slices.Clone(tasks)
			slices.SortFunc(want, func(a, b Task) int {
				return cmp.Or(cmp.Compare(a.Line, b.Line), strings.Compare(a.ID, b.ID))
			})
			sortTasks(tasks, spans)
			assert.DeepEqual(t, tasks, want)
			for k := range tasks {
				assert.Equal(t, spans[k], spanOf[tasks[k].ID], "the span of task %d did not move with it", k)
			}
		})
	}
}

// TestMergeAddsRejectedCacheEntries checks that merged shards count the
// judge cache entries every shard ignored, and leave the shards alone.
func TestMergeAddsRejectedCacheEntries(t *testing.T) {
	shards := []*Run{
		{Shard: &Shard{Index: 1, Count: 3}, Judge: &JudgeInfo{ID: "openai:grader", CacheRejected: 1}},
		{Shard: &Shard{Index: 2, Count: 3}},
		{Shard: &Shard{Index: 3, Count: 3}, Judge: &JudgeInfo{ID: "openai:grader", CacheRejected: 2}},
	}
	run, _, err := Merge(shards, []string{"a", "b", "c"}, nil, nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, run.Judge, &JudgeInfo{ID: "openai:grader", CacheRejected: 3})
	assert.Equal(t, shards[0].Judge.CacheRejected, 1, "the first shard was changed")
}
