//go:build unix

package waittest

import (
	"os"
	"os/exec"
	"testing"
)

// TestExited sees a child end while it is still a zombie, and a reaped one.
func TestExited(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !Exited(t, cmd.Process.Pid) {
		t.Errorf("the unreaped child %d did not end", cmd.Process.Pid)
	}
	cmd.Wait()
	if !Exited(t, cmd.Process.Pid) {
		t.Errorf("the reaped child %d did not end", cmd.Process.Pid)
	}
	if ended(os.Getpid()) {
		t.Error("this process has ended")
	}
}
