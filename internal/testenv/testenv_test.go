//go:build unix

package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Run(m)) }

// TestDirect puts a shim first on PATH, as pyenv does, and checks that
// python3 is then the interpreter it runs, directly.
func TestDirect(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH")
	}
	out, err := exec.Command(python, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatal(err)
	}
	real := strings.TrimSpace(string(out))
	shims := t.TempDir()
	if err := os.WriteFile(filepath.Join(shims, "python3"), []byte("#!/bin/sh\nexec "+real+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shims+string(os.PathListSeparator)+os.Getenv("PATH"))

	dir, err := direct("python3")
	if err != nil || dir == "" {
		t.Fatalf("direct = %q, %v; want a folder", dir, err)
	}
	defer os.RemoveAll(dir)
	got, err := exec.LookPath("python3")
	if err != nil || got != filepath.Join(dir, "python3") {
		t.Fatalf("python3 is %q (%v), want the link in %s", got, err, dir)
	}
	if target, _ := os.Readlink(got); target != real {
		t.Errorf("the link leads to %q, want %q", target, real)
	}

	// Not a shim: PATH stays as it is.
	t.Setenv("PATH", filepath.Dir(real))
	if dir, err := direct("python3"); dir != "" || err != nil {
		t.Errorf("direct of an interpreter = %q, %v; want nothing done", dir, err)
	}
}

// TestBuild builds a program once for every test that asks for it.
func TestBuild(t *testing.T) {
	bin := Build(t, "agent", "../../examples/agent")
	fi, err := os.Stat(bin)
	if err != nil || fi.Mode()&0o111 == 0 || filepath.Base(bin) != "agent" {
		t.Fatalf("Build gave %q: %v, %v", bin, fi, err)
	}
	if again := Build(t, "agent", "../../examples/agent"); again != bin {
		t.Errorf("a second Build gave %q, want the first build %q", again, bin)
	}
}
