// Package testenv is the environment a test binary runs its children in:
// TestMain hands its tests to Run.
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
//
// Tests start many interpreters: agents, judges and handlers written in
// Python. Where python3 on PATH is a version manager's shim (pyenv's is a
// bash script that runs a dozen more before it execs the interpreter), each
// start costs ten times the interpreter's own, and a package of end-to-end
// tests spends most of its time in shims. Run puts first on PATH a folder
// where python3 is the interpreter the shim would have run, so that every
// test runs the same Python, directly. See docs/testing.md.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Run runs the tests of m in the environment this package sets up, and
// returns the exit code for os.Exit.
func Run(m *testing.M) int {
	dir, err := direct("python3")
	if err != nil {
		// The tests still run, through the shim.
		fmt.Fprintln(os.Stderr, "testenv:", err)
	}
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	return m.Run()
}

// direct makes name on PATH, when it is a shim, the program the shim runs:
// it returns the folder of the link it put first on PATH, or "" when name
// is not a shim or not on PATH.
func direct(name string) (string, error) {
	shim, err := exec.LookPath(name)
	if err != nil || !isScript(shim) {
		return "", nil
	}
	out, err := exec.Command(shim, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return "", fmt.Errorf("could not ask %s which interpreter it runs: %w", shim, err)
	}
	target := strings.TrimSpace(string(out))
	if !filepath.IsAbs(target) || isScript(target) {
		return "", nil
	}
	dir, err := os.MkdirTemp("", "evalgate-testenv-")
	if err != nil {
		return "", err
	}
	if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir, nil
}

// isScript reports whether the file at path starts with "#!".
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte("#!"))
}
