//go:build unix

package process

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/waittest"
)

// helperVar runs the test binary as a helper process instead of the tests.
const helperVar = "EVALGATE_PROCESS_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperVar) == "contained-parent" {
		containedParent()
		return
	}
	os.Exit(m.Run())
}

// shell is a Spec running script with /bin/sh, PIDFILE in its environment.
func shell(script, pidFile string) Spec {
	return Spec{
		Command: []string{"/bin/sh", "-c", script},
		Env:     ScrubEnv(os.Environ(), nil, map[string]string{"PIDFILE": pidFile}),
	}
}

func TestRun(t *testing.T) {
	type testCase struct {
		name   string
		script string
		spec   func(*Spec)
		// expire: the deadline passes once the script has written a pid
		// to $PIDFILE.
		expire  bool
		wantErr error  // errors.Is
		wantMsg string // the error's text
		stdout  string
		stderr  string
		exit    string
		// pidFile: the script writes a background child's pid to $PIDFILE,
		// which must be dead afterwards.
		pidFile bool
	}
	run := func(t *testing.T, tc testCase) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		spec := shell(tc.script, pidFile)
		if tc.spec != nil {
			tc.spec(&spec)
		}
		ctx := waittest.Context(t)
		if tc.expire {
			var expire func()
			ctx, expire = waittest.Timeout()
			waittest.Then(t, func() bool { return waittest.HasLine(pidFile) }, expire)
		}
		var stdout bytes.Buffer
		p, err := Run(ctx, spec, &stdout)
		assert.Assert(t, p != nil, "a started process is returned: %v", err)
		if tc.wantErr == nil {
			assert.NilError(t, err)
		} else {
			assert.ErrorIs(t, err, tc.wantErr)
		}
		if tc.wantMsg != "" {
			assert.Error(t, err, tc.wantMsg)
		}
		if tc.stdout != "" {
			assert.Equal(t, stdout.String(), tc.stdout)
		}
		assert.Equal(t, string(p.Stderr()), tc.stderr)
		assert.Equal(t, p.Exit(), tc.exit)
		assert.Equal(t, p.Success(), tc.exit == "exit status 0")
		if tc.pidFile {
			pid := waittest.Pid(t, pidFile)
			assert.Assert(t, waittest.Exited(t, pid), "background child %d is still alive", pid)
		}
	}
	for _, tc := range []testCase{
		{
			name:   "stdin to stdout",
			script: `cat`,
			spec:   func(s *Spec) { s.Stdin = []byte("hello\n") },
			stdout: "hello\n",
			exit:   "exit status 0",
		},
		{
			name:   "stdin larger than a pipe's page",
			script: `wc -c`,
			spec:   func(s *Spec) { s.Stdin = bytes.Repeat([]byte("x"), 1<<20) },
			stdout: "1048576\n",
			exit:   "exit status 0",
		},
		{
			name:   "working directory",
			script: `pwd`,
			spec:   func(s *Spec) { s.Dir = "/" },
			stdout: "/\n",
			exit:   "exit status 0",
		},
		{
			name:   "environment is the spec's only",
			script: `echo "${ONLY}-${HOME:-none}"`,
			spec:   func(s *Spec) { s.Env = []string{"ONLY=1", "PATH=" + os.Getenv("PATH")} },
			stdout: "1-none\n",
			exit:   "exit status 0",
		},
		{
			name:   "non-zero exit is not an error",
			script: `echo partial; echo oops >&2; exit 2`,
			stdout: "partial\n",
			stderr: "oops\n",
			exit:   "exit status 2",
		},
		{
			name:   "a signal",
			script: `kill -9 $$`,
			exit:   "signal: killed",
		},
		{
			name:    "stdout over the cap kills the group",
			script:  `sleep 600 & echo $! > "$PIDFILE"; yes`,
			spec:    func(s *Spec) { s.MaxStdoutBytes = 64 << 10 },
			wantErr: ErrOutputTooLarge,
			wantMsg: "stdout over its cap: more than 65536 bytes",
			exit:    "signal: killed",
			pidFile: true,
		},
		{
			name:   "stdout at the cap",
			script: `printf 'abcd\n'`,
			spec:   func(s *Spec) { s.MaxStdoutBytes = 5 },
			stdout: "abcd\n",
			exit:   "exit status 0",
		},
		{
			name:   "stderr bounded",
			script: `printf 'abcdefgh' >&2; echo ok`,
			spec:   func(s *Spec) { s.MaxStderrBytes = 3 },
			stdout: "ok\n",
			stderr: "abc",
			exit:   "exit status 0",
		},
		{
			name:    "timeout kills the group",
			script:  `sleep 600 & echo $! > "$PIDFILE"; wait`,
			expire:  true,
			wantErr: context.DeadlineExceeded,
			exit:    "signal: killed",
			pidFile: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestRunNotStarted(t *testing.T) {
	type testCase struct {
		name    string
		command []string
		ctx     func() context.Context
		want    string
		started bool // a *StartError; otherwise the context's error
	}
	notExec := filepath.Join(t.TempDir(), "judge.sh")
	assert.NilError(t, os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644))
	done, cancel := context.WithCancel(context.Background())
	cancel()
	run := func(t *testing.T, tc testCase) {
		ctx := context.Background()
		if tc.ctx != nil {
			ctx = tc.ctx()
		}
		var stdout bytes.Buffer
		p, err := Run(ctx, Spec{Command: tc.command}, &stdout)
		assert.Assert(t, p == nil)
		assert.ErrorContains(t, err, tc.want)
		var se *StartError
		assert.Equal(t, errors.As(err, &se), tc.started, "error %v", err)
	}
	for _, tc := range []testCase{
		{name: "not found", command: []string{"evalgate-no-such-program-xyz"}, want: `could not start "evalgate-no-such-program-xyz": exec: `, started: true},
		{name: "missing path", command: []string{"/nonexistent/judge"}, want: `could not start "/nonexistent/judge": `, started: true},
		{name: "not executable", command: []string{notExec}, want: "permission denied", started: true},
		{name: "no command", want: "could not start: no command given", started: true},
		{name: "context already ended", command: []string{"true"}, ctx: func() context.Context { return done }, want: "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestStartConversation talks to a process line by line.
func TestStartConversation(t *testing.T) {
	p, err := Start(context.Background(), Spec{
		Command:     []string{"/bin/sh", "-c", `while read l; do echo "got $l"; done; echo bye >&2`},
		Interactive: true,
	})
	assert.NilError(t, err)
	for _, in := range []string{"a", "bc"} {
		_, err := p.Write([]byte(in + "\n"))
		assert.NilError(t, err)
		line, err := p.ReadLine()
		assert.NilError(t, err)
		assert.Equal(t, string(line), "got "+in)
	}
	p.CloseStdin()
	_, err = p.ReadLine()
	assert.ErrorIs(t, err, io.EOF)
	assert.NilError(t, p.Wait(time.Minute))
	assert.Equal(t, p.Exit(), "exit status 0")
	assert.Equal(t, string(p.Stderr()), "bye\n")
	assert.Equal(t, p.LinesRead(), 2)
	assert.Equal(t, p.BytesRead(), int64(len("got a\ngot bc\n")))
}

func TestStartLimits(t *testing.T) {
	type testCase struct {
		name    string
		script  string
		spec    func(*Spec)
		want    []string // lines read before the error
		wantErr error
		wantMsg string
	}
	run := func(t *testing.T, tc testCase) {
		spec := Spec{Command: []string{"/bin/sh", "-c", tc.script}, Interactive: true}
		tc.spec(&spec)
		p, err := Start(context.Background(), spec)
		assert.NilError(t, err)
		var got []string
		for {
			line, err := p.ReadLine()
			if err != nil {
				assert.ErrorIs(t, err, tc.wantErr)
				assert.Error(t, err, tc.wantMsg)
				break
			}
			got = append(got, string(line))
		}
		assert.DeepEqual(t, got, tc.want)
		p.Wait(0) // what follows can no longer be framed
	}
	for _, tc := range []testCase{
		{
			name:    "line over its cap",
			script:  `echo short; echo 123456789; sleep 600`,
			spec:    func(s *Spec) { s.MaxLineBytes = 8 },
			want:    []string{"short"},
			wantErr: ErrLineTooLong,
			wantMsg: "line over its cap: line 2 is longer than 8 bytes",
		},
		{
			name:    "stdout over its cap",
			script:  `while :; do echo 1234; done`,
			spec:    func(s *Spec) { s.MaxStdoutBytes = 12 },
			want:    []string{"1234", "1234"},
			wantErr: ErrOutputTooLarge,
			wantMsg: "stdout over its cap: more than 12 bytes",
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestReadDeadline bounds one read, as a caller that waits a limited time
// for each answer of a long-lived process does.
func TestReadDeadline(t *testing.T) {
	p, err := Start(context.Background(), Spec{Command: []string{"/bin/sh", "-c", `echo ready; sleep 600`}, Interactive: true})
	assert.NilError(t, err)
	line, err := p.ReadLine()
	assert.NilError(t, err)
	assert.Equal(t, string(line), "ready")
	assert.NilError(t, p.SetReadDeadline(time.Now().Add(100*time.Millisecond)))
	_, err = p.ReadLine()
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	p.Wait(0)
	assert.Equal(t, p.Exit(), "signal: killed")
}

// TestWaitGrace checks that Wait gives a process its grace to exit once
// stdin is closed, and then kills the group.
func TestWaitGrace(t *testing.T) {
	type testCase struct {
		name   string
		script string
		grace  time.Duration
		exit   string
		least  time.Duration // Wait took at least this long
	}
	run := func(t *testing.T, tc testCase) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		spec := shell(tc.script, pidFile)
		spec.Interactive = true
		p, err := Start(context.Background(), spec)
		assert.NilError(t, err)
		line, err := p.ReadLine()
		assert.NilError(t, err)
		assert.Equal(t, string(line), "ready")
		start := time.Now()
		p.Wait(tc.grace)
		assert.Equal(t, p.Exit(), tc.exit)
		assert.Assert(t, time.Since(start) >= tc.least, "Wait took %s", time.Since(start))
		pid := waittest.Pid(t, pidFile)
		assert.Assert(t, waittest.Exited(t, pid), "background child %d outlived the wait", pid)
	}
	for _, tc := range []testCase{
		{
			name:   "exits when stdin closes",
			script: `sleep 600 & echo $! > "$PIDFILE"; echo ready; cat > /dev/null`,
			grace:  time.Minute,
			exit:   "exit status 0",
		},
		{
			name:   "ignores stdin: killed after the grace",
			script: `sleep 600 & echo $! > "$PIDFILE"; echo ready; exec sleep 600`,
			grace:  200 * time.Millisecond,
			exit:   "signal: killed",
			least:  200 * time.Millisecond,
		},
		{
			name:   "no grace",
			script: `sleep 600 & echo $! > "$PIDFILE"; echo ready; exec sleep 600`,
			exit:   "signal: killed",
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestCancelWithEscapedDescendant ends the context of a process whose
// descendant left its process group and holds stdout and stdin: the
// group is killed, the blocked read returns at once, and Wait returns
// within WaitDelay. The escaped descendant is out of reach of a group kill;
// the test kills it by the pid it wrote itself.
func TestCancelWithEscapedDescendant(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid is not on PATH")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := shell(`setsid /bin/sh -c 'echo $$ > "$PIDFILE"; exec sleep 600' & sleep 600`, pidFile)
	spec.Interactive = true
	p, err := Start(ctx, spec)
	assert.NilError(t, err)
	escaped := waittest.Pid(t, pidFile)
	defer syscall.Kill(escaped, syscall.SIGKILL)

	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = p.ReadLine()
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	_, err = p.Write([]byte("late\n"))
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	p.Wait(time.Minute)
	assert.Equal(t, p.Exit(), "signal: killed")
	// Still running, the escaped descendant still holds the pipes: Wait
	// returned without them.
	assert.NilError(t, syscall.Kill(escaped, 0), "the escaped descendant is out of the group's reach")
}

func TestWriteNeedsInteractive(t *testing.T) {
	p, err := Start(context.Background(), Spec{Command: []string{"true"}})
	assert.NilError(t, err)
	_, err = p.Write([]byte("x\n"))
	assert.Error(t, err, "stdin is not open for writing")
	p.Wait(0)
}

// TestNoGoroutineLeak starts processes that end every way one can and
// checks that no goroutine outlives them.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, script := range []string{"echo ok", "exit 1", "yes", "sleep 600", "cat >/dev/null & sleep 600"} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		var out bytes.Buffer
		Run(ctx, Spec{Command: []string{"/bin/sh", "-c", script}, MaxStdoutBytes: 64 << 10, Stdin: make([]byte, 2*smallInput)}, &out)
		cancel()

		ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
		p, err := Start(ctx, Spec{Command: []string{"/bin/sh", "-c", script}, Interactive: true})
		assert.NilError(t, err)
		for {
			if _, err := p.ReadLine(); err != nil {
				break
			}
		}
		p.Wait(50 * time.Millisecond)
		cancel()
	}
	if !waittest.Poll(t, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}
