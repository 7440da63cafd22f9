package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

// DefaultTimeout is the per-trial budget when neither the task, the flag nor
// the config sets one.
const DefaultTimeout = 120 * time.Second

// Options configure a run.
type Options struct {
	Agent       Agent
	Concurrency int           // agents running at once; 8 when 0
	Timeout     time.Duration // per trial unless the task sets timeoutMs
	Trials      int           // when > 0, overrides every suite's trials
	Mode        string        // when set, the mode every task runs in
	Canary      string        // the per-run canary planted where fixtures say {{canary}}
	// Scorer scores each trial whose agent answered and aggregates the
	// results of tasks and suites; required.
	Scorer Scorer
	// Observer receives progress and results as they finish; may be nil.
	Observer Observer
	// Redact keeps credentials out of a trial's error, in its result
	// (results.json, events, the terminal) and its record (transcripts);
	// nil redacts URL passwords only. An API server may echo the key it
	// was sent into the error it answers.
	Redact *redact.Redactor
	// HandlerEnv is the whole environment of the fixtures' handler
	// programs, the agents' scrubbed one; nil scrubs this process's.
	HandlerEnv []string
	// Simulator plays the user of open conversations (task user); a trial
	// of such a task fails with kind user-simulator when it is nil.
	Simulator UserSimulator
}

// Scorer turns what the runner records into scores and verdicts. The
// pipeline's scores each trial with judges.Scorer and aggregates with
// package gates (docs/architecture.md).
type Scorer interface {
	// Score scores a trial whose agent answered, on the worker that ran
	// it; it may be called from several goroutines at once.
	Score(ctx context.Context, t *judges.Trial)
	// AggregateTask folds a finished task's trials, t.Trials, into its
	// figures and verdict.
	AggregateTask(t *results.Task)
	// AggregateSuite computes a completed suite's figures and verdict
	// from its tasks.
	AggregateSuite(s *results.Suite)
}

// Observer is told what happens during a run. Trial may be called from
// several goroutines at once; the other methods are called one at a time,
// and SuiteStarted, TaskScored and SuiteCompleted come in suite order
// whatever the concurrency, so streamed outputs are deterministic.
//
// Only Trial is called before a trial has shown that the agent runs at
// all: the tasks that finish before then are held back and reported
// together, so a run stopped with a CannotRunError reports no task, no
// suite and no progress.
type Observer interface {
	// Trial receives the content of a finished trial (for transcripts).
	Trial(s *suites.Suite, t *suites.Task, tr *TrialRecord)
	// Progress is called after tasks finish, in completion order; done
	// only grows, though it may skip the tasks that were held back.
	Progress(done, total, passed, failed, errored int)
	SuiteStarted(s *results.Suite, taskCount int)
	TaskScored(s *results.Suite, t *results.Task)
	SuiteCompleted(s *results.Suite)
}

// TrialRecord is everything one trial produced, content included. It is
// handed to the Observer and then dropped: results keep only Result.
type TrialRecord struct {
	Trial   int
	Start   time.Time // when the agent started
	Mode    string
	Input   json.RawMessage
	Output  json.RawMessage
	Replies []json.RawMessage // a conversation's replies before the final output
	// ReplyCalls is how many tool calls were made before each reply.
	ReplyCalls []int
	// State is the task's world at the end of the trial; nil without one.
	State json.RawMessage
	Trace []fixtures.Call
	// Spans is what the agent sent through OpenTelemetry; nil when the
	// run did not receive it.
	Spans   *traces.Trace
	Usage   Usage
	Err     *AgentError
	Stderr  []byte
	Reasons map[string]string // check id -> judge reason
	// Judges are the judge calls its scoring made, content-free, for the
	// run's trace; results.json does not hold them (docs/otel.md).
	Judges []results.JudgeCall
	Result results.Trial

	// InitialState and GoldState are the world at the trial's start and
	// the one the task's goldCalls leave, when the trial was scored; nil
	// without them.
	InitialState, GoldState json.RawMessage
}

