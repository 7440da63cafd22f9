package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Limits when a Spec sets none.
const (
	DefaultMaxStdoutBytes = 16 << 20 // all of stdout
	DefaultMaxLineBytes   = 4 << 20  // one line read by ReadLine
	DefaultMaxStderrBytes = 64 << 10 // stderr kept
)

// WaitDelay bounds how long Wait waits, after the process has exited or
// been killed, for a descendant that still holds its stderr or stdin; then
// the pipes are closed under it. A variable so tests can shrink it.
var WaitDelay = time.Second

// ExitDrain is how long stdout is still read once the process has exited:
// what it wrote is in the pipe by then, and a descendant that kept the pipe
// open (a daemon it left behind) must not hold the trial until its timeout.
const ExitDrain = 250 * time.Millisecond

// smallInput is the largest stdin written into the pipe before the program
// starts, which saves a goroutine per run: one page, which every pipe holds
// whatever the system's pipe limits are.
const smallInput = 4096

// Spec says how to start one process.
type Spec struct {
	Command []string // program and arguments
	Dir     string   // working directory; "" for the current one
	Env     []string // the child's whole environment, usually from ScrubEnv

	// Stdin is the whole input, followed by end of file. Unused when
	// Interactive.
	Stdin []byte
	// Interactive keeps stdin open for Write until CloseStdin or Wait.
	Interactive bool

	MaxStdoutBytes int64 // stdout read by Run or ReadLine; DefaultMaxStdoutBytes when 0
	MaxLineBytes   int   // one line read by ReadLine; DefaultMaxLineBytes when 0
	MaxStderrBytes int   // stderr kept; DefaultMaxStderrBytes when 0
}

// Errors of reading stdout over its caps.
var (
	ErrOutputTooLarge = errors.New("stdout over its cap")
	ErrLineTooLong    = errors.New("line over its cap")
)

// errNoCommand is a Spec without a program.
var errNoCommand = errors.New("no command given")

// StartError is a process that could not be started: no command was
// given, or the system could not run it (not found, not executable).
// Nothing else will start it either, unlike a process whose context had
// ended, which Start reports with the context's error.
type StartError struct {
	Command string // the program; "" when none was given
	Err     error
}

func (e *StartError) Error() string {
	if e.Command == "" {
		return "could not start: " + e.Err.Error()
	}
	return fmt.Sprintf("could not start %q: %v", e.Command, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// ErrNotFound is what a StartError wraps when its program was not found on
// PATH, so a caller can say so without importing os/exec.
var ErrNotFound = exec.ErrNotFound

// Process is a running program, the leader of its own process group, so
// that everything it starts can be killed with it. Its methods are for one
// goroutine, except Kill and Wait, which the release of its containment
// may call beside its owner.
type Process struct {
	proc   *os.Process
	state  *os.ProcessState // how it ended; set before exited is closed
	stdin  *os.File         // our end of the child's stdin; nil unless interactive
	stdout *os.File         // our end of the child's stdout
	stderr *boundedBuffer
	// stderrR is our end of the child's stderr, read into stderr;
	// stdinCopy our end of a stdin too large for the empty pipe, written
	// by copyStdin. ioDone is closed once both are done.
	stderrR   *os.File
	stdinCopy *os.File
	ioDone    chan struct{}

	maxStdout int64
	maxLine   int
	lines     *lineReader // made by the first ReadLine

	stopWatch func() bool
	mark      uint64        // its EVALGATE_PROCESS number (lifecycle.go)
	scope     *scope        // the containment it was started under; nil for none
	exited    chan struct{} // closed once the process has exited and waitErr is set
	waitErr   error
	finished  sync.Once // the end of reap, once however many wait
}

// pastDeadline unblocks reads and writes at once.
var pastDeadline = time.Unix(1, 0)

// Start starts spec under ctx. When ctx ends the whole process group is
// killed, and reads of stdout and writes to stdin fail at once, even when a
// descendant that left the group still holds the pipes. The caller must
// Wait. The error is a *StartError, or the context's error when ctx ended
// first.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	if len(spec.Command) == 0 || spec.Command[0] == "" {
		return nil, &StartError{Err: errNoCommand}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := start(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, errEnded) {
			return nil, context.Canceled // its context ends with the release
		}
		return nil, &StartError{Command: spec.Command[0], Err: err}
	}
	return p, nil
}

