package waittest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestTimeout(t *testing.T) {
	ctx, expire := Timeout()
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	if ctx.Err() != nil || child.Err() != nil {
		t.Fatalf("ended before expire: %v, %v", ctx.Err(), child.Err())
	}
	expire()
	expire() // a second call does nothing
	<-child.Done()
	for name, c := range map[string]context.Context{"the context": ctx, "a context made from it": child} {
		if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(c), context.DeadlineExceeded) {
			t.Errorf("%s: Err %v, Cause %v; want the deadline exceeded", name, c.Err(), context.Cause(c))
		}
	}
}

// TestPid reads a pid only once its line is whole.
func TestPid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pid")
	if err := os.WriteFile(path, []byte("12"), 0o644); err != nil {
		t.Fatal(err)
	}
	if HasLine(path) {
		t.Fatal("a line without its newline is whole")
	}
	written := make(chan struct{})
	go func() {
		os.WriteFile(path, []byte("1234\n"), 0o644)
		close(written)
	}()
	if pid := Pid(t, path); pid != 1234 {
		t.Errorf("Pid = %d, want 1234", pid)
	}
	Receive(t, "the writer to finish", written)
}

func TestUntil(t *testing.T) {
	n := 0
	Until(t, "the third look", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("cond was called %d times, want 3", n)
	}
}
