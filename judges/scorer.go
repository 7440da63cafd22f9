package judges

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// Scorer scores the trials of a run whose agent answered: the task's
// checks, the rubric judge, the checks evalgate adds from the suite's
// declarations, the adversarial detectors, and the trial's verdict. The
// pipeline calls Score once a trial, on the runner's workers
// (docs/architecture.md).
type Scorer struct {
	// Rubric decides the rubric criteria no check decides; nil makes a
	// task with such a criterion an error "no judge configured".
	Rubric Rubric
	// Detectors run over each trial; nil runs none.
	Detectors *Detectors
	// Programs runs the program checks (assert exec), one process per
	// program per worker; nil fails them as unsupported.
	Programs *Programs
	// Canary is the run's canary, planted where fixtures say {{canary}}
	// when the gold calls are replayed.
	Canary string
	// HandlerEnv is the whole environment of the fixtures' handler
	// programs the gold calls' replay starts.
	HandlerEnv []string
	// MaxRepeats is how often one call (name and arguments) may be made in
	// a trial of a replan-loop task; DefaultMaxRepeats when 0.
	MaxRepeats int
}

// DefaultMaxRepeats is Scorer.MaxRepeats when unset (config
// trust.maxRepeats).
const DefaultMaxRepeats = 3

// Ids of the checks the scorer adds to a trial from the suite's
// declarations (docs/suites.md, docs/trust.md).
const (
	// CheckToolArgs holds when every call to a tool that declares an
	// inputSchema had arguments valid against it; it is there only when
	// the trial called such a tool, and weighs 1 when it fails, 0 when it
	// holds.
	CheckToolArgs = "toolArgs"
	// CheckReplanLoop holds when no call of a replan-loop task's trial was
	// made more than MaxRepeats times.
	CheckReplanLoop = "replanLoop"
)

// Trial is one trial whose agent answered, as the scorer reads it.
type Trial struct {
	Suite   *suites.Suite
	Task    *suites.Task // decoded whole (suites.Suite.Full)
	Mode    string       // the mode it ran in
	Timeout time.Duration
	// Session is the fixture session that answered its tool calls: the
	// world it started from and the canaries it planted.
	Session *fixtures.Session
	// Obs is what the agent did, as the checks see it; Score sets its
	// GoldState.
	Obs Observation
	// Result is the trial's result as the runner recorded it (latency,
	// costs, tool use, the session's findings). Score sets its checks,
	// score, schema verdict, judge costs, findings and verdict, or the
	// error that kept the checks from deciding.
	Result *results.Trial

	// Reasons are the judge's reasons, by check id, for transcripts; set
	// by Score.
	Reasons map[string]string
	// JudgeErr is what the judge said when it decided none of the judged
	// criteria (Result says it in evalgate's words): it may quote the
	// task, and goes to transcripts only. Set by Score.
	JudgeErr error
	// Judges are the judge calls scoring made, in the order they started:
	// for the run's trace (docs/otel.md), not for results.json. Set by
	// Score.
	Judges []results.JudgeCall
}

// Score scores a trial whose agent answered: its checks, then the
// detectors, whose findings and judge costs it adds to the result, then
// its verdict. The checks, and the replay of the gold calls some of them
// compare with, run through one Executor: under the task's timeout,
// counted from when they start, and the run's context (docs/security.md,
// "One check executor").
func (sc *Scorer) Score(ctx context.Context, t *Trial) {
	res := t.Result
	sc.judge(ctx, t)
	res.Findings = results.DedupeFindings(res.Findings)
	if res.Status == "" {
		decide(t.Suite, t.Task, res)
	}
}

func (sc *Scorer) judge(ctx context.Context, t *Trial) {
	s, task, res, obs := t.Suite, t.Task, t.Result, &t.Obs
	x := NewExecutor(ctx, t.Timeout, sc.Programs)
	defer x.Close()
	gold, err := x.GoldState(task, s.TaskFixtures(task), fixtures.Options{
		Canary:   sc.Canary,
		Tools:    s.Tools,
		Handlers: fixtures.Handlers{Dir: filepath.Dir(s.Path), Env: sc.HandlerEnv, Timeout: t.Timeout},
	})
	if err != nil && !checksFailed(ctx, err, res) {
		return
	}
	obs.GoldState = gold
	sc.checks(ctx, x, t)
	if sc.Detectors == nil || res.ErrorKind == results.ErrTimeout || res.ErrorKind == results.ErrCancelled {
		return
	}
	d := sc.Detectors.Detect(ctx, &DetectInput{Suite: s, Task: task, Mode: t.Mode, Obs: obs, Planted: t.Session.Planted(), Findings: res.Findings})
	t.Judges = append(t.Judges, d.Judges...)
	res.Findings = d.Findings
	res.JudgeCostUsd += d.CostUsd
	res.Tokens.Input += d.Tokens.Input
	res.Tokens.Output += d.Tokens.Output
}

