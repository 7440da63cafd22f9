package inputfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "suite.json")
	assert.NilError(t, os.WriteFile(file, []byte("0123456789"), 0o644))
	zero := filepath.Join(dir, "zero.json")
	assert.NilError(t, os.Symlink("/dev/zero", zero))
	fifo := filepath.Join(dir, "fifo.json")
	haveFIFO := syscall.Mkfifo(fifo, 0o644) == nil

	data, err := Read(file, 10)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "0123456789")

	_, err = Read(file, 9)
	tl, ok := errors.AsType[*TooLargeError](err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, *tl, TooLargeError{Size: 10, Limit: 9})

	for path, what := range map[string]string{dir: "a folder", zero: "a character device"} {
		_, err = Read(path, 1<<20)
		nr, ok := errors.AsType[*NotRegularError](err)
		assert.Assert(t, ok, "%s: %v", path, err)
		assert.Equal(t, nr.What(), what)
	}
	if haveFIFO {
		_, err = Read(fifo, 1<<20) // returns at once rather than waiting for a writer
		nr, ok := errors.AsType[*NotRegularError](err)
		assert.Assert(t, ok, "%v", err)
		assert.Equal(t, nr.What(), "a named pipe")
	}

	_, err = Read(filepath.Join(dir, "missing.json"), 10)
	assert.Assert(t, errors.Is(err, fs.ErrNotExist), "%v", err)
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rows.csv")
	assert.NilError(t, os.WriteFile(file, []byte("0123456789"), 0o644))
	zero := filepath.Join(dir, "zero.csv")
	assert.NilError(t, os.Symlink("/dev/zero", zero))

	f, err := Open(file, 10)
	assert.NilError(t, err)
	data, err := io.ReadAll(f)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "0123456789")
	assert.NilError(t, f.Close())

	_, err = Open(file, 9)
	_, ok := errors.AsType[*TooLargeError](err)
	assert.Assert(t, ok, "%v", err)

	// A file that grows after the check fails at the limit.
	f, err = Open(file, 10)
	assert.NilError(t, err)
	defer f.Close()
	assert.NilError(t, os.WriteFile(file, []byte("0123456789ab"), 0o644))
	_, err = io.ReadAll(f)
	_, ok = errors.AsType[*TooLargeError](err)
	assert.Assert(t, ok, "%v", err)

	_, err = Open(zero, 1<<20)
	nr, ok := errors.AsType[*NotRegularError](err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, nr.What(), "a character device")
}

func TestReadIn(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(root, "sub", "in.json"), []byte("in"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(root, "top.json"), []byte("top"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644))
	assert.NilError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "out.json")))
	assert.NilError(t, os.Symlink(filepath.Join(root, "sub", "in.json"), filepath.Join(root, "abs.json")))
	assert.NilError(t, os.Symlink("sub/in.json", filepath.Join(root, "rel.json")))
	// The root itself may be reached through a link.
	linked := filepath.Join(t.TempDir(), "root")
	assert.NilError(t, os.Symlink(root, linked))

	type testCase struct {
		name, root, path string
		want             string // the content; "" for an error
		outside          bool
	}
	run := func(t *testing.T, tc testCase) {
		data, err := ReadIn(tc.root, tc.path, 1<<20)
		if tc.want != "" {
			assert.NilError(t, err)
			assert.Equal(t, string(data), tc.want)
			return
		}
		_, ok := errors.AsType[*OutsideError](err)
		assert.Assert(t, ok == tc.outside, "%v", err)
		assert.Assert(t, err != nil)
	}
	for _, tc := range []testCase{
		{name: "a file inside", root: root, path: filepath.Join(root, "sub", "in.json"), want: "in"},
		{name: "a relative link inside", root: root, path: filepath.Join(root, "rel.json"), want: "in"},
		{name: "an absolute link inside", root: root, path: filepath.Join(root, "abs.json"), want: "in"},
		{name: "through a linked root", root: linked, path: filepath.Join(linked, "sub", "in.json"), want: "in"},
		{name: "a link out", root: root, path: filepath.Join(root, "out.json"), outside: true},
		{name: "a path that climbs out", root: filepath.Join(root, "sub"), path: filepath.Join(root, "sub", "..", "top.json"), outside: true},
		{name: "a missing file that climbs out", root: filepath.Join(root, "sub"), path: filepath.Join(root, "missing.json"), outside: true},
		{name: "no root", root: "", path: filepath.Join(root, "out.json"), want: "secret"},
		{name: "a missing file", root: root, path: filepath.Join(root, "missing.json")},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
