//go:build unix

package waittest

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"testing"
)

// Exited waits until the process pid has ended, and reports whether it did
// before t's Deadline. A zombie, ended but not yet reaped by its parent,
// has ended.
func Exited(t *testing.T, pid int) bool {
	return Poll(t, func() bool { return ended(pid) })
}

func ended(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// Gone, or a system without /proc: ask the process.
		return syscall.Kill(pid, 0) == syscall.ESRCH
	}
	// The state follows the command name in parentheses, which may hold
	// any character.
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
