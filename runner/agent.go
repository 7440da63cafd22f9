package runner

import (
	"context"
	"encoding/json"
	"time"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/suites"
)

// Agent runs one task trial against the system under test. Drivers exist for
// the evalgate/1 JSON Lines protocol (exec), plain stdin/stdout programs and
// OpenAI-compatible chat APIs.
//
// Run never returns a Go error for a misbehaving agent: a crash, a hang or
// garbage becomes Outcome.Err and fails that task only. Outcome.Fatal is set
// only when the agent cannot be started at all, which stops the run.
type Agent interface {
	Run(ctx context.Context, req *Request, tools Tools) *Outcome
}

// Tools answers the agent's tool calls; a *fixtures.Session is one.
type Tools interface {
	Call(ctx context.Context, id, name string, args json.RawMessage) fixtures.Result
}

// Request is one task trial as the agent sees it.
type Request struct {
	SuiteID string
	TaskID  string
	Trial   int // 1-based
	Mode    string
	Input   json.RawMessage   // any JSON value
	Memory  []json.RawMessage // the task's memory seed; nil in live-shadow mode
	Tools   []suites.Tool     // the suite's declared tools
	// Timeout is the trial's budget; ctx carries the same deadline.
	Timeout time.Duration
}

// Usage is the model usage an agent reports; lines add up.
type Usage struct {
	Model        string
	InputTokens  int64
	OutputTokens int64
	CostUsd      float64
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	if u2.Model != "" {
		u.Model = u2.Model
	}
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.CostUsd += u2.CostUsd
}

// Outcome is what one trial produced.
type Outcome struct {
	Output json.RawMessage // the final output, a JSON value; nil when Err is set
	Usage  Usage
	Err    *AgentError
	Stderr []byte // bounded; for transcripts only
	// Fatal means the agent could not be started at all (exit 3).
	Fatal error
}

// AgentError is a trial that did not produce a usable output.
type AgentError struct {
	Kind    string // one of the results.Err* kinds
	Message string // may quote the agent: transcripts only, never results
}

func (e *AgentError) Error() string { return e.Kind + ": " + e.Message }
