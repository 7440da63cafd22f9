//go:build unix

package config

import (
	"path/filepath"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/waittest"
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
		assert.Error(t, waittest.Receive(t, "Load("+path+") to return", done), want)
	}
}