func start(ctx context.Context, spec Spec) (*Process, error) {
	path, err := lookPath(spec.Command[0])
	if err != nil {
		return nil, err
	}
	p := &Process{
		stderr:    &boundedBuffer{max: orDefault(spec.MaxStderrBytes, DefaultMaxStderrBytes)},
		maxStdout: orDefault(spec.MaxStdoutBytes, DefaultMaxStdoutBytes),
		maxLine:   orDefault(spec.MaxLineBytes, DefaultMaxLineBytes),
		mark:      nextMark(),
	}
	env, err := childEnv(spec.Env, markVar+"="+markValue(p.mark))
	if err != nil {
		return nil, err
	}

	// The pipes are evalgate's own, the child's ends never pollable (see
	// pipe). Stderr, and a stdin too large to be written before the start,
	// are served by goroutines that wait bounds by WaitDelay.
	var childEnds, ours []*os.File
	closeAll := func(files ...*os.File) {
		for _, f := range files {
			f.Close()
		}
	}
	fail := func(err error) (*Process, error) {
		closeAll(childEnds...)
		closeAll(ours...)
		return nil, err
	}
	var stdin *os.File
	switch {
	case spec.Interactive:
		inR, inW, err := pipe(true)
		if err != nil {
			return fail(err)
		}
		p.stdin, stdin = inW, inR
		childEnds, ours = append(childEnds, inR), append(ours, inW)
	case len(spec.Stdin) <= smallInput:
		inR, err := filledPipe(spec.Stdin)
		if err != nil {
			return fail(err)
		}
		stdin = inR
		childEnds = append(childEnds, inR)
	default:
		inR, inW, err := pipe(true)
		if err != nil {
			return fail(err)
		}
		p.stdinCopy, stdin = inW, inR
		childEnds, ours = append(childEnds, inR), append(ours, inW)
	}
	outR, outW, err := pipe(false)
	if err != nil {
		return fail(err)
	}
	p.stdout = outR
	childEnds, ours = append(childEnds, outW), append(ours, outR)
	errR, errW, err := pipe(false)
	if err != nil {
		return fail(err)
	}
	p.stderrR = errR
	childEnds, ours = append(childEnds, errW), append(ours, errR)

	p.proc, err = startTracked(p.mark, func() (*os.Process, error) {
		return os.StartProcess(path, spec.Command, &os.ProcAttr{
			Dir:   spec.Dir,
			Env:   env,
			Files: []*os.File{stdin, outW, errW},
			Sys:   groupAttr(),
		})
	})
	if err != nil {
		return fail(err)
	}
	closeAll(childEnds...)
	p.exited = make(chan struct{})
	p.ioDone = make(chan struct{})
	var copied chan struct{}
	if p.stdinCopy != nil {
		copied = make(chan struct{})
		go p.copyStdin(spec.Stdin, copied)
	}
	go p.readStderr(copied)
	p.stopWatch = context.AfterFunc(ctx, p.interrupt)
	go p.wait()
	if sc := scopeOf(ctx); sc != nil {
		p.scope = sc
		if !sc.add(p) {
			p.Wait(0)
			return nil, errEnded
		}
	}
	return p, nil
}

// lookPath finds the program named name as os/exec would: on PATH when
// the name has no directory in it (a program found relative to the
// current directory is an error), otherwise at that path from the
// process's working directory.
func lookPath(name string) (string, error) {
	if filepath.Base(name) != name {
		return name, nil
	}
	return exec.LookPath(name)
}

// copyStdin writes a stdin too large for the empty pipe and closes it;
// wait cuts it short WaitDelay after the exit, should a process left
// behind hold the pipe without reading.
func (p *Process) copyStdin(input []byte, done chan<- struct{}) {
	p.stdinCopy.Write(input)
	p.stdinCopy.Close()
	close(done)
}

// readStderr keeps what it can of stderr until its end, or until wait
// cuts it short, then waits for copyStdin, if any.
func (p *Process) readStderr(copied <-chan struct{}) {
	p.stderr.ReadFrom(p.stderrR)
	if copied != nil {
		<-copied
	}
	close(p.ioDone)
}

// wait waits for the process to exit, gives stderr (and the copy of a
// large stdin) at most WaitDelay to end, since a process it left behind
// may hold them, then gives stdout ExitDrain to be read to its end.
func (p *Process) wait() {
	state, err := p.proc.Wait()
	p.state = state
	switch {
	case err != nil:
		p.waitErr = err
	case !state.Success():
		p.waitErr = &exec.ExitError{ProcessState: state}
	}
	select {
	case <-p.ioDone:
	default:
		deadline := time.Now().Add(WaitDelay)
		p.stderrR.SetReadDeadline(deadline)
		if p.stdinCopy != nil {
			p.stdinCopy.SetWriteDeadline(deadline)
		}
		<-p.ioDone
	}
	p.stderrR.Close()
	close(p.exited)
	p.stdout.SetReadDeadline(time.Now().Add(ExitDrain))
}

// hasExited reports whether the process has exited.
func (p *Process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// readEnd turns the deadline that ends stdout once the process has exited
// into the end of file it stands for.
func (p *Process) readEnd(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) && p.hasExited() {
		return io.EOF
	}
	return err
}

