package process

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"gotest.tools/v3/assert"
)

// containedParent is a helper: it contains itself, starts a long sleep,
// prints the sleep's pid and waits to be killed.
func containedParent() {
	Contain()
	p, err := Start(context.Background(), Spec{Command: []string{"sleep", "60"}, Env: os.Environ()})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(p.cmd.Process.Pid)
	time.Sleep(time.Minute)
}

// reaped waits until pid no longer exists at all: dead and waited for.
func reaped(pid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestExitWithDaemonHoldingStdout: a program that exits while a process it
// left behind holds its stdout ends the read when it exits (plus
// ExitDrain), not when the daemon does or the context ends.
func TestExitWithDaemonHoldingStdout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	p, err := Run(ctx, shell(`sleep 30 & echo hi`, ""), &out)
	assert.NilError(t, err)
	assert.Equal(t, out.String(), "hi\n")
	assert.Check(t, p.Success(), p.Exit())

	p, err = Start(ctx, Spec{Command: []string{"/bin/sh", "-c", "sleep 30 & echo hi"}, Env: os.Environ(), Interactive: true})
	assert.NilError(t, err)
	line, err := p.ReadLine()
	assert.NilError(t, err)
	assert.Equal(t, string(line), "hi")
	_, err = p.ReadLine()
	assert.Equal(t, err, io.EOF)
	assert.NilError(t, p.Wait(time.Second))
}

// TestContainKillsLeftovers: a descendant that left the process group
// (setsid) is killed and reaped once the process that started it has been
// waited for, while the leftover of a process still running is left alone
// until that one ends.
func TestContainKillsLeftovers(t *testing.T) {
	release := Contain()
	defer release()
	dir := t.TempDir()
	daemon := func(name string, stay bool) (*Process, int) {
		pidFile := filepath.Join(dir, name)
		script := `setsid sh -c 'echo $$ > "$PIDFILE"; exec sleep 60' &`
		if stay {
			script += ` sleep 60`
		}
		p, err := Start(context.Background(), shell(script, pidFile))
		assert.NilError(t, err)
		return p, readPid(t, pidFile)
	}
	running, keptDaemon := daemon("kept", true)
	done, leftDaemon := daemon("left", false)
	assert.NilError(t, done.Wait(5*time.Second))
	assert.Check(t, reaped(leftDaemon), "the daemon of a process that ended still runs")
	assert.NilError(t, syscall.Kill(keptDaemon, 0), "the daemon of a running process was killed")

	running.Wait(0)
	assert.Check(t, reaped(keptDaemon), "the daemon outlived its process")
}

// TestContainRelease: release kills every leftover, even one that dropped
// its EVALGATE_PROCESS.
func TestContainRelease(t *testing.T) {
	release := Contain()
	pidFile := filepath.Join(t.TempDir(), "pid")
	p, err := Start(context.Background(), shell(`setsid env -i PIDFILE="$PIDFILE" sh -c 'echo $$ > "$PIDFILE"; exec sleep 60' & sleep 60`, pidFile))
	assert.NilError(t, err)
	pid := readPid(t, pidFile)
	p.Wait(0)
	// Without its mark the leftover is not known to be a trial's until the end.
	time.Sleep(3 * sweepEvery)
	assert.NilError(t, syscall.Kill(pid, 0))
	release()
	assert.Check(t, reaped(pid), "release left a leftover running")
}

// TestContainNotDumpable: once contained, the process is not dumpable, so
// a process of the same user cannot read its /proc entries (root can).
func TestContainNotDumpable(t *testing.T) {
	defer Contain()()
	d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	assert.NilError(t, err)
	assert.Equal(t, d, 0)
	if os.Getuid() == 0 {
		t.Log("running as root, which reads any /proc entry: only the flag is checked")
		return
	}
	var out bytes.Buffer
	p, err := Run(context.Background(), shell(fmt.Sprintf("cat /proc/%d/environ >/dev/null 2>&1 && echo read || echo denied", os.Getpid()), ""), &out)
	assert.NilError(t, err)
	assert.Check(t, p.Success())
	assert.Equal(t, out.String(), "denied\n")
}

// TestChildrenDieWithEvalgate: SIGKILL of the process that started an
// agent kills the agent too (Pdeathsig).
func TestChildrenDieWithEvalgate(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperVar+"=contained-parent")
	stdout, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	assert.NilError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	assert.NilError(t, err, line)
	assert.NilError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	assert.Check(t, gone(pid), "the agent outlived the SIGKILL of its parent")
}
