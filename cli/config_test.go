package cli

import (
	"os"
	"path/filepath"
	"sort"
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

// TestValidateNeedsAJudge: with a config file that configures no judge, a
// criterion without an assert is reported at its line (exit 2), where the
// config file is and whichever folder validate runs from. run keeps
// docs/judges.md: such a task is an error "no judge configured", the run goes on.
func TestValidateNeedsAJudge(t *testing.T) {
	type testCase struct {
		name       string
		config     string // evalgate.yaml in proj/; "" for none
		cwd        string // relative to the temp folder
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}
	run := func(t *testing.T, tc testCase) {
		root := t.TempDir()
		files := map[string]string{"proj/evals/replies.yaml": judgedSuite}
		if tc.config != "" {
			files["proj/evalgate.yaml"] = tc.config
		}
		writeFiles(t, root, files)
		r := runCLI(t, filepath.Join(root, tc.cwd), nil, tc.args...)
		assert.Equal(t, r.code, tc.wantCode, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Equal(t, r.stdout, tc.wantStdout)
		assert.Equal(t, r.stderr, tc.wantStderr)
	}
	for _, tc := range []testCase{
		{
			name: "the criterion's line", config: "suites: [evals/]\n", cwd: "proj", args: []string{"validate"},
			wantCode:   ExitInvalid,
			wantStdout: `evals/replies.yaml:10:11: task "polite": rubric[0] needs a judge: set judge.openai or judge.exec in evalgate.yaml, or give the criterion an assert [judge]` + "\n",
			wantStderr: "evalgate: no judge configured in evalgate.yaml for 1 rubric criterion\n",
		},
		{
			name: "from another folder", config: "suites: [evals/]\n", args: []string{"validate", "--config", "proj/evalgate.yaml"},
			wantCode:   ExitInvalid,
			wantStdout: `proj/evals/replies.yaml:10:11: task "polite": rubric[0] needs a judge: set judge.openai or judge.exec in proj/evalgate.yaml, or give the criterion an assert [judge]` + "\n",
			wantStderr: "evalgate: no judge configured in proj/evalgate.yaml for 1 rubric criterion\n",
		},
		{
			name: "suites named on the command line", config: "agent: {plain: [cat]}\n", cwd: "proj", args: []string{"validate", "evals/replies.yaml"},
			wantCode:   ExitInvalid,
			wantStdout: `evals/replies.yaml:10:11: task "polite": rubric[0] needs a judge: set judge.openai or judge.exec in evalgate.yaml, or give the criterion an assert [judge]` + "\n",
			wantStderr: "evalgate: no judge configured in evalgate.yaml for 1 rubric criterion\n",
		},
		{
			name: "a judge configured", config: "suites: [evals/]\njudge: {exec: [python3, judge.py]}\n", cwd: "proj", args: []string{"validate"},
			wantStdout: "1 suite(s), 1 task(s): valid\n",
		},
		{
			name: "no config file", cwd: "proj", args: []string{"validate", "evals/"},
			wantStdout: "1 suite(s), 1 task(s): valid\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}

	t.Run("run makes the task an error", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"evals/replies.yaml": judgedSuite, "evalgate.yaml": "suites: [evals/]\nagent: {plain: [cat]}\n"})
		r := runCLI(t, dir, nil, "run", "--out", "out")
		assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		run := regrReadRun(t, filepath.Join(dir, "out"))
		task := run.Suites[0].Tasks[0]
		assert.Equal(t, task.Status, "error")
		assert.Equal(t, task.ErrorKind, "judge")
	})
}

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

// TestRelativePaths: a path in evalgate.yaml is relative to the file's
// folder, so the project runs the same from any working directory and
// writes nothing there; its judge cache is next to it. A path on the
// command line is relative to the working directory.
func TestRelativePaths(t *testing.T) {
	root := t.TempDir()
	judge, err := os.ReadFile(filepath.Join(testdata, "rubric", "judge.py"))
	assert.NilError(t, err)
	const config = "suites: [evals/]\nagent:\n  plain: [./agent.sh]\njudge:\n  exec: [python3, judge.py, received.jsonl]\nout: out\n"
	writeFiles(t, root, map[string]string{
		"proj/evalgate.yaml":     config,
		"proj/evals/rubric.yaml": rubricSuite,
		"proj/agent.sh":          "#!/bin/sh\ncat > /dev/null\necho 'We will refund your order.'\n",
		"proj/judge.py":          string(judge),
		"work/labels.jsonl": `{"input": "a", "output": "refund", "criterion": "Says \"refund\".", "human": true}
{"input": "a", "output": "no", "criterion": "Says \"refund\".", "human": false}
{"input": "a", "output": "sorry", "criterion": "Says \"sorry\".", "human": true}
{"input": "a", "output": "fine", "criterion": "Says \"sorry\".", "human": false}
`,
	})
	proj, work := filepath.Join(root, "proj"), filepath.Join(root, "work")
	asked := func() int { return len(readLines(t, filepath.Join(proj, "received.jsonl"))) }
	workHolds := func(want ...string) {
		t.Helper()
		entries, err := os.ReadDir(work)
		assert.NilError(t, err)
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		want = append(want, "labels.jsonl")
		sort.Strings(want)
		assert.DeepEqual(t, got, want)
	}

	// From the project's folder: the judge is asked and its verdicts cached
	// in proj/.evalgate/cache/judge, signed with EVALGATE_CACHE_KEY (an
	// exec judge has no key of its own).
	keyed := map[string]string{"EVALGATE_CACHE_KEY": "cache-secret-0123456789"}
	r := runCLI(t, proj, keyed, "run")
	assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Equal(t, asked(), 2)
	cached, err := os.ReadDir(filepath.Join(proj, ".evalgate", "cache", "judge"))
	assert.NilError(t, err)
	assert.Assert(t, len(cached) > 0)

	// From another folder: the suites, the agent, the judge, its cache and
	// the outputs are the project's; nothing is written in the working
	// directory.
	assert.NilError(t, os.Remove(filepath.Join(proj, "out", "results.json")))
	r = runCLI(t, work, keyed, "run", "--config", "../proj/evalgate.yaml")
	assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Equal(t, asked(), 2, "the cache next to evalgate.yaml answered")
	_, err = os.Stat(filepath.Join(proj, "out", "results.json"))
	assert.NilError(t, err)
	workHolds()

	// A baseline in the config is the project's too.
	r = runCLI(t, work, keyed, "baseline", "promote", "../proj/out", "--out", "../proj/base/baseline.json")
	assert.Equal(t, r.code, ExitPass, r.stderr)
	writeFiles(t, proj, map[string]string{"evalgate.yaml": config + "baseline: base/baseline.json\n"})
	r = runCLI(t, work, keyed, "run", "--config", "../proj/evalgate.yaml")
	assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Assert(t, regrReadRun(t, filepath.Join(proj, "out")).Regression != nil)
	workHolds()

	// Paths on the command line are the working directory's.
	data, err := os.ReadFile(filepath.Join(proj, "base", "baseline.json"))
	assert.NilError(t, err)
	writeFiles(t, work, map[string]string{"mine.json": string(data)})
	r = runCLI(t, work, keyed, "run", "--config", "../proj/evalgate.yaml", "--out", "here", "--baseline", "mine.json", "../proj/evals/rubric.yaml")
	assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	here := regrReadRun(t, filepath.Join(work, "here"))
	assert.Equal(t, here.Regression.BaselineFile, "mine.json")
	assert.Equal(t, here.Suites[0].File, "../proj/evals/rubric.yaml")

	// --agent-cmd runs in the working directory: the agent finds here.txt.
	writeFiles(t, work, map[string]string{"here.txt": "We will refund your order."})
	r = runCLI(t, work, keyed, "run", "--config", "../proj/evalgate.yaml", "--out", "here", "--agent-cmd",
		`head -n 1 > /dev/null; printf '{"type":"final","output":"%s"}\n' "$(cat here.txt)"`)
	assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	// calibrate reads --labels from the working directory and writes the
	// calibration next to evalgate.yaml, where run reads it.
	r = runCLI(t, work, keyed, "calibrate", "--config", "../proj/evalgate.yaml", "--labels", "labels.jsonl")
	assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	_, err = os.Stat(filepath.Join(proj, ".evalgate", "calibration.json"))
	assert.NilError(t, err)
	workHolds("here", "here.txt", "mine.json")
}