// Selection chooses the tasks of a run.
type Selection struct {
	Tasks []string // task ids; empty = all
	Tags  []string // task or suite tags; empty = all
	Mode  string   // only suites declaring this mode
	Shard func(suiteID, taskID string) bool
}

// Planned is a suite with the tasks selected to run.
type Planned struct {
	Suite *suites.Suite
	Tasks []*suites.TaskRef
}

// Plan applies the selection to the loaded suites, keeping suite and task
// order. Suites left with no task are dropped.
func Plan(all []*suites.Suite, sel Selection) []Planned {
	var out []Planned
	for _, s := range all {
		if sel.Mode != "" && !s.HasMode(sel.Mode) {
			continue
		}
		p := Planned{Suite: s}
		for _, t := range s.Tasks {
			if len(sel.Tasks) > 0 && !slices.Contains(sel.Tasks, t.ID) {
				continue
			}
			if len(sel.Tags) > 0 && !anyIn(sel.Tags, t.Tags) && !anyIn(sel.Tags, s.Tags) {
				continue
			}
			if sel.Shard != nil && !sel.Shard(s.ID, t.ID) {
				continue
			}
			p.Tasks = append(p.Tasks, t)
		}
		if len(p.Tasks) > 0 {
			out = append(out, p)
		}
	}
	return out
}

func anyIn(want, have []string) bool {
	for _, w := range want {
		if slices.Contains(have, w) {
			return true
		}
	}
	return false
}

// ErrInterrupted is returned with the partial results of a run stopped by
// its context (Ctrl-C): only the tasks that finished are in them.
var ErrInterrupted = errors.New("run interrupted")

// silentTasks is how many tasks, at most, decide that an agent never
// speaks: the first ones of the run in plan order.
const silentTasks = 3

// CannotRunError stops a run whose agent never spoke (#10): the first
// trials of the first tasks of the run in plan order, min(3, planned
// tasks) of them, all ended by a failure of the agent before it wrote
// anything on stdout (a command not found, a missing script, an
// interpreter error), and no trial had shown that the agent runs. Such an
// agent is not failing its tasks: it cannot run, and no task could tell
// more. Tasks rather than trials decide, so one task that crashes the
// agent in each of its trials cannot stop a run with more tasks; and the
// first ones in plan order rather than the first to finish, so a task
// whose crash is quick does not outrun the agent's slower successes.
type CannotRunError struct {
	Tasks  int    // the tasks whose first trial ended so
	Exit   string // how the first of them ended: "exit status 127"
	Stderr []byte // what it wrote on stderr, as kept (bounded); not content-free
}

func (e *CannotRunError) Error() string {
	if e.Tasks == 1 {
		return fmt.Sprintf("the agent cannot run: it ended with %s before writing a line", e.Exit)
	}
	return fmt.Sprintf("the agent cannot run: on each of the first %d tasks it ended before writing a line, the first time with %s", e.Tasks, e.Exit)
}

// Run executes every planned task trial with a bounded pool of agents and
// returns one result per suite, in plan order. The error is nil, an agent
// that could not start or a *CannotRunError (the run stops: the trials
// still running are killed and nothing more is reported), or
// ErrInterrupted.
func Run(ctx context.Context, plan []Planned, opts Options) ([]results.Suite, error) {
	r := newRun(plan, opts)
	err := r.execute(ctx)
	return r.suites, err
}

type taskSlot struct {
	suite   int
	task    *suites.TaskRef
	n       int // trials to run
	trials  []results.Trial
	same    []string // per trial, its verdict and canonical output, for Task.Idempotent; never written
	left    atomic.Int32
	result  *results.Task // set when done; dropped once the suite holds it
	done    bool
	dropped bool // a trial was cancelled: the task is not reported
}

