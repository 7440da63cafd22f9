package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// judgedSuite has one criterion for a judge (line 10) and one decided by
// an assert.
const judgedSuite = `suiteId: acme.test.evals.replies
version: 1.0.0
modes: [rubric]
tasks:
  - taskId: polite
    input: hi
    expected:
      kind: rubric
      rubric:
        - criterion: Is polite.
          weight: 1
        - criterion: Uses no tools.
          weight: 1
          assert: {maxToolCalls: 0}
`

// TestGateErrorsSayWhere: a gate of evalgate.yaml that does not compile is
// reported at its file, line and column by run and validate, before any
// agent runs; one from --gate names the flag.
func TestGateErrorsSayWhere(t *testing.T) {
	const config = "suites: [evals/]\nagent:\n  exec: [sh, agent.sh]\ngates:\n  - passRate >= 0.5\n  - aggregateScor >= 0.9\n"
	const wantConfig = `evalgate: evalgate.yaml:6:5: gates[1]: unknown name "aggregateScor"; did you mean aggregateScore?` + "\n"
	type testCase struct {
		name       string
		args       []string
		wantStderr string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"evalgate.yaml":      config,
			"evals/replies.yaml": judgedSuite,
			"agent.sh":           "touch ran\n",
			"out/results.json":   "{}",
		})
		r := runCLI(t, dir, nil, tc.args...)
		assert.Equal(t, r.code, ExitInvalid, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Equal(t, r.stderr, tc.wantStderr)
		_, err := os.Stat(filepath.Join(dir, "ran"))
		assert.Check(t, os.IsNotExist(err), "the agent ran")
	}
	for _, tc := range []testCase{
		{name: "run", args: []string{"run"}, wantStderr: wantConfig},
		{name: "validate", args: []string{"validate"}, wantStderr: wantConfig},
		{name: "merge", args: []string{"merge", "out"}, wantStderr: wantConfig},
		{
			name: "--gate", args: []string{"run", "--config", "/dev/null", "--agent-cmd", "touch ran", "--gate", "passRate > 0.5", "--gate", "aggregateScor >= 0.9", "evals/"},
			wantStderr: `evalgate: --gate "aggregateScor >= 0.9": column 1: unknown name "aggregateScor"; did you mean aggregateScore?` + "\n",
		},
		{
			name: "--gate of merge", args: []string{"merge", "--config", "/dev/null", "--gate", "findings.hihg == 0", "out"},
			wantStderr: `evalgate: --gate "findings.hihg == 0": column 10: findings has no field "hihg"; did you mean high?` + "\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestYAMLErrorsSayWhere: a YAML syntax error in a suite or in evalgate.yaml
// is reported at the line of the problem.
func TestYAMLErrorsSayWhere(t *testing.T) {
	dir := t.TempDir()
	broken := strings.Replace(judgedSuite, "        - criterion: Uses no tools.", "       - criterion: Uses no tools.", 1)
	writeFiles(t, dir, map[string]string{
		"evals/replies.yaml": broken,
		"bad/evalgate.yaml":  "suites: [evals/]\nagent:\n  exec: [sh, agent.sh]\n  env:\n    A: 1\n   B: 2\n",
	})
	r := runCLI(t, dir, nil, "validate", "evals/")
	assert.Equal(t, r.code, ExitInvalid)
	assert.Check(t, is.Contains(r.stdout, "evals/replies.yaml:12:1: did not find expected key (in the mapping that starts at line 8) [syntax]"))

	r = runCLI(t, dir, nil, "run", "--config", "bad/evalgate.yaml")
	assert.Equal(t, r.code, ExitInvalid)
	assert.Check(t, is.Contains(r.stderr, "bad/evalgate.yaml:6:1: invalid YAML: did not find expected key (in the mapping that starts at line 3)"))
}
