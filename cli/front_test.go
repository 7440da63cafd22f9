package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/config"
)

// TestQuietPrintsOnlyTheVerdict: --quiet prints the verdict line and
// nothing before it, not even a blank line.
func TestQuietPrintsOnlyTheVerdict(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/plain.yaml": plainSuite,
		"upper.sh":         "#!/bin/sh\ntr a-z A-Z\n",
		"evalgate.yaml":    "suites: [evals/]\nagent:\n  plain: [./upper.sh]\n",
	})
	r := runCLI(t, dir, nil, "run", "--quiet")
	assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Equal(t, r.stdout, "evalgate: PASS — all 2 gates hold\n")
}

// TestConfigFoundAbove: run from a subfolder, evalgate looks for
// evalgate.yaml upward to the repository root, as git looks for .git,
// and says which file it used; with none, it says where it looked.
// Outside a repository only the working directory is searched.
func TestConfigFoundAbove(t *testing.T) {
	type testCase struct {
		name       string
		files      map[string]string
		cwd        string
		args       []string
		wantCode   int
		wantStderr []string // each a line of stderr, in order, with ROOT for the temp folder
	}
	run := func(t *testing.T, tc testCase) {
		root, err := filepath.EvalSymlinks(t.TempDir())
		assert.NilError(t, err)
		writeFiles(t, root, tc.files)
		cwd := filepath.Join(root, tc.cwd)
		assert.NilError(t, os.MkdirAll(cwd, 0o755))
		r := runCLI(t, cwd, nil, tc.args...)
		assert.Equal(t, r.code, tc.wantCode, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		var want []string
		for _, l := range tc.wantStderr {
			want = append(want, strings.ReplaceAll(l, "ROOT", root))
		}
		assert.DeepEqual(t, strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n"), want)
	}
	project := map[string]string{
		".git/HEAD":          "ref: refs/heads/main\n",
		"evalgate.yaml":      "suites: [evals/]\nagent:\n  plain: [./upper.sh]\n",
		"evals/plain.yaml":   plainSuite,
		"upper.sh":           "#!/bin/sh\ntr a-z A-Z\n",
		"docs/guide/keep.md": "a subfolder\n",
	}
	for _, tc := range []testCase{
		{
			name: "found two folders up", files: project, cwd: "docs/guide",
			args: []string{"run", "--quiet", "--out", "out"}, wantCode: ExitPass,
			wantStderr: []string{"evalgate: using ../../evalgate.yaml, the nearest evalgate.yaml above the working directory"},
		},
		{
			name: "validate finds it too", files: project, cwd: "docs",
			args: []string{"validate"}, wantCode: ExitPass,
			wantStderr: []string{"evalgate: using ../evalgate.yaml, the nearest evalgate.yaml above the working directory"},
		},
		{
			name: "in the working directory it says nothing", files: project, cwd: ".",
			args: []string{"validate"}, wantCode: ExitPass, wantStderr: []string{""},
		},
		{
			name:  "none up to the repository root",
			files: map[string]string{".git/HEAD": "ref: refs/heads/main\n", "evals/plain.yaml": plainSuite}, cwd: "evals",
			args: []string{"run"}, wantCode: ExitInvalid,
			wantStderr: []string{"evalgate: no evalgate.yaml in ROOT/evals or above (up to the repository root ROOT); pass --config, or name the suite files or folders to run"},
		},
		{
			name:  "outside a repository only the working directory",
			files: map[string]string{"evalgate.yaml": "suites: [sub/]\n", "sub/plain.yaml": plainSuite}, cwd: "sub",
			args: []string{"validate"}, wantCode: ExitInvalid,
			wantStderr: []string{"evalgate: no evalgate.yaml in ROOT/sub (outside a git repository no folder above it is searched); pass --config, or name the suite files or folders to validate"},
		},
		{
			name:  "no agent, no config",
			files: map[string]string{".git/HEAD": "ref: refs/heads/main\n", "evals/plain.yaml": plainSuite}, cwd: ".",
			args: []string{"run", "evals/"}, wantCode: ExitInvalid,
			wantStderr: []string{"evalgate: no agent to run: pass --agent-cmd, or set agent.exec, agent.plain or agent.openai in evalgate.yaml (no evalgate.yaml in ROOT, the repository root; pass --config)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestSuitePathsSayWhere: an empty folder is "no suite files in DIR", not
// an empty selection; a suite path in evalgate.yaml that does not exist is
// reported at its place in the file with the folder it was meant to be;
// a misspelt key of the config or of a suite names the key meant.
func TestSuitePathsSayWhere(t *testing.T) {
	type testCase struct {
		name       string
		files      map[string]string
		args       []string
		wantStdout string
		wantStderr string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		writeFiles(t, dir, tc.files)
		assert.NilError(t, os.MkdirAll(filepath.Join(dir, "empty"), 0o755))
		r := runCLI(t, dir, nil, tc.args...)
		assert.Equal(t, r.code, ExitInvalid, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Equal(t, r.stdout, tc.wantStdout)
		assert.Equal(t, r.stderr, tc.wantStderr)
	}
	for _, tc := range []testCase{
		{
			name:  "an empty folder",
			files: map[string]string{"upper.sh": "#!/bin/sh\ntr a-z A-Z\n"},
			args:  []string{"run", "empty", "--agent-cmd", "./upper.sh"},
			wantStderr: "evalgate: invalid suites:\n" +
				"empty: no suite files in empty (a suite is a .json, .yaml or .yml file; hidden files and folders are skipped) [io]\n",
		},
		{
			name: "a missing suite path in evalgate.yaml",
			files: map[string]string{
				"evalgate.yaml":    "agent: {plain: [./upper.sh]}\nsuites:\n  - evlas/\n  - evals/plain.yml\n  - nothing-like-it/\n",
				"evals/plain.yaml": plainSuite,
			},
			args: []string{"run"},
			wantStderr: "evalgate: evalgate.yaml:3:5: suites[0]: \"evlas/\" does not exist in evalgate.yaml's folder; did you mean \"evals/\"?\n" +
				"evalgate.yaml:4:5: suites[1]: \"evals/plain.yml\" does not exist in evalgate.yaml's folder; did you mean \"evals/plain.yaml\"?\n" +
				"evalgate.yaml:5:5: suites[2]: \"nothing-like-it/\" does not exist in evalgate.yaml's folder\n",
		},
		{
			name:       "a misspelt key of evalgate.yaml",
			files:      map[string]string{"evalgate.yaml": "sutes: [evals/]\n"},
			args:       []string{"validate"},
			wantStderr: "evalgate: evalgate.yaml:1:1: config: unknown key \"sutes\"; did you mean \"suites\"?\n",
		},
		{
			name: "a misspelt key of a suite",
			files: map[string]string{"evals/s.yaml": "suiteId: acme.x.evals.y\nversion: 1.0.0\nmodes: [golden]\ntasks:\n" +
				"  - taskId: a\n    input: hi\n    expectd: {kind: golden, match: {strategy: contains, value: hi}}\n"},
			args: []string{"validate", "evals"},
			wantStdout: "evals/s.yaml:5:5: /tasks/0: missing required key \"expected\" [schema]\n" +
				"evals/s.yaml:7:5: /tasks/0/expectd: unknown key \"expectd\"; did you mean \"expected\"? [schema]\n",
			wantStderr: "evalgate: invalid suites\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestPromoteTheLastRun: baseline promote with no argument promotes the
// run in the output folder run writes to: evalgate.yaml's out, else
// evalgate-out.
func TestPromoteTheLastRun(t *testing.T) {
	for _, tc := range []struct{ name, config, out string }{
		{"the config's out", "suites: [evals/]\nagent: {plain: [./upper.sh]}\nout: runs/last\n", "runs/last"},
		{"evalgate-out", "suites: [evals/]\nagent: {plain: [./upper.sh]}\n", "evalgate-out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"evals/plain.yaml": plainSuite,
				"upper.sh":         "#!/bin/sh\ntr a-z A-Z\n",
				"evalgate.yaml":    tc.config,
			})
			mustRun(t, dir, "run", "--quiet")
			r := runCLI(t, dir, nil, "baseline", "promote")
			assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			run := regrReadRun(t, filepath.Join(dir, tc.out))
			assert.Equal(t, r.stdout, "evalgate: baseline .evalgate/baseline.json written from run "+run.RunID+" (1 suite, 4 tasks)\n")
		})
	}
}

// TestExamplesWriteTheirOwnOutFolder: every example project sets an out
// folder no other one uses, so running one never mixes its outputs (and
// baseline) with another's.
func TestExamplesWriteTheirOwnOutFolder(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testdata, "..", "..", "examples", "*", "evalgate.yaml"))
	assert.NilError(t, err)
	files = append(files, filepath.Join(testdata, "..", "..", "examples", "evalgate.yaml"))
	assert.Assert(t, len(files) >= 5, "found %v", files)
	owner := map[string]string{}
	for _, f := range files {
		cfg, err := config.Load(f, true)
		assert.NilError(t, err)
		assert.Check(t, cfg.Out != "", "%s sets no out", f)
		out := filepath.Clean(cfg.Out)
		assert.Check(t, owner[out] == "", "%s and %s both write to %s", owner[out], f, out)
		owner[out] = f
	}
}

// TestJudgeCredentials: an apiKeyEnv of the judge that names an unset
// variable stops the run before any agent runs, at its place in
// evalgate.yaml; a key the judge's API refuses (401, 403) is "rejected the
// credentials", never "unreachable", and so is one a model agent's API
// refuses.
func TestJudgeCredentials(t *testing.T) {
	refuse := &fakeJudgeModel{t: t, status: http.StatusUnauthorized}
	srv := httptest.NewServer(refuse)
	defer srv.Close()
	judge := fmt.Sprintf("judge:\n  openai: {baseURL: %s/v1, model: grader, apiKeyEnv: JUDGE_KEY}\n", srv.URL)

	t.Run("unset", func(t *testing.T) {
		dir := rubricProject(t, judge)
		res := runCLI(t, dir, map[string]string{"JUDGE_KEY": ""}, "run", "--no-cache")
		assert.Equal(t, res.code, ExitInvalid, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
		col := strings.Index(judge, "JUDGE_KEY}") - strings.Index(judge, "  openai") + 1
		assert.Equal(t, res.stderr, fmt.Sprintf("evalgate: evalgate.yaml:6:%d: judge.openai.apiKeyEnv: the environment variable JUDGE_KEY is not set, ", col)+
			"and 2 tasks need the judge; set it (in GitHub Actions from a secret, env: {JUDGE_KEY: ${{ secrets.JUDGE_KEY }}}), or leave them out with --task or --tag\n")
		assert.Equal(t, refuse.count(), 0)
		_, err := os.Stat(filepath.Join(dir, "out"))
		assert.Assert(t, os.IsNotExist(err), "the run started")

		// A task no judge decides runs without the key.
		writeFiles(t, dir, map[string]string{"evals/plain.yaml": plainSuite})
		res = runCLI(t, dir, map[string]string{"JUDGE_KEY": ""}, "run", "--no-cache", "--task", "shout")
		assert.Equal(t, res.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
		assert.Equal(t, refuse.count(), 0)
	})
	t.Run("refused", func(t *testing.T) {
		dir := rubricProject(t, judge)
		res := runCLI(t, dir, map[string]string{"JUDGE_KEY": "sk-wrong"}, "run", "--no-cache")
		assert.Equal(t, res.code, ExitRunError, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
		assert.Equal(t, res.stderr, "evalgate: the judge rejected the credentials: the judge refused all 2 calls: the judge at "+srv.URL+
			"/v1/chat/completions answered 401 Unauthorized (invalid_api_key); check the key in JUDGE_KEY (judge.openai.apiKeyEnv)\n")
	})
	t.Run("a model agent refused", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"evalgate.yaml":    fmt.Sprintf("suites: [evals/]\nagent:\n  openai: {baseURL: %s/v1, model: m, apiKeyEnv: AGENT_KEY}\n", srv.URL),
			"evals/plain.yaml": plainSuite,
		})
		res := runCLI(t, dir, map[string]string{"AGENT_KEY": "sk-wrong"}, "run", "--task", "shout")
		assert.Equal(t, res.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
		assert.Check(t, is.Contains(res.stdout, "error: model (the model API rejected the credentials (401): check the API key)"))
	})
}
