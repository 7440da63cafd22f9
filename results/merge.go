package results

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/evalgate/evalgate/internal/memtune"
)

// NewID returns a random 128-bit id in hex: a run's, a suite run's, an
// event's.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ReadShards reads the results.json of a run's shards (each a file or the
// folder holding one), as many at once as there are processors: decoding
// is most of a large merge's time (a shard of 50,000 tasks is some 80 MB
// of JSON). A bad file is reported as a sequential read would report it:
// the first one in the order given. With a spill, the trials of passed
// tasks go to it (ReadSpilling): spans[n] says where those of shard n
// went.
func ReadShards(ctx context.Context, paths []string, spill *Spill) (shards []*Run, spans [][][]Span, err error) {
	var leave func(t *Task) bool
	if spill != nil {
		leave = func(t *Task) bool { return t.Status == StatusPassed }
	}
	shards = make([]*Run, len(paths))
	spans = make([][][]Span, len(paths))
	errs := make([]error, len(paths))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, p := range paths {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			shards[i], spans[i], errs[i] = ReadSpilling(p, leave, spill)
			return nil
		})
	}
	err = g.Wait()
	for _, e := range errs {
		err = cmp.Or(err, e)
	}
	if err != nil {
		return nil, nil, err
	}
	return shards, spans, nil
}

// Merge merges the shards of one run into one run as if it had run whole:
// each suite's tasks from every shard in suite-file order, the suites in
// the order a whole run loads them, fresh run ids. A task in two shards, a
// missing shard, or shards of different commits, selections, suite
// versions or trial counts are errors; names name the shards in them.
// The tasks move: the shards' suites are left without them. The merged
// run's figures and verdicts are left to compute (gates.AggregateRun), and
// its Tool to set.
//
// spans[n], when not nil, says where the trials of shard n's tasks were
// spilled into spill (ReadShards); restore then gives them back to the
// merged run's tasks as WriteRestoring writes them. It is nil when no
// trial was spilled.
func Merge(shards []*Run, names []string, spans [][][]Span, spill *Spill) (run *Run, restore Restore, err error) {
	run = &Run{Schema: Schema, RunID: NewID()}
	suiteIndex := map[string]int{}
	// Each merged suite's tasks are put in a list of their final size:
	// grown by appending, a few hundred thousand tasks were copied over
	// and over (a third of a large merge's allocations).
	sizes := map[string]int{}
	spilled := false
	for n, sh := range shards {
		for si := range sh.Suites {
			sizes[sh.Suites[si].ID] += len(sh.Suites[si].Tasks)
		}
		spilled = spilled || (spans != nil && spans[n] != nil)
	}
	var left map[string][]Span // by suite, where each task's trials were spilled
	if spilled {
		left = map[string][]Span{}
	}
	from := map[string][]int32{} // by suite, the shard each task came from
	moved := 0                   // tasks moved since memory was last released
	for n, sh := range shards {
		if sh.GitSHA != "" {
			if run.GitSHA != "" && run.GitSHA != sh.GitSHA {
				return nil, nil, fmt.Errorf("could not merge %s: it ran commit %s, the other shards %s", names[n], sh.GitSHA, run.GitSHA)
			}
			run.GitSHA = sh.GitSHA
		}
		if run.StartedAt.IsZero() || (!sh.StartedAt.IsZero() && sh.StartedAt.Before(run.StartedAt)) {
			run.StartedAt = sh.StartedAt
		}
		if sh.FinishedAt.After(run.FinishedAt) {
			run.FinishedAt = sh.FinishedAt
		}
		run.Interrupted = run.Interrupted || sh.Interrupted
		if sh.Shard != nil {
			run.Shards = append(run.Shards, ShardRun{
				Index: sh.Shard.Index, PlannedMs: sh.Shard.PlannedMs, WallMs: max(0, sh.FinishedAt.Sub(sh.StartedAt).Milliseconds()),
			})
		}
		run.Health = mergeHealth(run.Health, sh.Health)
		// The shards of one run share its filters; the merged run keeps them.
		if n == 0 {
			run.Selection = sh.Selection
		} else if sh.Selection.Flags() != run.Selection.Flags() {
			return nil, nil, fmt.Errorf("could not merge %s: it ran %s, another shard %s; merge the shards of one run",
				names[n], selectionWords(sh.Selection), selectionWords(run.Selection))
		}
		switch {
		case run.Judge == nil && sh.Judge != nil:
			j := *sh.Judge
			run.Judge = &j
		case run.Judge != nil && sh.Judge != nil:
			run.Judge.CacheRejected += sh.Judge.CacheRejected
		}
		for si := range sh.Suites {
			s := &sh.Suites[si]
			i, ok := suiteIndex[s.ID]
			if !ok {
				i = len(run.Suites)
				suiteIndex[s.ID] = i
				merged := *s
				merged.Tasks = make([]Task, 0, sizes[s.ID])
				merged.Regression = nil
				merged.RunID = NewID()
				run.Suites = append(run.Suites, merged)
				from[s.ID] = make([]int32, 0, sizes[s.ID])
				if left != nil {
					left[s.ID] = make([]Span, 0, sizes[s.ID])
				}
			}
			m := &run.Suites[i]
			switch {
			case m.Version != s.Version:
				return nil, nil, fmt.Errorf("could not merge %s: it ran suite %s version %s, another shard version %s", names[n], s.ID, s.Version, m.Version)
			case m.Trials != s.Trials:
				return nil, nil, fmt.Errorf("could not merge %s: it ran suite %s with %d trials, another shard with %d", names[n], s.ID, s.Trials, m.Trials)
			}
			m.Tasks = append(m.Tasks, s.Tasks...)
			for range s.Tasks {
				from[s.ID] = append(from[s.ID], int32(n))
			}
			if left != nil {
				if spans[n] != nil && spans[n][si] != nil {
					left[s.ID] = append(left[s.ID], spans[n][si]...)
				} else {
					left[s.ID] = append(left[s.ID], make([]Span, len(s.Tasks))...)
				}
			}
			// The merged list holds them now: the shard's copy goes, so a
			// large merge does not hold every task twice.
			moved += len(s.Tasks)
			s.Tasks = nil
		}
		if moved >= releaseMoved {
			memtune.Release()
			moved = 0
		}
	}
	for i := range run.Suites {
		s := &run.Suites[i]
		if err := overlap(s, from[s.ID], names); err != nil {
			return nil, nil, err
		}
	}
	if err := checkShards(shards, names); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(run.Shards, func(a, b ShardRun) int { return cmp.Compare(a.Index, b.Index) })
	for i := range run.Suites {
		s := &run.Suites[i]
		sortTasks(s.Tasks, left[s.ID])
		if s.Tasks == nil {
			s.Tasks = []Task{}
		}
	}
	// Suites in the order a whole run loads them: by file, folder by folder.
	slices.SortStableFunc(run.Suites, func(a, b Suite) int {
		return cmp.Or(comparePaths(a.File, b.File), strings.Compare(a.ID, b.ID))
	})
	return run, restorer(spill, run, left), nil
}

