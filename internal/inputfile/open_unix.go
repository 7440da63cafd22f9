//go:build unix

package inputfile

import "syscall"

// openNoWait makes opening a named pipe return at once rather than wait
// for a writer; reading a regular file is the same with it.
const openNoWait = syscall.O_NONBLOCK
