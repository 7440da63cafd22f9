package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
