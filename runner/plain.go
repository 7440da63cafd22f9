package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/results"
)

// Plain drives a program that reads the task input on stdin and writes its
// answer on stdout: no tools, no memory, no usage. stdin gets the input (a
// JSON string as its raw text, any other value as compact JSON) and is then
// closed; the output is stdout as a JSON string with one trailing newline
// removed. A non-zero exit is an agent-exit error (and Outcome.Mute when
// stdout stayed empty), the timeout a timeout (the process group is
// killed), more than MaxOutputBytes of stdout an output-too-large error.
// Only a command that cannot be started at all is Outcome.Fatal.
//
// Plain is built to run thousands of short processes: small inputs are
// written into the pipe before the program starts, stdout is read by the
// calling goroutine into a pooled buffer, so a trial costs one process and
// two short-lived goroutines of os/exec.
type Plain struct {
	Command []string // program and arguments
	Dir     string   // working directory; "" for the current one
	// Env is the child's whole environment, scrubbed by the caller of
	// evalgate's credentials; nil means the scrubbed environment of this
	// process.
	// EVALGATE_SUITE_ID, EVALGATE_TASK_ID, EVALGATE_TRIAL and the
	// request's Env are added.
	Env []string

	MaxOutputBytes int64 // stdout; DefaultMaxOutputBytes when 0
	MaxStderrBytes int   // stderr kept; DefaultMaxStderrBytes when 0
}

var _ Agent = (*Plain)(nil)

// outputBuffers recycles stdout buffers between trials.
var outputBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled is the largest buffer kept for reuse, so one big answer does not
// pin its memory for the rest of the run.
const maxPooled = 1 << 20

// Run runs one trial. tools is not used: a plain program cannot call tools.
func (pl *Plain) Run(ctx context.Context, req *Request, _ Tools) *Outcome {
	if len(req.Turns) > 0 || req.sim != nil {
		return &Outcome{Err: &AgentError{Kind: results.ErrProtocol, Message: "the task is a conversation (turns), which a plain agent cannot hold: use an evalgate/1 or OpenAI-compatible agent"}}
	}
	input, err := plainInput(req.Input)
	if err != nil {
		return &Outcome{Fatal: fmt.Errorf("could not encode task %q for the agent: %w", req.TaskID, err)}
	}
	buf := outputBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooled {
			buf.Reset()
			outputBuffers.Put(buf)
		}
	}()
	buf.Reset()
	limit := orDefault(pl.MaxOutputBytes, DefaultMaxOutputBytes)
	p, err := process.Run(ctx, process.Spec{
		Command:        pl.Command,
		Dir:            pl.Dir,
		Env:            trialEnv(pl.Env, req),
		Stdin:          input,
		MaxStdoutBytes: limit,
		MaxStderrBytes: pl.MaxStderrBytes,
	}, buf)
	if p == nil {
		return notStarted(ctx, req, err)
	}

	out := &Outcome{Stderr: p.Stderr(), Wrote: buf.Len()}
	switch {
	case errors.Is(err, process.ErrOutputTooLarge):
		out.Err = &AgentError{Kind: results.ErrOutputTooLarge, Message: fmt.Sprintf("the agent wrote more than %d bytes", limit)}
	case ctx.Err() != nil:
		out.Err = contextError(ctx, req)
	case err != nil:
		out.Err = &AgentError{Kind: results.ErrAgentExit, Message: "could not read the agent's stdout", Detail: err.Error()}
	case !p.Success() && buf.Len() == 0:
		out.Err = &AgentError{Kind: results.ErrAgentExit, Message: p.Exit() + " before any output"}
		out.Mute = p.Exit()
	case !p.Success():
		out.Err = &AgentError{Kind: results.ErrAgentExit, Message: fmt.Sprintf("%s after %s of output", p.Exit(), countText(buf.Len(), "byte", "bytes"))}
	default:
		out.Output, _ = json.Marshal(string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))) // a string always encodes
	}
	return out
}

// plainInput is what a plain program reads: a JSON string as its text,
// anything else as compact JSON. A missing input is null.
func plainInput(in json.RawMessage) ([]byte, error) {
	in = bytes.TrimSpace(in)
	if len(in) == 0 {
		return []byte("null"), nil
	}
	if in[0] == '"' {
		var s string
		if err := json.Unmarshal(in, &s); err != nil {
			return nil, err
		}
		return []byte(s), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, in); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
