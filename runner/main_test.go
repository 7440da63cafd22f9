//go:build unix

package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/testenv"
	"github.com/evalgate/evalgate/internal/waittest"
	"gotest.tools/v3/assert"
)

// testAgentEnv selects a behaviour of the test binary re-executed as an
// agent, so the tests need no extra build. See testAgent.
const testAgentEnv = "EVALGATE_TEST_AGENT"

func TestMain(m *testing.M) {
	if b := os.Getenv(testAgentEnv); b != "" {
		os.Exit(testAgent(b))
	}
	os.Exit(testenv.Run(m))
}

// testAgent is the agent side of the exec tests: one behaviour per name. It
// returns the exit status.
func testAgent(behaviour string) int {
	in := bufio.NewReader(os.Stdin)
	out := os.Stdout
	send := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		out.Write(append(b, '\n'))
	}
	readTask := func() (map[string]any, string) {
		line, err := in.ReadString('\n')
		if err != nil {
			fmt.Fprintln(os.Stderr, "no task line:", err)
			os.Exit(9)
		}
		var t map[string]any
		if err := json.Unmarshal([]byte(line), &t); err != nil {
			fmt.Fprintln(os.Stderr, "bad task line:", err)
			os.Exit(9)
		}
		return t, line
	}
	final := func(v any) { send(map[string]any{"type": "final", "output": v}) }

	if strings.HasPrefix(behaviour, "mcp-") {
		return mcpTestAgent(behaviour, in)
	}
	if strings.HasPrefix(behaviour, "otel") {
		return otelTestAgent(behaviour, in)
	}
	switch behaviour {
	case "sleep": // a grandchild
		time.Sleep(time.Hour)
		return 0
	case "noread": // answers without reading its task
		final("early")
		return 0
	}

	task, line := readTask()
	input, _ := task["input"].(map[string]any)
	switch behaviour {
	case "echo":
		final(task["input"])
	case "task":
		final(line)
	case "tools":
		var results []any
		calls, _ := input["call"].([]any)
		for i, c := range calls {
			c := c.(map[string]any)
			send(map[string]any{"type": "tool_call", "id": fmt.Sprintf("c%d", i+1), "name": c["name"], "arguments": c["arguments"]})
			line, err := in.ReadString('\n')
			if err != nil {
				return 8
			}
			var r map[string]any
			json.Unmarshal([]byte(line), &r)
			results = append(results, r)
		}
		if input["quiet"] == true {
			final("done")
			break
		}
		final(results)
	case "usage":
		send(map[string]any{"type": "usage", "model": "m1", "inputTokens": 800, "outputTokens": 90, "costUsd": 0.001})
		fmt.Fprintln(out) // a blank line is skipped
		send(map[string]any{"type": "usage", "model": "m2", "inputTokens": 12, "outputTokens": 5, "costUsd": 0.0005})
		final("ok")
	case "env":
		got := map[string]any{}
		for _, k := range []string{"GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "JUDGE_KEY", "KEEP_ME", "PASSED_KEY", "EVALGATE_SUITE_ID", "EVALGATE_TASK_ID", "EVALGATE_TRIAL"} {
			if v, ok := os.LookupEnv(k); ok {
				got[k] = v
			}
		}
		final(got)
	case "crash":
		fmt.Fprintln(os.Stderr, "agent: something broke")
		return 3
	case "exit0":
		return 0
	case "halfway": // one usage line, then a failure without final
		send(map[string]any{"type": "usage", "inputTokens": 1})
		return 2
	case "chatty": // goes on writing after final
		final("ok")
		send(map[string]any{"type": "usage", "model": "m", "inputTokens": 7, "outputTokens": 3, "costUsd": 0.25})
		fmt.Fprintln(out, "debug: all done")
		fmt.Fprintln(out)
		final("again")
	case "deep-final": // a final output nested 9,990 levels deep
		fmt.Fprintln(out, `{"type":"final","output":`+strings.Repeat("[", 9990)+strings.Repeat("]", 9990)+`}`)
	case "deep-256": // a final output nested exactly as deep as allowed
		fmt.Fprintln(out, `{"type":"final","output":`+strings.Repeat("[", 256)+strings.Repeat("]", 256)+`}`)
	case "deep-args": // tool call arguments nested 257 levels deep
		fmt.Fprintln(out, `{"type":"tool_call","id":"c1","name":"crm:lookup","arguments":`+strings.Repeat("[", 257)+strings.Repeat("]", 257)+`}`)
	case "badusage-after-final": // a negative cost after its final line
		final("ok")
		send(map[string]any{"type": "usage", "costUsd": -3})
	case "usage-at-exit": // reports usage once its stdin is closed
		final("ok")
		io.Copy(io.Discard, in)
		send(map[string]any{"type": "usage", "inputTokens": 5, "costUsd": 0.5})
	case "hang", "escape", "linger":
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), testAgentEnv+"=sleep")
		cmd.Stdout = out // the grandchild keeps stdout open
		cmd.Stderr = os.Stderr
		if behaviour == "escape" {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // leaves the process group
		}
		if err := cmd.Start(); err != nil {
			return 7
		}
		os.WriteFile(input["pidFile"].(string), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
		if behaviour == "linger" {
			final("done") // and then ignores that stdin is closed
		}
		time.Sleep(time.Hour)
	case "garbage":
		fmt.Fprintln(out, "thinking... {not json")
		time.Sleep(time.Hour)
	case "array":
		fmt.Fprintln(out, `[1,2,3]`)
	case "unknown":
		send(map[string]any{"type": "thought", "text": "hmm"})
		time.Sleep(time.Hour)
	case "notype":
		send(map[string]any{"id": "c1"})
	case "badusage":
		send(map[string]any{"type": "usage", "inputTokens": "many"})
	case "noname":
		send(map[string]any{"type": "tool_call", "id": "c1", "arguments": map[string]any{}})
	case "dupid":
		send(map[string]any{"type": "tool_call", "id": "c1", "name": "t"})
		in.ReadString('\n')
		send(map[string]any{"type": "tool_call", "id": "c1", "name": "t"})
		time.Sleep(time.Hour)
	case "bigline":
		fmt.Fprintf(out, `{"type":"final","output":"%s"}`+"\n", strings.Repeat("x", 4096))
	case "flood":
		for {
			send(map[string]any{"type": "usage", "inputTokens": 1})
		}
	case "error":
		send(map[string]any{"type": "error", "message": "model refused"})
	case "stderr":
		os.Stderr.Write([]byte(strings.Repeat("e", 300<<10)))
		final("ok")
	case "nooutput":
		send(map[string]any{"type": "final"})
	case "null":
		send(map[string]any{"type": "final", "output": nil})
	case "unfinished":
		fmt.Fprint(out, `{"type":"final","output":"no newline"}`)
	default:
		fmt.Fprintf(os.Stderr, "unknown test agent %q\n", behaviour)
		return 99
	}
	return 0
}

