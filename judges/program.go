package judges

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// Limits of program checks.
const (
	// maxProgramLine bounds one answer of a check program.
	maxProgramLine = 1 << 20
	// DefaultProgramTimeout is how long a check program may take to answer
	// one request when ProgramOptions sets no timeout.
	DefaultProgramTimeout = 30 * time.Second
)

// Programs runs the program checks of a run (assert {exec: [...]},
// docs/suites.md, "Program checks"). A program is started once and kept: each request is one
// JSON line on its stdin,
//
//	{"input":…,"output":…,"trace":[{"name","args","result","isError"}],"vars":{…}}
//
// and each answer one JSON line on its stdout, {"pass": bool, "score"?:
// 0..1, "reason"?: "…"}. There is at most one process per command for
// each request running at once, so a run of 1,000 tasks at concurrency 8
// starts at most 8 processes of each program, not 1,000; of all programs
// together at most MaxIdle wait between requests, the one idle longest
// ended first, so a suite of many distinct programs does not keep one of
// each alive. A process that
// crashes, hangs past the timeout or answers something else is killed and
// the task is an error of kind check; the next request starts a new one.
//
// The processes run in their own process groups with the environment the
// caller gives (the agents' scrubbed one), in the suite's folder. Close
// ends them all.
type Programs struct {
	ctx     context.Context
	env     []string
	timeout time.Duration

	mu   sync.Mutex
	idle map[string][]*process.Process // by command and folder
	// order is the idle processes, the one idle longest first: past
	// maxIdle the first is ended, so a suite of many distinct programs
	// does not keep one of each alive.
	order   []*process.Process
	maxIdle int
	live    map[*process.Process]bool
	closed  bool
}

// ProgramOptions configure NewPrograms.
type ProgramOptions struct {
	// Env is the programs' whole environment, scrubbed by the caller.
	Env []string
	// Timeout bounds one answer; DefaultProgramTimeout when 0.
	Timeout time.Duration
	// MaxIdle is how many processes may wait for their next request at
	// once, of all programs together; DefaultMaxIdle when 0.
	MaxIdle int
}

// DefaultMaxIdle is ProgramOptions.MaxIdle when unset: enough for every
// worker of a run at the default concurrency to keep a few programs.
const DefaultMaxIdle = 32

// NewPrograms returns the runner of a run's program checks; its processes
// end when ctx ends or at Close.
func NewPrograms(ctx context.Context, o ProgramOptions) *Programs {
	t := o.Timeout
	if t <= 0 {
		t = DefaultProgramTimeout
	}
	return &Programs{ctx: ctx, env: o.Env, timeout: t, maxIdle: cmp.Or(o.MaxIdle, DefaultMaxIdle),
		idle: map[string][]*process.Process{}, live: map[*process.Process]bool{}}
}

// CheckError is a program check that could not decide: the program could
// not be started, crashed, hung or answered something else. Its task is
// an error of kind check.
type CheckError struct {
	ID      string // the check's id
	Message string // in evalgate's words, without what the program said
}

func (e *CheckError) Error() string { return fmt.Sprintf("check %s: %s", e.ID, e.Message) }

// programRequest is one line to a check program.
type programRequest struct {
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
	Trace  []judgeTrace    `json:"trace"`
	Vars   json.RawMessage `json:"vars"`
}

// programAnswer is one line from a check program.
type programAnswer struct {
	Pass   *bool    `json:"pass"`
	Score  *float64 `json:"score"`
	Reason string   `json:"reason"`
}

// ReasonProgram is the reason of a program check that does not pass: what
// the program said is kept out of results, which hold content-free codes.
const ReasonProgram = "program-failed"

// run decides the program check c for one observation.
func (ps *Programs) run(ctx context.Context, c *suites.Check, obs *Observation) (results.Check, error) {
	res := results.Check{ID: c.ID, Kind: c.Kind, Weight: c.Weight}
	line, err := json.Marshal(programRequest{
		Input:  orNull(obs.Input),
		Output: orNull(obs.Output),
		Trace:  traceForJudge(obs.Trace),
		Vars:   orNull(obs.Vars),
	})
	if err != nil {
		return res, &CheckError{ID: c.ID, Message: "could not encode the request: " + err.Error()}
	}
	ans, err := ps.ask(ctx, c, append(line, '\n'))
	if err != nil {
		return res, err
	}
	res.Passed = *ans.Pass
	if !res.Passed {
		res.Reason = ReasonProgram
	}
	return res, nil
}

