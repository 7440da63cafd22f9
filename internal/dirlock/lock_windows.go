//go:build windows

package dirlock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lock takes LockFileEx on the first byte of f, exclusive and without
// waiting.
func lock(f *os.File) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := conn.Control(func(fd uintptr) {
		lerr = windows.LockFileEx(windows.Handle(fd), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
	}); err != nil {
		return err
	}
	if errors.Is(lerr, windows.ERROR_LOCK_VIOLATION) {
		return ErrLocked
	}
	return lerr
}
