package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/evalgate/evalgate/history"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/trust"
)

// HistoryRequest is one `evalgate history` command (docs/history.md).
type HistoryRequest struct {
	Sub    string // list, show, trend, flaky, record, prune, migrate or export
	Config string
	Flags  HistoryFlags // --store (Flags.Store) and, for trend and flaky, --ref
	Arg    string       // show's RUN, record's RESULTS
	Limit  int          // list --limit
	Suite  string       // trend --suite
	Task   string       // trend --task
	Keep   int          // prune --keep
	Format string       // export --format
}

// History runs one `evalgate history` command against the store the
// flags or the config name (else the default store).
func (c *Env) History(ctx context.Context, r *HistoryRequest) error {
	cfg, err := c.LoadConfig(r.Config)
	if err != nil {
		return invalid(err)
	}
	set := c.DefaultHistorySettings(cfg, &r.Flags)
	if err := history.Check(set.URL(), set.Getenv); err != nil {
		return invalid(err)
	}
	ctx, cancel := context.WithTimeout(ctx, HistoryTimeout)
	defer cancel()

	if r.Sub == "record" {
		run, err := regression.LoadResults(ctx, r.Arg, "")
		if err != nil {
			return invalid(err)
		}
		where, err := set.Write(ctx, run, set.Meta(ctx))
		if err != nil {
			return storeError(err)
		}
		c.Say(c.Stdout, "history: recorded run %s in %s\n", run.RunID, where)
		return nil
	}
	st, err := set.Open(ctx)
	if err != nil {
		return storeError(err)
	}
	defer st.Close()
	switch r.Sub {
	case "migrate":
		from, err := history.Migrate(ctx, st)
		if err != nil {
			return storeError(err)
		}
		if from == history.SchemaVersion {
			c.Say(c.Stdout, "history: %s is at schema version %d; nothing to do\n", st, from)
		} else {
			c.Say(c.Stdout, "history: migrated %s from schema version %d to %d\n", st, from, history.SchemaVersion)
		}
		return nil
	case "prune":
		if r.Keep < 1 {
			return invalid(errors.New("history prune: expected --keep N, the number of newest records to keep (at least 1)"))
		}
		n, err := st.Prune(ctx, r.Keep, set.Meta(ctx).Repository)
		if err != nil {
			return storeError(err)
		}
		c.Say(c.Stdout, "history: removed %d %s from %s, kept the newest %d\n", n, words.Plural(n, "record", "records"), st, r.Keep)
		return nil
	}

	q := history.Query{Agent: history.AnyAgent}
	switch r.Sub {
	case "list":
		if r.Limit < 1 {
			return invalid(fmt.Errorf("history list: --limit %s: expected a number of records, at least 1", strconv.Itoa(r.Limit)))
		}
		q.Limit = r.Limit
	case "show":
		q.RunID = r.Arg
	case "trend", "flaky":
		q = history.WindowQuery(set.Keep, set.Ref, set.Meta(ctx).Repository, set.AgentID())
	}
	w, err := st.Read(ctx, q)
	if err != nil {
		return storeError(err)
	}
	if msg := w.Warning(); msg != "" {
		c.Say(c.Stderr, "evalgate: warning: %s\n", msg)
	}
	switch r.Sub {
	case "list":
		if len(w.Records) == 0 {
			c.Say(c.Stdout, "history: %s holds no record yet; evalgate run records one with history.record: true, or evalgate history record RESULTS\n", st)
			return nil
		}
		return writeOut(history.WriteList(c.Stdout, w.Records))
	case "show":
		if len(w.Records) == 0 {
			return invalid(fmt.Errorf("history show: %s holds no record of run %q (evalgate history list lists them)", st, r.Arg))
		}
		return writeOut(history.WriteShow(c.Stdout, w.Records[len(w.Records)-1]))
	case "export":
		if err := history.Export(c.Stdout, w.Records, r.Format); err != nil {
			return invalid(err)
		}
		return nil
	}
	if len(w.Records) == 0 {
		c.Say(c.Stdout, "history: %s holds no record of this project's default branch yet\n", st)
		return nil
	}
	if r.Sub == "flaky" {
		return writeOut(history.WriteFlaky(c.Stdout, w.Records))
	}
	if r.Task != "" {
		err = history.WriteTaskTrend(c.Stdout, w.Records, r.Task)
	} else {
		err = history.WriteTrend(c.Stdout, w.Records, r.Suite)
	}
	if err != nil {
		return invalid(err)
	}
	return nil
}

// storeError is the exit of a history command whose store failed: a
// store that could not be reached is exit 3, anything else it refused is
// the input's fault, exit 2.
func storeError(err error) error {
	var usage *history.UsageError
	switch {
	case errors.As(err, &usage), errors.Is(err, history.ErrNotRecorded):
		return invalid(err)
	}
	return runError(err)
}

// writeOut is the exit of a command whose output could not be written.
func writeOut(err error) error {
	if err != nil {
		return runError(err)
	}
	return nil
}

// TrustPreflight is `evalgate trust preflight`: whether agent's newest
// record in the history store is at level or above, for release
// pipelines (docs/history.md). nil yes; ErrGateFailed no (or no record of
// the agent); an Invalid or CannotRun error when the input is bad or the
// store cannot be read.
func (c *Env) TrustPreflight(ctx context.Context, configPath string, f *HistoryFlags, agent string, level int) error {
	cfg, err := c.LoadConfig(configPath)
	if err != nil {
		return invalid(err)
	}
	set := c.DefaultHistorySettings(cfg, f)
	if agent == "" {
		agent = set.AgentID()
	}
	if agent == "" {
		return invalid(errors.New("trust preflight: expected --agent ID, the assessment.agent.id its runs were recorded with (evalgate history list shows them)"))
	}
	if err := history.Check(set.URL(), set.Getenv); err != nil {
		return invalid(err)
	}
	ctx, cancel := context.WithTimeout(ctx, HistoryTimeout)
	defer cancel()
	st, err := set.Open(ctx)
	if err != nil {
		return storeError(err)
	}
	defer st.Close()
	w, err := st.Read(ctx, history.Query{Agent: agent, Limit: 1})
	if err != nil {
		return storeError(err)
	}
	if msg := w.Warning(); msg != "" {
		c.Say(c.Stderr, "evalgate: warning: %s\n", msg)
	}
	name := fmt.Sprintf("TL%d %s", level, trust.Levels[level].Name)
	if len(w.Records) == 0 {
		c.Say(c.Stdout, "trust preflight: no: %s holds no record of agent %q; record its runs (history.record: true) before asking for %s\n", st, agent, name)
		return ErrGateFailed
	}
	rec := w.Records[len(w.Records)-1]
	ok, reasons := history.Preflight(rec, level)
	if ok {
		c.Say(c.Stdout, "trust preflight: yes: agent %q is at TL%d (score %.1f) in run %s of %s, at or above %s\n", agent, rec.Trust.Level, rec.Trust.Score, rec.RunID, recordTime(rec), name)
		return nil
	}
	c.Say(c.Stdout, "trust preflight: no: agent %q is not at %s in its newest run, %s of %s:\n", agent, name, rec.RunID, recordTime(rec))
	for _, r := range reasons {
		c.Say(c.Stdout, "  - %s\n", r)
	}
	return ErrGateFailed
}

func recordTime(rec *history.Record) string { return rec.StartedAt.UTC().Format("2006-01-02 15:04Z") }
