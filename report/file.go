package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// writeFileAtomic writes data to path through a temporary file in the same
// folder and a rename, so a reader never sees half a file and an interrupted
// run never leaves a truncated one. Missing folders are created with dirPerm.
func writeFileAtomic(path string, data []byte, perm, dirPerm os.FileMode) error {
	return streamFileAtomic(path, perm, dirPerm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// streamFileAtomic is writeFileAtomic for content written by write through
// a buffer, so that it need not be held in memory whole.
func streamFileAtomic(path string, perm, dirPerm os.FileMode, write func(io.Writer) error) (err error) {
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

// safeName rejects an id that cannot be used as one file or folder name:
// empty, "." or "..", or holding a path separator or a NUL byte. Suite and
// task ids that passed suite validation always pass.
func safeName(id string) error {
	switch {
	case id == "":
		return errors.New("the id is empty")
	case id == "." || id == "..":
		return fmt.Errorf("the id %q is not a file name", id)
	case strings.ContainsAny(id, `/\`+"\x00"):
		return fmt.Errorf("the id %q holds a path separator", id)
	}
	return nil
}
