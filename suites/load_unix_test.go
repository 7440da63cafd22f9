//go:build unix

package suites

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
)

// TestLoadPaths checks what Load reads of what the paths it is given
// resolve to: a folder is walked as resolved, a suite found in it must be
// a regular file inside it, and one named directly a regular file. A link
// to /dev/zero once ran the process out of memory, and one to a file
// outside the repository had its values quoted in the errors.
func TestLoadPaths(t *testing.T) {
	suite := func(id string) []byte {
		return []byte("suiteId: acme.paths.evals." + id + "\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: t\n    input: hi\n    expected: {kind: golden, match: {strategy: exact, value: hi}}\n")
	}
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.json")
	assert.NilError(t, os.WriteFile(secret, []byte(`{"suiteId": "SECRET-VALUE", "version": 1}`), 0o644))

	type testCase struct {
		setup   func(t *testing.T, dir string) // dir holds evals/, with a.yaml in it
		paths   []string                       // relative to dir
		loaded  []string                       // the paths of the suites loaded, relative to dir
		wantErr string                         // the errors, with dir written as DIR
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		assert.NilError(t, os.Mkdir(filepath.Join(dir, "evals"), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "evals", "a.yaml"), suite("a"), 0o644))
		if tc.setup != nil {
			tc.setup(t, dir)
		}
		var paths []string
		for _, p := range tc.paths {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			paths = append(paths, p)
		}
		all, err := Load(paths...)
		var got []string
		for _, s := range all {
			rel, _ := filepath.Rel(dir, s.Path)
			got = append(got, rel)
		}
		assert.DeepEqual(t, got, tc.loaded)
		if tc.wantErr == "" {
			assert.NilError(t, err)
			return
		}
		var errs Errors
		assert.Assert(t, errors.As(err, &errs), "%v", err)
		for _, e := range errs {
			assert.Equal(t, e.Kind, ErrIO, "%v", e)
		}
		msg := strings.ReplaceAll(strings.ReplaceAll(err.Error(), dir, "DIR"), outside, "OUTSIDE")
		assert.Equal(t, msg, tc.wantErr)
		assert.Assert(t, !strings.Contains(msg, "SECRET-VALUE"))
	}
	link := func(target, name string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			assert.NilError(t, os.Symlink(target, filepath.Join(dir, name)))
		}
	}
	testCases := map[string]testCase{
		"a link to /dev/zero in a folder": {
			setup: link("/dev/zero", "evals/zero.json"), paths: []string{"evals"}, loaded: []string{"evals/a.yaml"},
			wantErr: "DIR/evals/zero.json: the file is a symbolic link to /dev/zero, outside the folder; expected a suite inside the folder it was found in [io]",
		},
		"a link to a file outside the folder": {
			setup: link(secret, "evals/secret.json"), paths: []string{"evals"}, loaded: []string{"evals/a.yaml"},
			wantErr: "DIR/evals/secret.json: the file is a symbolic link to OUTSIDE/secret.json, outside the folder; expected a suite inside the folder it was found in [io]",
		},
		"a relative link out of the folder": {
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.WriteFile(filepath.Join(dir, "b.yaml"), suite("b"), 0o644))
				link("../b.yaml", "evals/b.yaml")(t, dir)
			},
			paths: []string{"evals"}, loaded: []string{"evals/a.yaml"},
			wantErr: "DIR/evals/b.yaml: the file is a symbolic link to DIR/b.yaml, outside the folder; expected a suite inside the folder it was found in [io]",
		},
		"a link to a suite in the folder is the same file": {
			setup: link("a.yaml", "evals/b.yaml"), paths: []string{"evals"}, loaded: []string{"evals/a.yaml"},
		},
		"a link to a file in a subfolder, absolute": {
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.Mkdir(filepath.Join(dir, "evals", "sub"), 0o755))
				assert.NilError(t, os.WriteFile(filepath.Join(dir, "evals", "sub", "b.txt"), suite("b"), 0o644))
				link(filepath.Join(dir, "evals", "sub", "b.txt"), "evals/b.yaml")(t, dir)
			},
			paths: []string{"evals"}, loaded: []string{"evals/a.yaml", "evals/b.yaml"},
		},
		"a link to a folder with a suite's name": {
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.Mkdir(filepath.Join(dir, "evals", "sub"), 0o755))
				link("sub", "evals/b.json")(t, dir)
			},
			paths: []string{"evals"}, loaded: []string{"evals/a.yaml"},
			wantErr: "DIR/evals/b.json: expected a suite file (a regular file), found a folder [io]",
		},
		"a broken link": {
			setup: link("missing.yaml", "evals/b.yaml"), paths: []string{"evals"}, loaded: []string{"evals/a.yaml"},
			wantErr: "DIR/evals/b.yaml: could not read suite: no such file or directory [io]",
		},
		"a named pipe in a folder": {
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, syscall.Mkfifo(filepath.Join(dir, "evals", "pipe.json"), 0o644))
			},
			paths: []string{"evals"}, loaded: []string{"evals/a.yaml"},
			wantErr: "DIR/evals/pipe.json: expected a suite file (a regular file), found a named pipe [io]",
		},
		"a named pipe named directly": {
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644))
			},
			paths:   []string{"pipe.json"},
			wantErr: "DIR/pipe.json: expected a suite file (a regular file), found a named pipe [io]",
		},
		"/dev/zero named directly": {
			paths:   []string{"/dev/zero"},
			wantErr: "/dev/zero: expected a suite file (a regular file), found a character device [io]",
		},
		"a link named directly is read wherever it points": {
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.WriteFile(filepath.Join(outside, "c.yaml"), suite("c"), 0o644))
				link(filepath.Join(outside, "c.yaml"), "c.yaml")(t, dir)
			},
			paths: []string{"c.yaml"}, loaded: []string{"c.yaml"},
		},
		"a linked folder is walked": {
			setup: link("evals", "linked"), paths: []string{"linked"}, loaded: []string{"linked/a.yaml"},
		},
		"a linked folder's links may point into it": {
			setup: func(t *testing.T, dir string) {
				link("evals", "linked")(t, dir)
				assert.NilError(t, os.WriteFile(filepath.Join(dir, "evals", "c.txt"), suite("c"), 0o644))
				link(filepath.Join(dir, "linked", "c.txt"), "evals/c.yaml")(t, dir)
			},
			paths: []string{"linked"}, loaded: []string{"linked/a.yaml", "linked/c.yaml"},
		},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) { run(t, tc) })
	}
}

