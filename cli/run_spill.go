package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/evalgate/evalgate/results"
)

// trialSpill keeps the trials of passed tasks on disk until results.json
// is written: a passed task's trials (every check of every trial) are read
// by nothing else, and held in memory they would grow a 100,000-task run by
// half a kilobyte a task (#6). Tasks that did not pass keep their trials in
// memory: the report and the CI formats describe them.
//
// Tasks go in (Add) and come back (Restore) in the same order: suite order,
// the order results.json is written in.
type trialSpill struct {
	f       *os.File
	w       *bufio.Writer
	enc     *json.Encoder
	spilled []bool // per task added, whether its trials went to the file

	r    *json.Decoder
	next int
}

func newTrialSpill(dir string) (*trialSpill, error) {
	f, err := os.CreateTemp(dir, ".trials-*.ndjson")
	if err != nil {
		return nil, fmt.Errorf("could not create a scratch file in %q: %w", dir, err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	return &trialSpill{f: f, w: w, enc: json.NewEncoder(w)}, nil
}

// Add moves the trials of a passed task to the file.
func (s *trialSpill) Add(t *results.Task) error {
	if t.Status != results.StatusPassed || len(t.Trials) == 0 {
		s.spilled = append(s.spilled, false)
		return nil
	}
	if err := s.enc.Encode(t.Trials); err != nil {
		return fmt.Errorf("could not write to the scratch file: %w", err)
	}
	t.Trials = nil
	s.spilled = append(s.spilled, true)
	return nil
}

// Restore gives the next task, in the order they were added, its trials
// back; it is results.WriteRestoring's restore.
func (s *trialSpill) Restore(t *results.Task) error {
	if s.r == nil {
		if err := s.w.Flush(); err != nil {
			return fmt.Errorf("could not write to the scratch file: %w", err)
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("could not read the scratch file: %w", err)
		}
		s.r = json.NewDecoder(bufio.NewReaderSize(s.f, 64<<10))
	}
	if s.next >= len(s.spilled) {
		return errors.New("more tasks than were run")
	}
	k := s.next
	s.next++
	if !s.spilled[k] {
		return nil
	}
	if err := s.r.Decode(&t.Trials); err != nil {
		return fmt.Errorf("could not read the scratch file: %w", err)
	}
	return nil
}

// Close removes the file; a nil spill (a run that keeps its trials in
// memory) has none.
func (s *trialSpill) Close() error {
	if s == nil {
		return nil
	}
	name := s.f.Name()
	err := s.f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}
