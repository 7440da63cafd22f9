package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/inputfile"
)

// Span is where some bytes are in a Spill: in its own file, or in one of
// its sources (Source is then the source's number, from 1).
type Span struct {
	Off    int64
	Len    int64
	Source int
}

// ReadSpilling reads a results file as Read does, with the same checks and
// errors, but one task at a time: the trials of the tasks leave chooses go
// to spill as soon as they are decoded and checked, and spans[i][j] is then
// where those of task j of suite i are (Len 0 for a task that kept its
// trials). A merge of 200,000 tasks would otherwise hold every trial, most
// of its memory (#6).
//
// A file of another shape than Write's (a key twice or in other cases, a
// list that is null) or with a problem is read again whole by Read, so
// that it gives what Read gives; no trials are then left out.
//
// The file is opened as Read opens it (Locate, File): a problem with the
// file itself is Read's error, found before a byte is read.
func ReadSpilling(path string, leave func(t *Task) bool, spill *Spill) (*Run, [][]Span, error) {
	file, root := Locate(path)
	f, err := File.OpenIn(root, file)
	if err != nil {
		return nil, nil, fmt.Errorf("could not read results %q: %w", file, err)
	}
	lr := &leanReader{in: stream{r: f}, file: f, leave: leave, spill: spill, size: f.Size()}
	if err = lr.read(); err == nil {
		err = lr.run.Check()
	}
	if err == nil {
		if lr.source == 0 {
			f.Close() // else the spill closes it
		}
		return &lr.run, lr.spans, nil
	}
	f.Close()
	r, err := Read(path)
	return r, nil, err
}

// errShape is a file the lean reader leaves to Read.
var errShape = errors.New("not the shape results.json is written in")

// Write's layout of a task's trials: where their lines start.
const trialsPrefix = "          "

// minTaskBytes is less than Write writes for any task.
const minTaskBytes = 256

type leanReader struct {
	in    stream
	tasks taskReader
	leave func(t *Task) bool
	spill *Spill
	size  int64 // of the file
	run   Run
	spans [][]Span
	obj   []byte
	same  int // trials found as Write writes them; -1 once some were not
	// file is the file read, and source its number in spill once trials
	// are left in it rather than copied (0 before).
	file   *inputfile.File
	source int
}

