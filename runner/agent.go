package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

// Agent runs one task trial against the system under test. Drivers exist for
// the evalgate/1 JSON Lines protocol (exec), plain stdin/stdout programs and
// OpenAI-compatible chat APIs.
//
// Run never returns a Go error for a misbehaving agent: a crash, a hang or
// garbage becomes Outcome.Err and fails that task only. Outcome.Fatal is set
// only when the agent cannot be started at all, which stops the run;
// Outcome.Mute lets the run tell an agent that never speaks.
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
	// Turns are the user's scripted messages after the input (task
	// turns), each a JSON value; nil when the task is not a conversation.
	Turns []json.RawMessage
	// sim plays the user of an open conversation (task user); nil when
	// the task has none or the run has no simulator.
	sim *simulation
	// Timeout is the trial's budget; ctx carries the same deadline.
	Timeout time.Duration
	// Env holds NAME=value pairs added to the agent's environment for
	// this trial only (MCP's EVALGATE_MCP_URL).
	Env []string
}

// Usage is the model usage an agent reports; lines add up.
type Usage struct {
	Model        string
	InputTokens  int64
	OutputTokens int64
	CostUsd      float64
	// Reported is set once the agent reported usage at all (Add).
	Reported bool
}

// MaxDepth bounds how deeply arrays and objects nest in what an agent
// sends: its final output and its tool calls' arguments. Deeper is a
// protocol error. Real outputs are a few levels deep; a 20 KB output nested
// 10,000 levels would otherwise cost hundreds of megabytes to check and to
// write as an indented transcript.
const MaxDepth = 256

// MaxReportedCostUsd bounds the cost of one usage report of an agent. With
// token counts bounded by chat.MaxTokens and the agent's output capped, no
// sum of reports over a run stops being a finite number.
const MaxReportedCostUsd = 1e6

// problem says what is wrong with one usage report of an agent, in the
// protocol's field names: "" when every number is finite and in range.
// Negative numbers would slip under cost gates; huge ones would add up to
// infinity, which no output can hold.
func (u Usage) problem() string {
	switch {
	case u.InputTokens < 0 || u.InputTokens > chat.MaxTokens:
		return fmt.Sprintf("usage inputTokens must be between 0 and %d", int64(chat.MaxTokens))
	case u.OutputTokens < 0 || u.OutputTokens > chat.MaxTokens:
		return fmt.Sprintf("usage outputTokens must be between 0 and %d", int64(chat.MaxTokens))
	case !(u.CostUsd >= 0 && u.CostUsd <= MaxReportedCostUsd): // also NaN
		return fmt.Sprintf("usage costUsd must be between 0 and %g", MaxReportedCostUsd)
	}
	return ""
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	if u2.Model != "" {
		u.Model = u2.Model
	}
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.CostUsd += u2.CostUsd
	u.Reported = true
}

// Outcome is what one trial produced.
type Outcome struct {
	Output json.RawMessage // the final output, a JSON value; nil when Err is set
	// Replies are the agent's answers before its final output in a
	// conversation: Replies[0] answers the input, Replies[i] the turn
	// i-1; the final output answers the last turn sent.
	Replies []json.RawMessage
	// ReplyCalls is, for each reply, how many tool calls the agent had
	// made when it replied: a turn's checks see the trace up to its reply.
	ReplyCalls []int
	Usage      Usage
	Err        *AgentError
	Stderr     []byte // bounded; for transcripts only
	// Mute is how the agent ended ("exit status 2") when it failed by
	// itself before writing anything on stdout: what a command that cannot
	// run looks like (not found, a missing script, an interpreter error).
	// Run stops with a *CannotRunError when the first trials are all mute.
	Mute string
	// Wrote is how many bytes of output a plain agent wrote, also when it
	// did not finish (a timeout after its answer).
	Wrote int
	// LinesAfterFinal counts the lines the agent wrote after its final (or
	// error) line, usage lines aside: they are ignored, and reported.
	LinesAfterFinal int
	// Spans is what the agent sent through OpenTelemetry, when the run
	// received it (OTel); nil otherwise.
	Spans *traces.Trace
	// Fatal means the agent could not be started at all (exit 3).
	Fatal error
}

// AgentError is a trial that did not produce a usable output.
type AgentError struct {
	Kind string // one of the results.Err* kinds
	// Message says what happened in words evalgate wrote, without anything
	// the agent, the model or the judge said ("line 3 is not JSON"): it goes
	// to the terminal and results.json.
	Message string
	// Detail may quote the agent or the model (the line that was not JSON,
	// the message of an error line): transcripts only, never results.
	Detail string
}

func (e *AgentError) Error() string { return e.Kind + ": " + e.Message }

// Full is the message with its detail, for transcripts.
func (e *AgentError) Full() string {
	if e.Detail == "" {
		return e.Message
	}
	return e.Message + ": " + e.Detail
}
