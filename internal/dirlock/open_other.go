//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd || solaris)

package dirlock

import (
	"io/fs"
	"os"
)

// openNoFollow opens path for reading and writing, creating it, after
// checking that it is not a symbolic link (errLink). Between the check and
// the open another process could put a link there; the platforms of
// lock_unix.go refuse to follow one at open (O_NOFOLLOW) instead.
func openNoFollow(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errLink
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}
