package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/waittest"
	"github.com/evalgate/evalgate/results"
)

// TestInterruptWritesWhatFinished sends the test process SIGINT while a run
// waits on a hanging agent: the run stops cleanly, exits 130, and the
// outputs hold the task that finished and not the one that was cut off.
func TestInterruptWritesWhatFinished(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/s.yaml": `suiteId: acme.cli.evals.interrupt
version: 1.0.0
modes: [golden]
tasks:
  - taskId: quick
    input: quick
    expected: {kind: golden, match: {strategy: exact, value: quick}}
  - taskId: slow
    input: slow
    expected: {kind: golden, match: {strategy: exact, value: slow}}
`,
		// The slow task signals that it started, then hangs.
		"agent.sh": "#!/bin/sh\nread x\nif [ \"$x\" = slow ]; then touch started; sleep 60; fi\nprintf '%s' \"$x\"\n",
	})
	waittest.Then(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	}, func() { _ = syscall.Kill(os.Getpid(), syscall.SIGINT) })
	writeFiles(t, dir, map[string]string{"evalgate.yaml": "suites: [evals]\nagent: {plain: [./agent.sh]}\nconcurrency: 1\n"})
	r := runCLI(t, dir, nil, "run")
	assert.Equal(t, r.code, ExitInterrupted, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	// The suite cut short has no verdict, nor has the run: what never ran
	// is counted, and nothing says PASS.
	assert.Check(t, is.Contains(r.stdout, "PARTIAL acme.cli.evals.interrupt 1.0.0  1 of 2 tasks ran  1/1 passed"))
	assert.Check(t, is.Contains(r.stdout, "\nevalgate: INTERRUPTED — 1 of 2 tasks never ran; no verdict\n"))
	assert.Check(t, !strings.Contains(r.stdout, "PASS"), r.stdout)
	assert.Check(t, is.Contains(r.stderr, "evalgate: interrupted: the results hold the 1 task that finished; run again for a verdict"))

	run, err := results.Read(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
	assert.Assert(t, run.Interrupted)
	assert.Equal(t, len(run.Suites), 1)
	assert.Equal(t, len(run.Suites[0].Tasks), 1)
	assert.Equal(t, run.Suites[0].Tasks[0].ID, "quick")
}
