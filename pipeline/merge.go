package pipeline

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
)

// Merge is `evalgate merge`: the last job of a sharded workflow. It merges
// the shards' results.json at paths as if the suites had run whole,
// compares with the baseline, evaluates the gates and writes every output,
// then ends like Run.
func (c *Env) Merge(ctx context.Context, f *Flags, paths []string) error {
	cfg, err := c.LoadConfig(f.Config)
	if err != nil {
		return invalid(err)
	}
	gs, err := compileGates(cfg, f.Gates)
	if err != nil {
		return err
	}
	// The trials of passed tasks are spilled as run spills them, and for
	// the same reason: nothing but results.json reads them. The trust
	// scorecard and the assessment read every trial: with either, the
	// trials stay in memory.
	var spill *results.Spill
	if cfg.Trust == nil && cfg.Assessment == nil {
		if spill, err = results.NewSpill(""); err != nil {
			return runError(err)
		}
		defer spill.Close()
	}
	shards, spans, err := results.ReadShards(ctx, paths, spill)
	if err != nil {
		return invalid(err)
	}
	run, restore, err := c.MergeRuns(shards, paths, spans, spill)
	if err != nil {
		// The files are sound, but they are not the shards of one run:
		// gating on them would judge a run that never happened.
		return runError(err)
	}
	spec := cmp.Or(f.Baseline, cfg.Baseline)
	out := cmp.Or(f.Out, cfg.Out, "evalgate-out")
	release, err := lockOut(out, anotherFolder)
	if err != nil {
		return err
	}
	defer release()
	dir, at := baselineFrom(f.Baseline, cfg)
	baseline, err := c.loadBaseline(ctx, spec, dir, at, out, nil)
	if err != nil {
		return err
	}
	if baseline != nil {
		regression.Compare(baseline.base, run, baseline.opts)
	}
	j := &job{c: c, cfg: cfg, flags: f, out: out, cmp: baseline, restore: restore}
	if err := j.prepareHistory(); err != nil {
		return err
	}
	if cfg.Trust != nil {
		// The shards' scorecards saw a part of the run each: the merged
		// run is scored again, whole.
		if j.trustIn, err = TrustInput(ctx, cfg, nil, configuredGates(gs)); err != nil {
			return invalid(err)
		}
	}
	if err := j.prepareAssessment(nil); err != nil {
		return err
	}
	j.startHistory(ctx)
	j.readHistory()
	j.applyHistory(run)
	if j.trustIn != nil {
		j.trust = scoreTrust(j.trustIn, run, baseline.baseRun())
	}
	j.assessRun(run)
	evaluate(gs, run)

	if err := j.writeMerged(ctx, run); err != nil {
		return runError(err)
	}
	j.recordHistory(ctx, run)
	j.sayAssessment()
	term := report.NewTerminal(report.TerminalOptions{Out: c.Stdout, Color: c.ColorEnabled(f.NoColor), Quiet: f.Quiet})
	for i := range run.Suites {
		term.SuiteDone(&run.Suites[i])
	}
	j.sayTrust()
	return j.conclude(ctx, run, term, runError(errors.New("a shard was interrupted: the results hold only the tasks that finished")))
}

// MergeRuns merges shard results into one run as if it had run whole
// (results.Merge) and computes its figures (gates.AggregateRun): the run
// evalgate would have written.
func (c *Env) MergeRuns(shards []*results.Run, names []string, spans [][][]results.Span, spill *results.Spill) (*results.Run, results.Restore, error) {
	run, restore, err := results.Merge(shards, names, spans, spill)
	if err != nil {
		return nil, nil, err
	}
	run.Tool = results.Tool{Name: "evalgate", Version: c.Version}
	gates.AggregateRun(run)
	return run, restore, nil
}

// writeMerged writes the merged run's events, summaries, results.json,
// scorecard and CI formats into the output folder (created and locked by
// lockOut), the events while the others are written. They are written
// anew, one run per suite, as a whole run would have written them.
func (j *job) writeMerged(ctx context.Context, run *results.Run) error {
	return allAtOnce(func() error {
		f, err := atomicfile.Create(filepath.Join(j.out, eventsFile), 0o644)
		if err != nil {
			return fmt.Errorf("could not write to the output folder %q: %w", j.out, err)
		}
		// Buffered, unlike a run's, whose events are read as they come:
		// a line a write was 200,000 writes.
		bw := bufio.NewWriterSize(f, 256<<10)
		events := report.NewEvents(bw, time.Now, results.NewID)
		for i := range run.Suites {
			s := &run.Suites[i]
			err = errors.Join(err, events.Started(s, s.Modes, len(s.Tasks), j.cmp.runID(s.ID)))
			for k := range s.Tasks {
				err = errors.Join(err, events.Scored(s.RunID, &s.Tasks[k]))
			}
			err = errors.Join(err, events.Completed(s))
		}
		err = errors.Join(err, bw.Flush())
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("could not write events.ndjson: %w", err)
		}
		return nil
	}, func() error { return j.writeOutputs(ctx, run) })
}
