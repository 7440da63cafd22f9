package process

import (
	"syscall"
)

// deathSignal has the child killed when this process dies, however it
// dies (SIGKILL included).
func deathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
