//go:build unix

package runner

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/waittest"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// testRequest is the request every exec test starts from.
func testRequest(input string) *Request {
	return &Request{
		SuiteID: "acme.support.evals.refunds",
		TaskID:  "refund-window",
		Trial:   2,
		Mode:    "golden",
		Input:   json.RawMessage(input),
		Timeout: time.Minute,
	}
}

// testAgentExec runs the test binary as an agent with the given behaviour.
func testAgentExec(behaviour string, extra map[string]string) *Exec {
	env := map[string]string{testAgentEnv: behaviour}
	for k, v := range extra {
		env[k] = v
	}
	return &Exec{Command: []string{os.Args[0]}, Env: process.ScrubEnv(os.Environ(), nil, env)}
}

// wantOutcome is the part of an Outcome a case checks.
type wantOutcome struct {
	output  string // JSON; compared by value; "" when none is expected
	kind    string // error kind; "" when the trial must succeed
	message string // a substring of the error message
	// detail is the error's detail (what may quote the agent), exactly.
	detail string
	mute   string // Outcome.Mute, exactly
	usage  Usage
	// anyUsage skips the usage comparison, for an agent killed mid-stream.
	anyUsage bool
}

func checkOutcome(t *testing.T, out *Outcome, want wantOutcome) {
	t.Helper()
	assert.Assert(t, out.Fatal == nil, "unexpected fatal error: %v (stderr %q)", out.Fatal, out.Stderr)
	gotKind, gotMsg, gotDetail := "", "", ""
	if out.Err != nil {
		gotKind, gotMsg, gotDetail = out.Err.Kind, out.Err.Message, out.Err.Detail
	}
	assert.Assert(t, gotKind == want.kind, "error kind = %q (%s), want %q; stderr %q", gotKind, gotMsg, want.kind, out.Stderr)
	assert.Check(t, strings.Contains(gotMsg, want.message), "error message = %q, want it to contain %q", gotMsg, want.message)
	assert.Check(t, gotDetail == want.detail, "error detail = %q, want %q", gotDetail, want.detail)
	assert.Check(t, out.Mute == want.mute, "Mute = %q, want %q", out.Mute, want.mute)
	switch {
	case want.output == "" && out.Output != nil:
		t.Errorf("output = %s, want none", out.Output)
	case want.output != "":
		g, err := jsonvalue.Decode(out.Output)
		assert.NilError(t, err, "output %q is not JSON", out.Output)
		w, _ := jsonvalue.Decode([]byte(want.output))
		assert.Check(t, jsonvalue.Equal(g, w), "output = %s, want %s", out.Output, want.output)
	}
	if diff := cmp.Diff(want.usage, out.Usage, cmpopts.EquateApprox(0, 1e-12)); !want.anyUsage && diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

func TestExec(t *testing.T) {
	type testCase struct {
		name     string
		agent    string
		input    string
		fixtures *suites.Fixtures
		limits   func(*Exec)
		// cancel, expire: cancel the context, or make its deadline pass,
		// once the agent has written its grandchild's pid (see grandchild).
		cancel, expire bool
		want           wantOutcome
		// grandchild: the agent writes its grandchild's pid to the file named
		// by input.pidFile; check whether it must be dead afterwards.
		grandchild     bool
		grandchildDies bool
		check          func(t *testing.T, out *Outcome, s *fixtures.Session)
	}

	run := func(t *testing.T, tc testCase) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		input := strings.ReplaceAll(tc.input, "PIDFILE", pidFile)
		e := testAgentExec(tc.agent, nil)
		// What an agent writes after its final line counts until it
		// exits, however slowly it gets to: only the agent that lingers
		// is given a grace that ends.
		e.ExitGrace = time.Hour
		if tc.limits != nil {
			tc.limits(e)
		}
		ctx, cancel := context.WithCancel(waittest.Context(t))
		defer cancel()
		started := func() bool { return waittest.HasLine(pidFile) }
		switch {
		case tc.cancel:
			waittest.Then(t, started, cancel)
		case tc.expire:
			var expire func()
			ctx, expire = waittest.Timeout()
			waittest.Then(t, started, expire)
		}
		sess := fixtures.NewSession(tc.fixtures, fixtures.Options{})
		out := e.Run(ctx, testRequest(input), sess)
		checkOutcome(t, out, tc.want)
		if tc.grandchild {
			pid := waittest.Pid(t, pidFile)
			if tc.grandchildDies {
				assert.Check(t, waittest.Exited(t, pid), "grandchild %d is still alive", pid)
			} else {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if tc.check != nil {
			tc.check(t, out, sess)
		}
	}

	for _, tc := range []testCase{
		{
			name:  "echo",
			agent: "echo",
			input: `{"q":"refund?","n":1.50}`,
			want:  wantOutcome{output: `{"q":"refund?","n":1.5}`},
		},
		{
			name:  "string input",
			agent: "echo",
			input: `"just text"`,
			want:  wantOutcome{output: `"just text"`},
		},
		{
			name:  "tool round trip with fixtures",
			agent: "tools",
			input: `{"call":[
				{"name":"crm:lookup","arguments":{"orderId":"A-17","verbose":true}},
				{"name":"crm:refund","arguments":{"orderId":"A-17"}},
				{"name":"crm:refund","arguments":{"orderId":"A-17"}},
				{"name":"crm:delete","arguments":{}}
			]}`,
			fixtures: &suites.Fixtures{ToolResponses: []suites.ToolResponse{
				{Tool: "crm:lookup", Args: json.RawMessage(`{"orderId":"B-2"}`), Response: json.RawMessage(`{"status":"wrong"}`)},
				{Tool: "crm:lookup", Args: json.RawMessage(`{"orderId":"A-17"}`), Response: json.RawMessage("{\n  \"status\": \"delivered\"\n}")},
				{Tool: "crm:refund", Error: "try again", Times: 1},
				{Tool: "crm:refund", Response: json.RawMessage(`{"refunded":true}`)},
			}},
			want: wantOutcome{output: `[
				{"type":"tool_result","id":"c1","content":{"status":"delivered"},"isError":false},
				{"type":"tool_result","id":"c2","content":"try again","isError":true},
				{"type":"tool_result","id":"c3","content":{"refunded":true},"isError":false},
				{"type":"tool_result","id":"c4","content":"no fixture for tool \"crm:delete\"","isError":true}
			]`},
			check: func(t *testing.T, _ *Outcome, s *fixtures.Session) {
				var got []string
				for _, c := range s.Trace() {
					got = append(got, c.ID+" "+c.Name+" "+string(c.Args))
				}
				want := []string{
					`c1 crm:lookup {"orderId":"A-17","verbose":true}`,
					`c2 crm:refund {"orderId":"A-17"}`,
					`c3 crm:refund {"orderId":"A-17"}`,
					`c4 crm:delete {}`,
				}
				assert.Check(t, is.DeepEqual(want, got), "trace")
				assert.Check(t, len(s.Findings()) == 1, "findings = %v, want one unfixtured-tool-call", s.Findings())
			},
		},
		{
			name:  "usage lines add up",
			agent: "usage",
			input: `{}`,
			want:  wantOutcome{output: `"ok"`, usage: Usage{Model: "m2", InputTokens: 812, OutputTokens: 95, CostUsd: 0.0015, Reported: true}},
		},
		{
			name:  "null output is an output",
			agent: "null",
			input: `{}`,
			want:  wantOutcome{output: `null`},
		},
		{
			name:  "final without output",
			agent: "nooutput",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: `final has no "output"`},
		},
		{
			name:  "last line without a newline",
			agent: "unfinished",
			input: `{}`,
			want:  wantOutcome{output: `"no newline"`},
		},
		{
			name:  "crash without final",
			agent: "crash",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrAgentExit, message: "exit status 3 before any line", mute: "exit status 3"},
			check: func(t *testing.T, out *Outcome, _ *fixtures.Session) {
				got := string(out.Stderr)
				assert.Check(t, got == "agent: something broke\n", "stderr = %q", got)
			},
		},
		{
			name:  "clean exit without final",
			agent: "exit0",
			input: `{}`,
			// Not mute: the agent did not fail.
			want: wantOutcome{kind: results.ErrAgentExit, message: "exit status 0 before any line"},
		},
		{
			name:  "failure after a line",
			agent: "halfway",
			input: `{}`,
			// Not mute: the agent spoke.
			want: wantOutcome{kind: results.ErrAgentExit, message: "exit status 2 after 1 line, without a final line", usage: Usage{InputTokens: 1, Reported: true}},
		},
		{
			name:  "a final output nested 9,990 levels deep",
			agent: "deep-final",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 1: a value is nested deeper than 256 levels"},
		},
		{
			name:  "a final output nested 256 levels deep is fine",
			agent: "deep-256",
			input: `{}`,
			want:  wantOutcome{output: strings.Repeat("[", 256) + strings.Repeat("]", 256)},
		},
		{
			name:  "tool call arguments nested 257 levels deep",
			agent: "deep-args",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 1: a value is nested deeper than 256 levels"},
		},
		{
			name:  "a bad usage line after final fails the task",
			agent: "badusage-after-final",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 2: usage costUsd must be between 0 and 1e+06"},
		},
		{
			name:  "lines after final: usage counts, the rest is counted and ignored",
			agent: "chatty",
			input: `{}`,
			want:  wantOutcome{output: `"ok"`, usage: Usage{Model: "m", InputTokens: 7, OutputTokens: 3, CostUsd: 0.25, Reported: true}},
			check: func(t *testing.T, out *Outcome, _ *fixtures.Session) {
				assert.Check(t, out.LinesAfterFinal == 2, "LinesAfterFinal = %d, want 2 (a text line and a second final)", out.LinesAfterFinal)
			},
		},
		{
			name:  "usage written once stdin is closed still counts",
			agent: "usage-at-exit",
			input: `{}`,
			want:  wantOutcome{output: `"ok"`, usage: Usage{InputTokens: 5, CostUsd: 0.5, Reported: true}},
			check: func(t *testing.T, out *Outcome, _ *fixtures.Session) {
				assert.Check(t, out.LinesAfterFinal == 0, "LinesAfterFinal = %d, want 0", out.LinesAfterFinal)
			},
		},
		{
			name:       "hang past the timeout, grandchild holding stdout",
			agent:      "hang",
			input:      `{"pidFile":"PIDFILE"}`,
			expire:     true,
			want:       wantOutcome{kind: results.ErrTimeout, message: "timed out after"},
			grandchild: true, grandchildDies: true,
		},
		{
			name:       "cancelled",
			agent:      "hang",
			input:      `{"pidFile":"PIDFILE"}`,
			cancel:     true,
			want:       wantOutcome{kind: results.ErrCancelled},
			grandchild: true, grandchildDies: true,
		},
		{
			// A grandchild that left the process group cannot be killed with
			// it, but must not hang the trial either.
			name:       "hang, grandchild escaped the group",
			agent:      "escape",
			input:      `{"pidFile":"PIDFILE"}`,
			expire:     true,
			want:       wantOutcome{kind: results.ErrTimeout},
			grandchild: true,
		},
		{
			name:       "lingers after final: killed after the grace",
			agent:      "linger",
			input:      `{"pidFile":"PIDFILE"}`,
			limits:     func(e *Exec) { e.ExitGrace = 200 * time.Millisecond },
			want:       wantOutcome{output: `"done"`},
			grandchild: true, grandchildDies: true,
		},
		{
			name:  "garbage line",
			agent: "garbage",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 1 is not JSON", detail: `"thinking... {not json"`},
		},
		{
			name:  "not an object",
			agent: "array",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 1 is not a JSON object"},
		},
		{
			name:  "unknown type",
			agent: "unknown",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 1: unknown message type", detail: `type "thought"`},
		},
		{
			name:  "no type",
			agent: "notype",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: `no "type"`},
		},
		{
			name:  "wrong field type",
			agent: "badusage",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: `field "inputTokens" cannot be a string`},
		},
		{
			name:  "tool call without a name",
			agent: "noname",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "non-empty id and name"},
		},
		{
			name:     "duplicate tool call id",
			agent:    "dupid",
			input:    `{}`,
			fixtures: &suites.Fixtures{ToolResponses: []suites.ToolResponse{{Tool: "t"}}},
			want:     wantOutcome{kind: results.ErrProtocol, message: "line 2: tool_call id repeats an earlier one", detail: `id "c1"`},
		},
		{
			name:   "line over the cap",
			agent:  "bigline",
			input:  `{}`,
			limits: func(e *Exec) { e.MaxLineBytes = 1024 },
			want:   wantOutcome{kind: results.ErrOutputTooLarge, message: "line 1 is longer than 1024 bytes"},
		},
		{
			name:   "line at the cap",
			agent:  "bigline",
			input:  `{}`,
			limits: func(e *Exec) { e.MaxLineBytes = 4096 + len(`{"type":"final","output":""}`) },
			want:   wantOutcome{output: `"` + strings.Repeat("x", 4096) + `"`},
		},
		{
			name:   "total output over the cap",
			agent:  "flood",
			input:  `{}`,
			limits: func(e *Exec) { e.MaxOutputBytes = 100 << 10 },
			want:   wantOutcome{kind: results.ErrOutputTooLarge, message: "more than 102400 bytes", anyUsage: true},
			check: func(t *testing.T, out *Outcome, _ *fixtures.Session) {
				assert.Check(t, out.Usage.InputTokens != 0, "usage before the cap was not counted")
			},
		},
		{
			name:  "agent error line",
			agent: "error",
			input: `{}`,
			want:  wantOutcome{kind: results.ErrAgentReported, message: "line 1: the agent reported an error", detail: "model refused"},
		},
		{
			name:   "stderr bounded",
			agent:  "stderr",
			input:  `{}`,
			limits: func(e *Exec) { e.MaxStderrBytes = 1000 },
			want:   wantOutcome{output: `"ok"`},
			check: func(t *testing.T, out *Outcome, _ *fixtures.Session) {
				assert.Check(t, len(out.Stderr) == 1000 && strings.Trim(string(out.Stderr), "e") == "", "stderr kept %d bytes, want 1000", len(out.Stderr))
			},
		},
		{
			// The agent never reads its task; the input does not fit in the
			// pipe, so writing it fails once the agent exits.
			name:  "agent that does not read a big task",
			agent: "noread",
			input: `"` + strings.Repeat("i", 1<<20) + `"`,
			want:  wantOutcome{output: `"early"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestExecTaskLine pins the task line the agent reads.
func TestExecTaskLine(t *testing.T) {
	req := testRequest("{\n  \"question\": \"refund <A-17>?\",\n  \"n\": 1.0\n}")
	req.Memory = []json.RawMessage{json.RawMessage(`{"customer": "c-1"}`), json.RawMessage(`{"tier":"gold"}`)}
	req.Tools = []suites.Tool{
		{Name: "crm:lookup", Description: "Look up an order", InputSchema: json.RawMessage(`{"type": "object", "properties": {"orderId": {"type": "string"}}}`)},
		{Name: "crm:refund"},
	}
	type testCase struct {
		name   string
		req    *Request
		golden string
	}
	noMemory := testRequest(`null`)
	noMemory.Mode = "live-shadow"
	run := func(t *testing.T, tc testCase) {
		out := testAgentExec("task", nil).Run(context.Background(), tc.req, nil)
		checkOutcome(t, out, wantOutcome{output: string(out.Output)})
		var line string
		assert.NilError(t, json.Unmarshal(out.Output, &line))
		golden.Assert(t, line, tc.golden)
	}
	for _, tc := range []testCase{
		{name: "memory and tools", req: req, golden: "task-line.golden"},
		{name: "no memory, no tools, null input", req: noMemory, golden: "task-line-empty.golden"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestExecEnv checks the child environment: tokens scrubbed, extra passed,
// EVALGATE_* set.
func TestExecEnv(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghs_secret")
	t.Setenv("ACTIONS_RUNTIME_TOKEN", "runtime-secret")
	t.Setenv("JUDGE_KEY", "judge-secret")
	t.Setenv("KEEP_ME", "kept")
	t.Setenv("UPSTREAM_KEY", "sk-passed")
	e := &Exec{
		Command: []string{os.Args[0]},
		Env: process.ScrubEnv(os.Environ(), []string{"JUDGE_KEY"}, map[string]string{
			testAgentEnv: "env",
			"PASSED_KEY": "${UPSTREAM_KEY}",
		}),
	}
	out := e.Run(context.Background(), testRequest(`{}`), nil)
	checkOutcome(t, out, wantOutcome{output: `{
		"KEEP_ME": "kept",
		"PASSED_KEY": "sk-passed",
		"EVALGATE_SUITE_ID": "acme.support.evals.refunds",
		"EVALGATE_TASK_ID": "refund-window",
		"EVALGATE_TRIAL": "2"
	}`})
}

func TestExecFatal(t *testing.T) {
	type testCase struct {
		name    string
		command []string
		want    string
	}
	notExec := filepath.Join(t.TempDir(), "agent.sh")
	assert.NilError(t, os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644))
	run := func(t *testing.T, tc testCase) {
		for _, a := range []Agent{&Exec{Command: tc.command}, &Plain{Command: tc.command}} {
			out := a.Run(context.Background(), testRequest(`{}`), nil)
			assert.Assert(t, out.Fatal != nil, "%T: Fatal is nil, outcome %+v", a, out)
			assert.Check(t, strings.Contains(out.Fatal.Error(), tc.want), "%T: Fatal = %q, want it to contain %q", a, out.Fatal, tc.want)
			assert.Check(t, out.Err == nil && out.Output == nil, "%T: a fatal outcome has Err %v, Output %s", a, out.Err, out.Output)
		}
	}
	for _, tc := range []testCase{
		{name: "not found", command: []string{"evalgate-no-such-agent-xyz"}, want: `could not start agent "evalgate-no-such-agent-xyz"`},
		{name: "missing path", command: []string{"/nonexistent/agent"}, want: `could not start agent "/nonexistent/agent"`},
		{name: "not executable", command: []string{notExec}, want: "permission denied"},
		{name: "no command", command: nil, want: "no command given"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestExecDoneContext checks that a trial whose context has already ended
// starts nothing.
func TestExecDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := testAgentExec("echo", nil).Run(ctx, testRequest(`{}`), nil)
	checkOutcome(t, out, wantOutcome{kind: results.ErrCancelled})
}

// TestExecPythonAgent runs testdata/agent.py, an agent written only from
// the protocol description, through the exec driver.
func TestExecPythonAgent(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH")
	}
	agent, err := filepath.Abs(filepath.Join("testdata", "agent.py"))
	assert.NilError(t, err)
	type testCase struct {
		name     string
		input    string
		memory   []json.RawMessage
		tools    []suites.Tool
		fixtures *suites.Fixtures
		// expire: the deadline passes once the agent has written its pid
		// to the file named by input.pidFile.
		expire bool
		want   wantOutcome
	}
	fx := &suites.Fixtures{ToolResponses: []suites.ToolResponse{
		{Tool: "crm:lookup", Args: json.RawMessage(`{"orderId":"A-17"}`), Response: json.RawMessage(`{"status":"delivered","days":12}`)},
		{Tool: "crm:refund", Error: "refund window closed"},
	}}
	run := func(t *testing.T, tc testCase) {
		t.Setenv("GITHUB_TOKEN", "ghs_secret")
		e := &Exec{Command: []string{python, agent}, Env: process.ScrubEnv(os.Environ(), nil, map[string]string{"AGENT_MODE": "test"})}
		pidFile := filepath.Join(t.TempDir(), "pid")
		ctx := waittest.Context(t)
		if tc.expire {
			var expire func()
			ctx, expire = waittest.Timeout()
			waittest.Then(t, func() bool { return waittest.HasLine(pidFile) }, expire)
		}
		req := testRequest(strings.ReplaceAll(tc.input, "PIDFILE", pidFile))
		req.Memory = tc.memory
		req.Tools = tc.tools
		out := e.Run(ctx, req, fixtures.NewSession(tc.fixtures, fixtures.Options{}))
		checkOutcome(t, out, tc.want)
	}
	for _, tc := range []testCase{
		{name: "echo a string", input: `"hello"`, want: wantOutcome{output: `"hello"`}},
		{name: "answer", input: `{"answer":{"refund":true}}`, want: wantOutcome{output: `{"refund":true}`}},
		{
			name:     "tool round trip",
			input:    `{"call":[{"name":"crm:lookup","arguments":{"orderId":"A-17"}}],"answerFromTool":true}`,
			fixtures: fx,
			want:     wantOutcome{output: `{"status":"delivered","days":12}`},
		},
		{
			name:     "tool results with an error and an unfixtured call",
			input:    `{"call":[{"name":"crm:refund","arguments":{}},{"name":"crm:cancel"}],"behaviour":"results"}`,
			fixtures: fx,
			want: wantOutcome{output: `[
				{"type":"tool_result","id":"call-1","content":"refund window closed","isError":true},
				{"type":"tool_result","id":"call-2","content":"no fixture for tool \"crm:cancel\"","isError":true}
			]`},
		},
		{
			name:  "usage",
			input: `{"usage":[{"model":"small","inputTokens":100,"outputTokens":10,"costUsd":0.25},{"model":"small","inputTokens":1,"outputTokens":2,"costUsd":0.5}],"answer":"ok"}`,
			want:  wantOutcome{output: `"ok"`, usage: Usage{Model: "small", InputTokens: 101, OutputTokens: 12, CostUsd: 0.75, Reported: true}},
		},
		{
			name:  "usage costs that would add up to infinity",
			input: `{"usage":[{"costUsd":1.5e308},{"costUsd":1.5e308}],"answer":"ok"}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 1: usage costUsd must be between 0 and 1e+06"},
		},
		{
			name:  "a negative cost",
			input: `{"usage":[{"costUsd":0.5},{"costUsd":-1}],"answer":"ok"}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 2: usage costUsd must be between 0 and 1e+06", usage: Usage{CostUsd: 0.5, Reported: true}},
		},
		{
			name:  "negative tokens",
			input: `{"usage":[{"inputTokens":-5}],"answer":"ok"}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 1: usage inputTokens must be between 0 and 1099511627776"},
		},
		{
			name:  "too many tokens",
			input: `{"usage":[{"outputTokens":2000000000000000}],"answer":"ok"}`,
			want:  wantOutcome{kind: results.ErrProtocol, message: "line 1: usage outputTokens must be between 0 and 1099511627776"},
		},
		{
			name:   "memory and tools",
			input:  `{"behaviour":"memory"}`,
			memory: []json.RawMessage{json.RawMessage(`{"customer":"c-1"}`)},
			tools:  []suites.Tool{{Name: "crm:lookup"}, {Name: "crm:refund"}},
			want:   wantOutcome{output: `{"memory":[{"customer":"c-1"}],"tools":["crm:lookup","crm:refund"]}`},
		},
		{
			name:  "environment",
			input: `{"behaviour":"env","envNames":["GITHUB_TOKEN","AGENT_MODE"]}`,
			want:  wantOutcome{output: `{"EVALGATE_SUITE_ID":"acme.support.evals.refunds","EVALGATE_TASK_ID":"refund-window","EVALGATE_TRIAL":"2","AGENT_MODE":"test"}`},
		},
		{name: "error", input: `{"behaviour":"error","message":"no idea"}`, want: wantOutcome{kind: results.ErrAgentReported, message: "the agent reported an error", detail: "no idea"}},
		{name: "crash", input: `{"behaviour":"crash","exitCode":4}`, want: wantOutcome{kind: results.ErrAgentExit, message: "exit status 4 before any line", mute: "exit status 4"}},
		{name: "hang", input: `{"behaviour":"hang","pidFile":"PIDFILE"}`, expire: true, want: wantOutcome{kind: results.ErrTimeout}},
		{name: "garbage", input: `{"behaviour":"garbage"}`, want: wantOutcome{kind: results.ErrProtocol, message: "line 1 is not JSON", detail: `"this is not JSON"`}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestDurationText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Second:         "5s",
		250 * time.Millisecond:  "250ms",
		2 * time.Minute:         "2m",
		90 * time.Second:        "1m30s",
		time.Hour:               "1h",
		time.Hour + time.Second: "1h0m1s",
	} {
		got := durationText(d)
		assert.Check(t, got == want, "durationText(%v) = %q, want %q", d, got, want)
	}
}