// Run runs spec to completion: stdin gets spec.Stdin and then end of file,
// stdout is read to its end into stdout, and the process is waited for.
// Anything that goes wrong kills the whole group: ctx ending (the error is
// the context's), stdout over MaxStdoutBytes (ErrOutputTooLarge), a read
// error. The returned Process has ended, whatever the error: its Exit,
// Success and Stderr say how. It is nil only when the process did not
// start (see Start). A program that ran and exited non-zero is not an
// error.
func Run(ctx context.Context, spec Spec, stdout *bytes.Buffer) (*Process, error) {
	spec.Interactive = false
	p, err := Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	_, readErr := stdout.ReadFrom(io.LimitReader(p.stdout, p.maxStdout+1))
	if p.readEnd(readErr) == io.EOF {
		readErr = nil // ReadFrom's end of file
	}
	switch {
	case ctx.Err() != nil:
		readErr = ctx.Err()
	case int64(stdout.Len()) > p.maxStdout:
		readErr = fmt.Errorf("%w: more than %d bytes", ErrOutputTooLarge, p.maxStdout)
	}
	if readErr != nil {
		p.Wait(0)
		return p, readErr
	}
	p.reap(0) // stdout has ended: the process is on its way out
	if err := ctx.Err(); err != nil {
		return p, err
	}
	return p, nil
}

// interrupt makes blocked pipe I/O return and kills the process group;
// ctx has ended. Stdin's deadline is set first: a caller woken from
// ReadLine by the read deadline then finds Write refused too, never a
// write that slipped in between the two.
func (p *Process) interrupt() {
	if p.stdin != nil {
		p.stdin.SetWriteDeadline(pastDeadline)
	}
	p.stdout.SetReadDeadline(pastDeadline)
	p.Kill()
	// The leader too, should it have moved itself out of its group.
	_ = p.proc.Kill()
}

// errNotInteractive is a Write to a process started without Interactive.
var errNotInteractive = errors.New("stdin is not open for writing")

// Write writes b to the stdin of an interactive process. An error means
// the process closed stdin or exited, or its context ended.
func (p *Process) Write(b []byte) (int, error) {
	if p.stdin == nil {
		return 0, errNotInteractive
	}
	return p.stdin.Write(b)
}

// CloseStdin tells an interactive process that no more input comes.
func (p *Process) CloseStdin() {
	if p.stdin != nil {
		p.stdin.Close()
	}
}

// SetReadDeadline makes ReadLine fail with os.ErrDeadlineExceeded once t
// has passed.
func (p *Process) SetReadDeadline(t time.Time) error {
	return p.stdout.SetReadDeadline(t)
}

// ReadLine returns the next line of stdout without its newline (and a
// carriage return before it). The slice is valid until the next call. The
// last line may end without a newline; after it comes io.EOF. A line over
// MaxLineBytes is ErrLineTooLong, stdout over MaxStdoutBytes in all
// ErrOutputTooLarge; then the process should be killed, since what follows
// can no longer be framed.
func (p *Process) ReadLine() ([]byte, error) {
	if p.lines == nil {
		p.lines = newLineReader(p.stdout, 64<<10, p.maxLine, p.maxStdout)
	}
	line, err := p.lines.readLine()
	return line, p.readEnd(err)
}

// LinesRead counts the lines ReadLine has returned.
func (p *Process) LinesRead() int {
	if p.lines == nil {
		return 0
	}
	return p.lines.lines
}

// BytesRead counts the bytes of stdout ReadLine has taken.
func (p *Process) BytesRead() int64 {
	if p.lines == nil {
		return 0
	}
	return p.lines.total
}

// Kill kills the process group now.
func (p *Process) Kill() {
	_ = killGroup(p.proc)
}

// WaitUntil is Wait with the grace running out at deadline.
func (p *Process) WaitUntil(deadline time.Time) error {
	return p.Wait(time.Until(deadline))
}

// Wait closes stdin, gives the process grace to exit, reaps it, and kills
// whatever is left of its process group. A grace of 0 or less kills the
// group at once. It returns the error of exec.Cmd.Wait; Exit describes it.
func (p *Process) Wait(grace time.Duration) error {
	if grace <= 0 {
		p.Kill()
	}
	return p.reap(grace)
}

// reap is Wait without the kill at once: with no grace it waits for as
// long as the process lives, which its context bounds.
func (p *Process) reap(grace time.Duration) error {
	p.CloseStdin()
	var t *time.Timer
	if grace > 0 {
		t = time.AfterFunc(grace, p.Kill)
	}
	<-p.exited
	if t != nil {
		t.Stop()
	}
	p.finished.Do(func() {
		p.Kill()
		p.stopWatch()
		p.stdout.Close()
		ended(p)
	})
	return p.waitErr
}

// Exit describes how the process ended: "exit status 3", "signal:
// killed". Call it after Wait.
func (p *Process) Exit() string {
	if st := p.state; st != nil {
		return st.String()
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return "unknown exit"
}

// Success reports whether the process exited by itself with status 0.
func (p *Process) Success() bool {
	st := p.state
	return st != nil && st.Success()
}

// Stderr returns a copy of what was kept of stderr, nil when nothing was.
// Call it after Wait.
func (p *Process) Stderr() []byte {
	return p.stderr.bytes()
}

func orDefault[T int | int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
