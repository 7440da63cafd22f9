package results

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"unsafe"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/jsonvalue"
	"golang.org/x/sync/errgroup"
)

//go:embed results.schema.json
var schemaJSON []byte

// SchemaJSON returns the JSON Schema (draft 2020-12) of results.json, the
// format of Run; `evalgate schema results` prints it. The caller may keep
// the slice; it is a copy.
func SchemaJSON() []byte {
	return bytes.Clone(schemaJSON)
}

// Write writes r to path as results.json: JSON indented by two
// spaces, fields in a fixed order and map keys sorted, so two runs with the
// same results give the same bytes. The file is written to a temporary file
// beside path and renamed into place. An empty $schema is filled in with
// Schema, and missing lists are written as [] rather than null.
// r itself is not changed.
//
// The file is streamed task by task, so writing it takes memory for one
// task's JSON at a time, not for the whole document (#6: a 100,000-task
// run writes a results.json of some 170 MB).
func Write(path string, r *Run) error {
	return WriteRestoring(path, r, nil)
}

// WriteRestoring is Write for a run whose tasks do not all
// hold their trials in memory: restore is called with a copy of every task,
// in file order, just before it is written, and may fill in its Trials
// (from a file the runner spilled them to, say), or append to the buffer
// it is given the bytes Write would write for them, kept in a Spill.
func WriteRestoring(path string, r *Run, restore Restore) error {
	if r == nil {
		return errors.New("could not write results: no run")
	}
	err := atomicfile.Stream(path, 0o644, 0o755, func(w io.Writer) error {
		return streamResults(w, normalizeRun(r), restore)
	})
	if err != nil {
		return fmt.Errorf("could not write results %q: %w", path, err)
	}
	return nil
}

// Restore is WriteRestoring's restore: it gives a task its trials back,
// in t.Trials (returning buf as it is), or as their JSON appended to buf,
// which is then written as it is in place of t.Trials. buf is reused once
// the task is written.
type Restore func(t *Task, buf []byte) ([]byte, error)

