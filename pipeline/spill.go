package pipeline

import (
	"errors"

	"github.com/evalgate/evalgate/results"
)

// trialSpill keeps the trials of passed tasks on disk until results.json
// is written (results.Spill): a passed task's trials (every check of every
// trial) are read by nothing else, and held in memory they would grow a
// 100,000-task run by half a kilobyte a task (#6). Tasks that did not pass
// keep their trials in memory: the report and the CI formats describe
// them.
//
// Tasks go in (Add) and come back (Restore) in the same order: suite order,
// the order results.json is written in.
type trialSpill struct {
	file  *results.Spill
	spans []results.Span // per task added, where its trials went; Len 0 when they stayed
	next  int
}

func newTrialSpill(dir string) (*trialSpill, error) {
	f, err := results.NewSpill(dir)
	if err != nil {
		return nil, err
	}
	return &trialSpill{file: f}, nil
}

// Add moves the trials of a passed task to the file.
func (s *trialSpill) Add(t *results.Task) error {
	if t.Status != results.StatusPassed || len(t.Trials) == 0 {
		s.spans = append(s.spans, results.Span{})
		return nil
	}
	span, err := s.file.Add(t.Trials)
	if err != nil {
		return err
	}
	t.Trials = nil
	s.spans = append(s.spans, span)
	return nil
}

// Restore gives the next task, in the order they were added, its trials
// back; it is results.WriteRestoring's restore.
func (s *trialSpill) Restore(t *results.Task, buf []byte) ([]byte, error) {
	if s.next >= len(s.spans) {
		return nil, errors.New("more tasks than were run")
	}
	span := s.spans[s.next]
	s.next++
	if span.Len == 0 {
		return buf, nil
	}
	return s.file.Append(buf, span)
}

// Close removes the file; a nil spill (a run that keeps its trials in
// memory) has none.
func (s *trialSpill) Close() error {
	if s == nil {
		return nil
	}
	return s.file.Close()
}
