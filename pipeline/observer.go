package pipeline

import (
	"strconv"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/otelexport"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/trust"
)

// observer streams a run to disk and the terminal as tasks finish: events
// in suite order, transcripts when asked for, and the progress line.
type observer struct {
	term        *report.Terminal
	events      *report.Events
	transcripts bool
	out         string
	cmp         *comparison          // the baseline; nil without one
	spill       *trialSpill          // the trials of passed tasks, until results.json
	tally       *trust.Tally         // the trust evidence, counted before the trials are spilled; nil without trust:
	secrets     *redact.Redactor     // redacted from transcripts
	explain     *explainer           // what failing checks expected and got; nil when not shown
	export      *otelexport.Exporter // the run's trace; nil when it is not sent

	mu     sync.Mutex // guards err (Trial runs on worker goroutines)
	err    error      // the first write error; the run is then exit 3
	runIDs map[string]string
}

var _ runner.Observer = (*observer)(nil)

func (o *observer) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil && err != nil {
		o.err = err
	}
}

func (o *observer) Trial(s *suites.Suite, t *suites.Task, tr *runner.TrialRecord) {
	if o.export != nil {
		o.export.Trial(s, t, tr)
	}
	if o.explain != nil {
		o.explain.trial(s, t, tr)
	}
	if !o.transcripts {
		return
	}
	tx := &report.Transcript{
		SuiteID:   s.ID,
		TaskID:    t.ID,
		Trial:     tr.Trial,
		Input:     tr.Input,
		Output:    tr.Output,
		Replies:   tr.Replies,
		ToolCalls: tr.Trace,
		State:     tr.State,
		Usage: report.TranscriptUsage{
			Model:        tr.Usage.Model,
			InputTokens:  tr.Usage.InputTokens,
			OutputTokens: tr.Usage.OutputTokens,
			CostUsd:      tr.Usage.CostUsd,
		},
		Stderr: string(tr.Stderr),
	}
	if tr.Err != nil {
		tx.Error = &report.TranscriptError{Kind: tr.Err.Kind, Message: tr.Err.Full()}
	}
	for id, reason := range tr.Reasons {
		if i, ok := rubricIndex(id); ok {
			if tx.JudgeReasons == nil {
				tx.JudgeReasons = map[int]string{}
			}
			tx.JudgeReasons[i] = reason
		}
	}
	o.fail(report.WriteTranscript(o.out, tx, o.secrets))
}

// rubricIndex parses the index out of a "rubric[i]" check id.
func rubricIndex(id string) (int, bool) {
	s, ok := strings.CutPrefix(id, "rubric[")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(strings.TrimSuffix(s, "]"))
	return i, err == nil
}

func (o *observer) Progress(done, total, passed, failed, errored int) {
	o.term.Progress(done, total, passed, failed, errored)
}

func (o *observer) SuiteStarted(s *results.Suite, taskCount int) {
	if o.runIDs == nil {
		o.runIDs = map[string]string{}
	}
	s.RunID = results.NewID()
	o.runIDs[s.ID] = s.RunID
	o.fail(o.events.Started(s, s.Modes, taskCount, o.cmp.runID(s.ID)))
	o.term.SuiteStarted(s, taskCount)
}

func (o *observer) TaskScored(s *results.Suite, t *results.Task) {
	o.fail(o.events.Scored(s.RunID, t))
	if o.explain != nil {
		o.explain.scored(s, t)
	}
	if o.tally != nil {
		o.tally.Task(s, t)
	}
	if o.spill != nil {
		o.fail(o.spill.Add(t))
	}
}

func (o *observer) SuiteCompleted(s *results.Suite) {
	// The suite's regression goes into eval.completed; the run's is
	// computed, with the same figures, once every suite is done.
	s.Regression = o.cmp.suite(s)
	o.fail(o.events.Completed(s))
	o.term.SuiteDone(s)
}