// ask sends one request to a process of c's program and reads its answer.
func (ps *Programs) ask(ctx context.Context, c *suites.Check, line []byte) (*programAnswer, error) {
	fail := func(format string, args ...any) error {
		return &CheckError{ID: c.ID, Message: fmt.Sprintf("the program %q "+format, append([]any{c.Exec[0]}, args...)...)}
	}
	key := c.Dir + "\x00" + strings.Join(c.Exec, "\x00")
	p, err := ps.take(key, c)
	if err != nil {
		var se *process.StartError
		if errors.As(err, &se) {
			return nil, fail("could not be started: %v", se.Err)
		}
		return nil, err
	}
	ok, ended := false, false
	defer func() { ps.give(key, p, ok, ended) }()
	end := func() string {
		ended = true
		p.Kill()
		p.Wait(0)
		return p.Exit()
	}
	p.SetReadDeadline(time.Now().Add(ps.timeout))
	stop := context.AfterFunc(ctx, func() { p.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := p.Write(line); err != nil {
		return nil, fail("did not take the request: it ended with %s", end())
	}
	out, err := p.ReadLine()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, process.ErrLineTooLong):
		return nil, fail("answered a line over %d bytes", maxProgramLine)
	case err != nil && errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return nil, fail("did not answer within %s", ps.timeout)
	case err != nil:
		return nil, fail("ended with %s before answering", end())
	}
	var ans programAnswer
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&ans); err != nil || dec.More() {
		return nil, fail(`answered a line that is not a JSON object {"pass": true|false, …}`)
	}
	if ans.Pass == nil {
		return nil, fail(`answered without "pass": expected {"pass": true|false, "score"?: 0..1, "reason"?: "…"}`)
	}
	if ans.Score != nil && (math.IsNaN(*ans.Score) || *ans.Score < 0 || *ans.Score > 1) {
		return nil, fail(`answered a "score" outside 0..1`)
	}
	ok = true
	return &ans, nil
}

// isTimeout reports a read that ran past its deadline.
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// take returns an idle process of key's program, or starts one.
func (ps *Programs) take(key string, c *suites.Check) (*process.Process, error) {
	ps.mu.Lock()
	if ps.closed {
		ps.mu.Unlock()
		return nil, context.Canceled
	}
	if list := ps.idle[key]; len(list) > 0 {
		p := list[len(list)-1]
		ps.idle[key] = list[:len(list)-1]
		ps.order = slices.DeleteFunc(ps.order, func(q *process.Process) bool { return q == p })
		ps.mu.Unlock()
		return p, nil
	}
	ps.mu.Unlock()
	p, err := process.Start(ps.ctx, process.Spec{
		Command:        c.Exec,
		Dir:            c.Dir,
		Env:            ps.env,
		Interactive:    true,
		MaxLineBytes:   maxProgramLine,
		MaxStdoutBytes: math.MaxInt64,
	})
	if err != nil {
		return nil, err
	}
	ps.mu.Lock()
	ps.live[p] = true
	ps.mu.Unlock()
	return p, nil
}

// give takes p back: idle for the next request when it answered well,
// else killed (unless it has ended already).
func (ps *Programs) give(key string, p *process.Process, ok, ended bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ok && !ps.closed {
		ps.idle[key] = append(ps.idle[key], p)
		ps.order = append(ps.order, p)
		if len(ps.order) > ps.maxIdle {
			oldest := ps.order[0]
			ps.order = ps.order[1:]
			for k, list := range ps.idle {
				ps.idle[k] = slices.DeleteFunc(list, func(q *process.Process) bool { return q == oldest })
			}
			ps.drop(oldest)
		}
		return
	}
	if !ended {
		ps.drop(p)
	} else {
		delete(ps.live, p)
	}
}

// drop ends p, which is no longer needed; ps.mu is held.
func (ps *Programs) drop(p *process.Process) {
	delete(ps.live, p)
	go func() {
		p.Kill()
		p.Wait(0)
	}()
}

// Close ends every program: stdin closed, a moment to exit, then the
// process group killed.
func (ps *Programs) Close() {
	ps.mu.Lock()
	ps.closed = true
	live := ps.live
	ps.live, ps.idle, ps.order = map[*process.Process]bool{}, map[string][]*process.Process{}, nil
	ps.mu.Unlock()
	var wg sync.WaitGroup
	for p := range live {
		wg.Go(func() { p.Wait(time.Second) })
	}
	wg.Wait()
}