// read decodes the run, streaming the tasks of its suites.
func (lr *leanReader) read() error {
	if err := lr.in.delim('{'); err != nil {
		return err
	}
	seen := false
	err := lr.members(&lr.run, "suites", func() error {
		if seen {
			return errShape
		}
		seen = true
		if err := lr.in.delim('['); err != nil {
			return err
		}
		lr.run.Suites = []Suite{}
		for n := 0; ; n++ {
			if more, err := lr.in.more(n, ']'); err != nil || !more {
				return err
			}
			lr.run.Suites = append(lr.run.Suites, Suite{})
			lr.spans = append(lr.spans, nil)
			if err := lr.suite(len(lr.run.Suites) - 1); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return err
	}
	if c, err := lr.in.peek(); err != nil || c != 0 {
		return errShape // something after the run
	}
	return nil
}

// suite decodes suite i of the run, an object.
func (lr *leanReader) suite(i int) error {
	if err := lr.in.delim('{'); err != nil {
		return err
	}
	s := &lr.run.Suites[i]
	seen := false
	return lr.members(s, "tasks", func() error {
		if seen {
			return errShape
		}
		seen = true
		if err := lr.in.delim('['); err != nil {
			return err
		}
		// Made at the size the suite says, if the file can hold that
		// many: grown by appending, the list would be copied over and
		// over.
		s.Tasks = make([]Task, 0, min(max(s.TaskCount, 0), int(lr.size/minTaskBytes)))
		for n := 0; ; n++ {
			if more, err := lr.in.more(n, ']'); err != nil || !more {
				return err
			}
			s.Tasks = append(s.Tasks, Task{})
			span, err := lr.task(&s.Tasks[len(s.Tasks)-1])
			if err != nil {
				return err
			}
			if span.Len > 0 && lr.spans[i] == nil {
				lr.spans[i] = make([]Span, len(s.Tasks)-1, cap(s.Tasks))
			}
			if lr.spans[i] != nil {
				lr.spans[i] = append(lr.spans[i], span)
			}
		}
	})
}

// task decodes the next task into t, and spills its trials when it should.
func (lr *leanReader) task(t *Task) (Span, error) {
	var raw []byte // the trials, as the file holds them
	var rawOff int64
	err := lr.in.decode(func(data []byte) (int, error) {
		n, err := lr.tasks.readTask(data, t)
		if err == nil {
			raw = data[lr.tasks.rawTrials[0]:lr.tasks.rawTrials[1]]
			rawOff = lr.in.offset() + int64(lr.tasks.rawTrials[0])
		}
		return n, err
	})
	if err != nil {
		return Span{}, err
	}
	if lr.leave == nil || len(t.Trials) == 0 || !lr.leave(t) {
		keepTrials(t)
		return Span{}, nil
	}
	c := checker{}
	if c.task("", t); c.err != nil {
		return Span{}, c.err // Read says where
	}
	span, err := lr.spillTrials(t.Trials, raw, rawOff)
	if err != nil {
		return Span{}, err
	}
	t.Trials = nil
	return span, nil
}

// spillTrials spills a task's trials, read from raw, at off in the file.
// A file Write wrote holds them as the bytes Write would write again: they
// are then left where they are, the span pointing into the file, where
// encoding them anew into the spill's own file was a tenth of a merge's
// CPU and 240 MB written and read back. So the first verbatimProof tasks'
// trials are encoded and compared with the file's bytes; when every one
// is the same, the rest are left in the file. A task whose strings
// encoding/json read (escapes, invalid UTF-8) is always encoded: its bytes
// would differ, or not be UTF-8. A file whose bytes differ once (another
// layout, numbers written otherwise) is encoded to its end.
func (lr *leanReader) spillTrials(trials []Trial, raw []byte, off int64) (Span, error) {
	if lr.same >= verbatimProof && !lr.tasks.escaped {
		if lr.source == 0 {
			lr.source = lr.spill.Source(lr.file)
		}
		return Span{Off: off, Len: int64(len(raw)), Source: lr.source}, nil
	}
	if lr.same < 0 || lr.tasks.escaped {
		return lr.spill.Add(trials)
	}
	data, err := encodeTrials(nil, trials)
	if err != nil {
		return Span{}, err
	}
	if bytes.Equal(data, raw) {
		lr.same++
	} else {
		lr.same = -1
	}
	return lr.spill.AddBytes(data)
}

// verbatimProof is how many tasks' trials must be as Write writes them
// before a file's are copied.
const verbatimProof = 16

// members decodes the members of an object whose '{' was read into v, one
// at a time, up to and with its '}', except list, which stream reads.
func (lr *leanReader) members(v any, list string, stream func() error) error {
	for n := 0; ; n++ {
		if more, err := lr.in.more(n, '}'); err != nil || !more {
			return err
		}
		name, err := lr.in.value()
		if err != nil {
			return err
		}
		var key string
		if err := json.Unmarshal(name, &key); err != nil {
			return errShape
		}
		// name is in the stream's buffer, which the next reads move.
		lr.obj = append(append(lr.obj[:0], '{'), name...)
		if err := lr.in.delim(':'); err != nil {
			return err
		}
		switch {
		case key == list:
			if err := stream(); err != nil {
				return err
			}
			continue
		case strings.EqualFold(key, list):
			return errShape // encoding/json matches keys in any case
		}
		raw, err := lr.in.value()
		if err != nil {
			return err
		}
		lr.obj = append(append(append(lr.obj, ':'), raw...), '}')
		if err := json.Unmarshal(lr.obj, v); err != nil {
			return err
		}
	}
}
