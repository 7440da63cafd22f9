package pipeline

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/history"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/trust"
)

// HistoryFlags are run's and merge's flags over the config's history:
// block (docs/history.md). A zero field was not given.
type HistoryFlags struct {
	Store  string // --history-store: the store; given, it turns the history on
	Record *bool  // --history-record
	Ref    string // --history-ref: the window of this ref
}

// HistoryTimeout bounds reading or writing the history store: a store
// that hangs must not hold the run's verdict.
const HistoryTimeout = 3 * time.Minute

// HistorySettings are the history settings of a command: nil when neither
// the config nor the flags turn the history on. The store's credentials
// join what evalgate redacts.
func (c *Env) HistorySettings(cfg *config.Config, f *HistoryFlags) *history.Settings {
	h := cfg.History
	if h == nil && f.Store == "" && (f.Record == nil || !*f.Record) {
		return nil
	}
	s := &history.Settings{Dir: cmp.Or(cfg.Dir, "."), Getenv: c.Getenv}
	if h != nil {
		s.Store, s.Keep, s.Ref, s.Record = h.Store, h.Keep, h.Ref, h.Record
	}
	s.Store = cmp.Or(f.Store, s.Store)
	s.Ref = cmp.Or(f.Ref, s.Ref)
	if f.Record != nil {
		s.Record = *f.Record
	}
	if a := cfg.Assessment; a != nil && a.AgentID != "" {
		s.Agent = &history.Agent{ID: a.AgentID, Version: cfg.Agent.Version}
	} else if cfg.Agent.Version != "" {
		s.Agent = &history.Agent{Version: cfg.Agent.Version}
	}
	c.learnStoreSecrets(cfg, s.URL())
	return s
}

// DefaultHistorySettings are the settings of a command that reads the
// history whether or not the config turns it on: its own, else the
// default store's.
func (c *Env) DefaultHistorySettings(cfg *config.Config, f *HistoryFlags) *history.Settings {
	if s := c.HistorySettings(cfg, f); s != nil {
		return s
	}
	return &history.Settings{Dir: cmp.Or(cfg.Dir, "."), Getenv: c.Getenv}
}

// learnStoreSecrets adds the password of the store's URL (or of the DSN
// EVALGATE_HISTORY_DSN holds) to what evalgate redacts.
func (c *Env) learnStoreSecrets(cfg *config.Config, url string) {
	secrets := history.Secrets(url, c.Getenv)
	if len(secrets) == 0 {
		return
	}
	vals := urlSecrets(cfg)
	for _, name := range secretEnv(cfg) {
		vals = append(vals, c.Getenv(name))
	}
	c.secrets = redact.New(append(vals, secrets...)...)
}

// TrustStore is what evalgate trust counts of the history store the
// config names (none without a history: block): the runs of its window.
// A store that cannot be read is a warning; the scorecard goes on
// without it.
func (c *Env) TrustStore(ctx context.Context, cfg *config.Config) []trust.Past {
	set := c.HistorySettings(cfg, &HistoryFlags{})
	if set == nil {
		return nil
	}
	_, w, err := readWindow(ctx, set)
	if !c.windowRead(w, err, "the scorecard goes on without the store's history") {
		return nil
	}
	return history.TrustPast(w.Records)
}

// readWindow reads the store's metadata and the window of runs it gives,
// under HistoryTimeout.
func readWindow(ctx context.Context, set *history.Settings) (history.Meta, *history.Window, error) {
	ctx, cancel := context.WithTimeout(ctx, HistoryTimeout)
	defer cancel()
	meta := set.Meta(ctx)
	w, err := set.Window(ctx, meta)
	return meta, w, err
}

// windowRead says what a command must know of the window it read. A
// store that could not be read is a warning, ending with what goes on
// without it, and false; a window read with records skipped is a warning
// too, and the window is used (true).
func (c *Env) windowRead(w *history.Window, err error, goesOn string) bool {
	if err != nil {
		c.Say(c.Stderr, "evalgate: warning: %v; %s\n", err, goesOn)
		return false
	}
	if msg := w.Warning(); msg != "" {
		c.Say(c.Stderr, "evalgate: warning: %s\n", msg)
	}
	return true
}

// runHistory is a run's history: the window, read while the agents run,
// and the settings to record the run with.
type runHistory struct {
	set    *history.Settings
	meta   history.Meta
	done   chan struct{}
	window *history.Window // nil when the store could not be read
	err    error
}

// prepareHistory checks the history settings of a run or a merge: a store
// URL evalgate cannot read is exit 2, before anything runs.
func (j *job) prepareHistory() error {
	set := j.c.HistorySettings(j.cfg, &j.flags.History)
	if set == nil {
		return nil
	}
	if err := history.Check(set.URL(), set.Getenv); err != nil {
		return invalid(err)
	}
	j.history = &runHistory{set: set}
	return nil
}

// startHistory starts reading the window beside the run.
func (j *job) startHistory(ctx context.Context) {
	h := j.history
	if h == nil {
		return
	}
	h.done = make(chan struct{})
	go func() {
		defer close(h.done)
		h.meta, h.window, h.err = readWindow(ctx, h.set)
	}()
}

// readHistory waits for the window and hands it to the assessment and
// the trust scorecard. A store that could not be read is a warning: the
// run goes on as if it had no history, its verdict unchanged.
func (j *job) readHistory() {
	h := j.history
	if h == nil {
		return
	}
	<-h.done
	if !j.c.windowRead(h.window, h.err, "the run goes on without its history") {
		return
	}
	if j.assess != nil {
		j.assess.opts.Window = history.AssessWindow(h.window.Records)
	}
	if j.trustIn != nil {
		j.trustIn.Store = history.TrustPast(h.window.Records)
	}
}

// applyHistory labels the run's tasks from the window, once the baseline
// is compared (its new failures are the newly failing tasks).
func (j *job) applyHistory(run *results.Run) {
	if j.history != nil && j.history.window != nil && !run.Interrupted {
		history.Apply(run, j.history.window)
	}
}

// recordHistory writes the run's record when history.record is on. A
// store that cannot be written is a warning: the verdict stands.
func (j *job) recordHistory(ctx context.Context, run *results.Run) {
	h := j.history
	if h == nil || !h.set.Record {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, HistoryTimeout)
	defer cancel()
	where, err := h.set.Write(ctx, run, h.meta)
	switch {
	case errors.Is(err, history.ErrNotRecorded):
		j.c.Say(j.c.Stderr, "evalgate: history: run %s %v\n", run.RunID, err)
	case err != nil:
		j.c.Say(j.c.Stderr, "evalgate: warning: could not record run %s: %v; the verdict stands\n", run.RunID, err)
	case !j.flags.Quiet:
		j.c.Say(j.c.Stdout, "history: recorded run %s in %s\n", run.RunID, where)
	}
}
