package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

// TestInitThenRunPasses is the first contact: init, then run with the real
// starter agent (python3), from the project's folder and from elsewhere.
func TestInitThenRunPasses(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	type testCase struct {
		name string
		cwd  string // relative to the project; "" stays in the package folder
		args []string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		r := runCLI(t, "", nil, "init", "--dir", dir)
		assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

		cwd := ""
		if tc.cwd != "" {
			cwd = filepath.Join(dir, tc.cwd)
			assert.NilError(t, os.MkdirAll(cwd, 0o755))
		}
		args := make([]string, len(tc.args))
		for i, a := range tc.args {
			args[i] = strings.ReplaceAll(a, "$DIR", dir)
		}
		r = runCLI(t, cwd, nil, args...)
		assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Assert(t, strings.Contains(r.stdout, "3/3 passed"), r.stdout)

		// The outputs land next to evalgate.yaml, whatever the working directory.
		run, err := results.Read(filepath.Join(dir, "evalgate-out", "results.json"))
		assert.NilError(t, err)
		assert.Equal(t, len(run.Suites), 1)
		calls := 0
		for _, task := range run.Suites[0].Tasks {
			assert.Equal(t, task.Status, results.StatusPassed, "task %s: %+v", task.ID, task)
			calls += task.ToolCalls
		}
		assert.Equal(t, len(run.Suites[0].Tasks), 3)
		assert.Equal(t, calls, 2, "the starter agent looks two orders up through tool_call")
	}
	for _, tc := range []testCase{
		{name: "from the project folder", cwd: ".", args: []string{"run"}},
		{name: "with --config from elsewhere", args: []string{"run", "--config", "$DIR/evalgate.yaml"}},
		{name: "with a relative --config from a subfolder", cwd: "evals", args: []string{"run", "--config", "../evalgate.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
