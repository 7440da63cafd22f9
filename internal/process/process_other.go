//go:build !unix

package process

import (
	"os"
	"os/exec"
)

// setGroup has exec.CommandContext kill the child when the context ends.
// Without process groups only the child itself is killed.
func setGroup(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
}

// killGroup kills p.
func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}
