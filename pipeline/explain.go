package pipeline

import (
	"fmt"
	"sync"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
)

// explains reports whether run prints what each failing check expected
// and got: --explain (or --explain=false), else explain: in evalgate.yaml,
// else on an interactive terminal outside CI. The lines quote the task and
// the agent, so a CI log has them only when asked for, and no output file
// ever does; --quiet prints none.
func (c *Env) explains(f *Flags, cfg *config.Config) bool {
	switch {
	case f.Quiet:
		return false
	case f.Explain != nil:
		return *f.Explain
	case cfg.Explain != nil:
		return *cfg.Explain
	}
	return c.isTerminal() && c.Getenv("CI") == ""
}

// maxPendingExplanations bounds the failing tasks whose explanations wait
// for their task to be scored (tasks finish out of order).
const maxPendingExplanations = 256

// explainer gathers, as trials finish, what the failed checks of failing
// trials expected and got (judges.Explain), and hands the Terminal those
// of the tasks its table of failing tasks shows, once each is scored.
// It keeps no more than that table shows.
type explainer struct {
	term    *report.Terminal
	secrets *redact.Redactor

	mu      sync.Mutex // Trial runs on worker goroutines
	pending map[[2]string]*explained
	shown   int // failing tasks handed to the Terminal
}

// explained is what the first failing trial of a task, so far, expected
// and got, and which trials failed.
type explained struct {
	trial  int
	lines  []string
	failed []int
}

// trial explains a finished trial that failed its checks.
func (x *explainer) trial(s *suites.Suite, t *suites.Task, tr *runner.TrialRecord) {
	if tr.Result.Status != results.StatusFailed {
		return
	}
	x.mu.Lock()
	full := x.shown >= report.MaxFailingRows || len(x.pending) >= maxPendingExplanations
	x.mu.Unlock()
	if full {
		return
	}
	obs := &judges.Observation{
		Input: t.Input, Output: tr.Output, Trace: tr.Trace, Spans: tr.Spans, LatencyMs: tr.Result.LatencyMs, CostUsd: tr.Usage.CostUsd, Vars: t.Vars,
		State: tr.State, InitialState: tr.InitialState, GoldState: tr.GoldState, Replies: tr.Replies, ReplyCalls: tr.ReplyCalls,
	}
	var lines []string
	for _, e := range judges.Explain(t, obs, tr.Result.Checks, tr.Reasons) {
		for i, l := range e.Lines() {
			if i > 0 {
				l = "  " + l
			}
			lines = append(lines, x.secrets.String(l))
		}
	}
	key := [2]string{s.ID, t.ID}
	x.mu.Lock()
	defer x.mu.Unlock()
	p := x.pending[key]
	if p == nil {
		if len(x.pending) >= maxPendingExplanations {
			return
		}
		p = &explained{}
		x.pending[key] = p
	}
	p.failed = append(p.failed, tr.Trial)
	if len(lines) > 0 && (p.lines == nil || tr.Trial < p.trial) {
		p.trial, p.lines = tr.Trial, lines
	}
}

// scored hands the Terminal the explanation of a task that did not pass,
// while its table has room, and drops the task's.
func (x *explainer) scored(s *results.Suite, t *results.Task) {
	x.mu.Lock()
	defer x.mu.Unlock()
	key := [2]string{s.ID, t.ID}
	p := x.pending[key]
	delete(x.pending, key)
	if t.Passed {
		return
	}
	if x.shown++; x.shown > report.MaxFailingRows || p == nil || len(p.lines) == 0 {
		return
	}
	lines := p.lines
	if len(t.Trials) > 1 {
		lines = append([]string{fmt.Sprintf("trial %d of %d:", p.trial, len(t.Trials))}, lines...)
		if n := len(p.failed) - 1; n > 0 {
			lines = append(lines, fmt.Sprintf("(%d more %s failed; --transcripts keeps every output)", n, words.Plural(n, "trial", "trials")))
		}
	}
	x.term.Explain(s.ID, t.ID, lines)
}
