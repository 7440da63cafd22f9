package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/cli"
	"github.com/evalgate/evalgate/internal/waittest"
)

// hostileSecret is a file beside the promptfoo config's repository, and
// what it holds: no import may copy it into what it writes.
const hostileSecret = "SECRET0beside0the0repository"

// hostilePfCases are the hostile promptfoo configs: `evalgate import
// promptfoo` runs on each (as a child process, with the canary token in
// its environment), then `evalgate run` on what it wrote.
func hostilePfCases() []hostileCase {
	return []hostileCase{
		{
			name: "a promptfoo config whose prompt loops 100,000,000 times", agent: "sleepy.sh",
			setup: func(t *testing.T, dir string) {
				importHostile(t, dir, `prompts:
  - "hello {{ name }}"
  - "{% for i in range(100000000) %}{{ i }}{% endfor %}"
  - "{% for a in xs %}{% for b in xs %}{% for c in xs %}{% for d in xs %}{{ a }}{% endfor %}{% endfor %}{% endfor %}{% endfor %}"
providers: [echo]
tests:
  - vars: {name: e, xs: [`+strings.TrimSuffix(strings.Repeat("1,", 200), ",")+`]}
    assert: [{type: contains, value: e}]
`, nil, nil)
			},
			wantExit: 0, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				report := readFile(t, filepath.Join(dir, "import-report.json"))
				assert.Check(t, is.Contains(report, "a call is not rendered here"))
				assert.Check(t, is.Contains(report, "more than its budget"))
			},
		},
		{
			name: "a promptfoo config that names files outside its repository", agent: "sleepy.sh",
			setup: func(t *testing.T, dir string) {
				importHostile(t, dir, `prompts:
  - "hello {{ name }}"
  - file:///proc/self/environ
  - file://../secret.txt
  - file://link.txt
  - file://../*.txt
providers: [echo]
defaultTest:
  assert:
    - {type: javascript, value: file://../check.js}
    - {type: contains, value: file://../secret.txt}
tests:
  - vars: {name: file://../secret.txt}
    assert: [{type: icontains, value: hello}]
  - file://../tests.yaml
  - vars: file://../vars.yaml
`, map[string]string{
					"secret.txt": hostileSecret,
					"check.js":   "module.exports = () => '" + hostileSecret + "';\n",
					"tests.yaml": "- vars: {name: '" + hostileSecret + "'}\n",
					"vars.yaml":  "name: " + hostileSecret + "\n",
				}, map[string]string{"link.txt": "../secret.txt"})
			},
			wantExit: 0, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				report := readFile(t, filepath.Join(dir, "import-report.json"))
				assert.Check(t, is.Contains(report, "outside the config's repository"))
				assert.Check(t, is.Contains(report, "through a symbolic link"))
			},
		},
	}
}

// importHostile writes a promptfoo config (and files beside its
// repository, the folder pf/ of dir, and links in it) and imports it
// into dir, over the project file the case wrote. The import runs as a child process, with
// the canary token in its environment, within the corpus's time and
// memory bounds; nothing it writes may hold the token or a file beside
// the repository.
func importHostile(t *testing.T, dir, config string, beside, links map[string]string) {
	t.Helper()
	repo := filepath.Join(dir, "pf")
	assert.NilError(t, os.MkdirAll(repo, 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "promptfooconfig.yaml"), []byte(config), 0o644))
	for name, content := range beside {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	for name, target := range links {
		assert.NilError(t, os.Symlink(target, filepath.Join(repo, name)))
	}
	self, err := os.Executable()
	assert.NilError(t, err)
	ctx := waittest.Context(t)
	cmd := exec.CommandContext(ctx, self, "-test.run=^TestHostileImportChild$")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "GITHUB_TOKEN="+hostileCanary, "EVALGATE_HOSTILE_IMPORT="+filepath.Join(repo, "promptfooconfig.yaml"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	assert.Assert(t, ctx.Err() == nil, "the import had not ended by the test's deadline\n%s", out.String())
	assert.NilError(t, err, "%s", out.String())
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		assert.Check(t, ru.Maxrss < hostileMaxRSSKiB, "the import's peak RSS was %d KiB", ru.Maxrss)
	}
	for name := range beside {
		assert.NilError(t, os.Remove(filepath.Join(dir, name)))
	}
	// Nothing the import wrote holds the token or the secret.
	assert.NilError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		assert.Check(t, !bytes.Contains(data, []byte(hostileCanary)), "the token is in %s", path)
		if !strings.HasPrefix(path, repo) {
			assert.Check(t, !bytes.Contains(data, []byte(hostileSecret)), "the secret is in %s", path)
		}
		return nil
	}))
}

// TestHostileImportChild is the import importHostile runs as a child
// process; it does nothing on its own.
func TestHostileImportChild(t *testing.T) {
	config := os.Getenv("EVALGATE_HOSTILE_IMPORT")
	if config == "" {
		t.Skip("the child process of the hostile promptfoo cases")
	}
	cmd := &cli.Command{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: os.Stderr}
	if code := cmd.Main([]string{"evalgate", "import", "promptfoo", config, "--out", ".", "--force"}); code != 0 {
		t.Fatalf("the import exited %d", code)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	return string(data)
}
