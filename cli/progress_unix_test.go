//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// notifyBuffer is a goroutine-safe buffer that signals each write.
type notifyBuffer struct {
	mu     sync.Mutex
	buf    strings.Builder
	writes chan struct{}
}

func (b *notifyBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	select {
	case b.writes <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (b *notifyBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until the buffer holds want, or the test's deadline.
func (b *notifyBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	for !strings.Contains(b.String(), want) {
		select {
		case <-b.writes:
		case <-t.Context().Done():
			t.Fatalf("never written: %q; got:\n%s", want, b.String())
		}
	}
}

// TestProgressInCI: in a CI log, where no live line shows progress, a run
// prints a progress line when its log has been silent for 30 seconds, even
// while no task finishes. The test ticks the timer itself, with a time 30
// hour on, and the agent waits on a FIFO until the line is out.
func TestProgressInCI(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "release")
	assert.NilError(t, syscall.Mkfifo(fifo, 0o600))
	writeFiles(t, dir, map[string]string{
		"evals/s.yaml":  "suiteId: acme.cli.evals.slow\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - {taskId: slow, input: x, expected: {kind: golden, match: {strategy: exact, value: x}}}\n",
		"agent.sh":      "read task\nread go < release\necho '{\"type\":\"final\",\"output\":\"x\"}'\n",
		"evalgate.yaml": "suites: [evals/]\nagent: {exec: [sh, agent.sh]}\ntimeout: 10m\n",
	})
	ticks := make(chan time.Time)
	stdout := &notifyBuffer{writes: make(chan struct{}, 1)}
	var stderr strings.Builder
	cmd := &Command{
		Stdin:  strings.NewReader(""),
		Stdout: stdout,
		Stderr: &stderr,
		Getenv: func(k string) string {
			return map[string]string{"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "CI": "true"}[k]
		},
		IsTerminal: func() bool { return false },
		tick: func(d time.Duration) (<-chan time.Time, func()) {
			assert.Check(t, d == time.Second, "ticks every %v", d)
			return ticks, func() {}
		},
	}
	code := make(chan int, 1)
	go func() {
		code <- cmd.Main([]string{"evalgate", "run", "--config", filepath.Join(dir, "evalgate.yaml"), "--out", filepath.Join(dir, "out")})
	}()
	select {
	case ticks <- time.Now().Add(time.Hour): // long past the silence, whenever the run started
	case <-t.Context().Done():
		t.Fatal("the run never started its timer")
	}
	stdout.waitFor(t, "progress: ")
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	assert.NilError(t, err)
	_, err = f.WriteString("go\n")
	assert.NilError(t, err)
	assert.NilError(t, f.Close())
	select {
	case c := <-code:
		assert.Equal(t, c, ExitPass, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	case <-t.Context().Done():
		t.Fatal("the run did not finish")
	}
	first, _, _ := strings.Cut(stdout.String(), "\n")
	assert.Check(t, is.Regexp(`^progress: 0/1 tasks  0 passed  0 failed  0 errors  1h0m0s elapsed, ETA --$`, first))
	assert.Check(t, is.Contains(stdout.String(), "\nPASS acme.cli.evals.slow 1.0.0"))
}
