package judges

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/limits"
	"github.com/evalgate/evalgate/internal/meter"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// Executor runs the checks of one trial, every kind of them: the golden
// match, the assertions (expressions, the tool checks, program checks and
// any kind checkKinds holds), the output schema, the end-state checks and
// the replay of the gold calls they compare with, and a rubric's
// criteria decided by an assertion or by the checks of a graded scale's
// levels. It is the one way a check runs (docs/security.md, "One check
// executor"): the checks come from the suite, which may be hostile, so
// each runs under the executor's deadline and the run's context, spends
// through a meter.Meter (regular expressions and expressions capped on
// their compiled programs, and stopped when the context ends), and is
// given up on, with the trial's error, when its time is up.
//
// The rubric judge and the detectors are not checks: they have timeouts
// of their own.
type Executor struct {
	parent  context.Context
	ctx     context.Context
	cancel  context.CancelFunc
	timeout time.Duration
	progs   *Programs
	// judges are the calls to check programs its checks made, for the
	// run's trace (Trial.Judges).
	judges []results.JudgeCall
}

// NewExecutor returns the executor of one trial's checks. They share
// timeout, counted from now (none when 0), and end with ctx, the run's;
// progs runs their program checks (nil fails those as unsupported).
// Close releases it.
func NewExecutor(ctx context.Context, timeout time.Duration, progs *Programs) *Executor {
	x := &Executor{parent: ctx, timeout: timeout, progs: progs}
	if timeout > 0 {
		x.ctx, x.cancel = context.WithTimeout(ctx, timeout)
	} else {
		x.ctx, x.cancel = context.WithCancel(ctx)
	}
	return x
}

// Close ends the executor's checks, those given up on included.
func (x *Executor) Close() { x.cancel() }

// TimeoutError is an executor's checks that did not finish within its
// timeout: the trial is an error of kind timeout, never a failure.
type TimeoutError struct {
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the task's checks did not finish within its timeout of %s", e.Timeout)
}

// The errors of the executor's methods:
//   - *CheckError: a check could not decide (a program check that failed,
//     a pattern over the caps); the trial is an error of kind check;
//   - *TimeoutError: the time was up;
//   - the run's context's error: the run was interrupted;
//   - *fixtures.HandlerError and *fixtures.WorldError, from GoldState.

// run is the choke point: every method of the executor runs its checks
// through it. f runs beside the caller with a meter of the executor's
// context; run returns what f returns, or the executor's error as soon as
// its time is up or the run is interrupted, without waiting for f, whose
// meter stops what it is doing within milliseconds. What f computes
// reaches the caller only through run: a check given up on writes
// nothing the trial reads.
func run[T any](x *Executor, f func(m *meter.Meter) (T, error)) (T, error) {
	var zero T
	if err := x.ended(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	m := meter.New(x.ctx)
	goCheck(func() {
		v, err := f(m)
		done <- result{v, err}
	})
	select {
	case r := <-done:
		if r.err != nil && x.ctx.Err() != nil && meter.Stopped(r.err) {
			return zero, x.ended()
		}
		return r.v, r.err
	case <-x.ctx.Done():
		return zero, x.ended()
	}
}

// idleWorkers hands a check to a goroutine that has run one and waits
// for the next (checkWorker): its stack has grown to what checks take
// (an expression's parse and compile go deep), where a fresh goroutine
// for each trial grew its stack anew every time.
var idleWorkers = make(chan func())

// workerIdle is how long a worker waits for another check before it
// ends.
const workerIdle = time.Second

// goCheck runs f on an idle worker, else on a new one: never later.
func goCheck(f func()) {
	select {
	case idleWorkers <- f:
	default:
		go checkWorker(f)
	}
}

func checkWorker(f func()) {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		f()
		f = nil // what the check held is not kept while idle
		idle.Reset(workerIdle)
		select {
		case f = <-idleWorkers:
		case <-idle.C:
			return
		}
	}
}

// ended is the executor's error once its context has ended: the run's
// when the run was interrupted, else a *TimeoutError.
func (x *Executor) ended() error {
	if x.ctx.Err() == nil {
		return nil
	}
	if err := x.parent.Err(); err != nil {
		return err
	}
	return &TimeoutError{Timeout: x.timeout}
}