// TestNoGoroutineLeak runs trials that end every way a trial can end and
// checks that no goroutine outlives them.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	pidFile := filepath.Join(t.TempDir(), "pid")
	for _, behaviour := range []string{"echo", "crash", "garbage", "flood", "hang", "escape", "linger"} {
		e := testAgentExec(behaviour, nil)
		e.ExitGrace = 100 * time.Millisecond
		e.MaxOutputBytes = 64 << 10
		os.Remove(pidFile)
		// The agents that hang are cancelled once they have started their
		// child; the others end their trials by themselves.
		ctx, cancel := context.WithCancel(context.Background())
		if behaviour == "hang" || behaviour == "escape" {
			waittest.Then(t, func() bool { return waittest.HasLine(pidFile) }, cancel)
		}
		out := e.Run(ctx, testRequest(`{"pidFile":"`+pidFile+`"}`), nil)
		cancel()
		assert.Assert(t, out.Fatal == nil, "%s: %v", behaviour, out.Fatal)
		if behaviour == "escape" {
			syscall.Kill(waittest.Pid(t, pidFile), syscall.SIGKILL)
		}
	}
	for _, script := range []string{"echo ok", "exit 1", "yes", `echo $$ > "$PIDFILE"; exec sleep 600`} {
		os.Remove(pidFile)
		p := &Plain{Command: []string{"/bin/sh", "-c", script}, MaxOutputBytes: 64 << 10,
			Env: process.ScrubEnv(os.Environ(), nil, map[string]string{"PIDFILE": pidFile})}
		ctx, cancel := context.WithCancel(context.Background())
		if strings.Contains(script, "sleep") {
			waittest.Then(t, func() bool { return waittest.HasLine(pidFile) }, cancel)
		}
		p.Run(ctx, testRequest(`"x"`), nil)
		cancel()
	}
	if !waittest.Poll(t, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}
