package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// The tests here are the hostile cases of DESIGN §17 and docs/security.md:
// what a suite, a file name, a gate, a baseline or a server can make
// evalgate print, read or send.

// forged is what hostile text holds: a line that GitHub Actions would read
// as a workflow command, a colour and the terminal bell.
const forged = "\n::error::forged \x1b[31m red \a bell"

// hostileSuite is a valid suite whose free text (descriptions, input,
// expected value, check id) carries forged.
const hostileSuite = `suiteId: acme.x.evals.hostile
version: 1.0.0
description: "suite\n::error::forged \x1b[31m \a"
modes: [golden]
tasks:
  - taskId: a
    description: "task\n::error::forged \x1b[31m \a"
    input: "in\n::error::forged \x1b[31m \a"
    expected: {kind: golden, match: {strategy: exact, value: "exp\n::error::forged \x1b[31m \a"}}
  - taskId: b
    input: x
    expected:
      kind: golden
      assert: [{id: "check\n::error::forged \x1b[31m \a", expr: 'output == "y"'}]
`

// invalidHostileSuite is a suite whose errors quote forged text: an
// unknown key, a bad kind and a bad regular expression.
const invalidHostileSuite = `suiteId: acme.x.evals.bad
version: 1.0.0
"key\n::error::forged \x1b[31m \a": 1
modes: [golden]
tasks:
  - taskId: a
    input: x
    expected: {kind: golden, match: {strategy: regex, value: "(\n::error::forged \x1b[31m \a"}}
  - taskId: b
    input: x
    expected: {kind: "gold\n::error::forged \x1b[31m \a", match: {strategy: exact, value: 1}}
`

// assertPrintable fails when output holds a control character a terminal
// acts on, or a line that GitHub Actions would read as the forged
// workflow command.
func assertPrintable(t *testing.T, name, output string) {
	t.Helper()
	assert.Check(t, !strings.ContainsAny(output, "\x1b\a"), "%s holds ESC or BEL:\n%q", name, output)
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimLeft(line, " \t")
		assert.Check(t, !strings.HasPrefix(line, "::error::forged"), "%s has a forged workflow command: %q", name, line)
	}
}

func TestHostileTextIsEscaped(t *testing.T) {
	type testCase struct {
		name     string
		files    map[string]string
		args     []string
		wantCode int
		want     string // escaped text the output must show, so that it was printed at all
	}
	run := func(t *testing.T, tc testCase, inActions bool) {
		dir := t.TempDir()
		writeFiles(t, dir, tc.files)
		env := map[string]string{}
		if inActions {
			env = actionsEnv(t.TempDir(), "")
		}
		r := runCLI(t, dir, env, tc.args...)
		assert.Equal(t, r.code, tc.wantCode, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assertPrintable(t, "stdout", r.stdout)
		assertPrintable(t, "stderr", r.stderr)
		assert.Check(t, strings.Contains(r.stdout+r.stderr, tc.want), "no %q in\nstdout:\n%s\nstderr:\n%s", tc.want, r.stdout, r.stderr)
		if inActions {
			if summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"]); err == nil {
				assert.Check(t, !strings.ContainsAny(string(summary), "\x1b\a"), "the job summary holds ESC or BEL:\n%s", summary)
			}
		}
	}
	agent := map[string]string{"echo.sh": "#!/bin/sh\ncat\n", "evalgate.yaml": "agent:\n  plain: [./echo.sh]\n"}
	with := func(files map[string]string) map[string]string {
		for k, v := range agent {
			files[k] = v
		}
		return files
	}
	hostileName := "evals/s" + forged + ".yaml"
	for _, tc := range []testCase{
		{
			name:     "run: descriptions, input, expected value and check id",
			files:    with(map[string]string{"evals/s.yaml": hostileSuite}),
			args:     []string{"run", "evals"},
			wantCode: 1,
			want:     `check\n::error::forged \x1b[31m \x07`,
		},
		{
			name:     "run: suite file name",
			files:    with(map[string]string{hostileName: hostileSuite}),
			args:     []string{"run", "evals"},
			wantCode: 1,
			want:     `evals/s\n::error::forged \x1b[31m red \x07 bell.yaml`,
		},
		{
			name:     "run: gate expression",
			files:    with(map[string]string{"evals/s.yaml": hostileSuite}),
			args:     []string{"run", "--gate", "passRate == 1 ||\n\"::error::forged \x1b[31m \a\" == \"\"", "evals"},
			wantCode: 1,
			want:     `passRate == 1 ||\n"::error::forged \x1b[31m \x07" == ""`,
		},
		{
			name:     "run: gate that does not compile",
			files:    with(map[string]string{"evals/s.yaml": hostileSuite}),
			args:     []string{"run", "--gate", "passRate ==" + forged, "evals"},
			wantCode: 2,
			want:     `--gate "passRate ==\n::error::forged \x1b[31m red \a bell"`,
		},
		{
			name:     "run: invalid suite",
			files:    with(map[string]string{"evals/bad.yaml": invalidHostileSuite}),
			args:     []string{"run", "evals"},
			wantCode: 2,
			want:     `got "gold\n::error::forged \x1b[31m \a"`,
		},
		{
			name:     "validate: invalid suite",
			files:    map[string]string{"evals/bad.yaml": invalidHostileSuite},
			args:     []string{"validate", "evals"},
			wantCode: 2,
			want:     `/key\n::error::forged \x1b[31m \x07: unknown key`,
		},
		{
			name:     "validate: suite file name",
			files:    map[string]string{hostileName: invalidHostileSuite},
			args:     []string{"validate", "evals"},
			wantCode: 2,
			want:     `evals/s\n::error::forged \x1b[31m red \x07 bell.yaml:3:1:`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc, false) })
		t.Run(tc.name+" in GitHub Actions", func(t *testing.T) { run(t, tc, true) })
	}
}

