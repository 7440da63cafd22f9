package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
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
		{name: "bad flag", args: []string{"run", "--concurrency", "many"}, wantCode: 2, wantStderr: "invalid value"},
		{name: "run -h shows exit codes", args: []string{"run", "-h"}, wantCode: 0, wantStderr: "2  bad invocation"},
		{name: "schema needs a name", args: []string{"schema"}, wantCode: 2, wantStderr: "expected one of suite, summary, results"},
		{name: "schema unknown", args: []string{"schema", "bogus"}, wantCode: 2, wantStderr: `got "bogus"`},
		{name: "validate example", args: []string{"validate", "../examples/evals"}, wantStdout: "valid"},
		{name: "validate portable json", args: []string{"validate", "--openwop", "../examples/evals/order-status.json"}, wantStdout: "strictly openwop-portable"},
		{name: "validate extensions not portable", args: []string{"validate", "--openwop", "../examples/evals/refunds.yaml"}, wantCode: 2, wantStdout: "not strictly openwop-portable"},
		{name: "export strips extensions", args: []string{"export", "--openwop", "../examples/evals/refunds.yaml"}, wantStdout: `"suiteId": "acme.support.evals.refunds"`, wantStderr: "extension(s) dropped"},
		{name: "run without suites", args: []string{"run", "--config", "testdata/empty.yaml"}, wantCode: 2, wantStderr: "no suites to run"},
		{name: "run without agent", args: []string{"run", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "no agent to run"},
		{name: "bad gate is exit 2 before running", args: []string{"run", "--agent-cmd", "false", "--gate", "aggregateScore >=", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "gate"},
		{name: "unknown gate variable", args: []string{"run", "--agent-cmd", "false", "--gate", "score > 1", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "score"},
		{name: "bad shard", args: []string{"run", "--agent-cmd", "false", "--shard", "3/2", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "--shard"},
		{name: "bad mode", args: []string{"run", "--agent-cmd", "false", "--mode", "fuzzy", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "--mode"},
		{name: "selection matches nothing", args: []string{"run", "--agent-cmd", "false", "--task", "nope", "../examples/evals/order-status.json"}, wantCode: 2, wantStderr: "no task matches"},
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

func TestInit(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, "", nil, "init", "--dir", dir)
	assert.Equal(t, r.code, 0, r.stderr)
	for _, f := range []string{"evalgate.yaml", "evals/starter.yaml", ".github/workflows/evalgate.yml"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NilError(t, err)
	}
	r = runCLI(t, "", nil, "validate", filepath.Join(dir, "evals"))
	assert.Equal(t, r.code, 0, "the starter suite must be valid: %s", r.stdout)
	r = runCLI(t, "", nil, "init", "--dir", dir)
	assert.Equal(t, r.code, 2)
	assert.Assert(t, strings.Contains(r.stderr, "already exists"))
	r = runCLI(t, "", nil, "init", "--dir", dir, "--force")
	assert.Equal(t, r.code, 0)
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
