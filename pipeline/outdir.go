package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/dirlock"
	"github.com/evalgate/evalgate/results"
)

// Hints for a second evalgate that finds an output folder locked: what to
// do instead of waiting.
const (
	anotherFolder = "pass --out with another folder"
	AnotherFile   = "pass --out with a file in another folder"
)

// lockOut readies the output folder out for one command and locks it
// (docs/security.md: out folders are locked per run; symlinks in them are
// replaced, not followed). out must not be a symbolic link, is created when
// missing, and another evalgate writing to it stops this one at once: exit
// 3, with hint, what to do instead of waiting. release gives up the lock
// and removes the lock file, and the folder too when this command created
// it and wrote nothing there (a run that could not happen leaves nothing);
// the system gives up the lock when the process ends, however it ends.
func lockOut(out, hint string) (release func(), err error) {
	fi, err := os.Lstat(out)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, runError(fmt.Errorf("the output folder %q is a symbolic link; evalgate does not write through links: remove the link, or pass --out with a real folder", out))
	}
	created := errors.Is(err, fs.ErrNotExist)
	for range 10 {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, runError(fmt.Errorf("could not create the output folder %q: %w", out, err))
		}
		release, err := LockFolder(out, hint)
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(pe, fs.ErrNotExist) {
			continue // another evalgate removed the folder it had made
		}
		if err != nil || !created {
			return release, err
		}
		return func() {
			release()
			_ = os.Remove(out) // only when empty
		}, nil
	}
	return nil, runError(fmt.Errorf("could not create the output folder %q: it keeps being removed", out))
}

// LockFolder locks the existing folder dir, as lockOut does. Holding the
// lock, it removes the trials' scratch files a killed run left there
// (results.RemoveStaleSpills): no running evalgate's can be there.
func LockFolder(dir, hint string) (release func(), err error) {
	l, err := dirlock.Acquire(dir)
	if errors.Is(err, dirlock.ErrLocked) {
		return nil, runError(fmt.Errorf("another evalgate run is writing to %q: wait for it to finish, or %s", dir, hint))
	}
	if err != nil {
		return nil, runError(fmt.Errorf("could not lock the output folder %q: %w", dir, err))
	}
	if err := results.RemoveStaleSpills(dir); err != nil {
		_ = l.Release()
		return nil, runError(fmt.Errorf("could not remove the scratch files (.trials-*.json) a killed run left in the output folder %q: %w; remove them by hand", dir, err))
	}
	return func() { _ = l.Release() }, nil
}

// IsOutFolder reports whether an evalgate may be writing to dir: it holds
// a lock file, there while a run writes (or left by one that was killed).
func IsOutFolder(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, dirlock.File))
	return err == nil
}
