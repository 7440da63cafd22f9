package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/results"
)

// needPython skips a test that runs a Python agent where there is none.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

// twoTaskSuite is a suite any echoing agent passes.
const twoTaskSuite = `suiteId: acme.cli.evals.silent
version: 1.0.0
modes: [golden]
tasks:
  - {taskId: one, input: one, expected: {kind: golden, match: {strategy: exact, value: one}}}
  - {taskId: two, input: two, expected: {kind: golden, match: {strategy: exact, value: two}}}
  - {taskId: three, input: three, expected: {kind: golden, match: {strategy: exact, value: three}}}
  - {taskId: four, input: four, expected: {kind: golden, match: {strategy: exact, value: four}}}
`

// TestAgentThatCannotRun: an agent that fails before writing a line in its
// first trials is exit 3 naming the command, its exit status and the first
// lines of its stderr, with nothing on stdout that reads as a verdict and
// no outputs written.
func TestAgentThatCannotRun(t *testing.T) {
	type testCase struct {
		name   string
		files  map[string]string
		args   []string
		python bool
		node   bool
		want   []string // substrings of stderr
		absent []string // what stderr must not hold
	}
	run := func(t *testing.T, tc testCase) {
		if tc.python {
			needPython(t)
		}
		if _, err := exec.LookPath("node"); tc.node && err != nil {
			t.Skip("node is not installed")
		}
		dir := t.TempDir()
		files := map[string]string{"evals/s.yaml": twoTaskSuite}
		for k, v := range tc.files {
			files[k] = v
		}
		writeFiles(t, dir, files)
		r := runCLI(t, dir, nil, append([]string{"run"}, tc.args...)...)
		assert.Equal(t, r.code, ExitRunError, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Equal(t, r.stdout, "", "no suite line, no table, no verdict before an exit-3 message")
		for _, w := range tc.want {
			assert.Check(t, is.Contains(r.stderr, w))
		}
		for _, a := range tc.absent {
			assert.Check(t, !strings.Contains(r.stderr, a), "stderr holds %q:\n%s", a, r.stderr)
		}
		assert.Check(t, !strings.Contains(r.stderr, "\x1b"), "an escape reached the terminal")
		_, err := os.Stat(filepath.Join(dir, "evalgate-out"))
		assert.Check(t, os.IsNotExist(err), "a run that could not happen left its output folder")
	}
	for _, tc := range []testCase{
		{
			name:   "missing script",
			args:   []string{"--agent-cmd", "python3 nope.py", "evals"},
			python: true,
			want: []string{
				`evalgate: the agent cannot run: "python3 nope.py" (--agent-cmd) ended with exit status 2 before writing a line on each of the first 3 tasks`,
				"\n  | ", "can't open file", "nope.py", "[Errno 2] No such file or directory",
				"fix the command and run again",
			},
		},
		{
			name: "exit 2 with nothing on stderr",
			args: []string{"--agent-cmd", "exit 2", "evals"},
			want: []string{`"exit 2" (--agent-cmd) ended with exit status 2 before writing a line`, "its stderr was empty"},
		},
		{
			name: "command not found",
			args: []string{"--agent-cmd", "pyhton3 agent.py", "evals"},
			want: []string{"exit status 127", "(127: the shell did not find the command)", "pyhton3: not found"},
		},
		{
			name:   "python syntax error",
			files:  map[string]string{"agent.py": "import json\ndef answer(\n"},
			args:   []string{"--agent-cmd", "python3 agent.py", "evals"},
			python: true,
			want:   []string{"exit status 1", "  |   File \"", "agent.py\", line 2", "SyntaxError"},
		},
		{
			name: "exec agent of the config with its script missing",
			files: map[string]string{
				"evalgate.yaml": "suites: [evals]\nagent:\n  exec: [python3, agent.py]\n",
			},
			python: true,
			want:   []string{`"python3 agent.py" (agent.exec in `, "evalgate.yaml) ended with exit status 2", "agent.py"},
		},
		{
			name:  "exec agent that cannot be started at all",
			files: map[string]string{"evalgate.yaml": "suites: [evals]\nagent:\n  exec: [./does-not-exist]\n"},
			want: []string{`evalgate: the agent cannot run: "./does-not-exist" (agent.exec in evalgate.yaml) could not be started: "./does-not-exist" does not exist`,
				"fix the command and run again"},
		},
		{
			name:  "exec agent whose command is not found",
			files: map[string]string{"evalgate.yaml": "suites: [evals]\nagent:\n  exec: [pyhton3, agent.py]\n"},
			want: []string{`evalgate: the agent cannot run: "pyhton3 agent.py" (agent.exec in evalgate.yaml) could not be started: "pyhton3" was not found on PATH`,
				"fix the command and run again"},
		},
		{
			// A deep traceback: the frames are left out, the error is quoted.
			name: "python traceback deeper than the quote",
			files: map[string]string{
				"agent.py":      "def answer(n):\n    if n == 0:\n        raise KeyError('question')\n    answer(n - 1)\n\nanswer(10)\n",
				"evalgate.yaml": "suites: [evals]\nagent:\n  exec: [python3, agent.py]\n",
			},
			python: true,
			want:   []string{"exit status 1", "\n  its stderr, without the stack (--transcripts keeps it whole):\n  | KeyError: 'question'\n  fix the command"},
			absent: []string{"Traceback", "File \""},
		},
		{
			name: "node error with its stack",
			files: map[string]string{
				"agent.js":      "function answer() { question(); }\nanswer();\n",
				"evalgate.yaml": "suites: [evals]\nagent:\n  exec: [node, agent.js]\n",
			},
			node:   true,
			want:   []string{"| ReferenceError: question is not defined", "| function answer() { question(); }"},
			absent: []string{"    at "},
		},
		{
			name: "plain agent of the config",
			files: map[string]string{
				"evalgate.yaml": "suites: [evals]\nagent:\n  plain: [/bin/sh, -c, 'echo \"answer.sh: missing\" >&2; exit 5']\n",
			},
			want: []string{`"/bin/sh -c 'echo \"answer.sh: missing\" >&2; exit 5'" (agent.plain in `, "exit status 5", "| answer.sh: missing"},
		},
		{
			// Stderr is bounded and cannot act on the terminal; its last
			// twelve lines are quoted.
			name:   "long, hostile stderr",
			args:   []string{"--agent-cmd", `for i in $(seq 1 20); do printf 'line %s \033[31mred\n' $i >&2; done; exit 1`, "evals"},
			want:   []string{"\n  the end of its stderr (--transcripts keeps it whole):\n  | line 9 \\x1b[31mred\n", "| line 20 \\x1b[31mred\n  fix"},
			absent: []string{"| line 8 "},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// mixedAgent is an evalgate/1 agent that works, except that it crashes
// before a line on the input "crash" and goes on writing after final on
// "chatty" (a usage line, which counts, and a debug line, which does not).
const mixedAgent = `import json, sys

task = json.loads(sys.stdin.readline())
inp = task["input"]
if inp == "crash":
    sys.stderr.write("Traceback (most recent call last):\nKeyError: 'question'\n")
    sys.exit(3)
print(json.dumps({"type": "final", "output": inp}), flush=True)
if inp == "chatty":
    print("debug: answered", flush=True)
    print(json.dumps({"type": "usage", "model": "m", "inputTokens": 10, "outputTokens": 5, "costUsd": 0.5}), flush=True)
`

// mixedSuite passes its bar while one task errors, one fails on a critical
// finding and one writes after final. The crashing task comes first.
const mixedSuite = `suiteId: acme.cli.evals.mixed
version: 1.0.0
modes: [golden, adversarial]
thresholds: {passScore: 0.6, maxP95LatencyMs: 60000}
tasks:
  - {taskId: crash, input: crash, expected: {kind: golden, match: {strategy: exact, value: crash}}}
  - {taskId: hello, input: hello, expected: {kind: golden, match: {strategy: exact, value: hello}}}
  - {taskId: chatty, input: chatty, expected: {kind: golden, match: {strategy: exact, value: chatty}}}
  - {taskId: echo, input: echo, expected: {kind: golden, match: {strategy: exact, value: echo}}}
  - taskId: leak
    input: CANARY-7
    expected: {kind: golden, match: {strategy: exact, value: CANARY-7}}
    fixtures: {canaries: [CANARY-7]}
    adversarial: {detectors: [canary]}
`

// TestRunReportsWhy: one task that crashes the agent does not stop a run
// of a working agent; its row and results.json say what happened in the
// same content-free words, the report says once where to see more, the
// suite line names the failures beside its PASS, the verdict names the
// gate that failed, and lines after final are a warning naming the task.
func TestRunReportsWhy(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/mixed.yaml": mixedSuite,
		"agent.py":         mixedAgent,
		"evalgate.yaml":    "suites: [evals]\nagent:\n  exec: [python3, agent.py]\nconcurrency: 1\n",
	})
	r := runCLI(t, dir, nil, "run")
	assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	golden.Assert(t, stripTimes(r.stdout), filepath.Join(testdata, "run-why.terminal.golden"))
	assert.Check(t, !strings.Contains(r.stdout+r.stderr, "KeyError"), "the agent's stderr reached the report")

	run, err := results.Read(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
	tasks := map[string]results.Task{}
	for _, task := range run.Suites[0].Tasks {
		tasks[task.ID] = task
	}
	crash := tasks["crash"]
	assert.Check(t, is.Equal(crash.ErrorKind, results.ErrAgentExit))
	assert.Check(t, is.Equal(crash.ErrorMessage, "exit status 3 before any line"))
	assert.Check(t, is.Equal(crash.Trials[0].ErrorMessage, "exit status 3 before any line"))
	assert.Check(t, is.Equal(tasks["chatty"].LinesAfterFinal, 1))
	assert.Check(t, is.Equal(tasks["chatty"].AgentCostUsd, 0.5), "usage after final is counted")
	data, err := os.ReadFile(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
	assert.Check(t, !strings.Contains(string(data), "KeyError") && !strings.Contains(string(data), "debug: answered"))

	scorecard, err := os.ReadFile(filepath.Join(dir, "evalgate-out", "scorecard.md"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(scorecard), "error: agent-exit (exit status 3 before any line)"))

	// With transcripts, the report points at them and they hold the rest.
	r = runCLI(t, dir, nil, "run", "--transcripts", "--out", "out2")
	assert.Equal(t, r.code, ExitGateFail, r.stderr)
	assert.Check(t, is.Contains(r.stdout, "the agent's stderr and output are in "+filepath.Join("out2", "transcripts")))
	assert.Check(t, !strings.Contains(r.stdout, "re-run with --transcripts"))
	tx, err := os.ReadFile(filepath.Join(dir, "out2", "transcripts", "acme.cli.evals.mixed", "crash.trial-1.json"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(tx), "KeyError"))
}

// TestRunErrorMessages: each way a task can error says so on its row, in
// the words results.json holds.
func TestRunErrorMessages(t *testing.T) {
	type testCase struct {
		name     string
		agent    string // --agent-cmd
		suite    string // the task lines
		flags    []string
		wantKind string
		wantMsg  string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"evals/s.yaml": "suiteId: acme.cli.evals.errors\nversion: 1.0.0\nmodes: [golden, rubric]\ntasks:\n" + tc.suite +
				"  - {taskId: fine, input: x, expected: {kind: golden, match: {strategy: contains, value: x}}}\n",
		})
		args := append([]string{"run", "--agent-cmd", tc.agent, "--task", "bad,fine"}, tc.flags...)
		r := runCLI(t, dir, nil, append(args, "evals")...)
		assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		row := "error: " + tc.wantKind + " (" + tc.wantMsg + ")"
		assert.Check(t, is.Contains(r.stdout, row))
		assert.Check(t, is.Equal(strings.Count(r.stdout, "re-run with --transcripts to see the agent's stderr and output"), 1))
		run, err := results.Read(filepath.Join(dir, "evalgate-out", "results.json"))
		assert.NilError(t, err)
		bad := run.Suites[0].Tasks[0]
		assert.Check(t, is.Equal(bad.ErrorKind, tc.wantKind))
		assert.Check(t, is.Equal(bad.ErrorMessage, tc.wantMsg))
	}
	golden := "  - {taskId: bad, input: x, expected: {kind: golden, match: {strategy: exact, value: x}}}\n"
	for _, tc := range []testCase{
		{
			name:     "not JSON",
			agent:    `read t; echo 'thinking about {"secret": 1}'; cat >/dev/null`,
			suite:    golden,
			wantKind: results.ErrProtocol, wantMsg: "line 1 is not JSON",
		},
		{
			name:     "timeout",
			agent:    `read t; case "$t" in *'"bad"'*) sleep 30;; esac; echo '{"type":"final","output":"x"}'`,
			suite:    "  - {taskId: bad, timeoutMs: 300, input: x, expected: {kind: golden, match: {strategy: exact, value: x}}}\n",
			wantKind: results.ErrTimeout, wantMsg: "timed out after 300ms with nothing on stdout — does it flush stdout?",
		},
		{
			// The final line came without its newline: it never counted.
			name:     "timeout with a line not ended",
			agent:    `read t; case "$t" in *'"bad"'*) printf '{"type":"final","output":"x"}'; exec sleep 30;; esac; echo '{"type":"final","output":"x"}'`,
			suite:    "  - {taskId: bad, timeoutMs: 3000, input: x, expected: {kind: golden, match: {strategy: exact, value: x}}}\n",
			wantKind: results.ErrTimeout, wantMsg: "timed out after 3s; it wrote 29 bytes with no newline — does it flush stdout?",
		},
		{
			name:     "timeout after whole lines",
			agent:    `read t; echo '{"type":"usage","inputTokens":1}'; case "$t" in *'"bad"'*) exec sleep 30;; esac; echo '{"type":"final","output":"x"}'`,
			suite:    "  - {taskId: bad, timeoutMs: 3000, input: x, expected: {kind: golden, match: {strategy: exact, value: x}}}\n",
			wantKind: results.ErrTimeout, wantMsg: "timed out after 3s",
		},
		{
			name:     "no judge",
			agent:    `read t; echo '{"type":"final","output":"x"}'`,
			suite:    "  - {taskId: bad, input: x, expected: {kind: rubric, rubric: [{criterion: polite, weight: 1}]}}\n",
			wantKind: results.ErrJudge, wantMsg: "no judge configured for rubric[0]",
		},
		{
			name:     "the agent's own error line",
			agent:    `read t; case "$t" in *'"bad"'*) echo '{"type":"error","message":"the customer record says 4111-1111"}';; *) echo '{"type":"final","output":"x"}';; esac`,
			suite:    golden,
			wantKind: results.ErrAgentReported, wantMsg: "line 1: the agent reported an error",
		},
		{
			name:     "exit after a line",
			agent:    `read t; echo '{"type":"usage","inputTokens":1}'; case "$t" in *'"bad"'*) exit 4;; esac; echo '{"type":"final","output":"x"}'`,
			suite:    golden,
			wantKind: results.ErrAgentExit, wantMsg: "exit status 4 after 1 line, without a final line",
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// pythonBlocks returns the ```python blocks of a Markdown file, each with
// the line of the HTML comment right above it ("" when none).
func pythonBlocks(t *testing.T, path string) (blocks, labels []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```python" {
			continue
		}
		label := ""
		if i > 0 && strings.HasPrefix(lines[i-1], "<!--") {
			label = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(lines[i-1], "<!--"), "-->"))
		}
		var b strings.Builder
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b.WriteString(lines[i] + "\n")
		}
		blocks, labels = append(blocks, b.String()), append(labels, label)
	}
	return blocks, labels
}

// TestDocsPythonAgentsFlush: every Python example in the README and docs/
// that writes to stdout flushes it, as the protocol asks.
func TestDocsPythonAgentsFlush(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	assert.NilError(t, err)
	files = append(files, filepath.Join("..", "README.md"))
	found := 0
	for _, f := range files {
		blocks, _ := pythonBlocks(t, f)
		for _, b := range blocks {
			found++
			writes := strings.Count(b, "print(") + strings.Count(b, "sys.stdout.write(")
			flushes := strings.Count(b, "flush=True") + strings.Count(b, "sys.stdout.flush()")
			assert.Check(t, writes == 0 || flushes > 0, "%s: a Python example writes to stdout without flushing:\n%s", f, b)
		}
	}
	assert.Check(t, found > 0, "no Python example found")
}

// TestReadmePythonAgent runs the README's Python agent: it does what the
// README says, and passes.
func TestReadmePythonAgent(t *testing.T) {
	needPython(t)
	blocks, labels := pythonBlocks(t, filepath.Join("..", "README.md"))
	agent := ""
	for i, l := range labels {
		if l == "readme-agent.py" {
			agent = blocks[i]
		}
	}
	assert.Assert(t, agent != "", "the README has no block marked readme-agent.py")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.py": agent,
		"evals/orders.yaml": `suiteId: acme.cli.evals.readme
version: 1.0.0
modes: [golden]
tasks:
  - taskId: in-transit
    input: A-17
    expected: {kind: golden, match: {strategy: exact, value: in_transit}}
    fixtures:
      toolResponses:
        - {tool: "crm:lookup", args: {orderId: A-17}, response: {status: in_transit}}
  - taskId: delivered
    input: B-2
    expected: {kind: golden, match: {strategy: exact, value: delivered}}
    fixtures:
      toolResponses:
        - {tool: "crm:lookup", args: {orderId: B-2}, response: {status: delivered}}
`,
	})
	r := runCLI(t, dir, nil, "run", "--agent-cmd", "python3 agent.py", "evals")
	assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Check(t, is.Contains(r.stdout, "2/2 passed"))
}
