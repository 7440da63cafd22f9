package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/evalgate/evalgate/internal/process"
)

// Limits of the exec and plain drivers when the caller sets none.
const (
	DefaultMaxOutputBytes = process.DefaultMaxStdoutBytes // total stdout of one trial
	DefaultMaxLineBytes   = process.DefaultMaxLineBytes   // one evalgate/1 line
	DefaultMaxStderrBytes = process.DefaultMaxStderrBytes // stderr kept for the transcript
	DefaultExitGrace      = 2 * time.Second
)

// notStarted is the outcome of an agent process that did not start: the
// trial's context already ended (that trial's error), or the command cannot
// be started at all (fatal: no trial could run).
func notStarted(ctx context.Context, req *Request, err error) *Outcome {
	var se *process.StartError
	switch {
	case !errors.As(err, &se):
		return &Outcome{Err: contextError(ctx, req)}
	default:
		return &Outcome{Fatal: &startError{se}}
	}
}

// startError is the fatal error of an agent that could not be started; it
// unwraps to the process.StartError, which says which command and why.
type startError struct{ se *process.StartError }

func (e *startError) Error() string {
	if e.se.Command == "" {
		return fmt.Sprintf("could not start agent: %v", e.se.Err)
	}
	return fmt.Sprintf("could not start agent %q: %v", e.se.Command, e.se.Err)
}

func (e *startError) Unwrap() error { return e.se }

// trialEnv is the child environment of one trial: env (or, when env is nil,
// the scrubbed environment of this process) plus the EVALGATE_* variables
// and the request's own.
func trialEnv(env []string, req *Request) []string {
	if env == nil {
		env = process.ScrubEnv(os.Environ(), nil, nil)
	}
	out := make([]string, 0, len(env)+3+len(req.Env))
	out = append(out, env...)
	out = append(out,
		"EVALGATE_SUITE_ID="+req.SuiteID,
		"EVALGATE_TASK_ID="+req.TaskID,
		"EVALGATE_TRIAL="+strconv.Itoa(req.Trial),
	)
	return append(out, req.Env...)
}
