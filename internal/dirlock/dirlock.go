// Package dirlock keeps two processes from writing into one folder at
// once: Acquire takes an exclusive lock on the file .lock in the folder,
// and fails at once, with ErrLocked, while another process holds it.
//
// The lock belongs to the open file, not to a process id written down
// somewhere: the system drops it when the file is closed or the process
// ends, however it ends (SIGKILL included), so a run that was killed never
// leaves a folder locked. On Linux, macOS and the BSDs it is flock(2); on
// Windows, LockFileEx. Elsewhere Acquire takes no lock (see lock_other.go).
// A lock is also exclusive within one process: two Acquires of one folder
// conflict, like those of two processes.
package dirlock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is the name of the lock file in a locked folder. Release removes
// it (where the system lets an open file be removed: not on Windows); a
// process that was killed leaves it, and the next Acquire takes it over.
const File = ".lock"

// ErrLocked is the error of Acquire when another process (or another
// Acquire in this one) holds the folder's lock.
var ErrLocked = errors.New("the folder is locked by another process")

// Lock is a held lock; Release gives it up.
type Lock struct {
	f    *os.File
	path string
}

// Acquire locks dir, which must exist, for this process: it opens
// dir/.lock, creating it when missing, and takes an exclusive lock without
// waiting. A symbolic link at dir/.lock is removed, never followed. The
// lock file is opened close-on-exec, so the programs this process starts
// do not inherit the lock and cannot keep it after the process ends.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, File)
	for range 100 {
		f, err := openNoFollow(path)
		if errors.Is(err, errLink) {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := lock(f); err != nil {
			f.Close()
			return nil, err
		}
		// The holder before may have removed the file between the open and
		// the lock: a lock on a file no other process can find any more
		// locks nothing. Then open the file that is there now.
		if l := (&Lock{f: f, path: path}); l.inPlace() {
			return l, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("could not lock %s: the lock file keeps being removed or replaced", dir)
}

// inPlace reports whether the lock's path still names its open file.
func (l *Lock) inPlace() bool {
	held, err := l.f.Stat()
	if err != nil {
		return false
	}
	there, err := os.Lstat(l.path)
	return err == nil && os.SameFile(held, there)
}

// Release removes the lock file and gives up the lock. The file is removed
// while the lock is still held, so a process that opened it before and
// locks it after finds it gone (see Acquire). Releasing a nil or released
// Lock does nothing.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.inPlace() {
		_ = os.Remove(l.path) // best effort: Windows keeps an open file
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// errLink is what openNoFollow returns for a symbolic link at path.
var errLink = errors.New("is a symbolic link")