// TestHostileFileNameInAnnotations: in GitHub Actions, a failing task of a
// suite file with a forged name is annotated, and the name is escaped in
// the command's properties.
func TestHostileFileNameInAnnotations(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/s" + forged + ".yaml": hostileSuite,
		"echo.sh":                    "#!/bin/sh\ncat\n",
		"evalgate.yaml":              "agent:\n  plain: [./echo.sh]\n",
	})
	env := actionsEnv(t.TempDir(), "")
	git(t, dir, "init", "-q")
	r := runCLI(t, dir, env, "run", "evals")
	assert.Equal(t, r.code, 1, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assertPrintable(t, "stdout", r.stdout)
	assert.Assert(t, strings.Contains(r.stdout, "::error file=evals/s\\n%3A%3Aerror%3A%3Aforged \\x1b[31m red \\x07 bell.yaml,line="), r.stdout)
	_, err := os.Stat(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
}

// TestGitBaselineIsNeverAnOption: a git: baseline spec, from the command
// line or from evalgate.yaml in a pull request, cannot pass git an option
// (git show --output=FILE writes FILE): it is exit 2 before anything runs,
// and nothing is written.
func TestGitBaselineIsNeverAnOption(t *testing.T) {
	type testCase struct {
		name   string
		config string
		args   []string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"evals/s.yaml":  plainSuite,
			"upper.sh":      "#!/bin/sh\ntr a-z A-Z\n",
			"evalgate.yaml": "suites: [evals/]\nagent:\n  plain: [./upper.sh]\n" + tc.config,
		})
		git(t, dir, "init", "-q")
		git(t, dir, "add", ".")
		git(t, dir, "commit", "-q", "-m", "suites")
		r := runCLI(t, dir, nil, append([]string{"run"}, tc.args...)...)
		assert.Equal(t, r.code, 2, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Assert(t, strings.Contains(r.stderr, `starts with "-", which git would take for an option; name a branch, tag or commit`), r.stderr)
		written, err := filepath.Glob(filepath.Join(dir, "pwned*"))
		assert.NilError(t, err)
		assert.Equal(t, len(written), 0, "git wrote %v", written)
		_, err = os.Stat(filepath.Join(dir, "evalgate-out", "results.json"))
		assert.Assert(t, os.IsNotExist(err), "the run went ahead")
	}
	for _, tc := range []testCase{
		{name: "flag", args: []string{"--baseline", "git:--output=pwned:x"}},
		{name: "config", config: "baseline: 'git:--output=pwned:x'\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
