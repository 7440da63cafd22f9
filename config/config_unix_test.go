//go:build unix

package config

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// TestLoadRefusesDevicesAndPipes: /dev/zero would fill memory and a FIFO
// with no writer would hang the read forever; both are refused at once.
func TestLoadRefusesDevicesAndPipes(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "evalgate.yaml")
	assert.NilError(t, syscall.Mkfifo(fifo, 0o644))
	for path, want := range map[string]string{
		"/dev/zero": "/dev/zero: expected a config file (a regular file), found a character device",
		fifo:        fifo + ": expected a config file (a regular file), found a named pipe",
	} {
		done := make(chan error, 1)
		go func() { _, err := Load(path, true); done <- err }()
		select {
		case err := <-done:
			assert.Error(t, err, want)
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%s) hangs", path)
		}
	}
}
