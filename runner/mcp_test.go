//go:build unix

package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/waittest"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// mcpTestInput is what the MCP test agents are asked to do.
type mcpTestInput struct {
	Call []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"call"`
	Memory  bool   `json:"memory"`  // read evalgate://memory/0 and answer with it
	Quiet   bool   `json:"quiet"`   // answer "done" instead of the results, as the "tools" agent does
	URLFile string `json:"urlFile"` // write EVALGATE_MCP_URL there, then hang
	// Sessions is how many more sessions to open, a client each, before
	// the calls: past its quota the agent is stopped.
	Sessions int  `json:"sessions"`
	Linger   bool `json:"linger"` // answer, then keep the client open and idle
	// AnsweredFile, with Linger, is a file the agent writes a line to once
	// it has answered.
	AnsweredFile string `json:"answeredFile"`
}

// mcpTestAgent is the agent side of the MCP tests: "mcp-exec" reads an
// evalgate/1 task line and answers with a final line, "mcp-plain" reads
// its input on stdin and answers on stdout. Either reaches its tools
// through the official SDK's client at EVALGATE_MCP_URL.
func mcpTestAgent(behaviour string, in *bufio.Reader) int {
	var input mcpTestInput
	switch behaviour {
	case "mcp-exec":
		line, err := in.ReadString('\n')
		var task struct {
			Input mcpTestInput `json:"input"`
		}
		if err != nil || json.Unmarshal([]byte(line), &task) != nil {
			return 9
		}
		input = task.Input
	case "mcp-plain":
		b, err := io.ReadAll(in)
		if err != nil || json.Unmarshal(b, &input) != nil {
			return 9
		}
	default:
		return 99
	}
	answer := func(v any) {
		if behaviour == "mcp-exec" {
			b, _ := json.Marshal(map[string]any{"type": "final", "output": v})
			fmt.Println(string(b))
			return
		}
		if s, ok := v.(string); ok {
			fmt.Print(s)
			return
		}
		b, _ := json.Marshal(v)
		fmt.Print(string(b))
	}
	url := os.Getenv(EnvMCPURL)
	cfg, err := os.ReadFile(os.Getenv(EnvMCPConfig))
	if err != nil || !strings.Contains(string(cfg), `"url":"`+url+`"`) {
		fmt.Fprintln(os.Stderr, "no MCP config naming", url, err)
		return 5
	}
	if input.URLFile != "" {
		os.WriteFile(input.URLFile, []byte(url+"\n"), 0o600)
		time.Sleep(time.Hour)
	}
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return 6
	}
	defer cs.Close()
	for range input.Sessions {
		if more, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil); err == nil {
			defer more.Close()
		}
	}
	var out []any
	for _, call := range input.Call {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.Name, Arguments: call.Arguments})
		if err != nil {
			fmt.Fprintln(os.Stderr, "call:", err)
			return 7
		}
		var text string
		for _, c := range res.Content {
			text += c.(*mcp.TextContent).Text
		}
		out = append(out, map[string]any{"isError": res.IsError, "text": text})
	}
	switch {
	case input.Memory:
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "evalgate://memory/0"})
		if err != nil {
			fmt.Fprintln(os.Stderr, "read:", err)
			return 8
		}
		answer(res.Contents[0].Text)
	case input.Quiet:
		answer("done")
	default:
		answer(out)
	}
	if input.Linger {
		if input.AnsweredFile != "" {
			os.Stdout.Sync()
			os.WriteFile(input.AnsweredFile, []byte("answered\n"), 0o600)
		}
		time.Sleep(time.Hour)
	}
	return 0
}

// mcpSuite has a tool whose name MCP does not accept as it is, fixtures
// that match on arguments, an error, a memory seed and a canary; its one
// task calls the tools in the names of the agent's protocol.
func mcpSuite(t *testing.T, lookup string) *suites.Suite {
	return loadSuite(t, `suiteId: acme.t.evals.mcp
version: 1.0.0
modes: [golden]
tools:
  - {name: "crm:lookup", description: look an order up, inputSchema: {type: object}}
  - {name: notes.write}
tasks:
  - taskId: t
    input:
      quiet: true
      call:
        - {name: "`+lookup+`", arguments: {orderId: A-17}}
        - {name: "`+lookup+`", arguments: {orderId: B-2}}
        - {name: notes.write, arguments: {text: "owner is SECRET-42"}}
        - {name: rm, arguments: {}}
    expected: {kind: golden, match: {strategy: exact, value: done}}
    fixtures:
      canaries: [SECRET-42]
      memorySeed: [{customer: ann}]
      toolResponses:
        - {tool: "crm:lookup", args: {orderId: A-17}, response: {owner: SECRET-42}}
        - {tool: "crm:lookup", error: order not found}
        - {tool: notes.write, response: ok}
`)
}

// traceRecorder keeps the trace of a trial, and checks every trial's
// trace has the same calls.
type traceRecorder struct {
	recorder
	trace []fixtures.Call
	names []string
	mixed bool
}

func (r *traceRecorder) Trial(s *suites.Suite, t *suites.Task, tr *TrialRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var names []string
	for _, c := range tr.Trace {
		names = append(names, c.Name)
	}
	if r.names != nil && !cmp.Equal(names, r.names) {
		r.mixed = true
	}
	r.trace, r.names = tr.Trace, names
}

// TestMCPAnswersAsEvalgate1 runs the same calls over evalgate/1 and over
// MCP, from an exec and from a plain agent: the trace (ids and times
// aside), the checks and the findings are the same, the canary sent back
// in a tool call's arguments included.
func TestMCPAnswersAsEvalgate1(t *testing.T) {
	run := func(t *testing.T, agent Agent, lookup string) (results.Task, []fixtures.Call) {
		t.Helper()
		obs := &traceRecorder{}
		got, err := Run(t.Context(), Plan([]*suites.Suite{mcpSuite(t, lookup)}, Selection{}), Options{
			Agent: agent, Scorer: scoring{&judges.Scorer{Detectors: &judges.Detectors{}, Canary: "EVALGATE-CANARY-x"}}, Observer: obs, Canary: "EVALGATE-CANARY-x",
			Trials: 4, Concurrency: 4, // trials at once, each on its own endpoint
		})
		assert.NilError(t, err)
		assert.Check(t, !obs.mixed, "a trial's trace holds the calls of another")
		if m, ok := agent.(*MCP); ok {
			assert.NilError(t, m.Close())
		}
		return got[0].Tasks[0], obs.trace
	}
	wantTask, wantTrace := run(t, testAgentExec("tools", nil), "crm:lookup")
	assert.Assert(t, is.Len(wantTrace, 4))
	kinds := []string{}
	for _, f := range wantTask.Trials[0].Findings {
		kinds = append(kinds, f.Kind)
	}
	assert.Check(t, is.DeepEqual(kinds, []string{fixtures.FindingUnfixtured, judges.FindingCanaryLeak}))

	norm := cmp.Options{
		cmp.FilterPath(func(p cmp.Path) bool {
			switch p.Last().String() {
			case ".ID", ".StartMs", ".DurationMs", ".LatencyMs":
				return true
			}
			return false
		}, cmp.Ignore()),
		cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) }),
	}
	for _, tc := range []struct {
		name  string
		agent Agent
	}{
		{name: "exec", agent: &MCP{Agent: testAgentExec("mcp-exec", nil)}},
		{name: "plain", agent: &MCP{Agent: &Plain{Command: testAgentExec("mcp-plain", nil).Command, Env: testAgentExec("mcp-plain", nil).Env}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task, trace := run(t, tc.agent, "crm_lookup")
			assert.Check(t, is.DeepEqual(trace, wantTrace, norm...))
			assert.Check(t, is.DeepEqual(task, wantTask, norm...))
			assert.Check(t, is.Equal(trace[0].ID, "mcp-1"))
		})
	}
}

// TestMCPMemory reads the memory seed as a resource from a plain agent.
func TestMCPMemory(t *testing.T) {
	m := &MCP{Agent: &Plain{Command: testAgentExec("mcp-plain", nil).Command, Env: testAgentExec("mcp-plain", nil).Env}}
	defer m.Close()
	req := testRequest(`{"memory": true}`)
	req.Memory = []json.RawMessage{json.RawMessage(`{"customer": "ann"}`)}
	out := m.Run(t.Context(), req, fixtures.NewSession(nil, fixtures.Options{}))
	assert.Assert(t, out.Err == nil && out.Fatal == nil, "%v %v: %s", out.Err, out.Fatal, out.Stderr)
	assert.Check(t, is.Equal(string(out.Output), `"{\"customer\":\"ann\"}"`))
}

// TestMCPEndsWithTheTrial times a trial out while its agent holds the
// URL: the trial is a timeout, and the URL is 404 once Run returns.
func TestMCPEndsWithTheTrial(t *testing.T) {
	urlFile := filepath.Join(t.TempDir(), "url")
	m := &MCP{Agent: testAgentExec("mcp-exec", nil)}
	defer m.Close()
	ctx, expire := waittest.Timeout()
	waittest.Then(t, func() bool { return waittest.HasLine(urlFile) }, expire)
	out := m.Run(ctx, testRequest(`{"urlFile": "`+urlFile+`"}`), fixtures.NewSession(nil, fixtures.Options{}))
	assert.Assert(t, out.Err != nil && out.Err.Kind == results.ErrTimeout, "%+v", out.Err)
	url := strings.TrimSpace(string(waittest.File(t, urlFile)))
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	assert.NilError(t, err)
	resp.Body.Close()
	assert.Check(t, is.Equal(resp.StatusCode, http.StatusNotFound))
	entries, err := os.ReadDir(m.dir)
	assert.NilError(t, err)
	assert.Check(t, is.Len(entries, 0), "the trial's config file is removed")
}

// TestMCPQuota: an agent that opens session after session goes over its
// trial's quota, which ends the trial there, long before its timeout, as
// an output-too-large error that says which quota.
func TestMCPQuota(t *testing.T) {
	m := &MCP{Agent: &Plain{Command: testAgentExec("mcp-plain", nil).Command, Env: testAgentExec("mcp-plain", nil).Env}}
	defer m.Close()
	req := testRequest(`{"sessions": 1000, "quiet": true}`)
	req.Timeout = time.Hour
	out := m.Run(waittest.Context(t), req, fixtures.NewSession(nil, fixtures.Options{}))
	assert.Assert(t, out.Err != nil, "%s", out.Output)
	assert.Check(t, is.Equal(out.Err.Kind, results.ErrOutputTooLarge))
	assert.Check(t, is.Equal(out.Err.Message, "the agent's MCP client went over its trial's quota of 100 sessions"))
	assert.Check(t, out.Output == nil)
}

// TestMCPAnsweredThenIdle: a plain agent that answers and then idles
// with its client open until the timeout is told so.
func TestMCPAnsweredThenIdle(t *testing.T) {
	m := &MCP{Agent: &Plain{Command: testAgentExec("mcp-plain", nil).Command, Env: testAgentExec("mcp-plain", nil).Env}}
	defer m.Close()
	answered := filepath.Join(t.TempDir(), "answered")
	req := testRequest(`{"quiet": true, "linger": true, "answeredFile": "` + answered + `", "call": [{"name": "rm", "arguments": {}}]}`)
	req.Timeout = 2 * time.Second // for the message: the deadline passes once the agent has answered
	ctx, expire := waittest.Timeout()
	waittest.Then(t, func() bool { return waittest.HasLine(answered) }, expire)
	sess := fixtures.NewSession(nil, fixtures.Options{})
	out := m.Run(ctx, req, sess)
	assert.Assert(t, out.Err != nil, "%s", out.Output)
	assert.Check(t, is.Equal(out.Err.Kind, results.ErrTimeout))
	assert.Check(t, is.Equal(out.Err.Message, "timed out after 2s: answered (4 bytes), then did not exit; end the program once its answer is written (an MCP client left open can keep it running)"))
	assert.Check(t, is.Len(sess.Trace(), 1))
}

func TestMCPTools(t *testing.T) {
	got := MCPTools([]suites.Tool{{Name: "crm:lookup"}, {Name: "crm_lookup"}, {Name: "notes.read"}, {Name: strings.Repeat("a", 100)}, {Name: "a b"}})
	var served []string
	for _, tl := range got {
		served = append(served, tl.Served)
	}
	assert.Check(t, is.DeepEqual(served, []string{"crm_lookup_e6b237bc", "crm_lookup", "notes.read", strings.Repeat("a", 100), "a_b"}))
}

// TestConfigDir: the config folder is made in the first parent that takes
// it, owner-only, and in the system's temporary folder when none does.
func TestConfigDir(t *testing.T) {
	parent := t.TempDir()
	missing := filepath.Join(parent, "missing")
	dir, err := configDir([]string{missing, parent})
	assert.NilError(t, err)
	defer os.RemoveAll(dir)
	assert.Check(t, is.Equal(filepath.Dir(dir), parent))
	info, err := os.Stat(dir)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(info.Mode().Perm(), os.FileMode(0o700)))

	dir, err = configDir([]string{missing})
	assert.NilError(t, err)
	defer os.RemoveAll(dir)
	assert.Check(t, is.Equal(filepath.Dir(dir), filepath.Clean(os.TempDir())))
}
