package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/results"
)

// scaffolded lists the files a first init writes, relative to --dir.
var scaffolded = []string{"evalgate.yaml", "evals/starter.yaml", "evals/agent.py", ".github/workflows/evalgate.yml", ".gitignore"}

// readTree reads the scaffolded files under dir; a missing one maps to "".
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	for _, f := range scaffolded {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			assert.Assert(t, os.IsNotExist(err), err)
		}
		tree[f] = string(data)
	}
	return tree
}

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

// TestInitMessages pins what a newcomer reads after the first and the
// second init.
func TestInitMessages(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, nil, "init")
	assert.Equal(t, r.code, 0, r.stderr)
	golden.Assert(t, r.stdout, filepath.Join(testdata, "init", "first.golden"))
	want := readTree(t, dir)
	for _, f := range scaffolded {
		assert.Assert(t, want[f] != "", "%s was not written", f)
	}

	r = runCLI(t, dir, nil, "init")
	assert.Equal(t, r.code, 0, r.stderr)
	golden.Assert(t, r.stdout, filepath.Join(testdata, "init", "second.golden"))
	assert.DeepEqual(t, readTree(t, dir), want)

	r = runCLI(t, dir, nil, "init", "--force")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Assert(t, strings.HasPrefix(r.stdout, "nothing to do:"), "--force over the starter files themselves changes nothing:\n%s", r.stdout)
}

func TestInitDir(t *testing.T) {
	root := t.TempDir()
	assert.NilError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	r := runCLI(t, root, nil, "init", "--dir", "services/my agent")
	assert.Equal(t, r.code, 0, r.stderr)
	golden.Assert(t, r.stdout, filepath.Join(testdata, "init", "dir.golden"))
	_, err := os.Stat(filepath.Join(root, "services", "my agent", "evals", "agent.py"))
	assert.NilError(t, err)

	r = runCLI(t, "", nil, "init", "extra")
	assert.Equal(t, r.code, 2)
	assert.Assert(t, strings.Contains(r.stderr, "pass the folder with --dir"), r.stderr)

	writeFiles(t, root, map[string]string{"file": "x", "inside/evals": "x"})
	r = runCLI(t, root, nil, "init", "--dir", "file")
	assert.Equal(t, r.code, 2)
	assert.Equal(t, r.stderr, "evalgate: --dir file is a file; pass a folder\n")

	// A folder init cannot create is exit 3, naming it, after saying what
	// it wrote.
	r = runCLI(t, root, nil, "init", "--dir", "inside")
	assert.Equal(t, r.code, 3)
	assert.Equal(t, r.stdout, "created   inside/evalgate.yaml\n")
	assert.Assert(t, strings.Contains(r.stderr, `could not create "inside/evals"`), r.stderr)
}
