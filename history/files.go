package history

import (
	"context"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
)

// fileEntry is one file of a folder or branch store.
type fileEntry struct {
	name string
	size int64
	id   string // the blob of a git store
}

// fileSource is a store that keeps one file per record: a folder or a
// branch.
type fileSource interface {
	// list lists every file at the store's top.
	list(ctx context.Context) ([]fileEntry, error)
	// fetch reads the files, each no larger than MaxRecordBytes, calling
	// got for each one in the order given; an error of one file is
	// passed to got, an error of the store returned.
	fetch(ctx context.Context, files []fileEntry, got func(f fileEntry, data []byte, err error)) error
}

// fetchBytes is about how many bytes of records one fetch reads: a git
// store reads them in one process, whose output is held whole until the
// batch is decoded.
const fetchBytes = 2 << 20

// readFiles is Read of a store of files: the newest first, until q's
// limit, each file decoded and checked, a bad one skipped.
func readFiles(ctx context.Context, src fileSource, store string, q Query) (*Window, error) {
	w := &Window{Store: store}
	all, err := src.list(ctx)
	if err != nil {
		return nil, err
	}
	var files []fileEntry
	for _, f := range all {
		switch {
		case isRecordName(f.name):
			if q.RunID == "" || strings.HasSuffix(f.name, "-"+q.RunID+".json") {
				files = append(files, f)
			}
		case strings.HasSuffix(f.name, ".json") && q.RunID == "":
			w.Skipped = append(w.Skipped, Skipped{Name: f.name, Reason: "not named <startedAt>-<runId>.json"})
		}
	}
	slices.SortFunc(files, func(a, b fileEntry) int { return strings.Compare(b.name, a.name) })
	seen := map[string]bool{}
	keys := interner{}
	full := func() bool { return q.Limit > 0 && len(w.Records) >= q.Limit }
	for len(files) > 0 && !full() {
		var batch []fileEntry
		var bytes int64
		for len(files) > 0 && (len(batch) == 0 || bytes+files[0].size <= fetchBytes) {
			f := files[0]
			files = files[1:]
			if f.size > MaxRecordBytes {
				w.Skipped = append(w.Skipped, Skipped{Name: f.name, Reason: "the file is " + sizeOf(f.size) + ", over the " + sizeOf(MaxRecordBytes) + " a record may hold"})
				continue
			}
			batch = append(batch, f)
			bytes += f.size
		}
		if len(batch) == 0 {
			continue
		}
		// The batch's files are read in order and decoded on every core,
		// then taken in order.
		type got struct {
			f    fileEntry
			data []byte
			rec  *Record
			err  error
		}
		var gots []got
		err := src.fetch(ctx, batch, func(f fileEntry, data []byte, err error) {
			gots = append(gots, got{f: f, data: data, err: err})
		})
		if err != nil {
			return nil, err
		}
		decodeAll(len(gots), func(i int) {
			g := &gots[i]
			if g.err == nil {
				g.rec, g.err = Decode(g.data)
				g.data = nil
			}
		})
		for _, g := range gots {
			if full() {
				break
			}
			if g.err != nil {
				w.Skipped = append(w.Skipped, Skipped{Name: g.f.name, Reason: g.err.Error()})
				continue
			}
			rec := g.rec
			if !strings.HasSuffix(g.f.name, "-"+rec.RunID+".json") {
				w.Skipped = append(w.Skipped, Skipped{Name: g.f.name, Reason: "its runId " + clip(rec.RunID) + " is not the one in its name"})
				continue
			}
			if seen[rec.RunID] || !q.matches(rec) {
				continue
			}
			seen[rec.RunID] = true
			keys.intern(rec)
			w.Records = append(w.Records, rec)
		}
	}
	slices.Reverse(w.Records)
	// Names sort by the millisecond; runs started within one keep their
	// order by time.
	slices.SortStableFunc(w.Records, func(a, b *Record) int { return a.StartedAt.Compare(b.StartedAt) })
	return w, nil
}

// recordFile returns the file of the run id among files; "" when none.
func recordFile(files []fileEntry, runID string) string {
	for _, f := range files {
		if isRecordName(f.name) && strings.HasSuffix(f.name, "-"+runID+".json") {
			return f.name
		}
	}
	return ""
}

// pruned returns the record files of files beyond the newest keep, by
// name; the other files stay.
func pruned(files []fileEntry, keep int) []fileEntry {
	var recs []fileEntry
	for _, f := range files {
		if isRecordName(f.name) {
			recs = append(recs, f)
		}
	}
	slices.SortFunc(recs, func(a, b fileEntry) int { return strings.Compare(b.name, a.name) })
	if len(recs) <= keep {
		return nil
	}
	return recs[keep:]
}

// decodeAll calls f(0) … f(n-1), as many at once as there are cores.
func decodeAll(n int, f func(i int)) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range n {
		g.Go(func() error { f(i); return nil })
	}
	_ = g.Wait() // f returns no error
}

// interner shares the task keys and statuses the records of a window
// repeat: a window of 200 runs of a 1,000-task suite holds each key 200
// times otherwise.
type interner map[string]string

func (in interner) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

// intern gives rec's tasks the keys and statuses already seen.
func (in interner) intern(rec *Record) {
	tasks := make(map[string]Task, len(rec.Tasks))
	for k, t := range rec.Tasks {
		t.Status = in.get(t.Status)
		tasks[in.get(k)] = t
	}
	rec.Tasks = tasks
}
