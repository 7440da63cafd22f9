package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
)

// Protocol is the name and version of the exec agent protocol.
const Protocol = "evalgate/1"

// Exec drives an agent program that speaks the evalgate/1 JSON Lines
// protocol over stdio: one process per task trial, in its own process
// group. The runner writes the task line, answers every tool_call with a
// tool_result from the fixtures, adds up usage lines, and takes the output
// from the final line; after final the runner closes stdin, waits
// ExitGrace for the agent to exit and then kills what is left of its group
// (the exit status no longer matters). What the agent writes while it
// exits is still read: usage lines count, any other line is ignored and
// counted in Outcome.LinesAfterFinal. A blank line is skipped. Tool calls
// are answered one at a time in the order the agent sent them, so fixtures
// with times are used deterministically.
//
// A crash, a hang, garbage on stdout or too much output makes the trial an
// error with a kind (results.Err*); the process group is killed. An agent
// that fails before writing anything is also Outcome.Mute. Only a command
// that cannot be started at all is Outcome.Fatal.
type Exec struct {
	Command []string // program and arguments
	Dir     string   // working directory; "" for the current one
	// Env is the child's whole environment, scrubbed by the caller of
	// evalgate's credentials; nil means the scrubbed environment of this
	// process.
	// EVALGATE_SUITE_ID, EVALGATE_TASK_ID, EVALGATE_TRIAL and the
	// request's Env are added.
	Env []string

	MaxOutputBytes int64         // total stdout of a trial; DefaultMaxOutputBytes when 0
	MaxLineBytes   int           // one line; DefaultMaxLineBytes when 0
	MaxStderrBytes int           // stderr kept; DefaultMaxStderrBytes when 0
	ExitGrace      time.Duration // wait for exit after final; DefaultExitGrace when 0
}

var _ Agent = (*Exec)(nil)

// taskLine is the first line the agent reads.
type taskLine struct {
	Type     string            `json:"type"`
	Protocol string            `json:"protocol"`
	SuiteID  string            `json:"suiteId"`
	TaskID   string            `json:"taskId"`
	Trial    int               `json:"trial"`
	Mode     string            `json:"mode"`
	Input    json.RawMessage   `json:"input"`
	Memory   []json.RawMessage `json:"memory"`
	Tools    []toolLine        `json:"tools"`
}

type toolLine struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

type toolResultLine struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
	IsError bool            `json:"isError"`
}

// userLine is the next turn of a conversation, sent after a reply.
type userLine struct {
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
}

// usage is the usage report of a "usage" line.
func (m *agentLine) usage() Usage {
	return Usage{Model: m.Model, InputTokens: m.InputTokens, OutputTokens: m.OutputTokens, CostUsd: m.CostUsd}
}

// agentLine is any line the agent writes; Type says which fields count.
type agentLine struct {
	Type string `json:"type"`

	// tool_call
	ID        *string         `json:"id"`
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`

	// usage
	Model        string  `json:"model"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUsd      float64 `json:"costUsd"`

	// final and reply; nil when the key is missing, "null" for a null output
	Output json.RawMessage `json:"output"`

	// error
	Message string `json:"message"`
}

// Run runs one trial. See Exec.
func (e *Exec) Run(ctx context.Context, req *Request, tools Tools) *Outcome {
	task, err := encodeTask(req)
	if err != nil {
		return &Outcome{Fatal: fmt.Errorf("could not encode task %q for the agent: %w", req.TaskID, err)}
	}
	c := &conversation{
		ctx:      ctx,
		req:      req,
		tools:    tools,
		maxLine:  orDefault(e.MaxLineBytes, DefaultMaxLineBytes),
		maxTotal: orDefault(e.MaxOutputBytes, DefaultMaxOutputBytes),
		seen:     map[string]bool{},
	}
	p, err := process.Start(ctx, process.Spec{
		Command:        e.Command,
		Dir:            e.Dir,
		Env:            trialEnv(e.Env, req),
		Interactive:    true,
		MaxStdoutBytes: c.maxTotal,
		MaxLineBytes:   c.maxLine,
		MaxStderrBytes: e.MaxStderrBytes,
	})
	if err != nil {
		return notStarted(ctx, req, err)
	}
	c.p = p
	out := &Outcome{}
	end := c.run(task, out)
	grace := orDefault(e.ExitGrace, DefaultExitGrace)
	switch {
	case end == endDone && out.Err == nil && out.Output == nil:
		// The agent closed stdout without a final line.
		p.Wait(grace)
		c.exited(out)
	case end == endDone:
		// A final or error line: the agent has its grace to exit, and what
		// it writes meanwhile is read, so a usage line still counts and
		// nothing else goes unnoticed.
		deadline := time.Now().Add(grace)
		p.CloseStdin()
		c.drain(out, deadline)
		p.WaitUntil(deadline)
	default:
		p.Wait(0)
	}
	out.Stderr = p.Stderr()
	return out
}

