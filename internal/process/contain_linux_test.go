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

	"github.com/evalgate/evalgate/internal/waittest"
)

// containedParent is a helper, a stand-in for evalgate: it contains
// itself and starts an agent that starts a grandchild in its group, a
// daemon that left the group (setsid) and an orphan that left the group
// and dropped EVALGATE_PROCESS (setsid env -i, its parent gone). Once the
// guard has been told of the orphan, it prints every pid, the agent's
// last, on one line and waits to be killed.
func containedParent() {
	ctx, _ := Contain(context.Background())
	p, err := Start(ctx, Spec{Command: []string{"/bin/sh", "-c", `
		sleep 60 & echo $!
		setsid sleep 60 & echo $!
		(setsid env -i sleep 60 & echo $!)
		echo $$
		exec sleep 60`}, Env: os.Environ(), Interactive: true})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	var pids []string
	for range 4 {
		line, err := p.ReadLine()
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		pids = append(pids, string(line))
	}
	orphan, _ := strconv.Atoi(pids[2])
	// The sweeper's next look tells the guard; without one, the test fails.
	// The test's deadline, in the environment, bounds the wait.
	deadline, _ := strconv.ParseInt(os.Getenv(helperDeadlineVar), 10, 64)
	for !guardKnows(orphan) && (deadline == 0 || time.Now().UnixNano() < deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(strings.Join(pids, " "))
	select {}
}

// helperDeadlineVar passes the test's deadline to a helper process, in
// nanoseconds since the epoch.
const helperDeadlineVar = "EVALGATE_PROCESS_TEST_DEADLINE"

// guardKnows reports whether the guard has been told of orphan.
func guardKnows(orphan int) bool {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	return guard.orphans[orphan]
}

// reaped waits until pid no longer exists at all: dead and waited for.
func reaped(t *testing.T, pid int) bool {
	return waittest.Poll(t, func() bool {
		_, err := os.Stat("/proc/" + strconv.Itoa(pid))
		return os.IsNotExist(err)
	})
}

// TestExitWithDaemonHoldingStdout: a program that exits while a process it
// left behind holds its stdout ends the read when it exits (plus
// ExitDrain), not when the daemon does or the context ends.
func TestExitWithDaemonHoldingStdout(t *testing.T) {
	// The daemons outlive the test's deadline, unless the test kills them:
	// Run returning at all is the read ending without them.
	dir := t.TempDir()
	daemon := func(name string) string {
		pidFile := filepath.Join(dir, name)
		t.Cleanup(func() {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(waittest.File(t, pidFile)))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		return pidFile
	}
	ctx := waittest.Context(t)
	var out bytes.Buffer
	p, err := Run(ctx, shell(`sleep 3600 & echo $! > "$PIDFILE"; echo hi`, daemon("run")), &out)
	assert.NilError(t, err)
	assert.Equal(t, out.String(), "hi\n")
	assert.Check(t, p.Success(), p.Exit())

	p, err = Start(ctx, Spec{Command: []string{"/bin/sh", "-c", `sleep 3600 & echo $! > "$PIDFILE"; echo hi`}, Env: shell("", daemon("start")).Env, Interactive: true})
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
	_, release := Contain(context.Background())
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
		return p, waittest.Pid(t, pidFile)
	}
	running, keptDaemon := daemon("kept", true)
	done, leftDaemon := daemon("left", false)
	assert.NilError(t, done.Wait(5*time.Second))
	assert.Check(t, reaped(t, leftDaemon), "the daemon of a process that ended still runs")
	assert.NilError(t, syscall.Kill(keptDaemon, 0), "the daemon of a running process was killed")

	running.Wait(0)
	assert.Check(t, reaped(t, keptDaemon), "the daemon outlived its process")
}

// TestContainRelease: release kills every leftover, even one that dropped
// its EVALGATE_PROCESS.
func TestContainRelease(t *testing.T) {
	_, release := Contain(context.Background())
	pidFile := filepath.Join(t.TempDir(), "pid")
	p, err := Start(context.Background(), shell(`setsid env -i PIDFILE="$PIDFILE" sh -c 'echo $$ > "$PIDFILE"; exec sleep 60' & sleep 60`, pidFile))
	assert.NilError(t, err)
	pid := waittest.Pid(t, pidFile)
	p.Wait(0)
	// Without its mark the leftover is not known to be a trial's until the
	// end: a sweep, as the sweeper makes once a process has ended, leaves it.
	sweep(false)
	assert.NilError(t, syscall.Kill(pid, 0))
	release()
	assert.Check(t, reaped(t, pid), "release left a leftover running")
}

// TestContainNotDumpable: once contained, the process is not dumpable, so
// a process of the same user cannot read its /proc entries (root can).
func TestContainNotDumpable(t *testing.T) {
	_, release := Contain(context.Background())
	defer release()
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
// agent kills the agent (Pdeathsig) and, through the guard, its
// grandchild in its group, its daemon that kept EVALGATE_PROCESS and the
// orphan that dropped it, which the sweeper had told the guard of.
func TestChildrenDieWithEvalgate(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperVar+"=contained-parent")
	if deadline, ok := waittest.Deadline(t); ok {
		cmd.Env = append(cmd.Env, helperDeadlineVar+"="+strconv.FormatInt(deadline.UnixNano(), 10))
	}
	stdout, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	assert.NilError(t, err)
	fields := strings.Fields(line)
	assert.Equal(t, len(fields), 4, line)
	var pids []int
	for _, f := range fields {
		pid, err := strconv.Atoi(f)
		assert.NilError(t, err, line)
		pids = append(pids, pid)
	}
	assert.NilError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	for i, what := range []string{"the grandchild", "the daemon", "the orphan", "the agent"} {
		if !assert.Check(t, waittest.Exited(t, pids[i]), "%s outlived the SIGKILL of evalgate", what) {
			syscall.Kill(pids[i], syscall.SIGKILL)
		}
	}
}