// decide passes a scored trial whose score reaches the task's pass bar
// with no severe finding, and fails it otherwise.
func decide(s *suites.Suite, t *suites.Task, res *results.Trial) {
	res.Passed = res.Score >= s.PassBar(t.PassScore) && !severe(res.Findings)
	res.Status = results.StatusFailed
	if res.Passed {
		res.Status = results.StatusPassed
	}
}

// checksFailed records on res the error of a trial's checks (see
// Executor): a check that could not decide (kind check), the time up
// (timeout), the run interrupted (cancelled); or, from the replay of the
// gold calls, a handler that failed (handler) or a world grown past its
// budget (world-too-large). It reports whether the checks go on: they do
// after the replay's errors, whose trial is an error whatever its checks
// say.
func checksFailed(ctx context.Context, err error, res *results.Trial) bool {
	res.Status = results.StatusError
	var (
		ce *CheckError
		te *TimeoutError
		he *fixtures.HandlerError
		we *fixtures.WorldError
	)
	switch {
	case errors.As(err, &he):
		res.ErrorKind, res.ErrorMessage = results.ErrHandler, "replaying the goldCalls: "+he.Error()
		return true
	case errors.As(err, &we):
		res.ErrorKind, res.ErrorMessage = results.ErrWorldTooLarge, "replaying the goldCalls: "+we.Error()
		return true
	case errors.As(err, &ce):
		res.ErrorKind, res.ErrorMessage = results.ErrCheck, ce.Error()
	case errors.As(err, &te) && ctx.Err() == nil:
		res.ErrorKind, res.ErrorMessage = results.ErrTimeout, te.Error()
	default:
		res.ErrorKind, res.ErrorMessage = results.ErrCancelled, ""
	}
	return false
}

// checks runs the checks of a trial that produced an output through x:
// golden checks, or the rubric's criteria (those decided by checks here,
// the rest by the judge).
func (sc *Scorer) checks(ctx context.Context, x *Executor, t *Trial) {
	res, obs := t.Result, &t.Obs
	checks, valid, err := x.Golden(t.Task, obs)
	t.Judges = append(t.Judges, x.judges...)
	if err != nil {
		checksFailed(ctx, err, res)
		return
	}
	res.SchemaValid = valid
	checks = append(checks, sc.builtinChecks(t.Suite, t.Task, obs.Trace, res.Tools)...)
	if t.Task.Expected.Kind == suites.KindRubric {
		var judged []int
		var req RubricRequest
		checks, judged, req, err = criteria(x, t.Task, obs, checks)
		if err != nil {
			checksFailed(ctx, err, res)
			return
		}
		if err := sc.rubric(ctx, t, checks, judged, &req); err != nil {
			res.Status, res.ErrorKind = results.StatusError, results.ErrJudge
			res.ErrorMessage = judgeMessage(err, checks)
			t.JudgeErr = err
			res.Checks = checks
			return
		}
	}
	res.Checks = checks
	res.Score = Score(checks)
}

// errNoJudge is the error of a rubric task whose judged criteria have no
// judge to decide them: never a silent pass.
var errNoJudge = errors.New("no judge configured")

// judgeMessage says, in evalgate's words, why the judge decided none of
// the judged criteria: what the judge said (its stderr, its API's answer)
// may quote the task and stays in transcripts.
func judgeMessage(err error, checks []results.Check) string {
	var ids []string
	for _, c := range checks {
		if c.Judged {
			ids = append(ids, c.ID)
		}
	}
	which := strings.Join(ids, ", ")
	switch {
	case errors.Is(err, errNoJudge):
		return "no judge configured for " + which
	case errors.Is(err, ErrRejected):
		return "the judge rejected the credentials for " + which
	case errors.Is(err, ErrUnavailable):
		return "the judge could not be reached for " + which
	}
	return "the judge gave no usable verdict for " + which
}

// criteria appends to checks a rubric task's criteria: those decided by
// an assertion or by the checks of a graded scale's levels decided through
// x, the others undecided, marked Judged, at the indexes judged and asked
// in req, in the same order.
func criteria(x *Executor, t *suites.Task, obs *Observation, checks []results.Check) ([]results.Check, []int, RubricRequest, error) {
	var out any
	if v, err := jsonvalue.Decode(obs.Output); err == nil {
		out = v
	}
	var judged []int
	var req RubricRequest
	for i, c := range t.Expected.Rubric {
		id := cmp.Or(c.ID, fmt.Sprintf("rubric[%d]", i))
		if c.Scale != nil {
			if c.Scale.Deterministic() {
				level, err := x.Level(c.Scale, obs, out)
				if err != nil {
					return checks, judged, req, err
				}
				checks = append(checks, GradedCheck(id, i, &c, &level))
				continue
			}
			judged = append(judged, len(checks))
			ck := GradedCheck(id, i, &c, nil)
			ck.Judged = true
			checks = append(checks, ck)
			req.Criteria = append(req.Criteria, RubricCriterion{Criterion: c.Criterion, Weight: c.Weight, Scale: ScaleFor(c.Scale)})
			continue
		}
		if c.Assert != nil {
			ck, err := x.Criterion(c.Assert, obs, out)
			if err != nil {
				return checks, judged, req, err
			}
			ck.ID, ck.Kind, ck.Weight = id, "criterion", c.Weight
			checks = append(checks, ck)
			continue
		}
		judged = append(judged, len(checks))
		checks = append(checks, results.Check{ID: id, Kind: "criterion", Weight: c.Weight, Judged: true})
		req.Criteria = append(req.Criteria, RubricCriterion{Criterion: c.Criterion, Weight: c.Weight})
	}
	return checks, judged, req, nil
}

