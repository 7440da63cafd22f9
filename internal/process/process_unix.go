//go:build unix

package process

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// setGroup makes the child the leader of a new process group, killed
// when this process dies (on Linux), and has exec.CommandContext kill the
// whole group when the context ends.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
}

// killGroup sends SIGKILL to the process group led by p.
func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
