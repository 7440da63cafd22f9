// Package waittest is how a test waits for an event: a file that appears,
// a pid a child wrote, a process that ended, a value on a channel, any
// condition. Every wait is bounded by the test's own deadline (go test
// -timeout), never by a fixed time: on a busy machine a child may take
// seconds to start, and a test must neither fail for it nor sleep in case
// it does. See docs/testing.md.
//
//	pid := waittest.Pid(t, pidFile)         // the agent wrote its child's pid
//	assert.Check(t, waittest.Exited(t, pid)) // and the trial ended it
//
// A test of a timeout makes the deadline pass once the code under test is
// where the timeout must find it, rather than after a guessed time:
//
//	ctx, expire := waittest.Timeout()
//	waittest.Then(t, func() bool { return waittest.HasLine(pidFile) }, expire)
//	out := agent.Run(ctx, req, nil) // times out with the agent hanging
package waittest

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Deadline is when a wait of t gives up: shortly before the test binary's
// deadline, so that the test can still say what it waited for. ok is false
// when the tests run without a deadline (-timeout 0); the waits then wait
// as long as it takes.
func Deadline(t *testing.T) (deadline time.Time, ok bool) {
	d, ok := t.Deadline()
	if !ok {
		return time.Time{}, false
	}
	margin := min(10*time.Second, time.Until(d)/10)
	return d.Add(-margin), true
}

// Context is a context that ends at t's Deadline, or with the test: the
// bound of a run or a request that must end by itself.
func Context(t *testing.T) context.Context {
	d, ok := Deadline(t)
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// Poll reports whether cond holds before t's Deadline, checking it again
// and again. It does not fail the test, so it may run in any goroutine.
func Poll(t *testing.T, cond func() bool) bool {
	deadline, bounded := Deadline(t)
	for interval := time.Millisecond; ; interval = min(2*interval, 50*time.Millisecond) {
		if cond() {
			return true
		}
		if bounded && time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
}

// Until waits until cond holds, and fails the test at its Deadline, saying
// what it waited for ("the agent to start").
func Until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !Poll(t, cond) {
		t.Fatalf("gave up waiting for %s: the test's deadline is near", what)
	}
}

// Then calls f, in a goroutine of its own, once cond holds, or at t's
// Deadline when it never does (the test then fails on what f was for).
func Then(t *testing.T, cond func() bool, f func()) {
	go func() {
		Poll(t, cond)
		f()
	}()
}

// File waits until path exists and returns what it holds then.
func File(t *testing.T, path string) []byte {
	t.Helper()
	var data []byte
	Until(t, path+" to appear", func() bool {
		var err error
		data, err = os.ReadFile(path)
		return err == nil
	})
	return data
}

// HasLine reports whether the file at path holds a whole first line, as a
// writer that ends what it writes with a newline leaves it once done.
func HasLine(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(data), "\n")
}

// Pid waits until the file at path holds a whole line, and returns the
// process id on that line. The writer ends it with a newline (the shell's
// echo $! > "$PIDFILE" does), so that a half-written number is never read.
func Pid(t *testing.T, path string) int {
	t.Helper()
	Until(t, "a pid in "+path, func() bool { return HasLine(path) })
	data, _ := os.ReadFile(path)
	line, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		t.Fatalf("%s holds %q, not a pid", path, data)
	}
	return pid
}

// Receive waits for a value on ch and returns it, and fails the test at
// its Deadline, saying what it waited for.
func Receive[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	d, ok := Deadline(t)
	var expired <-chan time.Time
	if ok {
		timer := time.NewTimer(time.Until(d))
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case v := <-ch:
		return v
	case <-expired:
		t.Fatalf("gave up waiting for %s: the test's deadline is near", what)
		panic("unreachable")
	}
}

// Timeout returns a context whose deadline passes when expire is called:
// its Err is then context.DeadlineExceeded, as when a timer ends it, and so
// is that of every context made from it. It holds no values.
func Timeout() (ctx context.Context, expire func()) {
	c := &timeoutCtx{done: make(chan struct{})}
	return c, c.expire
}

// timeoutCtx is the context of Timeout.
type timeoutCtx struct {
	done    chan struct{}
	once    sync.Once
	expired atomic.Bool
}

func (c *timeoutCtx) expire() {
	c.once.Do(func() {
		c.expired.Store(true)
		close(c.done)
	})
}

func (c *timeoutCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *timeoutCtx) Done() <-chan struct{}       { return c.done }
func (c *timeoutCtx) Value(any) any               { return nil }

func (c *timeoutCtx) Err() error {
	if c.expired.Load() {
		return context.DeadlineExceeded
	}
	return nil
}
