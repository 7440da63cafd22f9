package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/pipeline"
	"gotest.tools/v3/assert"
)

// TestRunnerFilesGuarded: in GitHub Actions the agent gets none of the
// runner's file commands, and one that writes to $GITHUB_ENV anyway (its
// path found some other way) fails the run with exit 3: the file is put
// back and nothing is published.
func TestRunnerFilesGuarded(t *testing.T) {
	repo := newMonorepo(t)
	ci := t.TempDir()
	envFile := filepath.Join(ci, "set_env")
	assert.NilError(t, os.WriteFile(envFile, []byte("EARLIER=1\n"), 0o644))
	writeFiles(t, repo, map[string]string{
		"sub/evals/echo.yaml": `suiteId: acme.mono.evals.guard
version: 1.0.0
modes: [golden]
tasks:
  - taskId: clean-env
    input: ok
    expected:
      kind: golden
      match: {strategy: exact, value: ok}
`,
		"sub/echo.sh": `#!/bin/sh
printf 'LD_PRELOAD=/tmp/evil.so\n' >> '` + envFile + `'
if [ -z "$GITHUB_ENV$GITHUB_OUTPUT$GITHUB_PATH$GITHUB_STEP_SUMMARY$GITHUB_STATE" ]; then cat; else echo leaked; fi
`,
	})
	env := actionsEnv(ci, "")
	env["GITHUB_ENV"] = envFile
	r := runCLI(t, filepath.Join(repo, "sub"), env, "run")
	assert.Equal(t, r.code, ExitRunError, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Assert(t, strings.Contains(r.stderr, "$GITHUB_ENV changed while the agents ran"), r.stderr)
	assert.Assert(t, strings.Contains(r.stderr, "put back as it was"), r.stderr)

	data, err := os.ReadFile(envFile)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "EARLIER=1\n", "the file was not put back")
	_, err = os.Stat(filepath.Join(ci, "summary.md"))
	assert.Assert(t, os.IsNotExist(err), "a run whose agent reached the runner published a summary")

	run := regrReadRun(t, filepath.Join(repo, "sub", "evalgate-out"))
	assert.Equal(t, run.Suites[0].Tasks[0].Status, "passed", "the agent saw a runner file in its environment")
}

// TestActionSteps: the Action's three steps. `baseline fetch` downloads an
// artifact baseline (while it holds the token) and names it in its step
// output, or "none"; `run --no-publish` runs with no token and publishes
// nothing; `publish` publishes the run from the output folder.
func TestActionSteps(t *testing.T) {
	repo := newMonorepo(t)
	sub := filepath.Join(repo, "sub")
	writeFiles(t, repo, map[string]string{"sub/evalgate.yaml": "suites: [evals/]\nagent:\n  plain: [sh, echo.sh]\nbaseline: github-artifact:evalgate-results\n"})
	ci := t.TempDir()
	env := actionsEnv(ci, "")
	outputs := func() string {
		data, _ := os.ReadFile(env["GITHUB_OUTPUT"])
		return string(data)
	}

	defer func(prev func(context.Context, string) (string, bool, error)) { pipeline.FetchArtifact = prev }(pipeline.FetchArtifact)
	pipeline.FetchArtifact = func(context.Context, string) (string, bool, error) { return "", false, nil }
	r := runCLI(t, sub, env, "baseline", "fetch")
	assert.Equal(t, r.code, ExitPass, r.stderr)
	assert.Assert(t, strings.Contains(outputs(), "baseline<<"), outputs())
	assert.Assert(t, strings.Contains(outputs(), "\nnone\n"), outputs())
	assert.NilError(t, os.Remove(env["GITHUB_OUTPUT"]))

	// "none" overrides the config's artifact baseline, which the run
	// could not fetch without a token.
	pipeline.FetchArtifact = nil
	r = runCLI(t, sub, env, "run", "--no-publish", "--baseline", "none", "--gate", "passRate == 1")
	assert.Equal(t, r.code, ExitGateFail, r.stderr)
	assert.Assert(t, !strings.Contains(r.stdout, "::error file="), "the run step annotated: %s", r.stdout)
	_, err := os.Stat(env["GITHUB_STEP_SUMMARY"])
	assert.Assert(t, os.IsNotExist(err), "the run step wrote the job summary")
	assert.Equal(t, outputs(), "")

	r = runCLI(t, sub, env, "publish")
	assert.Equal(t, r.code, ExitPass, r.stderr)
	assert.Assert(t, strings.Contains(r.stdout, "::error file=sub/evals/echo.yaml,line=12"), r.stdout)
	summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(summary), "acme.mono.evals.echo"), string(summary))
	assert.Assert(t, strings.Contains(outputs(), "passed<<"), outputs())
}

// TestActionStepsOutsideActions: fetch and publish say they are the
// Action's steps.
func TestActionStepsOutsideActions(t *testing.T) {
	for _, args := range [][]string{{"baseline", "fetch"}, {"publish"}} {
		r := runCLI(t, t.TempDir(), nil, args...)
		assert.Equal(t, r.code, ExitInvalid, r.stderr)
		assert.Assert(t, strings.Contains(r.stderr, "GitHub Action"), r.stderr)
	}
}
