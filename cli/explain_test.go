package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"
)

// explainSuite fails each kind of check once. The agent answers "Order
// A-17 is in transit." but for the task json, where it answers an object,
// and it calls crm:lookup for A-18 in the task tools.
const explainSuite = `suiteId: acme.cli.evals.explain
version: 1.0.0
modes: [golden, rubric]
tools:
  - {name: "crm:lookup", description: Look up an order}
tasks:
  - taskId: contains
    input: Where is order A-17?
    expected: {kind: golden, match: {strategy: contains, value: delivered}}
  - taskId: exact
    input: Where is order A-17?
    expected: {kind: golden, match: {strategy: exact, value: "Order A-17 was delivered.", ignoreCase: true}}
  - taskId: json
    input: Where is order A-17?
    expected: {kind: golden, match: {strategy: json-match, value: {order: A-17, status: delivered, items: [1, 2]}}}
  - taskId: path
    input: Where is order A-17?
    expected: {kind: golden, match: {strategy: exact, path: /status, value: delivered}}
  - taskId: asserts
    input: Where is order A-17?
    expected:
      kind: golden
      assert:
        - {id: short, expr: 'len(output) < 10'}
        - {id: no-lookup, toolNotCalled: "crm:lookup"}
        - {id: lookup-a17, toolCalled: "crm:lookup", args: {orderId: A-17}}
        - {id: one-call, maxToolCalls: 0}
  - taskId: tools
    input: Where is order A-17?
    expected:
      kind: golden
      assert:
        - {id: lookup-a17, toolCalled: "crm:lookup", args: {orderId: A-17}}
  - taskId: schema
    input: Where is order A-17?
    expected:
      kind: golden
      match: {strategy: contains, value: A-17}
      outputSchema: {type: object, required: [status]}
  - taskId: rubric
    input: Where is order A-17?
    expected:
      kind: rubric
      rubric:
        - {criterion: Says when the order arrives., weight: 1}
        - {criterion: Is short., weight: 1, assert: {expr: 'len(output) < 10'}}
`

const explainAgent = `read task
case "$EVALGATE_TASK_ID" in
json|path) echo '{"type":"final","output":{"order":"A-17","status":"in-transit","items":[1],"eta":"2 days"}}' ;;
asserts|tools)
  echo '{"type":"tool_call","id":"c1","name":"crm:lookup","arguments":{"orderId":"A-18"}}'
  read result
  echo '{"type":"final","output":"Order A-17 is in transit."}' ;;
*) echo '{"type":"final","output":"Order A-17 is in transit."}' ;;
esac
`

// explainProject writes a project whose every task fails a check.
func explainProject(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/explain.yaml": explainSuite,
		"agent.sh":           explainAgent,
		"judge.sh":           "cat > /dev/null\necho '{\"criteria\":[{\"met\":false,\"reason\":\"it never says when\"}]}'\n",
		"evalgate.yaml":      "suites: [evals/]\nagent: {exec: [sh, agent.sh]}\njudge: {exec: [sh, judge.sh]}\n" + config,
	})
	return dir
}

// TestExplain: with --explain each failing check of each failing task
// says what it expected and what came, for every kind of check; the
// outputs stay as they are without it.
func TestExplain(t *testing.T) {
	dir := explainProject(t, "")
	r := runCLI(t, dir, nil, "run", "--explain", "--no-cache")
	assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	_, section, ok := strings.Cut(r.stdout, "\nexpected vs got")
	assert.Assert(t, ok, "no explanations:\n%s", r.stdout)
	section, _, _ = strings.Cut(section, "\ngates\n")
	golden.Assert(t, "expected vs got"+section, filepath.Join(testdata, "explain", "explain.golden"))

	// A task of several trials is explained by its first failing trial.
	r = runCLI(t, dir, nil, "run", "--explain", "--no-cache", "--trials", "3", "--task", "contains", "--out", "trials")
	assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Check(t, is.Contains(r.stdout, "  acme.cli.evals.explain/contains evals/explain.yaml:7\n"+
		"    trial 1 of 3:\n"+
		"    match (contains): expected to contain \"delivered\", got \"Order A-17 is in transit.\"\n"+
		"    (2 more trials failed; --transcripts keeps every output)\n"))
}