// encodeTask renders the task line.
func encodeTask(req *Request) ([]byte, error) {
	t := taskLine{
		Type:     "task",
		Protocol: Protocol,
		SuiteID:  req.SuiteID,
		TaskID:   req.TaskID,
		Trial:    req.Trial,
		Mode:     req.Mode,
		Input:    req.Input,
		Memory:   req.Memory,
		Tools:    make([]toolLine, 0, len(req.Tools)),
	}
	if len(t.Input) == 0 {
		t.Input = json.RawMessage("null")
	}
	if t.Memory == nil {
		t.Memory = []json.RawMessage{}
	}
	for _, tl := range req.Tools {
		t.Tools = append(t.Tools, toolLine{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema})
	}
	return marshalLine(t)
}

// marshalLine renders v as one protocol line. Marshalling compacts embedded
// JSON values, so pretty-printed fixtures cannot break the framing; HTML
// characters stay as they are, so the agent sees the suite's text.
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode adds the newline
		return nil, err
	}
	return b.Bytes(), nil
}

// How a conversation ended.
const (
	endDone = iota // final, error line or end of output: let the agent exit
	endKill        // timeout, cancel, protocol violation, oversize: kill it now
)

// conversation is the evalgate/1 exchange of one trial.
type conversation struct {
	ctx      context.Context
	req      *Request
	tools    Tools
	p        *process.Process
	maxLine  int
	maxTotal int64

	seen  map[string]bool // tool_call ids
	calls int             // tool calls answered so far
	// lineEnd is how many bytes of stdout the lines read so far took:
	// what the agent wrote past it has no newline yet.
	lineEnd int64
}

// ended is the error of a trial whose context ended while the agent was
// at it. A timeout says what the agent had written, when that explains
// the wait: bytes with no newline after them, which evalgate cannot take
// as a line (an unflushed buffer holds the rest of it, or the newline was
// never written), or nothing at all, what an agent whose stdout is
// buffered seems to write. Only counts are said: the bytes are the
// agent's.
func (c *conversation) ended() *AgentError {
	e := contextError(c.ctx, c.req)
	if e.Kind != results.ErrTimeout {
		return e
	}
	switch pending := c.p.BytesRead() - c.lineEnd; {
	case pending > 0:
		e.Message += fmt.Sprintf("; it wrote %s with no newline — does it flush stdout?", countText(int(pending), "byte", "bytes"))
	case c.p.BytesRead() == 0:
		e.Message += " with nothing on stdout — does it flush stdout?"
	}
	return e
}

