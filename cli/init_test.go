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

func starterFile(t *testing.T, name string) string {
	t.Helper()
	data, err := scaffold.ReadFile("scaffold/" + name)
	assert.NilError(t, err)
	return string(data)
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

// TestInitKeepsUserFiles: a file already there is kept and named, the
// missing ones are written, and the message promises a passing run only
// for the starter's own files; --force replaces the scaffold files but
// never the user's .gitignore lines.
func TestInitKeepsUserFiles(t *testing.T) {
	dir := t.TempDir()
	mine := "suites: [tests/]\nagent:\n  exec: [node, agent.js]\n"
	writeFiles(t, dir, map[string]string{"evalgate.yaml": mine, ".gitignore": "node_modules/\n"})

	r := runCLI(t, dir, nil, "init")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Assert(t, strings.Contains(r.stdout, "kept      evalgate.yaml (already there, not the starter's; --force replaces it)\n"), r.stdout)
	assert.Assert(t, strings.Contains(r.stdout, "created   evals/agent.py\n"), r.stdout)
	assert.Assert(t, strings.Contains(r.stdout, "runs the suites in evalgate.yaml against the agent it names"), r.stdout)
	assert.Assert(t, !strings.Contains(r.stdout, "every task passes"), r.stdout)
	tree := readTree(t, dir)
	assert.Equal(t, tree["evalgate.yaml"], mine)
	assert.Equal(t, tree[".gitignore"], "node_modules/\n"+gitignoreComment+"\nevalgate-out/\n.evalgate/cache/\n")

	r = runCLI(t, dir, nil, "init")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Equal(t, r.stdout, "nothing to do: evalgate.yaml, evals/starter.yaml, evals/agent.py and .github/workflows/evalgate.yml are already there, "+
		"and .gitignore already ignores evalgate-out/ and .evalgate/cache/.\n"+
		"(`evalgate init --force` replaces the files that are not the starter's.)\n")

	r = runCLI(t, dir, nil, "init", "--force")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Assert(t, strings.Contains(r.stdout, "overwrote evalgate.yaml\n"), r.stdout)
	assert.Assert(t, strings.Contains(r.stdout, "every task passes"), r.stdout)
	after := readTree(t, dir)
	assert.Equal(t, after["evalgate.yaml"], starterFile(t, "evalgate.yaml"))
	assert.Equal(t, after[".gitignore"], tree[".gitignore"])
}

func TestInitGitignore(t *testing.T) {
	type testCase struct {
		name    string
		before  *string // nil: no .gitignore
		want    string
		wantMsg string // the .gitignore line of the report; "" for none
	}
	text := func(s string) *string { return &s }
	added := gitignoreComment + "\nevalgate-out/\n.evalgate/cache/\n"
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		if tc.before != nil {
			writeFiles(t, dir, map[string]string{".gitignore": *tc.before})
		}
		r := runCLI(t, dir, nil, "init")
		assert.Equal(t, r.code, 0, r.stderr)
		got, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
		assert.NilError(t, err)
		assert.Equal(t, string(got), tc.want)
		if tc.wantMsg != "" {
			assert.Assert(t, strings.Contains(r.stdout, tc.wantMsg+"\n"), r.stdout)
		} else {
			assert.Assert(t, !strings.Contains(r.stdout, ".gitignore ("), r.stdout)
		}

		// A second init leaves the file as it is.
		r = runCLI(t, dir, nil, "init")
		assert.Equal(t, r.code, 0, r.stderr)
		assert.Assert(t, strings.HasPrefix(r.stdout, "nothing to do:"), r.stdout)
		again, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
		assert.NilError(t, err)
		assert.Equal(t, string(again), tc.want)
	}
	for _, tc := range []testCase{
		{name: "created", want: added,
			wantMsg: "created   .gitignore (ignores evalgate-out/ and .evalgate/cache/)"},
		{name: "empty file", before: text(""), want: added,
			wantMsg: "updated   .gitignore (added evalgate-out/ and .evalgate/cache/)"},
		{name: "extended", before: text("node_modules/\n*.pyc\n"), want: "node_modules/\n*.pyc\n" + added,
			wantMsg: "updated   .gitignore (added evalgate-out/ and .evalgate/cache/)"},
		{name: "no newline at the end", before: text("# mine\nnode_modules/"), want: "# mine\nnode_modules/\n" + added,
			wantMsg: "updated   .gitignore (added evalgate-out/ and .evalgate/cache/)"},
		{name: "one line there", before: text("evalgate-out/\n"), want: "evalgate-out/\n" + gitignoreComment + "\n.evalgate/cache/\n",
			wantMsg: "updated   .gitignore (added .evalgate/cache/)"},
		{name: "both there", before: text("evalgate-out/\n.evalgate/cache/\n"), want: "evalgate-out/\n.evalgate/cache/\n"},
		{name: "slash variants count", before: text("/evalgate-out\n  /.evalgate/cache/  \n"), want: "/evalgate-out\n  /.evalgate/cache/  \n"},
		{name: "a negated line is the user's choice", before: text("!evalgate-out/\n.evalgate/cache\n"), want: "!evalgate-out/\n.evalgate/cache\n"},
		{name: "the comment is not repeated", before: text(gitignoreComment + "\nevalgate-out/\n"), want: gitignoreComment + "\nevalgate-out/\n.evalgate/cache/\n",
			wantMsg: "updated   .gitignore (added .evalgate/cache/)"},
		{name: "a broader pattern does not count", before: text(".evalgate/\n"), want: ".evalgate/\n" + added,
			wantMsg: "updated   .gitignore (added evalgate-out/ and .evalgate/cache/)"},
		{name: "CRLF line endings", before: text("node_modules/\r\n"), want: "node_modules/\r\n" + strings.ReplaceAll(added, "\n", "\r\n"),
			wantMsg: "updated   .gitignore (added evalgate-out/ and .evalgate/cache/)"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
