package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalgate/evalgate/action"
	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/memtune"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/otelexport"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/trust"
)

// Run is `evalgate run`: the suites at paths (else the config's) run
// against the agent and gated on. Its steps, in order: Prepare validates
// everything (exit 2 before any agent runs); the output folder is locked;
// the baseline is read; execute runs the trials, scores them, aggregates
// and gates the run, writes the outputs and publishes them.
func (c *Env) Run(ctx context.Context, f *Flags, paths []string) error {
	j, err := c.prepare(f, paths)
	if err != nil {
		return err
	}
	// Locked before anything is written there: a baseline artifact is
	// downloaded into the output folder.
	release, err := lockOut(j.out, anotherFolder)
	if err != nil {
		return err
	}
	defer release()
	dir, at := baselineFrom(f.Baseline, j.cfg)
	if j.cmp, err = c.loadBaseline(ctx, j.baseline, dir, at, j.out, j.all); err != nil {
		return err
	}
	if j.cfg.Trust != nil {
		if j.trustIn, err = TrustInput(ctx, j.cfg, nil, configuredGates(j.gates)); err != nil {
			return invalid(err)
		}
	}
	return j.execute(ctx)
}

// job is a run ready to start: everything validated, nothing executed.
type job struct {
	c        *Env
	cfg      *config.Config
	flags    *Flags
	plan     []runner.Planned
	gates    []*gates.Gate
	assess   *runAssessment // the assessment; nil without assessment: (assess.go)
	agent    runner.Agent
	out      string
	shard    *results.Shard
	baseline string
	judge    *RubricJudge    // set by configureRubric; nil without a judge
	all      []*suites.Suite // every loaded suite, before the selection
	cmp      *comparison     // the baseline; nil without one
	spill    *trialSpill     // the trials of passed tasks during a run; nil in merge
	restore  results.Restore // in merge, the trials left in the shards' files; nil in run
	trustIn  *trust.Input    // what the scorecard reads besides the run; nil without trust:
	trust    *trust.Scorecard
	history  *runHistory          // the history store's window; nil without history (history.go)
	export   *otelexport.Exporter // where the run is sent as a trace; nil when it is not
}

// execute runs the job and writes every output, one step after the
// other (docs/architecture.md): the outputs a run writes as it goes are
// opened; the trials run, each scored as it ends and each task and suite
// aggregated as it completes; the run is aggregated and compared; the
// gates are evaluated; the outputs are written and published. Only a run
// that could not happen returns exit 3; a failed gate is exit 1 after the
// report.
func (j *job) execute(ctx context.Context) error {
	obs, closeOutputs, err := j.openOutputs()
	if err != nil {
		return err
	}
	defer closeOutputs()
	j.startHistory(ctx) // read beside the agents
	run, tampered, err := j.runTrials(ctx, obs)
	if err != nil {
		return err
	}
	if err := j.aggregate(ctx, run); err != nil {
		return err
	}
	evaluate(j.gates, run)
	if err := j.writeOutputs(ctx, run); err != nil {
		return runError(err)
	}
	if tampered == nil {
		j.recordHistory(ctx, run)
	}
	j.exportTrace(ctx, run)
	j.sayAssessment()
	if tampered != nil {
		// Nothing is published from a run whose agents reached the runner:
		// the outputs stay in the output folder for a look.
		obs.term.Finish(run)
		return runError(tampered)
	}
	j.sayTrust()
	interrupted := &Error{Outcome: Interrupted, Err: fmt.Errorf("interrupted: the results hold the %d %s that finished; run again for a verdict", run.TaskCount, words.Plural(run.TaskCount, "task", "tasks"))}
	return j.conclude(ctx, run, obs.term, interrupted)
}

