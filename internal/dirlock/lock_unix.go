//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd || solaris

package dirlock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openNoFollow opens path with O_NOFOLLOW: a symbolic link is errLink.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o644)
	if errors.Is(err, unix.ELOOP) {
		return nil, errLink
	}
	return f, err
}

// lock takes flock(LOCK_EX|LOCK_NB) on f.
func lock(f *os.File) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := conn.Control(func(fd uintptr) {
		for {
			ferr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB)
			if !errors.Is(ferr, unix.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(ferr, unix.EWOULDBLOCK) {
		return ErrLocked
	}
	return ferr
}