// TestExplainWhen: explanations are on at a terminal outside CI and with
// --explain; in CI only with --explain or explain: true; --explain=false
// and --quiet turn them off.
func TestExplainWhen(t *testing.T) {
	type testCase struct {
		name     string
		config   string
		args     []string
		terminal bool
		ci       bool
		want     bool
	}
	for _, tc := range []testCase{
		{name: "a CI log", ci: true},
		{name: "a pipe outside CI"},
		{name: "a terminal", terminal: true, want: true},
		{name: "a terminal in CI", terminal: true, ci: true},
		{name: "--explain in CI", ci: true, args: []string{"--explain"}, want: true},
		{name: "explain: true in CI", ci: true, config: "explain: true\n", want: true},
		{name: "explain: false at a terminal", terminal: true, config: "explain: false\n"},
		{name: "--explain=false at a terminal", terminal: true, args: []string{"--explain=false"}},
		{name: "--explain=false over explain: true", ci: true, config: "explain: true\n", args: []string{"--explain=false"}},
		{name: "--quiet", terminal: true, args: []string{"--quiet", "--explain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := explainProject(t, tc.config)
			t.Chdir(dir)
			var stdout, stderr strings.Builder
			ci := ""
			if tc.ci {
				ci = "true"
			}
			cmd := &Command{
				Stdout: &stdout,
				Stderr: &stderr,
				Getenv: func(k string) string {
					return map[string]string{"PATH": os.Getenv("PATH"), "NO_COLOR": "1", "CI": ci}[k]
				},
				IsTerminal: func() bool { return tc.terminal },
			}
			code := cmd.Main(append([]string{"evalgate", "run", "--task", "contains"}, tc.args...))
			assert.Equal(t, code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			explained := strings.Contains(stdout.String(), `match (contains): expected to contain "delivered", got "Order A-17 is in transit."`)
			assert.Equal(t, explained, tc.want, "stdout:\n%s", stdout.String())
		})
	}
}

// TestExplainStaysOffTheOutputs: explanations are for the log alone. With
// them on, in GitHub Actions, results.json is what it is without them, and
// no output, no job summary and no annotation quotes the task or the agent.
func TestExplainStaysOffTheOutputs(t *testing.T) {
	dir := explainProject(t, "explain: true\n")
	env := actionsEnv(dir, dir)
	r := runCLI(t, dir, env, "run", "--no-cache", "--out", "explained")
	assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Check(t, is.Contains(r.stdout, `expected to contain "delivered", got "Order A-17 is in transit."`))
	r = runCLI(t, dir, env, "run", "--no-cache", "--out", "plain", "--explain=false")
	assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Check(t, !strings.Contains(r.stdout, "expected vs got"))

	explained := normalizeResults(t, []byte(regrReadFile(t, filepath.Join(dir, "explained", "results.json"))))
	plain := normalizeResults(t, []byte(regrReadFile(t, filepath.Join(dir, "plain", "results.json"))))
	assert.Equal(t, explained, plain, "results.json gained something with explanations")

	// What the task and the agent said, as the explanations quote it.
	content := []string{"in transit", "in-transit", "delivered", "A-18", "2 days", "never says when", "arrives"}
	var files []string
	assert.NilError(t, filepath.WalkDir(filepath.Join(dir, "explained"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	}))
	files = append(files, env["GITHUB_STEP_SUMMARY"], env["GITHUB_OUTPUT"])
	assert.Assert(t, len(files) >= 8, "%v", files)
	for _, f := range files {
		data := regrReadFile(t, f)
		for _, c := range content {
			assert.Check(t, !strings.Contains(data, c), "%s quotes %q", f, c)
		}
	}
	annotations := 0
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "::") {
			annotations++
			for _, c := range content {
				assert.Check(t, !strings.Contains(line, c), "an annotation quotes %q: %s", c, line)
			}
		}
	}
	assert.Assert(t, annotations > 0, "no annotations:\n%s", r.stdout)
}