// runTrials runs the plan's trials: the runner drives the agent and
// records each trial, the judges' Scorer scores it, and package gates
// aggregates each task and suite as it completes. Every process the
// trials started has ended when it returns. tampered is non-nil when an
// agent reached the Actions runner's files; err when the run could not
// happen.
func (j *job) runTrials(ctx context.Context, obs *observer) (run *results.Run, tampered, err error) {
	// Agents cannot read this process's /proc entries, and what they leave
	// behind is killed when their trial ends and, at the latest, when the
	// trials are over: every process started under pctx (agents, handlers,
	// program checks, judges, agent.health) is ended by release, which then
	// sweeps (docs/security.md).
	pctx, release := process.Contain(ctx)
	defer release()
	agent := j.agent
	if o, ok := agent.(*runner.OTel); ok {
		defer o.Close()
		defer j.warnUnpriced(o)
		agent = o.Agent
	}
	if m, ok := agent.(*runner.MCP); ok {
		defer memtune.MCP(j.c.Getenv("GOGC"))()
		defer m.Close()
	} else {
		defer memtune.Trials(j.c.Getenv("GOGC"))()
	}
	var guard *action.Guard
	if j.c.InActions() {
		guard = action.GuardRunnerFiles(j.c.Getenv)
	}
	opts := runner.Options{
		Agent:       j.agent,
		Concurrency: cmp.Or(j.flags.Concurrency, j.cfg.Concurrency),
		Timeout:     cmp.Or(j.flags.Timeout, j.cfg.Timeout),
		Trials:      cmp.Or(j.flags.Trials, j.cfg.Trials),
		Mode:        j.flags.Mode,
		Canary:      "EVALGATE-CANARY-" + results.NewID(),
		Observer:    obs,
		Redact:      j.c.secrets,
		HandlerEnv:  process.ScrubEnv(os.Environ(), judgeKeys(j.cfg), j.cfg.Agent.Env),
	}
	scorer := &judges.Scorer{Canary: opts.Canary, HandlerEnv: opts.HandlerEnv}
	if j.cfg.Trust != nil {
		scorer.MaxRepeats = j.cfg.Trust.MaxRepeats
	}
	opts.Scorer = scoring{scorer}
	if us := j.cfg.User.Simulator; us != nil {
		opts.Simulator = &runner.Simulator{
			Model: &runner.OpenAI{BaseURL: us.BaseURL, Model: us.Model, APIKey: apiKey(j.c, us.APIKeyEnv), Pricing: us.Pricing,
				Client: runner.NewHTTPClient(opts.Concurrency), Redact: j.c.secrets},
			CacheDir: j.cfg.Path(runner.DefaultSimulatorCacheDir),
			CacheKey: j.c.simulatorCacheKey(j.cfg),
		}
	}
	if err := j.configureJudging(scorer, opts.Timeout); err != nil {
		return nil, nil, err
	}
	// Program checks run as the agents do: scrubbed environment, own
	// process groups, ended with the run (#18).
	scorer.Programs = judges.NewPrograms(pctx, judges.ProgramOptions{Env: process.ScrubEnv(os.Environ(), judgeKeys(j.cfg), j.cfg.Agent.Env)})
	defer scorer.Programs.Close()

	run = &results.Run{
		Schema:    results.Schema,
		RunID:     results.NewID(),
		Tool:      results.Tool{Name: "evalgate", Version: j.c.Version},
		StartedAt: time.Now().UTC(),
		Shard:     j.shard,
		Selection: j.flags.selection(),
	}
	// Asking git for the commit starts a process: it runs beside the agents
	// rather than before the first one.
	sha := make(chan string, 1)
	go func() { sha <- gitSHA(j.c.Getenv) }()
	run.Health = j.checkHealth(pctx)
	stopBeat := j.c.heartbeat(obs.term)
	suiteResults, runErr := runner.Run(pctx, j.plan, opts)
	stopBeat()
	scorer.Programs.Close()
	release() // nothing an agent or a check started runs past this point
	if guard != nil {
		tampered = guard.Check()
	}
	run.FinishedAt = time.Now().UTC()
	run.GitSHA = <-sha
	if obs.err != nil {
		return nil, nil, runError(obs.err)
	}
	if runErr != nil && !errors.Is(runErr, runner.ErrInterrupted) {
		// A run that could not happen leaves no outputs, not even the
		// events it had no task to write into.
		_ = os.Remove(filepath.Join(j.out, eventsFile))
		if cr, ok := errors.AsType[*runner.CannotRunError](runErr); ok {
			return nil, nil, j.cannotRun(cr)
		}
		if se, ok := errors.AsType[*process.StartError](runErr); ok {
			return nil, nil, j.notStarted(se)
		}
		return nil, nil, runError(fmt.Errorf("could not run the agent: %w", runErr))
	}
	if err := j.judgeUnavailable(); err != nil {
		return nil, nil, err
	}
	run.Interrupted = errors.Is(runErr, runner.ErrInterrupted)
	j.complete(run, suiteResults, obs)
	return run, tampered, nil
}

