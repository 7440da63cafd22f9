//go:build !unix

package process

import (
	"os"
	"syscall"
)

// groupAttr is nothing: without process groups only the child itself is
// killed.
func groupAttr() *syscall.SysProcAttr { return nil }

// killGroup kills p.
func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}
