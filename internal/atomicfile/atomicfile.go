// Package atomicfile writes a file whole or not at all: through a temporary
// file in the same folder, synced, then renamed into place, so a reader
// never sees half a file and an interrupted run never leaves a truncated
// one.
//
// A symbolic link at the file's path is replaced, never written through:
// the rename puts the new file in the link's place. EnsureDir does the same
// for a folder, and Create for a file written while it grows.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path with perm; missing folders are created
// with dirPerm.
func WriteFile(path string, data []byte, perm, dirPerm os.FileMode) error {
	return Stream(path, perm, dirPerm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Stream is WriteFile for content written by write through a buffer, so
// that it need not be held in memory whole. When write fails, path is left
// as it was.
func Stream(path string, perm, dirPerm os.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Create creates the file path, empty, and returns it open for writing,
// for a file that is read while it grows (an event stream): unlike
// WriteFile it is in place at once. It is made as a temporary file in the
// same folder and renamed to path, so a symbolic link at path is replaced,
// not followed, and an existing file is replaced rather than truncated.
func Create(path string, perm os.FileMode) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// EnsureDir makes path a real folder. A symbolic link at path is removed,
// never followed, and a folder made in its place; a missing folder is made
// with perm, its missing parents too. Only path's last element is checked:
// the folders above it are taken as named. A file that is not a folder or
// a link stays, and is an error.
func EnsureDir(path string, perm os.FileMode) error {
	for range 2 {
		fi, err := os.Lstat(path)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		case err == nil:
			return fmt.Errorf("%s is a file, not a folder", path)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), perm); err != nil {
			return err
		}
		err = os.Mkdir(path, perm)
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		// Something appeared at path since Lstat: look again, once.
	}
	return fmt.Errorf("%s keeps changing; no other program should write there while evalgate does", path)
}