// mergeHealth combines the shards' health checks: it failed when it
// failed in one of them.
func mergeHealth(a, b *Health) *Health {
	switch {
	case a == nil:
		return b
	case b == nil || !a.Passed:
		return a
	}
	return b
}

// restorer returns WriteRestoring's restore for run, the merged run, whose
// tasks come to it in order: left holds, by suite, where each task's
// trials were spilled (Len 0 for a task that kept them). Nil when nothing
// was spilled.
func restorer(spill *Spill, run *Run, left map[string][]Span) Restore {
	if len(left) == 0 {
		return nil
	}
	si, k := 0, 0
	return func(t *Task, buf []byte) ([]byte, error) {
		for si < len(run.Suites) && k == len(run.Suites[si].Tasks) {
			si, k = si+1, 0
		}
		if si == len(run.Suites) {
			return nil, errors.New("more tasks than were merged")
		}
		spans := left[run.Suites[si].ID]
		k++
		if spans == nil || spans[k-1].Len == 0 {
			return buf, nil
		}
		return spill.Append(buf, spans[k-1])
	}
}

// overlap reports a task of the merged suite s that two shards ran; from
// says which shard each task came from. Ids are sorted rather than kept
// in a map: a map of 200,000 tasks took a tenth of a large merge's memory.
func overlap(s *Suite, from []int32, names []string) error {
	type origin struct {
		id    string
		shard int32
	}
	ids := make([]origin, len(s.Tasks))
	for k := range s.Tasks {
		ids[k] = origin{s.Tasks[k].ID, from[k]}
	}
	slices.SortFunc(ids, func(a, b origin) int { return cmp.Or(strings.Compare(a.id, b.id), cmp.Compare(a.shard, b.shard)) })
	for k := 1; k < len(ids); k++ {
		if a, b := ids[k-1], ids[k]; a.id == b.id {
			return fmt.Errorf("could not merge: task %s of suite %s is in both %s and %s; the shards overlap", b.id, s.ID, names[a.shard], names[b.shard])
		}
	}
	return nil
}