// aggregate computes what the run is judged by besides its suites: the
// combined figures, the judge, the assessment, the comparison with the
// baseline and the trust scorecard.
func (j *job) aggregate(ctx context.Context, run *results.Run) error {
	run.Stats = gates.Combine(run.Suites)
	run.Judge = j.judgeInfo()
	j.readHistory()
	j.assessRun(run) // before the gates, which may read it
	if err := j.compare(ctx, run); err != nil {
		return err
	}
	j.applyHistory(run) // after the comparison: its new failures are labelled
	j.trust = scoreTrust(j.trustIn, run, j.cmp.baseRun())
	return nil
}

// evaluate runs the gates over a finished run: it passes when every gate
// holds and nothing was cut short.
func evaluate(gs []*gates.Gate, run *results.Run) {
	run.Gates = gates.Evaluate(gs, run)
	run.Passed = !run.Interrupted
	for _, g := range run.Gates {
		run.Passed = run.Passed && g.Passed
	}
}

// writeOutputs writes the content-free outputs of a finished run. The
// summaries, results.json and the CI formats are written at the same
// time: each only reads the run, and one after the other they were most
// of the time of a merge of 200,000 tasks (#19).
func (j *job) writeOutputs(ctx context.Context, run *results.Run) error {
	restore := j.restore
	if j.spill != nil {
		restore = j.spill.Restore
	}
	err := allAtOnce(
		func() error {
			for i := range run.Suites {
				if err := report.WriteSummary(filepath.Join(j.out, "summaries"), &run.Suites[i], j.cfg.Agent.ModelClass); err != nil {
					return fmt.Errorf("could not write the summary of %s: %w", run.Suites[i].ID, err)
				}
			}
			return nil
		},
		func() error { return results.WriteRestoring(filepath.Join(j.out, "results.json"), run, restore) },
		func() error { return j.writeExtraOutputs(ctx, run) },
	)
	if err != nil {
		return err
	}
	return j.writeAssessmentOutputs()
}

// conclude ends a run whose outputs are written: the end of the terminal
// report, the GitHub publication, and the exit (interrupted when the run was
// cut short, 1 when a gate failed).
func (j *job) conclude(ctx context.Context, run *results.Run, term *report.Terminal, interrupted error) error {
	term.Finish(run)
	if !j.flags.NoPublish {
		if err := j.c.Publish(ctx, run, j.out, j.cfg); err != nil {
			return runError(err)
		}
	}
	if run.Interrupted {
		return interrupted
	}
	if !run.Passed {
		return ErrGateFailed
	}
	return nil
}

// heartbeatTick is how often a run in CI asks its terminal whether the log
// has been silent for report.HeartbeatSilence.
const heartbeatTick = time.Second

// heartbeat prints the progress line of a run in a CI log when the log has
// had no line for report.HeartbeatSilence, until stop is called: a long run
// with slow tasks shows it is alive between its suite lines, and a log with
// suite lines coming stays as it is. On a terminal the live line does that;
// with --quiet nothing is printed.
func (c *Env) heartbeat(term *report.Terminal) (stop func()) {
	start := c.Tick
	if start == nil {
		start = func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		}
	}
	ticks, stopTicks := start(heartbeatTick)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case now := <-ticks:
				term.Heartbeat(now)
			case <-done:
				return
			}
		}
	}()
	return func() {
		stopTicks()
		close(done)
		<-finished
	}
}

// scoring is the run's runner.Scorer: the embedded judges.Scorer scores
// each trial, package gates aggregates tasks and suites.
type scoring struct{ *judges.Scorer }

func (scoring) AggregateTask(t *results.Task)   { gates.AggregateTask(t) }
func (scoring) AggregateSuite(s *results.Suite) { gates.AggregateSuite(s) }

// plannedTasks counts the tasks of a plan.
func plannedTasks(plan []runner.Planned) int {
	n := 0
	for _, p := range plan {
		n += len(p.Tasks)
	}
	return n
}

// eventsFile is the live event stream in the output folder.
const eventsFile = "events.ndjson"

