package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
	"gotest.tools/v3/icmd"
)

// testdata is the absolute path of the testdata folder: tests chdir into
// temporary projects, as a user would.
var testdata = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Join(wd, "testdata")
}()

// result is what one invocation of the command line produced.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the command line with buffers, as a user would from dir.
func runCLI(t *testing.T, dir string, env map[string]string, args ...string) result {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	var stdout, stderr bytes.Buffer
	cmd := &Command{
		Stdin:  strings.NewReader(""),
		Stdout: &stdout,
		Stderr: &stderr,
		Getenv: func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			if k == "CI" || k == "GITHUB_SHA" || k == "NO_COLOR" || k == "GITHUB_ACTIONS" || k == "GITHUB_WORKSPACE" {
				return ""
			}
			return os.Getenv(k)
		},
		IsTerminal: func() bool { return false },
	}
	code := cmd.Main(append([]string{"evalgate"}, args...))
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// writeFiles creates files (path -> content) under dir; a path ending in
// .sh is made executable.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		assert.NilError(t, os.WriteFile(p, []byte(content), mode))
	}
}

// git runs git in dir with a fixed identity and no user or system
// configuration, and fails the test when git fails.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	args = append([]string{"-c", "user.name=evalgate", "-c", "user.email=evalgate@example.com", "-c", "commit.gpgsign=false"}, args...)
	icmd.RunCmd(icmd.Command("git", args...), icmd.Dir(dir),
		icmd.WithEnv(append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")...),
	).Assert(t, icmd.Success)
}