// run talks to the agent until the task ends and fills out.
func (c *conversation) run(task []byte, out *Outcome) int {
	if _, err := c.p.Write(task); err != nil && c.ctx.Err() != nil {
		// A write error otherwise means the agent closed stdin or exited;
		// what it wrote before says more, so go on reading.
		out.Err = c.ended()
		return endKill
	}
	for {
		line, err := c.p.ReadLine()
		switch {
		case err == nil:
		case c.ctx.Err() != nil:
			out.Err = c.ended()
			return endKill
		case errors.Is(err, process.ErrOutputTooLarge):
			out.Err = &AgentError{Kind: results.ErrOutputTooLarge, Message: fmt.Sprintf("the agent wrote more than %d bytes", c.maxTotal)}
			return endKill
		case errors.Is(err, process.ErrLineTooLong):
			out.Err = &AgentError{Kind: results.ErrOutputTooLarge, Message: fmt.Sprintf("line %d is longer than %d bytes", c.p.LinesRead()+1, c.maxLine)}
			return endKill
		case errors.Is(err, io.EOF):
			return endDone
		default:
			out.Err = &AgentError{Kind: results.ErrAgentExit, Message: "could not read the agent's stdout", Detail: err.Error()}
			return endKill
		}
		c.lineEnd = c.p.BytesRead()
		if len(bytes.TrimSpace(line)) == 0 {
			continue // a blank line carries no message
		}
		if jsonvalue.Depth(line) > MaxDepth+1 { // +1: the line's own object
			out.Err = c.protocolError(fmt.Sprintf("a value is nested deeper than %d levels", MaxDepth), "")
			return endKill
		}
		var m agentLine
		if err := json.Unmarshal(line, &m); err != nil {
			out.Err = c.decodeError(err, line)
			return endKill
		}
		switch m.Type {
		case "tool_call":
			if m.ID == nil || *m.ID == "" || m.Name == nil || *m.Name == "" {
				out.Err = c.protocolError("tool_call needs a non-empty id and name", "")
				return endKill
			}
			if c.seen[*m.ID] {
				out.Err = c.protocolError("tool_call id repeats an earlier one", fmt.Sprintf("id %q", excerpt([]byte(*m.ID))))
				return endKill
			}
			c.seen[*m.ID] = true
			if err := c.answer(*m.ID, *m.Name, m.Arguments); err != nil && c.ctx.Err() != nil {
				out.Err = c.ended()
				return endKill
			}
		case "usage":
			u := m.usage()
			if problem := u.problem(); problem != "" {
				out.Err = c.protocolError(problem, "")
				return endKill
			}
			out.Usage.Add(u)
		case "final":
			if m.Output == nil {
				out.Err = c.protocolError(`final has no "output" (use null for no output)`, "")
				return endKill
			}
			out.Output = bytes.Clone(m.Output)
			return endDone
		case "reply":
			if m.Output == nil {
				out.Err = c.protocolError(`reply has no "output" (use null for no output)`, "")
				return endKill
			}
			next, more, aerr := c.req.nextTurn(c.ctx, len(out.Replies), m.Output)
			if aerr != nil {
				out.Err = aerr
				return endKill
			}
			if !more {
				// No turn is left: the reply is the final output.
				out.Output = bytes.Clone(m.Output)
				return endDone
			}
			out.Replies = append(out.Replies, bytes.Clone(m.Output))
			out.ReplyCalls = append(out.ReplyCalls, c.calls)
			b, err := marshalLine(userLine{Type: "user", Content: next})
			if err == nil {
				if _, err := c.p.Write(b); err != nil && c.ctx.Err() != nil {
					out.Err = c.ended()
					return endKill
				}
			}
		case "error":
			// The agent's message is its own words: transcripts only.
			out.Err = &AgentError{Kind: results.ErrAgentReported, Message: fmt.Sprintf("line %d: the agent reported an error", c.p.LinesRead()), Detail: m.Message}
			return endDone
		case "":
			out.Err = c.protocolError(`no "type"`, "")
			return endKill
		default:
			out.Err = c.protocolError("unknown message type", fmt.Sprintf("type %q", excerpt([]byte(m.Type))))
			return endKill
		}
	}
}

// answer asks the tools and writes the tool_result line. A write error
// means the agent stopped reading; the caller carries on reading its
// output unless the context has ended.
func (c *conversation) answer(id, name string, args json.RawMessage) error {
	c.calls++
	var res fixtures.Result
	if c.tools == nil {
		res = fixtures.Result{Content: jsonText("this run serves no tools"), IsError: true}
	} else {
		res = c.tools.Call(c.ctx, id, name, args)
	}
	if len(res.Content) == 0 {
		res.Content = json.RawMessage("null")
	}
	b, err := marshalLine(toolResultLine{Type: "tool_result", ID: id, Content: res.Content, IsError: res.IsError})
	if err != nil {
		b, _ = marshalLine(toolResultLine{Type: "tool_result", ID: id, Content: jsonText("the tool result is not valid JSON"), IsError: true})
	}
	_, err = c.p.Write(b)
	return err
}