// encodeResults renders r as results.json.
func encodeResults(r *Run) ([]byte, error) {
	var b bytes.Buffer
	if err := streamResults(&b, normalizeRun(r), nil); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// streamResults writes r to w exactly as jsonvalue.MarshalFile would, one
// task at a time. It relies on "suites" being the last member of a run and "tasks"
// the last member of a suite: each is encoded empty, and the list is then
// written item by item in its place.
func streamResults(w io.Writer, r *Run, restore Restore) error {
	var e indentEncoder
	tasks := newTaskWriter()
	head := *r
	head.Suites = []Suite{}
	if err := e.writeOpenList(w, &head, "", "suites"); err != nil {
		return err
	}
	for i := range r.Suites {
		s := r.Suites[i]
		s.Tasks = []Task{}
		if err := openItem(w, i, "    "); err != nil {
			return err
		}
		if err := e.writeOpenList(w, &s, "    ", "tasks"); err != nil {
			return err
		}
		if err := tasks.write(w, r.Suites[i].Tasks, restore); err != nil {
			return err
		}
		if err := closeList(w, len(r.Suites[i].Tasks), "      ", "\n    }"); err != nil {
			return err
		}
	}
	return closeList(w, len(r.Suites), "  ", "\n}\n")
}

// batchBytes is about how many bytes of results.json the tasks of one
// batch take, all processors together. A batch's tasks, their restored
// trials and their JSON are all in memory while it is written: counted in
// tasks (256 a processor), a batch was half of a 1,000-task run's
// results.json, some 6 MiB of heap at the end of the run. This size keeps
// every processor busy for long enough that a merge of 200,000 tasks is no
// slower (BenchmarkMerge).
const batchBytes = 256 << 10

// firstBatch is how many tasks the first batch of a suite holds, before the
// size of their JSON is known.
const firstBatch = 16

// taskWriter writes a suite's tasks, encoding them on every processor:
// encoding is most of the time it takes to write a large results.json
// (a merge of 200,000 tasks). Tasks are restored and written in order, a
// batch of about batchBytes at a time, split between the processors, so
// memory holds one batch.
type taskWriter struct {
	batch    []Task
	trials   [][]byte // the batch's restored JSON trials, in restored
	restored []byte
	outs     [][]byte // one per processor
	// tasks and bytes are how many tasks were encoded, and into how many
	// bytes: what sizes the next batch.
	tasks, bytes int
}

func newTaskWriter() *taskWriter {
	return &taskWriter{outs: make([][]byte, runtime.GOMAXPROCS(0))}
}

// batchSize is how many tasks the next batch may hold: about batchBytes
// at the size tasks took so far, their JSON and the batch's copy of each,
// at least one a processor.
func (tw *taskWriter) batchSize() int {
	if tw.tasks == 0 {
		return max(firstBatch, len(tw.outs))
	}
	perTask := tw.bytes/tw.tasks + int(unsafe.Sizeof(Task{}))
	return max(len(tw.outs), batchBytes/perTask)
}

// write writes tasks as the items of the list they are in, each restored
// (see WriteRestoring) and fixed first.
func (tw *taskWriter) write(w io.Writer, tasks []Task, restore Restore) error {
	for start := 0; start < len(tasks); start += len(tw.batch) {
		tw.batch = tw.batch[:0]
		tw.trials = tw.trials[:0]
		tw.restored = tw.restored[:0]
		// Restored trials count against the batch as they come: one task
		// whose trials are large fills a batch of its own.
		size := min(tw.batchSize(), len(tasks)-start)
		for k := 0; k < size && len(tw.restored) < batchBytes; k++ {
			tw.batch = append(tw.batch, tasks[start+k])
			tw.trials = append(tw.trials, nil)
			if restore != nil {
				from := len(tw.restored)
				var err error
				if tw.restored, err = restore(&tw.batch[k], tw.restored); err != nil {
					return err
				}
				if len(tw.restored) > from {
					tw.trials[k] = tw.restored[from:len(tw.restored):len(tw.restored)]
					tw.batch[k].Trials = nil
				}
			}
			fixTask(&tw.batch[k])
		}
		chunk := (len(tw.batch) + len(tw.outs) - 1) / len(tw.outs)
		var g errgroup.Group
		for c := range tw.outs {
			lo := c * chunk
			if lo >= len(tw.batch) {
				break
			}
			hi := min(lo+chunk, len(tw.batch))
			g.Go(func() (err error) {
				tw.outs[c], err = encodeItems(tw.outs[c][:0], tw.batch[lo:hi], tw.trials[lo:hi], start+lo)
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for c := range tw.outs {
			if c*chunk >= len(tw.batch) {
				break
			}
			if _, err := w.Write(tw.outs[c]); err != nil {
				return err
			}
			tw.bytes += len(tw.outs[c])
		}
		tw.tasks += len(tw.batch)
		clear(tw.batch) // the restored trials go with the batch
		clear(tw.trials)
	}
	return nil
}

// encodeItems appends tasks to out as the items first, first+1... of the
// tasks list, each opened as openItem opens it. A task with JSON trials
// (trials[k] not nil) has them written in place of its Trials.
func encodeItems(out []byte, tasks []Task, trials [][]byte, first int) ([]byte, error) {
	for k := range tasks {
		if first+k > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n"+taskPrefix...)
		var err error
		if out, err = appendTask(out, &tasks[k], trials[k]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// writeOpenList writes v, whose last member is the empty list key, up to
// and without that list's closing bracket.
func (e *indentEncoder) writeOpenList(w io.Writer, v any, prefix, key string) error {
	data, err := e.encode(v, prefix)
	if err != nil {
		return err
	}
	before, _, found := jsonvalue.CutEmptyList(data, key)
	if !found {
		return fmt.Errorf("could not find %q in the encoded results", key) // cannot happen: the field is in the type
	}
	if _, err := w.Write(before); err != nil {
		return err
	}
	_, err = io.WriteString(w, "[")
	return err
}

// openItem starts item i of a list whose items are at indent.
func openItem(w io.Writer, i int, indent string) error {
	sep := ",\n"
	if i == 0 {
		sep = "\n"
	}
	_, err := io.WriteString(w, sep+indent)
	return err
}

// closeList ends a list of n items whose bracket is at indent, then writes
// rest (what closes the enclosing object).
func closeList(w io.Writer, n int, indent, rest string) error {
	end := "]"
	if n > 0 {
		end = "\n" + indent + "]"
	}
	_, err := io.WriteString(w, end+rest)
	return err
}

// indentEncoder encodes values as jsonvalue.MarshalFile does, reusing one
// buffer.
type indentEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// encode returns v encoded with every line after the first starting with
// prefix, without the final newline; the bytes are valid until the next
// call.
func (e *indentEncoder) encode(v any, prefix string) ([]byte, error) {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.buf)
		e.enc.SetEscapeHTML(false)
	}
	e.buf.Reset()
	e.enc.SetIndent(prefix, "  ")
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")), nil
}

// normalizeRun returns r, or a shallow copy of it where the lists the format
// requires are never null. Only what needs fixing is copied, so a large run
// that is already complete costs nothing.
func normalizeRun(r *Run) *Run {
	needs := r.Schema == "" || r.Gates == nil || r.Suites == nil
	for i := range r.Suites {
		if suiteNeedsFix(&r.Suites[i]) {
			needs = true
			break
		}
	}
	if !needs {
		return r
	}
	run := *r
	if run.Schema == "" {
		run.Schema = Schema
	}
	if run.Gates == nil {
		run.Gates = []Gate{}
	}
	if run.Suites == nil {
		run.Suites = []Suite{}
	}
	copied := false
	for i := range run.Suites {
		if !suiteNeedsFix(&run.Suites[i]) {
			continue
		}
		if !copied {
			run.Suites = append([]Suite(nil), run.Suites...)
			copied = true
		}
		fixSuite(&run.Suites[i])
	}
	return &run
}

func suiteNeedsFix(s *Suite) bool {
	return s.Modes == nil || s.Tasks == nil
}

// fixSuite fills in the null lists of s, which is already a copy. Tasks
// are fixed one at a time as they are written (fixTask), so a large run is
// never copied whole.
func fixSuite(s *Suite) {
	if s.Modes == nil {
		s.Modes = []string{}
	}
	if s.Tasks == nil {
		s.Tasks = []Task{}
	}
}

// fixTask fills in the null lists of t, a copy: no trials, or a trial
// without checks, is written as [] rather than null.
func fixTask(t *Task) {
	if t.Trials == nil {
		t.Trials = []Trial{}
		return
	}
	copied := false
	for j := range t.Trials {
		if t.Trials[j].Checks != nil {
			continue
		}
		if !copied {
			t.Trials = append([]Trial(nil), t.Trials...)
			copied = true
		}
		t.Trials[j].Checks = []Check{}
	}
}
