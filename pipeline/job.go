package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/evalgate/evalgate/action"
	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/memtune"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/trust"
)

// job is a run ready to start: everything validated, nothing executed.
type job struct {
	c        *Env
	cfg      *config.Config
	flags    *Flags
	plan     []runner.Planned
	gates    []*gates.Gate
	assess   *runAssessment // the assessment; nil without assessment: (run_assess.go)
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
}

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
	if j.cmp, err = c.loadBaseline(ctx, j.baseline, baselineDir(f.Baseline, j.cfg.Dir), j.out, j.all); err != nil {
		return err
	}
	if j.cfg.Trust != nil {
		if j.trustIn, err = TrustInput(ctx, j.cfg, nil, configuredGates(j.gates)); err != nil {
			return invalid(err)
		}
	}
	return j.execute(ctx)
}

// prepare validates flags, config, suites and gates: every problem here is
// exit 2, found before any agent runs.
func (c *Env) prepare(f *Flags, paths []string) (*job, error) {
	cfg, err := c.LoadConfig(f.Config)
	if err != nil {
		return nil, invalid(err)
	}
	if len(paths) == 0 {
		if err := cfg.CheckSuites(); err != nil {
			return nil, invalid(err)
		}
		paths = cfg.Suites
	}
	if len(paths) == 0 {
		if none := c.NoConfig(cfg); none != "" {
			return nil, invalid(errors.New(none + ", or name the suite files or folders to run"))
		}
		return nil, invalid(fmt.Errorf("no suites to run: pass suite files or folders, or list them under \"suites\" in %s", filepath.ToSlash(cfg.File)))
	}
	if err := c.MaskSecrets(cfg); err != nil {
		return nil, runError(err)
	}
	all, err := suites.LoadWith(memtune.Load, paths...)
	if err != nil {
		c.reportSuiteErrors(err, cmp.Or(f.Out, cfg.Out, "evalgate-out"))
		return nil, invalid(fmt.Errorf("invalid suites:\n%w", err))
	}
	if len(all) == 0 {
		// Every file found was data another suite reads.
		return nil, invalid(fmt.Errorf("no suite files in %s", strings.Join(paths, ", ")))
	}
	gs, err := compileGates(cfg, f.Gates)
	if err != nil {
		return nil, err
	}
	j := &job{c: c, cfg: cfg, flags: f, gates: gs, all: all}
	sel := runner.Selection{Tasks: f.Tasks, Tags: f.Tags, Mode: f.Mode}
	if f.Shard != "" {
		if j.shard, err = parseShard(f.Shard); err != nil {
			return nil, invalid(err)
		}
		sel.Shard = shardFilter(*j.shard)
	}
	if f.Balance != "" {
		if j.shard == nil {
			return nil, invalid(errors.New("--balance goes with --shard i/n: it says how the shards share the tasks"))
		}
		if err := j.balanceShards(all, &sel, f.Balance); err != nil {
			return nil, err
		}
	}
	switch f.Mode {
	case "", "golden", "rubric", "adversarial", "regression", "live-shadow":
	default:
		return nil, invalid(fmt.Errorf("--mode: expected one of golden, rubric, adversarial, regression, live-shadow, got %q", f.Mode))
	}
	j.plan = runner.Plan(all, sel)
	if len(j.plan) == 0 {
		whole := sel
		whole.Shard = nil
		if j.shard == nil || len(runner.Plan(all, whole)) == 0 {
			return nil, invalid(errors.New("no task matches the selection (--task, --tag, --mode, --shard)"))
		}
		// More shards than the tasks fill: this one runs nothing, and
		// says so, rather than failing its matrix job.
		c.Say(c.Stderr, "evalgate: shard %d of %d has no task (the other shards have them all): it runs none\n", j.shard.Index, j.shard.Count)
	}
	if err := c.checkKeys(cfg, j.plan); err != nil {
		return nil, err
	}
	if j.agent, err = c.newAgent(cfg, f); err != nil {
		if none := c.NoConfig(cfg); none != "" && errors.Is(err, errNoAgent) {
			err = fmt.Errorf("%w (%s)", err, none)
		}
		return nil, invalid(err)
	}
	j.out = cmp.Or(f.Out, cfg.Out, "evalgate-out")
	j.baseline = cmp.Or(f.Baseline, cfg.Baseline)
	if err := j.prepareAssessment(all); err != nil {
		return nil, err
	}
	return j, nil
}

// newAgent builds the agent driver: --agent-cmd, else the config's agent.
func (c *Env) newAgent(cfg *config.Config, f *Flags) (runner.Agent, error) {
	a := cfg.Agent
	env := process.ScrubEnv(os.Environ(), judgeKeys(cfg), a.Env)
	withMCP := func(agent runner.Agent) runner.Agent {
		if a.MCP {
			return &runner.MCP{Agent: agent}
		}
		return agent
	}
	switch {
	case f.AgentCmd != "":
		return withMCP(&runner.Exec{Command: []string{"/bin/sh", "-c", f.AgentCmd}, Env: env}), nil
	case len(a.Exec) > 0:
		return withMCP(&runner.Exec{Command: a.Exec, Dir: a.Dir, Env: env}), nil
	case len(a.Plain) > 0:
		return withMCP(&runner.Plain{Command: a.Plain, Dir: a.Dir, Env: env}), nil
	case a.OpenAI != nil:
		return c.newOpenAIAgent(cfg, firstPositive(f.Concurrency, cfg.Concurrency))
	}
	return nil, errNoAgent
}

// errNoAgent is the error of a run with nothing to run.
var errNoAgent = errors.New("no agent to run: pass --agent-cmd, or set agent.exec, agent.plain or agent.openai in evalgate.yaml")

