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
//
// Build builds a program the tests run (evalgate, an example agent) once
// per test binary. And a child that is the test binary itself, built with
// -race, exits without the race detector's one-second wait
// (GORACE=atexit_sleep_ms=0).
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Run runs the tests of m in the environment this package sets up, and
// returns the exit code for os.Exit. The binaries Build built are removed
// once the tests have run.
func Run(m *testing.M) int {
	if os.Getenv("GORACE") == "" {
		// The test binary re-run as a child (an agent, evalgate itself)
		// would otherwise sleep a second before it exits when built with
		// -race.
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	dir, err := direct("python3")
	if err != nil {
		// The tests still run, through the shim.
		fmt.Fprintln(os.Stderr, "testenv:", err)
	}
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	defer builds.removeAll()
	return m.Run()
}

// Build returns the path of a binary called name, built with go build from
// the package at pkg (as go build names it, from the test's folder), with
// env added to the environment: built the first time a test of the binary
// asks for it, and removed when Run returns. The tests that run a program,
// rather than re-running their own binary, share one build of it.
func Build(t *testing.T, name, pkg string, env ...string) string {
	t.Helper()
	b := builds.get(name + "\x00" + pkg + "\x00" + strings.Join(env, "\x00"))
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "evalgate-testenv-build-"); b.err != nil {
			return
		}
		bin := filepath.Join(b.dir, name)
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
			return
		}
		b.bin = bin
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}

// builds are the binaries of Build, by package and environment.
var builds = buildSet{m: map[string]*build{}}

type buildSet struct {
	mu sync.Mutex
	m  map[string]*build
}

type build struct {
	once     sync.Once
	dir, bin string
	err      error
}

func (s *buildSet) get(key string) *build {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[key] == nil {
		s.m[key] = &build{}
	}
	return s.m[key]
}

func (s *buildSet) removeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.m {
		if b.dir != "" {
			os.RemoveAll(b.dir)
		}
	}
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
