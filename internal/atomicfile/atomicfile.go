// Package atomicfile writes a file whole or not at all: through a temporary
// file in the same folder, synced, then renamed into place, so a reader
// never sees half a file and an interrupted run never leaves a truncated
// one.
package atomicfile

import (
	"bufio"
	"io"
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
