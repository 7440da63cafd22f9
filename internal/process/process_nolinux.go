//go:build unix && !linux

package process

import "syscall"

// deathSignal does nothing: only Linux has a parent-death signal.
func deathSignal(*syscall.SysProcAttr) {}