// protocolError is a protocol violation on the line just read: msg is
// evalgate's words, detail may quote the agent (transcripts only).
func (c *conversation) protocolError(msg, detail string) *AgentError {
	return &AgentError{Kind: results.ErrProtocol, Message: fmt.Sprintf("line %d: %s", c.p.LinesRead(), msg), Detail: detail}
}

// exited sets the error of an agent that ended its output without a final
// line: "exit status 2 before any line", or after how many lines. One that
// failed by itself before writing anything is also mute.
func (c *conversation) exited(out *Outcome) {
	if c.ctx.Err() != nil {
		out.Err = c.ended()
		return
	}
	how := c.p.Exit()
	if c.p.BytesRead() == 0 {
		out.Err = &AgentError{Kind: results.ErrAgentExit, Message: how + " before any line"}
		if !c.p.Success() {
			out.Mute = how
		}
		return
	}
	out.Err = &AgentError{Kind: results.ErrAgentExit, Message: fmt.Sprintf("%s after %s, without a final line", how, countText(c.p.LinesRead(), "line", "lines"))}
}

// drain reads what the agent writes after its final or error line, until
// it closes stdout or the deadline: usage lines add up, any other line is
// counted in LinesAfterFinal. The outcome stands whatever comes.
func (c *conversation) drain(out *Outcome, deadline time.Time) {
	if c.ctx.Err() != nil {
		return
	}
	_ = c.p.SetReadDeadline(deadline)
	for {
		line, err := c.p.ReadLine()
		if errors.Is(err, process.ErrOutputTooLarge) || errors.Is(err, process.ErrLineTooLong) {
			out.LinesAfterFinal++
		}
		if err != nil {
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m agentLine
		if jsonvalue.Depth(line) <= MaxDepth+1 && json.Unmarshal(line, &m) == nil && m.Type == "usage" {
			u := m.usage()
			if problem := u.problem(); problem != "" {
				// A bad number after the final line still fails the
				// task: it must not be dropped, nor reach a sum.
				if out.Err == nil {
					out.Err = c.protocolError(problem, "")
					out.Output = nil
				}
				continue
			}
			out.Usage.Add(u)
			continue
		}
		out.LinesAfterFinal++
	}
}

// decodeError explains why a line is not an evalgate/1 message, in JSON
// terms; the line itself goes only into the detail.
func (c *conversation) decodeError(err error, line []byte) *AgentError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		kind, _, _ := strings.Cut(te.Value, " ") // "number 1.5" -> "number"
		return c.protocolError(fmt.Sprintf("field %q cannot be %s", te.Field, article(kind)), "")
	}
	e := &AgentError{Kind: results.ErrProtocol, Message: fmt.Sprintf("line %d is not a JSON object", c.p.LinesRead())}
	if !errors.As(err, &te) && !json.Valid(line) {
		e.Message = fmt.Sprintf("line %d is not JSON", c.p.LinesRead())
		e.Detail = fmt.Sprintf("%q", excerpt(line))
	}
	return e
}

// countText writes "1 line" or "3 lines".
func countText(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func article(jsonKind string) string {
	switch jsonKind {
	case "array", "object":
		return "an " + jsonKind
	case "":
		return "this value"
	default:
		return "a " + jsonKind
	}
}

// excerpt shortens agent text quoted in a message.
func excerpt(b []byte) string {
	const n = 80
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// contextError is the error of a trial whose context ended first.
func contextError(ctx context.Context, req *Request) *AgentError {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg := "timed out"
		if req.Timeout > 0 {
			msg = "timed out after " + durationText(req.Timeout)
		}
		return &AgentError{Kind: results.ErrTimeout, Message: msg}
	}
	return &AgentError{Kind: results.ErrCancelled, Message: "the run was cancelled"}
}

// durationText writes a timeout as people write it: 5s, 2m, 1m30s, 250ms.
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func jsonText(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
