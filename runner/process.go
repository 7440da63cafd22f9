package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"time"
)

// Limits of the exec and plain drivers when the caller sets none.
const (
	DefaultMaxOutputBytes = 16 << 20 // total stdout of one trial
	DefaultMaxLineBytes   = 4 << 20  // one evalgate/1 line
	DefaultMaxStderrBytes = 64 << 10 // stderr kept for the transcript
	DefaultExitGrace      = 2 * time.Second
)

// waitDelay bounds how long a trial waits, after the agent has exited or
// been killed, for a grandchild that still holds the agent's stderr or
// stdin; then the pipes are closed under it. A variable so tests can shrink
// it.
var waitDelay = time.Second

// smallInput is the largest stdin written into the pipe before the agent
// starts, which saves a goroutine per trial: one page, which every pipe
// holds whatever the system's pipe limits are.
const smallInput = 4096

// procSpec says how to start one agent process.
type procSpec struct {
	command     []string
	dir         string
	env         []string
	input       []byte // the whole stdin, then end of file (plain)
	interactive bool   // the caller writes stdin itself (exec)
	maxStderr   int
}

// proc is one agent process, the leader of its own process group, so that
// everything it starts can be killed with it.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of the agent's stdin; nil unless interactive
	stdout *os.File // our end of the agent's stdout
	stderr *boundedBuffer

	stopWatch func() bool
}

// pastDeadline unblocks reads and writes at once.
var pastDeadline = time.Unix(1, 0)

// startProc starts spec under ctx. When ctx ends the whole process group is
// killed, and reads of stdout and writes to stdin fail at once, even when a
// grandchild that left the group still holds the pipes.
func startProc(ctx context.Context, spec procSpec) (*proc, error) {
	cmd := exec.CommandContext(ctx, spec.command[0], spec.command[1:]...)
	cmd.Dir = spec.dir
	cmd.Env = spec.env
	cmd.WaitDelay = waitDelay
	setGroup(cmd)
	p := &proc{cmd: cmd, stderr: &boundedBuffer{max: spec.maxStderr}}
	cmd.Stderr = p.stderr

	var childEnds []*os.File
	closeAll := func(files ...*os.File) {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.stdout = outR
	cmd.Stdout = outW
	childEnds = append(childEnds, outW)
	switch {
	case spec.interactive:
		inR, inW, err := os.Pipe()
		if err != nil {
			closeAll(outR, outW)
			return nil, err
		}
		p.stdin = inW
		cmd.Stdin = inR
		childEnds = append(childEnds, inR)
	case len(spec.input) <= smallInput:
		inR, inW, err := os.Pipe()
		if err != nil {
			closeAll(outR, outW)
			return nil, err
		}
		_, err = inW.Write(spec.input) // fits in the empty pipe: never blocks
		inW.Close()
		if err != nil {
			closeAll(outR, outW, inR)
			return nil, err
		}
		cmd.Stdin = inR
		childEnds = append(childEnds, inR)
	default:
		cmd.Stdin = bytes.NewReader(spec.input) // copied by os/exec, bounded by WaitDelay
	}
	if err := cmd.Start(); err != nil {
		closeAll(childEnds...)
		closeAll(p.stdout, p.stdin)
		return nil, err
	}
	closeAll(childEnds...)
	p.stopWatch = context.AfterFunc(ctx, p.interrupt)
	return p, nil
}

// interrupt makes blocked pipe I/O return; ctx has ended.
func (p *proc) interrupt() {
	p.stdout.SetReadDeadline(pastDeadline)
	if p.stdin != nil {
		p.stdin.SetWriteDeadline(pastDeadline)
	}
}

// kill kills the agent's process group now.
func (p *proc) kill() {
	_ = killGroup(p.cmd.Process)
}

// closeStdin tells an interactive agent that no more input comes.
func (p *proc) closeStdin() {
	if p.stdin != nil {
		p.stdin.Close()
	}
}

// waitUntil is wait with the grace running out at deadline; an agent still
// there when it has passed is killed first.
func (p *proc) waitUntil(deadline time.Time) error {
	grace := time.Until(deadline)
	if grace <= 0 {
		p.kill()
		grace = 0
	}
	return p.wait(grace)
}

// wait closes the agent's stdin, gives it grace to exit (0: none, the
// caller has killed it), reaps it, and kills whatever is left of its
// process group. It returns the error of exec.Cmd.Wait.
func (p *proc) wait(grace time.Duration) error {
	p.closeStdin()
	var t *time.Timer
	if grace > 0 {
		t = time.AfterFunc(grace, p.kill)
	}
	err := p.cmd.Wait()
	if t != nil {
		t.Stop()
	}
	p.kill()
	p.stopWatch()
	p.stdout.Close()
	return err
}

// exitText describes how the agent ended: "exit status 3",
// "signal: killed".
func (p *proc) exitText(waitErr error) string {
	if st := p.cmd.ProcessState; st != nil {
		return st.String()
	}
	if waitErr != nil {
		return waitErr.Error()
	}
	return "unknown exit"
}

// succeeded reports whether the agent exited by itself with status 0.
func (p *proc) succeeded() bool {
	st := p.cmd.ProcessState
	return st != nil && st.Success()
}

// boundedBuffer keeps the first max bytes written to it and drops the rest.
type boundedBuffer struct {
	max     int
	buf     []byte
	dropped int64
}

// Write keeps what fits and never fails, so the agent is never blocked or
// killed for writing to stderr.
func (b *boundedBuffer) Write(data []byte) (int, error) {
	room := b.max - len(b.buf)
	n := min(max(room, 0), len(data))
	b.buf = append(b.buf, data[:n]...)
	b.dropped += int64(len(data) - n)
	return len(data), nil
}

// ReadFrom reads r to its end, keeping what fits. os/exec copies the
// agent's stderr with it, which spares a 32 KiB copy buffer per trial: most
// agents write little or nothing to stderr.
func (b *boundedBuffer) ReadFrom(r io.Reader) (int64, error) {
	var (
		total   int64
		discard []byte
	)
	for {
		room := b.max - len(b.buf)
		var p []byte
		if room > 0 {
			if len(b.buf) == cap(b.buf) {
				b.buf = slices.Grow(b.buf, min(room, 4096))
			}
			p = b.buf[len(b.buf):min(cap(b.buf), b.max)]
		} else {
			if discard == nil {
				discard = make([]byte, 4096)
			}
			p = discard
		}
		n, err := r.Read(p)
		total += int64(n)
		if room > 0 {
			b.buf = b.buf[:len(b.buf)+n]
		} else {
			b.dropped += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// bytes returns a copy of what was kept, nil when nothing was.
func (b *boundedBuffer) bytes() []byte {
	if len(b.buf) == 0 {
		return nil
	}
	return bytes.Clone(b.buf)
}

// launch starts an agent process for a trial. When it cannot, the Outcome
// says why: the trial's context already ended (that trial's error), or the
// command cannot be started at all (fatal: no trial could run).
func launch(ctx context.Context, req *Request, spec procSpec) (*proc, *Outcome) {
	if len(spec.command) == 0 || spec.command[0] == "" {
		return nil, &Outcome{Fatal: errors.New("could not start agent: no command given")}
	}
	if ctx.Err() != nil {
		return nil, &Outcome{Err: contextError(ctx, req)}
	}
	p, err := startProc(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Outcome{Err: contextError(ctx, req)}
		}
		return nil, &Outcome{Fatal: fmt.Errorf("could not start agent %q: %w", spec.command[0], err)}
	}
	return p, nil
}