type run struct {
	plan   []Planned
	opts   Options
	slots  []*taskSlot // every selected task, in plan order
	suites []results.Suite

	mu       sync.Mutex // guards the fields below and serializes the Observer
	cursor   int
	finished int
	passed   int
	failed   int
	errored  int
	started  []bool
	silence  silence
}

// silence watches the first trials of a run for an agent that never
// speaks; see CannotRunError.
type silence struct {
	first int  // the tasks whose first trial decides: min(silentTasks, planned tasks)
	mute  int  // how many of those trials were mute
	heard bool // a trial showed that the agent runs: nothing is held back
	// The mute deciding trial earliest in plan order.
	task   int
	exit   string
	stderr []byte
}

func newRun(plan []Planned, opts Options) *run {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	r := &run{plan: plan, opts: opts, started: make([]bool, len(plan))}
	r.suites = make([]results.Suite, len(plan))
	for i, p := range plan {
		r.suites[i] = suiteHeader(p.Suite, r.trials(p.Suite))
		r.suites[i].Tasks = make([]results.Task, 0, len(p.Tasks))
		for _, t := range p.Tasks {
			n := r.trials(p.Suite)
			s := &taskSlot{suite: i, task: t, n: n}
			s.left.Store(int32(n))
			r.slots = append(r.slots, s)
		}
	}
	r.silence.first = min(silentTasks, len(r.slots))
	return r
}

func (r *run) trials(s *suites.Suite) int {
	switch {
	case r.opts.Trials > 0:
		return r.opts.Trials
	case s.Trials > 0:
		return s.Trials
	}
	return 1
}

func suiteHeader(s *suites.Suite, trials int) results.Suite {
	th := results.Thresholds{PassScore: 1, MaxCostUsd: s.Thresholds.MaxCostUsd, MaxP95LatencyMs: s.Thresholds.MaxP95LatencyMs}
	if s.Thresholds.PassScore != nil {
		th.PassScore = *s.Thresholds.PassScore
	}
	var tools *results.SuiteTools
	if len(s.Tools) > 0 {
		tools = &results.SuiteTools{Declared: len(s.Tools)}
		for _, t := range s.Tools {
			if t.InputSchema != nil {
				tools.WithSchema++
			}
			if t.SideEffect {
				tools.SideEffect++
			}
		}
	}
	return results.Suite{
		Tools:      tools,
		ID:         s.ID,
		Version:    s.Version,
		File:       s.Path,
		Modes:      s.Modes,
		Trials:     trials,
		Thresholds: th,
		Tasks:      []results.Task{},
	}
}

// execute runs every task's trials, Concurrency at a time, on as many
// workers: each runs one trial after another, so the stack it grew to
// what a trial takes (starting the agent, the checks) is grown once, not
// again for every trial as on a goroutine of its own.
func (r *run) execute(ctx context.Context) error {
	type job struct {
		ti, trial int
		slot      *taskSlot
	}
	g, gctx := errgroup.WithContext(ctx)
	var fatal error
	var fatalOnce sync.Once
	do := func(j job) error {
		slot, trial := j.slot, j.trial
		p := r.plan[slot.suite]
		res, out, err := r.trial(gctx, p.Suite, slot.task, trial)
		if err == nil {
			err = r.heard(j.ti, trial, &res, out)
		}
		if err != nil {
			// The group's context ends: the other trials are
			// killed and no more start.
			fatalOnce.Do(func() { fatal = err })
			return err
		}
		slot.trials[trial-1] = res
		if slot.same != nil {
			slot.same[trial-1] = sameKey(&res, out)
		}
		if slot.left.Add(-1) == 0 {
			r.taskDone(slot)
		}
		return nil
	}
	total := 0
	for _, slot := range r.slots {
		total += slot.n
	}
	jobs := make(chan job) // handed over when a worker is free, as errgroup's limit did
	for range min(r.opts.Concurrency, total) {
		g.Go(func() error {
			for j := range jobs {
				if err := do(j); err != nil {
					return err
				}
			}
			return nil
		})
	}
dispatch:
	for ti, slot := range r.slots {
		// A slot's trials are allocated as it is dispatched, so only the
		// tasks in flight hold them (#6).
		slot.trials = make([]results.Trial, slot.n)
		if slot.n > 1 {
			slot.same = make([]string, slot.n)
		}
		for trial := 1; trial <= slot.n; trial++ {
			if gctx.Err() != nil {
				break dispatch
			}
			select {
			case jobs <- job{ti, trial, slot}:
			case <-gctx.Done():
				break dispatch
			}
		}
	}
	close(jobs)
	_ = g.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if fatal != nil {
		// The run could not happen: no suite is completed, so nothing
		// reads as a verdict on the tasks that never ran.
		return fatal
	}
	r.silence.heard = true // an interrupted run reports what finished
	r.flush(true)
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	return nil
}