// judgeKeys lists the environment variables holding the judge's and the
// user simulator's credentials, kept from the agent's environment.
func judgeKeys(cfg *config.Config) []string {
	var keys []string
	if cfg.Judge.OpenAI != nil && cfg.Judge.OpenAI.APIKeyEnv != "" {
		keys = append(keys, cfg.Judge.OpenAI.APIKeyEnv)
	}
	if cfg.User.Simulator != nil && cfg.User.Simulator.APIKeyEnv != "" {
		keys = append(keys, cfg.User.Simulator.APIKeyEnv)
	}
	return keys
}

// execute runs the job and writes every output. Only a run that could not
// happen returns exit 3; a failed gate is exit 1 after the report.
func (j *job) execute(ctx context.Context) error {
	obs, closeOutputs, err := j.openOutputs()
	if err != nil {
		return err
	}
	defer closeOutputs()
	// Agents cannot read this process's /proc entries, and what they leave
	// behind is killed when their trial ends and, at the latest, when the
	// trials are over: every process started under pctx (agents, handlers,
	// program checks, judges, agent.health) is ended by release, which then
	// sweeps (docs/security.md).
	pctx, release := process.Contain(ctx)
	defer release()
	if m, ok := j.agent.(*runner.MCP); ok {
		defer memtune.MCP(j.c.Getenv("GOGC"))()
		defer m.Close()
	}
	var guard *action.Guard
	if j.c.InActions() {
		guard = action.GuardRunnerFiles(j.c.Getenv)
	}
	opts := runner.Options{
		Agent:       j.agent,
		Concurrency: firstPositive(j.flags.Concurrency, j.cfg.Concurrency),
		Timeout:     time.Duration(firstPositive(int(j.flags.Timeout), int(j.cfg.Timeout))),
		Trials:      firstPositive(j.flags.Trials, j.cfg.Trials),
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
		return err
	}
	// Program checks run as the agents do: scrubbed environment, own
	// process groups, ended with the run (#18).
	scorer.Programs = judges.NewPrograms(pctx, judges.ProgramOptions{Env: process.ScrubEnv(os.Environ(), judgeKeys(j.cfg), j.cfg.Agent.Env)})
	defer scorer.Programs.Close()

	run := &results.Run{
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
	var tampered error
	if guard != nil {
		tampered = guard.Check()
	}
	run.FinishedAt = time.Now().UTC()
	run.GitSHA = <-sha
	if obs.err != nil {
		return runError(obs.err)
	}
	if runErr != nil && !errors.Is(runErr, runner.ErrInterrupted) {
		// A run that could not happen leaves no outputs, not even the
		// events it had no task to write into.
		_ = os.Remove(filepath.Join(j.out, eventsFile))
		if cr, ok := errors.AsType[*runner.CannotRunError](runErr); ok {
			return j.cannotRun(cr)
		}
		if se, ok := errors.AsType[*process.StartError](runErr); ok {
			return j.notStarted(se)
		}
		return runError(fmt.Errorf("could not run the agent: %w", runErr))
	}
	if err := j.judgeUnavailable(); err != nil {
		return err
	}
	run.Interrupted = errors.Is(runErr, runner.ErrInterrupted)
	j.complete(run, suiteResults, obs)
	j.assessRun(run) // before the gates, which may read it
	if err := j.compare(ctx, run); err != nil {
		return err
	}
	j.trust = scoreTrust(j.trustIn, run, j.cmp.baseRun())
	evaluate(j.gates, run)
	if err := j.writeOutputs(ctx, run); err != nil {
		return runError(err)
	}
	j.sayAssessment()
	if tampered != nil {
		// Nothing is published from a run whose agents reached the runner:
		// the outputs stay in the output folder for a look.
		obs.term.Finish(run)
		return runError(tampered)
	}
	j.sayTrust()
	interrupted := &Error{Outcome: Interrupted, Err: fmt.Errorf("interrupted: the results hold the %d %s that finished; run again for a verdict", run.TaskCount, pluralWord(run.TaskCount, "task", "tasks"))}
	return j.conclude(ctx, run, obs.term, interrupted)
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

// complete fills in what the run's suites and figures are once the runner
// has returned: each suite's run id and model class, repository-relative
// files, the combined stats and the judge.
func (j *job) complete(run *results.Run, suiteResults []results.Suite, obs *observer) {
	for i := range suiteResults {
		suiteResults[i].RunID = obs.runIDs[suiteResults[i].ID]
		suiteResults[i].ModelClass = j.cfg.Agent.ModelClass
	}
	run.Suites = suiteResults
	j.c.repoRelative(run)
	run.Stats = gates.Combine(run.Suites)
	run.Judge = j.judgeInfo()
}

// compileGates returns the gates a run must pass: --gate, else the config's
// gates, else the defaults. A gate that does not compile is exit 2; the
// config's were compiled when it was read, with their place in the file.
func compileGates(cfg *config.Config, flagGates []string) ([]*gates.Gate, error) {
	exprs := cfg.Gates
	if len(flagGates) > 0 {
		exprs = flagGates
	}
	if len(exprs) == 0 {
		return gates.Defaults(), nil
	}
	gs, err := gates.Compile(exprs)
	var errs gates.CompileErrors
	if len(flagGates) > 0 && errors.As(err, &errs) {
		lines := make([]string, len(errs))
		for i, e := range errs {
			lines[i] = "--" + e.Error()
		}
		return nil, invalid(errors.New(strings.Join(lines, "\n")))
	}
	if err != nil {
		return nil, invalid(err)
	}
	return gs, nil
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