// openOutputs creates, in the output folder (created and locked by
// lockOut), what the run writes while it goes: the event stream, the
// terminal report and the trial spill, all fed by the observer it returns.
// closeAll closes them.
func (j *job) openOutputs() (obs *observer, closeAll func(), err error) {
	c := j.c
	events, err := atomicfile.Create(filepath.Join(j.out, eventsFile), 0o644)
	if err != nil {
		return nil, nil, runError(fmt.Errorf("could not write to the output folder %q: %w", j.out, err))
	}
	termOpts := report.TerminalOptions{
		Out:   c.Stdout,
		Color: c.ColorEnabled(j.flags.NoColor),
		Live:  c.isTerminal() && c.Getenv("CI") == "",
		Quiet: j.flags.Quiet,
		Tasks: plannedTasks(j.plan),
	}
	if j.flags.Transcripts {
		termOpts.Transcripts = filepath.Join(j.out, "transcripts")
	}
	// The assessment reads every trial of every task (consistency, tool
	// use): with assessment: the trials stay in memory.
	if j.cfg.Assessment == nil {
		if j.spill, err = newTrialSpill(j.out); err != nil {
			events.Close()
			return nil, nil, runError(err)
		}
	}
	obs = &observer{
		term:        report.NewTerminal(termOpts),
		events:      report.NewEvents(events, time.Now, results.NewID),
		transcripts: j.flags.Transcripts,
		out:         j.out,
		cmp:         j.cmp,
		spill:       j.spill,
		secrets:     c.secrets,
		export:      j.export,
	}
	if c.explains(j.flags, j.cfg) {
		obs.explain = &explainer{term: obs.term, secrets: c.secrets, pending: map[[2]string]*explained{}}
	}
	if j.trustIn != nil {
		obs.tally = trust.NewTally()
		j.trustIn.Tally = obs.tally
	}
	return obs, func() {
		j.spill.Close()
		events.Close()
	}, nil
}

// complete fills in what the run's suites are once the runner has
// returned: each suite's run id and model class, repository-relative
// files.
func (j *job) complete(run *results.Run, suiteResults []results.Suite, obs *observer) {
	for i := range suiteResults {
		suiteResults[i].RunID = obs.runIDs[suiteResults[i].ID]
		suiteResults[i].ModelClass = j.cfg.Agent.ModelClass
	}
	run.Suites = suiteResults
	j.c.repoRelative(run)
}

// allAtOnce calls every function at the same time, and returns the error
// of the first one, in the order given, that failed: the one a call after
// the other would have returned.
func allAtOnce(fns ...func() error) error {
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = fn() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// gitSHA is the commit under test: GITHUB_SHA in Actions, else HEAD.
func gitSHA(getenv func(string) string) string {
	if s := getenv("GITHUB_SHA"); s != "" {
		return s
	}
	return gitOutput("rev-parse", "HEAD")
}

// gitTimeout bounds one git command: what evalgate asks git is local and
// quick, and a git that hangs (a lock, a network file system) must not
// hold up the run or its outputs.
const gitTimeout = 10 * time.Second

// gitOutput runs git with args in the working directory and returns its output
// without the trailing newline; "" when git is missing, fails or takes
// longer than gitTimeout. It is not tied to the run's context: an
// interrupted run still names its commit and repository-relative paths in
// what it writes.
func gitOutput(args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	var out bytes.Buffer
	p, err := process.Run(ctx, process.Spec{Command: append([]string{"git"}, args...), Env: os.Environ()}, &out)
	if err != nil || !p.Success() {
		return ""
	}
	return strings.TrimSpace(out.String())
}

// warnUnpriced says which models' calls, reported through OpenTelemetry by
// agents that sent no usage line, had tokens no pricing entry prices:
// their cost counted as 0, which a cost gate would pass.
func (j *job) warnUnpriced(o *runner.OTel) {
	models := o.Unpriced()
	if len(models) == 0 {
		return
	}
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = strconv.Quote(cmp.Or(m, "(no model named)"))
	}
	j.c.Say(j.c.Stderr, "evalgate: warning: the agent's spans reported tokens of %s, which evalgate.yaml's pricing does not price: their cost counted as 0. "+
		"Add the %s under pricing: {MODEL: {inputPerMTok, outputPerMTok}} (docs/otel.md)\n",
		strings.Join(names, ", "), words.Plural(len(models), "model", "models"))
}

// exportTrace sends the run as a trace when it is exported; a collector
// that does not take it is a warning, never a changed verdict.
func (j *job) exportTrace(ctx context.Context, run *results.Run) {
	if j.export == nil {
		return
	}
	if err := j.export.Export(ctx, run); err != nil {
		j.c.Say(j.c.Stderr, "evalgate: warning: %v; the verdict does not depend on it\n", err)
	}
	if n := j.export.Dropped(); n > 0 {
		j.c.Say(j.c.Stderr, "evalgate: warning: %d %s of the run's trace not sent: over the %d a run sends (docs/otel.md)\n", n, words.Plural(n, "span", "spans"), otelexport.MaxSpans)
	}
}