// heard watches a finished trial, trial n of the task at index task in
// plan order, for an agent that never speaks. It returns a
// *CannotRunError when the deciding trials were all mute; a trial that was
// not ends the watch and releases the tasks held back.
func (r *run) heard(task, n int, res *results.Trial, out *Outcome) error {
	if res.ErrorKind == results.ErrCancelled {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w := &r.silence
	switch {
	case w.heard:
		return nil
	case out.Mute == "":
		w.heard = true
		if r.opts.Observer != nil && r.finished > 0 {
			r.opts.Observer.Progress(r.finished, len(r.slots), r.passed, r.failed, r.errored)
		}
		r.flush(false)
		return nil
	case n != 1 || task >= w.first:
		return nil
	}
	if w.mute == 0 || task < w.task {
		w.task, w.exit, w.stderr = task, out.Mute, out.Stderr
	}
	w.mute++
	if w.mute < w.first {
		return nil
	}
	return &CannotRunError{Tasks: w.first, Exit: w.exit, Stderr: w.stderr}
}

// taskDone aggregates a finished task and emits whatever is now ready in
// plan order.
func (r *run) taskDone(slot *taskSlot) {
	for _, tr := range slot.trials {
		if tr.ErrorKind == results.ErrCancelled {
			slot.dropped = true
		}
	}
	p := r.plan[slot.suite]
	if !slot.dropped {
		res := taskRecord(p.Suite, slot.task, slot.trials)
		r.opts.Scorer.AggregateTask(&res)
		res.Idempotent = idempotent(slot.same)
		slot.result = &res
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	slot.done = true
	if !slot.dropped {
		r.finished++
		switch slot.result.Status {
		case results.StatusPassed:
			r.passed++
		case results.StatusFailed:
			r.failed++
		default:
			r.errored++
		}
		if r.opts.Observer != nil && r.silence.heard {
			r.opts.Observer.Progress(r.finished, len(r.slots), r.passed, r.failed, r.errored)
		}
	}
	r.flush(false)
}

// flush emits, in plan order, every finished task the cursor can reach and
// completes the suites behind it. At the end of the run (final) tasks that
// never finished are skipped so the suites still complete. Nothing is
// emitted before a trial has shown that the agent runs. r.mu is held.
func (r *run) flush(final bool) {
	if !r.silence.heard {
		return
	}
	for r.cursor < len(r.slots) {
		slot := r.slots[r.cursor]
		if !slot.done && !final {
			return
		}
		si := slot.suite
		sr := &r.suites[si]
		if !r.started[si] {
			r.started[si] = true
			if r.opts.Observer != nil {
				r.opts.Observer.SuiteStarted(sr, len(r.plan[si].Tasks))
			}
		}
		if slot.done && !slot.dropped {
			sr.Tasks = append(sr.Tasks, *slot.result)
			if r.opts.Observer != nil {
				r.opts.Observer.TaskScored(sr, &sr.Tasks[len(sr.Tasks)-1])
			}
		}
		// The suite's list holds the result now: the slot goes, so memory
		// holds one row per task, not two (#6). The dispatch loop read this
		// slot before it started the trials that led here.
		slot.result, slot.trials, slot.same = nil, nil, nil
		r.slots[r.cursor] = nil
		r.cursor++
		if r.cursor == len(r.slots) || r.slots[r.cursor].suite != si {
			r.completeSuite(si)
		}
	}
}

func (r *run) completeSuite(i int) {
	sr := &r.suites[i]
	r.opts.Scorer.AggregateSuite(sr)
	if r.opts.Observer != nil {
		r.opts.Observer.SuiteCompleted(sr)
	}
}

// mode is the mode a task runs in: the requested one, else adversarial for
// a task with an adversarial block in a suite that declares the mode, else
// the task's kind when declared, else the suite's first mode.
func (r *run) mode(s *suites.Suite, t *suites.Task) string {
	switch {
	case r.opts.Mode != "":
		return r.opts.Mode
	case t.Adversarial != nil && s.HasMode("adversarial"):
		return "adversarial"
	case s.HasMode(t.Expected.Kind):
		return t.Expected.Kind
	}
	return s.Modes[0]
}

// trial runs one task trial and returns its result and what the agent
// did. The error is non-nil only when the agent could not be started at
// all.
func (r *run) trial(ctx context.Context, s *suites.Suite, ref *suites.TaskRef, n int) (results.Trial, *Outcome, error) {
	// Tasks of large suites are kept compact; this trial decodes its own
	// copy and drops it when done.
	t, err := s.Full(ref)
	if err != nil {
		return results.Trial{}, nil, err
	}
	req, sess := r.request(s, t, n)
	tctx, cancel := context.WithTimeout(ctx, req.Timeout)
	start := time.Now()
	out := r.opts.Agent.Run(tctx, req, sess)
	latency := time.Since(start)
	sess.Close()
	cancel()
	if out.Fatal != nil {
		return results.Trial{}, nil, out.Fatal
	}
	rec := &TrialRecord{
		Trial:      n,
		Start:      start,
		Mode:       req.Mode,
		Input:      t.Input,
		Output:     out.Output,
		Replies:    out.Replies,
		ReplyCalls: out.ReplyCalls,
		State:      sess.State(),
		Trace:      sess.Trace(),
		Spans:      out.Spans,
		Usage:      out.Usage,
		Err:        out.Err,
		Stderr:     out.Stderr,
	}
	if len(rec.Trace) == 0 && out.Spans != nil {
		// An agent whose tools live inside it: its execute_tool spans are
		// its tool calls (docs/otel.md).
		rec.Trace = out.Spans.ToolCalls(uint64(start.UnixNano()))
	}
	res := results.Trial{
		Trial:        n,
		LatencyMs:    latency.Milliseconds(),
		AgentCostUsd: out.Usage.CostUsd,
		Tokens:       results.Tokens{Input: out.Usage.InputTokens, Output: out.Usage.OutputTokens},
		ToolCalls:    len(rec.Trace),
		Tools:        toolUse(rec.Trace, s.Tools, s.TaskFixtures(t)),
		Checks:       []results.Check{},
		Findings:     sess.Findings(),

		LinesAfterFinal: out.LinesAfterFinal,
		UsageReported:   out.Usage.Reported,
	}
	if req.sim != nil {
		res.UserCostUsd = req.sim.usage.CostUsd
	}
	if out.Spans != nil {
		res.Spans = out.Spans.Summary()
	}
	switch {
	case out.Err != nil && ctx.Err() != nil:
		res.Status, res.ErrorKind = results.StatusError, results.ErrCancelled
	case out.Err != nil:
		res.Status, res.ErrorKind, res.ErrorMessage = results.StatusError, out.Err.Kind, out.Err.Message
	case sess.Failed():
		res.Status, res.ErrorKind = results.StatusError, results.ErrUnmatchedTool
		res.ErrorMessage = "a tool call had no fixture, and the fixtures say onUnmatched: fail"
	case sess.HandlerError() != nil:
		he := sess.HandlerError()
		res.Status, res.ErrorKind, res.ErrorMessage = results.StatusError, results.ErrHandler, he.Error()
		rec.Err = &AgentError{Kind: results.ErrHandler, Message: he.Error(), Detail: he.Detail}
	case sess.WorldError() != nil:
		res.Status, res.ErrorKind, res.ErrorMessage = results.StatusError, results.ErrWorldTooLarge, sess.WorldError().Error()
	default:
		r.score(ctx, s, t, req, sess, rec, &res)
	}
	res.ErrorMessage = r.opts.Redact.String(res.ErrorMessage)
	if rec.Err != nil {
		rec.Err = &AgentError{Kind: rec.Err.Kind, Message: r.opts.Redact.String(rec.Err.Message), Detail: r.opts.Redact.String(rec.Err.Detail)}
	}
	rec.Result = res
	if r.opts.Observer != nil && res.ErrorKind != results.ErrCancelled {
		r.opts.Observer.Trial(s, t, rec)
	}
	return res, out, nil
}

// request is what the agent is asked in trial n of task t, and the fixture
// session that answers its tool calls.
func (r *run) request(s *suites.Suite, t *suites.Task, n int) (*Request, *fixtures.Session) {
	timeout := r.opts.Timeout
	if t.TimeoutMs > 0 {
		timeout = time.Duration(t.TimeoutMs) * time.Millisecond
	}
	mode := r.mode(s, t)
	live := mode == "live-shadow"
	sess := fixtures.NewSession(s.TaskFixtures(t), fixtures.Options{
		Live:        live,
		Canary:      r.opts.Canary,
		Tools:       s.Tools,
		ToolTimeout: time.Duration(t.ToolTimeoutMs) * time.Millisecond,
		Handlers:    fixtures.Handlers{Dir: filepath.Dir(s.Path), Env: r.opts.HandlerEnv, Timeout: timeout},
	})
	req := &Request{
		SuiteID: s.ID,
		TaskID:  t.ID,
		Trial:   n,
		Mode:    mode,
		Input:   t.Input,
		Tools:   s.Tools,
		Timeout: timeout,
	}
	for _, turn := range t.Turns {
		req.Turns = append(req.Turns, turn.User)
	}
	if t.User != nil {
		req.sim = &simulation{sim: r.opts.Simulator, user: t.User}
	}
	if !live {
		req.Memory = t.Fixtures.MemorySeed
	}
	return req, sess
}

// score hands a trial whose agent answered to the run's scorer, and
// records what it adds to the trial's record: the world at the start and
// the one the gold calls leave, the judge's reasons, and what the judge
// said when it decided nothing.
func (r *run) score(ctx context.Context, s *suites.Suite, t *suites.Task, req *Request, sess *fixtures.Session, rec *TrialRecord, res *results.Trial) {
	jt := &judges.Trial{
		Suite:   s,
		Task:    t,
		Mode:    req.Mode,
		Timeout: req.Timeout,
		Session: sess,
		Obs: judges.Observation{
			Input:     t.Input,
			Output:    rec.Output,
			Trace:     rec.Trace,
			Spans:     rec.Spans,
			LatencyMs: res.LatencyMs,
			CostUsd:   rec.Usage.CostUsd,
			Vars:      t.Vars,

			State:        rec.State,
			InitialState: sess.InitialState(),
			Replies:      rec.Replies,
			ReplyCalls:   rec.ReplyCalls,
		},
		Result: res,
	}
	r.opts.Scorer.Score(ctx, jt)
	rec.InitialState, rec.GoldState = jt.Obs.InitialState, jt.Obs.GoldState
	rec.Reasons = jt.Reasons
	rec.Judges = jt.Judges
	if jt.JudgeErr != nil && rec.Err == nil {
		rec.Err = &AgentError{Kind: results.ErrJudge, Message: res.ErrorMessage, Detail: jt.JudgeErr.Error()}
	}
}

// sameKey is what two trials of a task must share to count as identical:
// the verdict and the canonical output. It lives only while the task runs.
func sameKey(res *results.Trial, out *Outcome) string {
	key := res.Status
	if out != nil && len(out.Output) > 0 {
		key += "\x00" + callKey(out.Output)
	}
	return key
}

// idempotent compares the trials' keys; nil with fewer than two.
func idempotent(keys []string) *bool {
	if len(keys) < 2 {
		return nil
	}
	same := true
	for _, k := range keys[1:] {
		same = same && k == keys[0]
	}
	return &same
}

// toolUse counts a trial's calls per tool, sorted by tool name. Two calls
// are the same call when their names are equal and their arguments are
// equal as JSON values (key order and number spelling aside). Repeats of
// a tool that tools declares sideEffect are duplicate side effects. A
// tool that neither tools nor the trial's fixtures name is counted under
// results.UndeclaredTool: its name is the agent's text, which results
// never hold (docs/security.md).
func toolUse(trace []fixtures.Call, tools []suites.Tool, fx *suites.Fixtures) []results.ToolUse {
	if len(trace) == 0 {
		return nil
	}
	sideEffect := map[string]bool{}
	declared := map[string]bool{}
	for _, t := range tools {
		declared[t.Name] = true
		if t.SideEffect {
			sideEffect[t.Name] = true
		}
	}
	if fx != nil {
		for _, r := range fx.ToolResponses {
			declared[r.Tool] = true
		}
	}
	index := map[string]int{}
	same := map[string]int{}
	var out []results.ToolUse
	for _, c := range trace {
		name := c.Name
		if !declared[name] {
			name = results.UndeclaredTool
		}
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, results.ToolUse{Name: name})
		}
		u := &out[i]
		u.Calls++
		if c.Fixture >= 0 {
			u.Matched++
		}
		if c.IsError {
			u.Errors++
		}
		if c.ArgsInvalid {
			u.SchemaViolations++
		}
		key := c.Name + "\x00" + callKey(c.Args)
		same[key]++
		if n := same[key]; n > 1 {
			u.Repeats++
			if sideEffect[c.Name] {
				u.SideEffectRepeats++
			}
			u.MaxSame = max(u.MaxSame, n)
		} else {
			u.MaxSame = max(u.MaxSame, 1)
		}
	}
	slices.SortFunc(out, func(a, b results.ToolUse) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// callKey is the canonical form of a call's arguments; arguments that are
// not JSON are their own text.
func callKey(args json.RawMessage) string {
	v, err := jsonvalue.Decode(args)
	if err != nil {
		return "\x01" + string(args)
	}
	return string(jsonvalue.Canonical(v))
}

// metadata is the task's assessment metadata as results carries it.
func metadata(m *suites.Metadata) *results.Metadata {
	if m == nil {
		return nil
	}
	return &results.Metadata{Domain: m.Domain, Complexity: m.Complexity, AutonomyLevel: m.AutonomyLevel, Category: m.Category}
}

// taskRecord is the result of a finished task before it is aggregated:
// which task it is and its trials.
func taskRecord(s *suites.Suite, t *suites.TaskRef, trials []results.Trial) results.Task {
	return results.Task{
		ID:        t.ID,
		File:      cmp.Or(t.Pos.File, s.Path), // a task made from a row of a dataset is at its row
		Line:      t.Pos.Line,
		Kind:      t.Kind,
		Tags:      t.Tags,
		Metadata:  metadata(t.Metadata),
		Faults:    t.Faults,
		PassScore: s.PassBar(t.PassScore),
		Trials:    trials,
	}
}
