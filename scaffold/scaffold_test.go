package scaffold

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// initIn runs a starter init of dir from dir, as `evalgate init` there
// does, and returns what it said.
func initIn(t *testing.T, dir string, force bool) string {
	t.Helper()
	t.Chdir(dir)
	var out bytes.Buffer
	assert.NilError(t, Init(&out, Options{Dir: ".", Force: force, Template: Starter}))
	return out.String()
}

// readFile reads the file name under dir.
func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	assert.NilError(t, err)
	return string(data)
}

// writeFiles creates files (path -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		assert.NilError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func starterFile(t *testing.T, name string) string {
	t.Helper()
	data, err := embedded.ReadFile("files/" + name)
	assert.NilError(t, err)
	return string(data)
}

// TestInitKeepsUserFiles: a file already there is kept and named, the
// missing ones are written, and the message promises a passing run only
// for the starter's own files; --force replaces the scaffold files but
// never the user's .gitignore lines.
func TestInitKeepsUserFiles(t *testing.T) {
	dir := t.TempDir()
	mine := "suites: [tests/]\nagent:\n  exec: [node, agent.js]\n"
	writeFiles(t, dir, map[string]string{"evalgate.yaml": mine, ".gitignore": "node_modules/\n"})

	r := initIn(t, dir, false)
	assert.Assert(t, strings.Contains(r, "kept      evalgate.yaml (already there, not the starter's; --force replaces it)\n"), r)
	assert.Assert(t, strings.Contains(r, "created   evals/agent.py\n"), r)
	assert.Assert(t, strings.Contains(r, "runs the suites in evalgate.yaml against the agent it names"), r)
	assert.Assert(t, !strings.Contains(r, "every task passes"), r)
	assert.Equal(t, readFile(t, dir, "evalgate.yaml"), mine)
	ignore := readFile(t, dir, ".gitignore")
	assert.Equal(t, ignore, "node_modules/\n"+gitignoreComment+"\nevalgate-out/\n.evalgate/cache/\n")

	r = initIn(t, dir, false)
	assert.Equal(t, r, "nothing to do: evalgate.yaml, evals/starter.yaml, evals/agent.py and .github/workflows/evalgate.yml are already there, "+
		"and .gitignore already ignores evalgate-out/ and .evalgate/cache/.\n"+
		"(`evalgate init --force` replaces the files that are not the starter's.)\n")

	r = initIn(t, dir, true)
	assert.Assert(t, strings.Contains(r, "overwrote evalgate.yaml\n"), r)
	assert.Assert(t, strings.Contains(r, "every task passes"), r)
	assert.Equal(t, readFile(t, dir, "evalgate.yaml"), starterFile(t, "evalgate.yaml"))
	assert.Equal(t, readFile(t, dir, ".gitignore"), ignore)
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
		r := initIn(t, dir, false)
		got, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
		assert.NilError(t, err)
		assert.Equal(t, string(got), tc.want)
		if tc.wantMsg != "" {
			assert.Assert(t, strings.Contains(r, tc.wantMsg+"\n"), r)
		} else {
			assert.Assert(t, !strings.Contains(r, ".gitignore ("), r)
		}

		// A second init leaves the file as it is.
		r = initIn(t, dir, false)
		assert.Assert(t, strings.HasPrefix(r, "nothing to do:"), r)
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
