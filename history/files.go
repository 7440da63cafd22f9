package history

import (
	"context"
	"slices"
	"strings"
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
// store reads them in one process, whose output is held whole.
const fetchBytes = 8 << 20

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
		err := src.fetch(ctx, batch, func(f fileEntry, data []byte, err error) {
			if full() {
				return
			}
			if err != nil {
				w.Skipped = append(w.Skipped, Skipped{Name: f.name, Reason: err.Error()})
				return
			}
			rec, err := Decode(data)
			if err != nil {
				w.Skipped = append(w.Skipped, Skipped{Name: f.name, Reason: err.Error()})
				return
			}
			if !strings.HasSuffix(f.name, "-"+rec.RunID+".json") {
				w.Skipped = append(w.Skipped, Skipped{Name: f.name, Reason: "its runId " + clip(rec.RunID) + " is not the one in its name"})
				return
			}
			if seen[rec.RunID] || !q.matches(rec) {
				return
			}
			seen[rec.RunID] = true
			w.Records = append(w.Records, rec)
		})
		if err != nil {
			return nil, err
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
