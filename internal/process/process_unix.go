//go:build unix

package process

import (
	"errors"
	"os"
	"syscall"
)

// groupAttr makes the child the leader of a new process group, killed
// when this process dies (on Linux).
func groupAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	deathSignal(attr)
	return attr
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