// Golden runs a task's deterministic checks against one observation: the
// match (id "match", kind = the strategy), the end-state checks (ids and
// kinds "state", "unchanged" and "goldState"), each assertion (its own id
// and kind), the output schema (id and kind "outputSchema") and the
// checks of the conversation's turns, in that order. A rubric task gets
// only the output schema and turn checks; its criteria are decided by
// Criterion and Level, or by a judge. schemaValid is nil when the task
// declares no output schema.
func (x *Executor) Golden(t *suites.Task, obs *Observation) (checks []results.Check, schemaValid *bool, err error) {
	type golden struct {
		checks []results.Check
		valid  *bool
		judges []results.JudgeCall
	}
	g, err := run(x, func(m *meter.Meter) (golden, error) {
		r := &checker{m: m, progs: x.progs, obs: obs, out: decodeOutput(obs.Output)}
		checks, valid, err := r.golden(t)
		return golden{checks, valid, r.judges}, err
	})
	x.judges = append(x.judges, g.judges...)
	if err != nil {
		return nil, nil, err
	}
	return g.checks, g.valid, nil
}

// Criterion decides a rubric criterion by its assertion c. out is the
// output as jsonvalue.Decode returns it; it is not modified. A program
// check fails there as unsupported: program checks are a golden task's
// assertions (docs/suites.md).
func (x *Executor) Criterion(c *suites.Check, obs *Observation, out any) (results.Check, error) {
	return run(x, func(m *meter.Meter) (results.Check, error) {
		return (&checker{m: m, obs: obs, out: out}).check(c)
	})
}

// Level decides a scale graded by its levels' checks without a judge:
// the highest level whose checks all hold, else the bottom of the scale.
// out is the output as jsonvalue.Decode returns it. A program check
// fails there as unsupported, as in Criterion.
func (x *Executor) Level(s *suites.Scale, obs *Observation, out any) (int, error) {
	return run(x, func(m *meter.Meter) (int, error) {
		return (&checker{m: m, obs: obs, out: out}).level(s)
	})
}

// GoldState replays the task's goldCalls through a fresh session of its
// fixtures (f, built with opts) and returns the world they leave; nil when
// the task has none. A gold call that fails as a tool error is part of the
// gold, as in τ-bench. A handler that fails during the replay is a
// *fixtures.HandlerError, a world that grows past its budget a
// *fixtures.WorldError; the world is returned with either.
func (x *Executor) GoldState(t *suites.Task, f *suites.Fixtures, opts fixtures.Options) (json.RawMessage, error) {
	if len(t.Expected.GoldCalls) == 0 {
		return nil, nil
	}
	type replay struct {
		state json.RawMessage
		err   error // the handler's or the world's: the state stands
	}
	r, err := run(x, func(m *meter.Meter) (replay, error) {
		gold := fixtures.NewSession(f, opts)
		defer gold.Close()
		for i, gc := range t.Expected.GoldCalls {
			gold.Call(m.Context(), fmt.Sprintf("gold-%d", i+1), gc.Tool, gc.Args)
			if err := m.Err(); err != nil {
				return replay{}, err
			}
		}
		r := replay{state: gold.State()}
		if he := gold.HandlerError(); he != nil {
			r.err = he
		} else if we := gold.WorldError(); we != nil {
			r.err = we
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return r.state, r.err
}

// GoldenContext runs Golden with the run's program checks progs, under
// ctx and no deadline of its own.
func GoldenContext(ctx context.Context, t *suites.Task, obs *Observation, progs *Programs) ([]results.Check, *bool, error) {
	x := NewExecutor(ctx, 0, progs)
	defer x.Close()
	return x.Golden(t, obs)
}

// Golden is GoldenContext without a context or program checks (a program
// check fails with ReasonUnsupported); it returns no checks when one
// could not decide.
func Golden(t *suites.Task, obs *Observation) (checks []results.Check, schemaValid *bool) {
	checks, schemaValid, _ = GoldenContext(context.Background(), t, obs, nil)
	return checks, schemaValid
}

// decodeOutput is the output as the checks read it: notJSON when it is
// not a JSON value.
func decodeOutput(output json.RawMessage) any {
	if v, err := jsonvalue.Decode(output); err == nil {
		return v
	}
	return notJSON{}
}

// overCaps reports whether err is a regular expression of a check over
// the caps (computed while the check ran), or a match over the cost
// budget: the check cannot decide, and the trial is an error of kind
// check rather than a failure.
func overCaps(err error) bool {
	_, ok := errors.AsType[*limits.Error](err)
	return ok
}

// capsMessage says which cap err is over.
func capsMessage(err error) string {
	le, _ := errors.AsType[*limits.Error](err)
	return le.Message
}