// rubric asks the rubric judge for the criteria criteria left undecided,
// at the indexes judged of checks, and records its verdicts there.
func (sc *Scorer) rubric(ctx context.Context, t *Trial, checks []results.Check, judged []int, req *RubricRequest) error {
	if len(judged) == 0 {
		return nil
	}
	if sc.Rubric == nil {
		return errNoJudge
	}
	obs := &t.Obs
	req.SuiteID, req.TaskID = t.Suite.ID, t.Task.ID
	req.Input, req.Output, req.Trace = obs.Input, obs.Output, obs.Trace
	call := results.JudgeCall{Kind: results.JudgeRubric, Start: time.Now(), Outcome: results.JudgeErrored, Score: -1}
	for _, ci := range judged {
		call.Checks = append(call.Checks, checks[ci].ID)
	}
	v, err := sc.Rubric.Decide(ctx, req)
	call.Duration = time.Since(call.Start)
	if err == nil {
		err = recordVerdict(t, checks, judged, v)
	}
	if err == nil {
		call.Outcome, call.Score = judgedOutcome(checks, judged)
	}
	t.Judges = append(t.Judges, call)
	return err
}

// recordVerdict records the rubric judge's verdict v on the checks at the
// indexes judged, its costs on the trial's result and its reasons on the
// trial.
func recordVerdict(t *Trial, checks []results.Check, judged []int, v *RubricVerdict) error {
	res := t.Result
	if len(v.Met) != len(judged) {
		return fmt.Errorf("the judge answered %d criteria, want %d", len(v.Met), len(judged))
	}
	res.JudgeCostUsd += v.CostUsd
	res.Tokens.Input += v.Tokens.Input
	res.Tokens.Output += v.Tokens.Output
	t.Reasons = map[string]string{}
	for i, ci := range judged {
		switch {
		case checks[ci].Scale != nil:
			if i >= len(v.Levels) {
				return fmt.Errorf("the judge gave no level for criterion %d", i+1)
			}
			level := v.Levels[i]
			SetLevel(&checks[ci], &level)
		default:
			checks[ci].Passed = v.Met[i]
			if !v.Met[i] {
				checks[ci].Reason = "not-met"
			}
		}
		if i < len(v.Reasons) {
			t.Reasons[checks[ci].ID] = v.Reasons[i]
		}
	}
	return nil
}

// judgedOutcome is the outcome and score of a rubric judge's call over
// the checks at the indexes judged, once its verdicts are recorded there.
func judgedOutcome(checks []results.Check, judged []int) (string, float64) {
	sub := make([]results.Check, len(judged))
	for i, ci := range judged {
		sub[i] = checks[ci]
	}
	score := Score(sub)
	if score >= 1 {
		return results.JudgePassed, score
	}
	return results.JudgeFailed, score
}

func severe(fs []results.Finding) bool {
	for _, f := range fs {
		if f.Severity == results.SeverityCritical || f.Severity == results.SeverityHigh {
			return true
		}
	}
	return false
}

// builtinChecks are the checks the scorer adds to a trial from the
// suite's declarations rather than the task's assertions: toolArgs when
// the trial called a tool that declares an inputSchema, replanLoop for a
// task tagged replan-loop, from the trial's tool counts (the runner's
// count of the same trace).
func (sc *Scorer) builtinChecks(s *suites.Suite, t *suites.Task, trace []fixtures.Call, tools []results.ToolUse) []results.Check {
	var out []results.Check
	checked, invalid := false, false
	for _, c := range trace {
		invalid = invalid || c.ArgsInvalid
		for i := range s.Tools {
			checked = checked || (s.Tools[i].Name == c.Name && s.Tools[i].Schema != nil)
		}
	}
	if checked {
		// A passing toolArgs check weighs nothing: declaring schemas must
		// not raise the score of a task that fails its own checks.
		c := results.Check{ID: CheckToolArgs, Kind: CheckToolArgs, Passed: !invalid}
		if invalid {
			c.Weight, c.Reason = 1, ReasonSchemaInvalid
		}
		out = append(out, c)
	}
	if slices.Contains(t.Tags, suites.ScenarioReplanLoop) {
		limit := cmp.Or(max(sc.MaxRepeats, 0), DefaultMaxRepeats)
		most := 0
		for _, u := range tools {
			most = max(most, u.MaxSame)
		}
		c := results.Check{ID: CheckReplanLoop, Kind: "maxRepeats", Weight: 1, Passed: most <= limit}
		if !c.Passed {
			c.Reason = ReasonOverLimit
		}
		out = append(out, c)
	}
	return out
}