// sortTasks puts a merged suite's tasks in file order, by line then id,
// and spans, when not nil, in the same order.
// No two tasks of a suite share both (they would be the same task, in two
// shards), so the order is the one a stable sort gives.
//
// The tasks come as the shards' lists one after the other, each in file
// order already. Those runs are merged: the order is worked out on
// positions, and each task then moves once, along the cycles of that
// permutation. A sort moved the tasks, a few hundred bytes each, over and
// over: a tenth of the time of a merge of 200,000 tasks.
func sortTasks(tasks []Task, spans []Span) {
	compare := func(a, b *Task) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), strings.Compare(a.ID, b.ID))
	}
	var heads []int // of the runs
	for i := range tasks {
		if i == 0 || compare(&tasks[i-1], &tasks[i]) > 0 {
			heads = append(heads, i)
		}
	}
	if len(heads) <= 1 {
		return
	}
	order := make([]int, len(tasks)) // order[k]: the position of the kth task
	if len(heads) > maxSortedRuns {
		for k := range order {
			order[k] = k
		}
		slices.SortFunc(order, func(a, b int) int { return compare(&tasks[a], &tasks[b]) })
	} else {
		ends := append(heads[1:len(heads):len(heads)], len(tasks))
		for k := range order {
			next := -1
			for r, h := range heads {
				if h < ends[r] && (next < 0 || compare(&tasks[h], &tasks[heads[next]]) < 0) {
					next = r
				}
			}
			order[k] = heads[next]
			heads[next]++
		}
	}
	for i := range order {
		if order[i] < 0 {
			continue // in place already
		}
		first := tasks[i]
		var firstSpan Span
		if spans != nil {
			firstSpan = spans[i]
		}
		for j := i; ; {
			k := order[j]
			order[j] = -1
			if k == i {
				tasks[j] = first
				if spans != nil {
					spans[j] = firstSpan
				}
				break
			}
			tasks[j] = tasks[k]
			if spans != nil {
				spans[j] = spans[k]
			}
			j = k
		}
	}
}

// maxSortedRuns is the most runs sortTasks merges; the order of a suite of
// more (shards from elsewhere, not in file order) is sorted.
const maxSortedRuns = 64

// releaseMoved is how many tasks Merge moves before it gives the memory
// of their lists back (memtune.Release): some 4 MB, worth a collection.
const releaseMoved = 10_000

// selectionWords says how a run chose its tasks, for a message.
func selectionWords(s *Selection) string {
	if f := s.Flags(); f != "" {
		return "with " + f
	}
	return "without --task, --tag or --mode"
}

// checkShards makes sure that shards of one --shard i/n run are all there
// once: merging three of four shards would gate on a quarter fewer tasks.
func checkShards(shards []*Run, names []string) error {
	count := 0
	have := map[int]string{}
	for n, sh := range shards {
		if sh.Shard == nil {
			continue
		}
		if count != 0 && sh.Shard.Count != count {
			return fmt.Errorf("could not merge %s: it is shard %d of %d, another is of %d", names[n], sh.Shard.Index, sh.Shard.Count, count)
		}
		count = sh.Shard.Count
		if prev, dup := have[sh.Shard.Index]; dup {
			return fmt.Errorf("could not merge: %s and %s are both shard %d of %d; the shards overlap", prev, names[n], sh.Shard.Index, count)
		}
		have[sh.Shard.Index] = names[n]
	}
	var missing []string
	for i := 1; i <= count; i++ {
		if _, ok := have[i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("could not merge: shard %s of %d is missing", strings.Join(missing, ", "), count)
	}
	return nil
}

// comparePaths orders slash paths folder by folder, as a walk visits them.
func comparePaths(a, b string) int {
	return slices.Compare(strings.Split(filepath.ToSlash(a), "/"), strings.Split(filepath.ToSlash(b), "/"))
}