// TestHandlerLinkedOutside: a handler's script that is a symbolic link out
// of the suite's folder is refused, as a dataset or state file would be.
func TestHandlerLinkedOutside(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "evil.py")
	assert.NilError(t, os.WriteFile(outside, []byte("print('x')\n"), 0o644))
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "handlers"), 0o755))
	assert.NilError(t, os.Symlink(outside, filepath.Join(dir, "handlers", "bank.py")))
	suite := `suiteId: acme.t.evals.world
version: 1.0.0
modes: [golden]
tasks:
  - taskId: pay
    input: x
    fixtures:
      state: {}
      toolResponses:
        - tool: transfer
          handler: [python3, handlers/bank.py]
    expected: {kind: golden, state: {}}
`
	path := filepath.Join(dir, "s.yaml")
	assert.NilError(t, os.WriteFile(path, []byte(suite), 0o644))
	_, err := Load(path)
	assert.ErrorContains(t, err, `/tasks/0/fixtures/toolResponses/0/handler/1: the handler's "handlers/bank.py" leads outside the suite's folder through a symbolic link`)

	assert.NilError(t, os.Remove(filepath.Join(dir, "handlers", "bank.py")))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "handlers", "bank.py"), []byte("print('x')\n"), 0o644))
	_, err = Load(path)
	assert.NilError(t, err)
}