func TestSubcommands(t *testing.T) {
	type testCase struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // substring
		wantStderr string // substring
	}
	run := func(t *testing.T, tc testCase) {
		r := runCLI(t, "", nil, tc.args...)
		assert.Equal(t, r.code, tc.wantCode, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Assert(t, strings.Contains(r.stdout, tc.wantStdout), "stdout:\n%s", r.stdout)
		assert.Assert(t, strings.Contains(r.stderr, tc.wantStderr), "stderr:\n%s", r.stderr)
	}
	for _, tc := range []testCase{
		{name: "no args", args: nil, wantCode: 2, wantStderr: "Usage: evalgate <command>"},
		{name: "help lists commands and exit codes", args: []string{"help"}, wantStdout: "  3  could not run"},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantStderr: `unknown command "frobnicate"`},
		{name: "version", args: []string{"version"}, wantStdout: "evalgate "},
		{name: "bad flag", args: []string{"run", "--concurrency", "many"}, wantCode: 2, wantStderr: `--concurrency: expected a whole number of 1 or more, got "many"`},
		{name: "run -h shows exit codes", args: []string{"run", "-h"}, wantCode: 0, wantStdout: "2  bad invocation"},
		{name: "schema needs a name", args: []string{"schema"}, wantCode: 2, wantStderr: "expected one of suite, summary, results"},
		{name: "schema unknown", args: []string{"schema", "bogus"}, wantCode: 2, wantStderr: `got "bogus"` + "\n"},
		{name: "schema misspelt", args: []string{"schema", "suit"}, wantCode: 2, wantStderr: `got "suit"; did you mean suite?`},
		{name: "validate example", args: []string{"validate", "../examples/evals"}, wantStdout: "valid"},
		{name: "validate portable json", args: []string{"validate", "--openwop", "../examples/evals/order-status.json"}, wantStdout: "strictly openwop-portable"},
		{name: "validate extensions not portable", args: []string{"validate", "--openwop", "../examples/evals/refunds.yaml"}, wantCode: 2, wantStdout: "not strictly openwop-portable"},
		{name: "export keeps unscoreable tasks on request", args: []string{"export", "--openwop", "--keep-unscoreable", "../examples/evals/refunds.yaml"}, wantCode: 1, wantStdout: `"suiteId": "acme.support.evals.refunds"`, wantStderr: "kept without scoring"},
		{name: "export refuses a device", args: []string{"export", "--openwop", "/dev/zero"}, wantCode: 2, wantStderr: "/dev/zero: expected a suite file (a regular file), found a character device [io]"},
		{name: "validate refuses a device", args: []string{"validate", "/dev/zero"}, wantCode: 2, wantStdout: "/dev/zero: expected a suite file (a regular file), found a character device [io]"},
		{name: "run without suites", args: []string{"run", "--config", "testdata/empty.yaml"}, wantCode: 2, wantStderr: "no suites to run"},
		{name: "run without agent", args: []string{"run", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "no agent to run"},
		{name: "balance without a shard", args: []string{"run", "--agent-cmd", "true", "--balance", "x.json", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "--balance goes with --shard i/n"},
		{name: "balance by an artifact", args: []string{"run", "--agent-cmd", "true", "--shard", "1/2", "--balance", "github-artifact:evalgate-baseline", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "an artifact must be downloaded first"},
		{name: "balance by none keeps the hash", args: []string{"run", "--agent-cmd", "true", "--shard", "1/2", "--balance", "none", "--gate", "true", "--out", filepath.Join(t.TempDir(), "out"), "../examples/evals/order-status.json"}, wantCode: 0},
		{name: "balance by a missing file", args: []string{"run", "--agent-cmd", "true", "--shard", "1/2", "--balance", "nope.json", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "--balance: could not read"},
		{name: "bad gate is exit 2 before running", args: []string{"run", "--agent-cmd", "false", "--gate", "aggregateScore >=", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "gate"},
		{name: "unknown gate variable", args: []string{"run", "--agent-cmd", "false", "--gate", "score > 1", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "score"},
		{name: "bad shard", args: []string{"run", "--agent-cmd", "false", "--shard", "3/2", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "--shard"},
		{name: "bad mode", args: []string{"run", "--agent-cmd", "false", "--mode", "fuzzy", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "--mode"},
		{name: "selection matches nothing", args: []string{"run", "--agent-cmd", "false", "--task", "nope", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: `no task matches the selection (--task, --tag, --mode, --shard); no suite has the task "nope"` + "\n"},
		{name: "a misspelt task id beside a right one", args: []string{"run", "--agent-cmd", "false", "--task", "status-in-transit,status-in-transti", "--out", filepath.Join(t.TempDir(), "out"), "../examples/evals/order-status.json"}, wantCode: 3,
			wantStderr: `evalgate: warning: no suite has the task "status-in-transti" (did you mean "status-in-transit"?); it selects nothing` + "\n"},
		{name: "a misspelt task id", args: []string{"run", "--agent-cmd", "false", "--task", "status-in-transti", "--tag", "gold", "../examples/evals/order-status.json"}, wantCode: 2,
			wantStderr: `; no suite has the task "status-in-transti" (did you mean "status-in-transit"?); no suite has the tag "gold"` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestSchemasAreJSON(t *testing.T) {
	for _, name := range []string{"suite", "summary", "results"} {
		r := runCLI(t, "", nil, "schema", name)
		assert.Equal(t, r.code, 0)
		var v map[string]any
		assert.NilError(t, json.Unmarshal([]byte(r.stdout), &v), name)
		assert.Equal(t, v["$schema"], "https://json-schema.org/draft/2020-12/schema", name)
	}
}

func TestValidateReportsFileAndLine(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bad.yaml": "suiteId: acme.x.evals.bad\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: a\n    input: 1\n    expected: {kind: gold}\n",
	})
	r := runCLI(t, dir, nil, "validate", "bad.yaml")
	assert.Equal(t, r.code, 2)
	assert.Assert(t, strings.Contains(r.stdout, "bad.yaml:7:"), r.stdout)
	assert.Assert(t, strings.Contains(r.stdout, "/tasks/0/expected/kind"), r.stdout)
}

// plainSuite is a small suite for a plain shell agent that echoes its input
// in upper case, so some tasks pass and one fails.
const plainSuite = `suiteId: acme.cli.evals.plain
version: 1.0.0
modes: [golden]
thresholds: {passScore: 0.6, maxP95LatencyMs: 60000}
tasks:
  - taskId: shout
    input: hello
    expected: {kind: golden, match: {strategy: exact, value: HELLO}}
  - taskId: shout-json
    input: '{"a": 1}'
    expected: {kind: golden, match: {strategy: json-match, value: {"A": 1.0}}}
  - taskId: wrong
    input: bye
    expected: {kind: golden, match: {strategy: exact, value: bye}}
  - taskId: contains
    input: the quick fox
    expected:
      kind: golden
      match: {strategy: contains, value: QUICK}
      assert:
        - {id: long-enough, expr: 'len(output) > 5'}
`

func TestRunPlainAgent(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/plain.yaml": plainSuite,
		"upper.sh":         "#!/bin/sh\ntr a-z A-Z\n",
		"evalgate.yaml":    "suites: [evals/]\nagent:\n  plain: [./upper.sh]\nconcurrency: 2\n",
	})
	r := runCLI(t, dir, nil, "run")
	assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	golden.Assert(t, stripTimes(r.stdout), filepath.Join(testdata, "run-plain.terminal.golden"))

	data, err := os.ReadFile(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
	golden.Assert(t, normalizeResults(t, data), filepath.Join(testdata, "run-plain.results.golden"))
	for _, f := range []string{"events.ndjson", "summaries/acme.cli.evals.plain.json", "junit.xml", "findings.sarif", "badge.svg"} {
		_, err := os.Stat(filepath.Join(dir, "evalgate-out", f))
		assert.NilError(t, err, f)
	}
	_, err = os.Stat(filepath.Join(dir, "evalgate-out", "transcripts"))
	assert.Assert(t, os.IsNotExist(err), "transcripts are written only with --transcripts")
	scratch, err := filepath.Glob(filepath.Join(dir, "evalgate-out", ".trials-*"))
	assert.NilError(t, err)
	assert.Equal(t, len(scratch), 0, "the scratch file of spilled trials is left behind")

	// A stricter gate fails the same run: exit 1, and the report says which.
	r = runCLI(t, dir, nil, "run", "--gate", "passRate == 1", "--transcripts", "--out", "out2")
	assert.Equal(t, r.code, 1, r.stdout)
	assert.Assert(t, strings.Contains(r.stdout, "passRate == 1"), r.stdout)
	_, err = os.Stat(filepath.Join(dir, "out2", "transcripts", "acme.cli.evals.plain", "wrong.trial-1.json"))
	assert.NilError(t, err)
}

func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/plain.yaml": plainSuite,
		"upper.sh":         "#!/bin/sh\ntr a-z A-Z\n",
		"blocker":          "a file where the out dir should be",
	})
	r := runCLI(t, dir, nil, "run", "--config", "missing.yaml", "evals")
	assert.Equal(t, r.code, 2, r.stderr)

	r = runCLI(t, dir, nil, "run", "--agent-cmd", "./upper.sh", "--out", "blocker/out", "evals")
	assert.Equal(t, r.code, 3, r.stderr)
	assert.Assert(t, strings.Contains(r.stderr, "output folder"), r.stderr)

	writeFiles(t, dir, map[string]string{"cfg.yaml": "agent:\n  exec: [./does-not-exist]\n"})
	r = runCLI(t, dir, nil, "run", "--config", "cfg.yaml", "evals")
	assert.Equal(t, r.code, 3, r.stderr)
}

// stripTimes replaces the latency figures of the terminal report, the only
// part that changes between runs.
func stripTimes(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "p95 "); i >= 0 {
			j := strings.Index(line[i:], " (")
			if j < 0 {
				line = line[:i] + "p95 <ms>"
			} else {
				line = line[:i] + "p95 <ms>" + line[i+j:]
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// normalizeResults zeroes the fields of results.json that change between
// runs (ids, clocks, latencies, the commit) and re-indents it.
func normalizeResults(t *testing.T, data []byte) string {
	t.Helper()
	var v any
	assert.NilError(t, json.Unmarshal(data, &v))
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "runId", "startedAt", "finishedAt", "gitSha":
					x[k] = "<" + k + ">"
				case "latencyMs", "p95LatencyMs", "latencyDeltaMs":
					x[k] = 0
				case "tool":
					x[k] = "<tool>"
				default:
					walk(e)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out, err := json.MarshalIndent(v, "", "  ")
	assert.NilError(t, err)
	return string(out) + "\n"
}

// exampleProject is the project the help's examples run in: a suite of six
// golden tasks that the agent passes (it answers in upper case), a rubric
// judge, human labels the judge agrees with, and bare.yaml, a config with
// no agent.
func exampleProject(t *testing.T) string {
	t.Helper()
	judge, err := os.ReadFile(filepath.Join(testdata, "rubric", "judge.py"))
	assert.NilError(t, err)
	var suite strings.Builder
	suite.WriteString("suiteId: acme.help.evals.support\nversion: 1.0.0\nmodes: [golden]\nthresholds: {passScore: 0.9}\ntasks:\n")
	for _, word := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"} {
		fmt.Fprintf(&suite, "  - taskId: %s\n    input: say %s\n    expected: {kind: golden, match: {strategy: exact, value: SAY %s}}\n",
			word, word, strings.ToUpper(word))
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evalgate.yaml":      "suites: [evals/]\nagent:\n  exec: [/bin/sh, agent.sh]\njudge:\n  exec: [python3, judge.py]\n",
		"bare.yaml":          "suites: [evals/]\n",
		"evals/support.yaml": suite.String(),
		// agent.py in a shell, which starts in a tenth of Python's time: the
		// project's runs start it for every task of every test.
		"agent.sh": `IFS= read -r task
input=${task#*\"input\":\"}
input=${input%%\"*}
printf '{"type":"final","output":"%s"}\n' "$(printf '%s' "$input" | tr '[:lower:]' '[:upper:]')"
`,
		"agent.py": `import json, sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "task":
        print(json.dumps({"type": "final", "output": str(msg["input"]).upper()}), flush=True)
        break
`,
		"judge.py":             string(judge),
		"promptfooconfig.yaml": "prompts: ['Say {{ word }}']\nproviders: [echo]\ntests:\n  - vars: {word: hello}\n    assert: [{type: contains, value: hello}]\n",
		"labels.jsonl": `{"output":"We will refund you.","criterion":"Says \"refund\".","human":true}
{"output":"No.","criterion":"Says \"refund\".","human":false}
{"output":"So sorry.","criterion":"Says \"sorry\".","human":true}
{"output":"Fine.","criterion":"Says \"sorry\".","human":false}
`,
	})
	return dir
}

// mustRun runs the command line in dir and fails the test unless it exits 0.
func mustRun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	r := runCLI(t, dir, nil, args...)
	assert.Equal(t, r.code, ExitPass, "evalgate %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.stdout, r.stderr)
	return r
}

// TestFlagsAfterArguments: every command takes its flags before, between or
// after its arguments, "--" ends the flags, a bool flag does not take the
// next argument, and a flag's value may look like a flag. Each case checks
// that the flags took effect.
func TestFlagsAfterArguments(t *testing.T) {
	type testCase struct {
		name  string
		setup [][]string // command lines run first, each must exit 0
		args  []string
		want  int
		check func(t *testing.T, dir string, r result)
	}
	exists := func(paths ...string) func(t *testing.T, dir string, r result) {
		return func(t *testing.T, dir string, r result) {
			for _, p := range paths {
				_, err := os.Stat(filepath.Join(dir, p))
				assert.NilError(t, err, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
		}
	}
	stdoutHas := func(want string) func(t *testing.T, dir string, r result) {
		return func(t *testing.T, dir string, r result) {
			assert.Assert(t, strings.Contains(r.stdout, want), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		}
	}
	ran := [][]string{{"run", "--out", "out"}}
	for _, tc := range []testCase{
		{
			name: "run: value flags after the path",
			args: []string{"run", "evals/", "--config", "bare.yaml", "--agent-cmd", "python3 agent.py", "--out", "out2", "--trials", "2"},
			check: func(t *testing.T, dir string, r result) {
				run := resultsOf(t, filepath.Join(dir, "out2", "results.json"))
				assert.Equal(t, run.Suites[0].Trials, 2)
			},
		},
		{
			name:  "run: a bool flag before the path leaves it a path",
			args:  []string{"run", "--transcripts", "evals/", "--quiet", "--out", "out3"},
			check: exists("out3/results.json", "out3/transcripts/acme.help.evals.support/alpha.trial-1.json"),
		},
		{
			name: "run: a flag's value may look like a flag",
			args: []string{"run", "evals/", "--out", "-out", "--gate", "-passRate >= 0"},
			want: ExitGateFail,
			check: func(t *testing.T, dir string, r result) {
				exists("-out/results.json")(t, dir, r)
				assert.Assert(t, strings.Contains(r.stdout, "-passRate >= 0"), r.stdout)
			},
		},
		{
			name:  "run: -- ends the flags",
			args:  []string{"run", "--gate", "passRate == 1", "--out", "out4", "--", "evals/support.yaml"},
			check: exists("out4/results.json"),
		},
		{
			name: "run: after --, a flag is a path",
			args: []string{"run", "--out", "out5", "--", "--quiet"},
			want: ExitInvalid,
			check: func(t *testing.T, dir string, r result) {
				assert.Assert(t, strings.Contains(r.stderr, "--quiet"), r.stderr)
				_, err := os.Stat(filepath.Join(dir, "out5"))
				assert.Assert(t, os.IsNotExist(err), "nothing runs")
			},
		},
		{
			name:  "validate --openwop after the path",
			args:  []string{"validate", "evals/", "--openwop"},
			check: stdoutHas("evals/support.yaml: strictly openwop-portable"),
		},
		{
			name:  "export --openwop after the file",
			args:  []string{"export", "evals/support.yaml", "--openwop"},
			check: stdoutHas(`"suiteId": "acme.help.evals.support"`),
		},
		{
			name:  "diff --format after both results",
			setup: ran,
			args:  []string{"diff", "out", "out/results.json", "--format", "md"},
			check: stdoutHas("### "),
		},
		{
			name:  "merge --out after the shards",
			setup: [][]string{{"run", "--shard", "1/2", "--out", "shard-1"}, {"run", "--shard", "2/2", "--out", "shard-2"}},
			args:  []string{"merge", "shard-1", "shard-2/results.json", "--out", "merged", "--quiet"},
			check: func(t *testing.T, dir string, r result) {
				run := resultsOf(t, filepath.Join(dir, "merged", "results.json"))
				assert.Equal(t, run.TaskCount, 6)
			},
		},
		{
			name:  "report --format after the results",
			setup: ran,
			args:  []string{"report", "out/results.json", "--format", "junit"},
			check: stdoutHas("<testsuites"),
		},
		{
			name:  "baseline promote --out after the results",
			setup: ran,
			args:  []string{"baseline", "promote", "out/", "--out", "promoted.json"},
			check: exists("promoted.json"),
		},
		{
			name:  "calibrate flags in any order",
			args:  []string{"calibrate", "--min-agreement", "0.5", "--labels", "labels.jsonl", "--no-cache"},
			check: stdoutHas("(bar 0.50)"),
		},
		{
			name:  "init --dir",
			args:  []string{"init", "--dir", "fresh"},
			check: exists("fresh/evalgate.yaml"),
		},
		{
			name:  "schema -h after the name",
			args:  []string{"schema", "results", "-h"},
			check: stdoutHas("Usage:\n  evalgate schema"),
		},
		{
			name:  "version --help",
			args:  []string{"version", "--help"},
			check: stdoutHas("Usage:\n  evalgate version"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := exampleProject(t)
			for _, args := range tc.setup {
				mustRun(t, dir, args...)
			}
			r := runCLI(t, dir, nil, tc.args...)
			assert.Equal(t, r.code, tc.want, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			tc.check(t, dir, r)
		})
	}
}

// TestFlagErrors: a bad flag, value or command is one line on stderr that
// says what was expected (the nearest name for a typo), no usage, exit 2.
func TestFlagErrors(t *testing.T) {
	type testCase struct {
		name string
		args []string
		want string // the whole line after "evalgate: "
	}
	run := func(t *testing.T, tc testCase) {
		r := runCLI(t, exampleProject(t), nil, tc.args...)
		assert.Equal(t, r.code, ExitInvalid, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Equal(t, r.stderr, "evalgate: "+tc.want+"\n")
		assert.Equal(t, r.stdout, "")
	}
	for _, tc := range []testCase{
		{
			name: "unknown flag after the path",
			args: []string{"run", "evals/", "--agent-command", "python3 agent.py"},
			want: `unknown flag --agent-command for "run"; did you mean --agent-cmd? (evalgate run --help lists the flags)`,
		},
		{
			name: "a typo with a value",
			args: []string{"diff", "a", "b", "--fromat=md"},
			want: `unknown flag --fromat for "diff"; did you mean --format? (evalgate diff --help lists the flags)`,
		},
		{
			name: "an abbreviation",
			args: []string{"calibrate", "--labels", "labels.jsonl", "--min"},
			want: `unknown flag --min for "calibrate"; did you mean --min-agreement? (evalgate calibrate --help lists the flags)`,
		},
		{
			name: "single dash",
			args: []string{"report", "out", "-fromat", "md"},
			want: `unknown flag --fromat for "report"; did you mean --format? (evalgate report --help lists the flags)`,
		},
		{
			name: "nothing near",
			args: []string{"validate", "--frobnicate"},
			want: `unknown flag --frobnicate for "validate" (evalgate validate --help lists the flags)`,
		},
		{
			name: "unknown flag of baseline promote",
			args: []string{"baseline", "promote", "out", "--force-it"},
			want: `unknown flag --force-it for "baseline"; did you mean --force? (evalgate baseline --help lists the flags)`,
		},
		{
			name: "unknown command",
			args: []string{"rnu", "evals/"},
			want: `unknown command "rnu"; did you mean run? (evalgate help lists the commands)`,
		},
		{
			name: "unknown command, nothing near",
			args: []string{"frobnicate"},
			want: `unknown command "frobnicate" (evalgate help lists the commands)`,
		},
		{
			name: "help for an unknown command",
			args: []string{"help", "valdate"},
			want: `unknown command "valdate"; did you mean validate? (evalgate help lists the commands)`,
		},
		{
			name: "a flag before the command",
			args: []string{"--quiet", "run"},
			want: `unknown flag --quiet before the command; flags go after it: evalgate <command> [arguments] [flags] (evalgate help lists the commands)`,
		},
		{
			name: "unknown baseline command",
			args: []string{"baseline", "promte", "out"},
			want: `unknown command "baseline promte"; did you mean baseline promote? (evalgate baseline --help shows how)`,
		},
		{
			name: "unknown import source",
			args: []string{"import", "promptfo", "promptfooconfig.yaml"},
			want: `unknown command "import promptfo"; did you mean import promptfoo? (evalgate import --help shows how)`,
		},
		{
			name: "import without its source",
			args: []string{"import", "promptfooconfig.yaml"},
			want: `import: expected promptfoo and one config file, as in: evalgate import promptfoo promptfooconfig.yaml`,
		},
		{
			name: "unknown init template",
			args: []string{"init", "--template", "agent-audti"},
			want: `--template: expected "starter" or "agent-audit", got "agent-audti"; did you mean agent-audit?`,
		},
		{
			name: "baseline without its command",
			args: []string{"baseline"},
			want: `baseline: expected a command: promote, fetch (evalgate baseline --help shows how)`,
		},
		{
			name: "a flag without its value",
			args: []string{"run", "evals/", "--agent-cmd"},
			want: `--agent-cmd needs a value (evalgate run --help says what it takes)`,
		},
		{name: "timeout without a unit", args: []string{"run", "evals/", "--timeout", "5"}, want: `--timeout: "5" needs a unit, e.g. 5s or 5m`},
		{name: "timeout fraction without a unit", args: []string{"run", "--timeout=1.5"}, want: `--timeout: "1.5" needs a unit, e.g. 1.5s or 1.5m`},
		{name: "timeout zero", args: []string{"run", "--timeout", "0s"}, want: `--timeout: expected a duration above zero, such as 90s, got "0s"`},
		{name: "timeout bare zero", args: []string{"run", "--timeout", "0"}, want: `--timeout: expected a duration above zero, such as 90s, got "0"`},
		{name: "timeout negative", args: []string{"run", "--timeout", "-5s"}, want: `--timeout: expected a duration above zero, such as 90s, got "-5s"`},
		{name: "timeout not a duration", args: []string{"run", "--timeout", "soon"}, want: `--timeout: expected a duration such as 90s or 2m, got "soon"`},
		{name: "concurrency zero", args: []string{"run", "evals/", "--concurrency", "0"}, want: `--concurrency: expected a whole number of 1 or more, got "0"`},
		{name: "concurrency negative", args: []string{"run", "--concurrency=-2"}, want: `--concurrency: expected a whole number of 1 or more, got "-2"`},
		{name: "trials zero", args: []string{"run", "--trials", "0"}, want: `--trials: expected a whole number of 1 or more, got "0"`},
		{name: "trials negative", args: []string{"run", "--trials", "-1"}, want: `--trials: expected a whole number of 1 or more, got "-1"`},
		{name: "trials not whole", args: []string{"run", "--trials", "1.5"}, want: `--trials: expected a whole number of 1 or more, got "1.5"`},
		{name: "bool flag with a bad value", args: []string{"run", "--quiet=maybe"}, want: `--quiet: expected true or false, got "maybe"`},
		{name: "min-agreement not a number", args: []string{"calibrate", "--labels", "labels.jsonl", "--min-agreement", "high"}, want: `--min-agreement: expected a number, got "high"`},
		{name: "min-agreement zero", args: []string{"calibrate", "--labels", "labels.jsonl", "--min-agreement", "0"}, want: `--min-agreement: expected a correlation above 0 and at most 1, such as 0.8, got 0`},
		{name: "min-agreement negative", args: []string{"calibrate", "--labels", "labels.jsonl", "--min-agreement", "-0.5"}, want: `--min-agreement: expected a correlation above 0 and at most 1, such as 0.8, got -0.5`},
		{name: "min-agreement above 1", args: []string{"calibrate", "--labels", "labels.jsonl", "--min-agreement", "1.5"}, want: `--min-agreement: expected a correlation above 0 and at most 1, such as 0.8, got 1.5`},
		{name: "min-agreement NaN", args: []string{"calibrate", "--labels", "labels.jsonl", "--min-agreement", "NaN"}, want: `--min-agreement: expected a correlation above 0 and at most 1, such as 0.8, got NaN`},
		{name: "version takes no arguments", args: []string{"version", "now"}, want: `version takes no arguments, got "now"`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
