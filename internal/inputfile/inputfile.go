// Package inputfile is the one reader of the files evalgate's inputs name:
// suites, datasets, the project file, baselines, the shards given to
// merge, the runs given to assess and trust, trust.yaml, labels, cache
// entries. On a pull request any of them may be the attacker's, so a file
// is read only when it is a regular file once links are resolved (not
// /dev/zero, a FIFO, a device or a folder), inside its root when it has
// one, and of at most its limit, checked before a byte is read and again
// while reading (a file may grow): nothing a name points at can hang the
// read, fill memory or bring in a file from elsewhere on the machine.
//
// A Kind names one kind of file and its limit; its Read and Open apply
// every check and word the problem for the user (docs/security.md, "One
// reader for every input file"). Read and Open, with a limit, are the
// same checks with the bare errors. A test keeps production code from
// opening a file any other way (callers_test.go).
package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// NotRegularError is a path that is not a regular file once links are
// resolved.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string { return "found " + e.What() + ", not a regular file" }

// What names what the path is: "a folder", "a named pipe", "a socket", "a
// character device", "a device", or "not a regular file".
func (e *NotRegularError) What() string {
	switch m := e.Mode; {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// TooLargeError is a file over the limit: Size is what was found (its size,
// or limit+1 once the read went past the limit).
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the file is %d bytes, over the limit of %d", e.Size, e.Limit)
}

// OutsideError is a path that leads outside its root: by "..", or through
// a symbolic link. Real is where it leads, links resolved ("" when it
// climbs out by its name alone).
type OutsideError struct {
	Root, Real string
}

func (e *OutsideError) Error() string {
	if e.Real == "" {
		return fmt.Sprintf("the path leads outside %s", e.Root)
	}
	return fmt.Sprintf("the path leads outside %s, to %s", e.Root, e.Real)
}

// Read reads the regular file at path, of at most limit bytes. It looks
// before it opens (opening a FIFO would wait for a writer, opening a
// device may act on it) and again at what it opened (the path may have
// been replaced in between), and reads through the limit (a file may grow
// while it is read). The errors are the system's (an *fs.PathError), a
// *NotRegularError or a *TooLargeError.
func Read(path string, limit int64) ([]byte, error) {
	return ReadIn("", path, limit)
}

// ReadIn is Read of a file that must be inside the folder root once
// symbolic links are resolved, and is opened so that no link swapped in
// meanwhile leads out of it; an *OutsideError when it is not. A root of
// "" is no root: ReadIn is then Read.
func ReadIn(root, path string, limit int64) ([]byte, error) {
	f, err := OpenIn(root, path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := bytes.NewBuffer(make([]byte, 0, min(f.size, limit)+bytes.MinRead))
	if _, err := buf.ReadFrom(f); err != nil {
		if _, ok := errors.AsType[*TooLargeError](err); ok {
			return nil, err
		}
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return buf.Bytes(), nil
}

// Open opens the file at path for reading a part at a time, with the
// checks of Read: a regular file once links are resolved, of at most limit
// bytes. Reading past limit bytes (the file grew) fails with a
// *TooLargeError. Datasets and shards are read this way, a row or a task
// at a time.
func Open(path string, limit int64) (*File, error) {
	return OpenIn("", path, limit)
}

// OpenIn is Open of a file that must be inside root, as ReadIn.
func OpenIn(root, path string, limit int64) (*File, error) {
	if root == "" {
		f, err := openChecked(path, limit, os.Stat, func(flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) })
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	realRoot, rel, err := inside(root, path)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(realRoot)
	if err != nil {
		return nil, err
	}
	defer r.Close() // the file opened stays open
	f, err := openChecked(path, limit, func(string) (fs.FileInfo, error) { return r.Stat(rel) },
		func(flag int) (*os.File, error) { return r.OpenFile(rel, flag, 0) })
	if err != nil {
		return nil, err
	}
	return f, nil
}

// inside resolves root and path and returns the root, resolved, and the
// path relative to it; an *OutsideError when path is not inside root.
// The path, resolved, holds no link, so opening it in the root refuses
// any link swapped in since, even one that stays inside (a Root follows
// no absolute link).
func inside(root, path string) (realRoot, rel string, err error) {
	if realRoot, err = filepath.EvalSymlinks(root); err != nil {
		return "", "", err
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return "", "", err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if lexical, lerr := filepath.Abs(path); lerr == nil && !Within(root, lexical) {
			return "", "", &OutsideError{Root: root}
		}
		return "", "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", "", err
	}
	if !Within(realRoot, real) {
		return "", "", &OutsideError{Root: root, Real: real}
	}
	rel, err = filepath.Rel(realRoot, real)
	return realRoot, rel, err
}

// Within reports whether path is the folder dir or inside it, each made
// absolute, by their names: resolve links first to ask where a path
// leads.
func Within(dir, path string) bool {
	dir, err1 := filepath.Abs(dir)
	path, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// openChecked opens a file when stat says it is a regular file of at most
// limit bytes, checked before opening it and again on what was opened.
// It opens without waiting (a FIFO put there meanwhile does not block).
func openChecked(path string, limit int64, stat func(string) (fs.FileInfo, error), open func(flag int) (*os.File, error)) (*File, error) {
	info, err := stat(path)
	if err != nil {
		return nil, renamed(err, path)
	}
	if err := check(info, limit); err != nil {
		return nil, err
	}
	f, err := open(os.O_RDONLY | openNoWait)
	if err != nil {
		return nil, renamed(err, path)
	}
	if info, err = f.Stat(); err == nil {
		err = check(info, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, name: path, size: info.Size(), limit: limit, left: limit}, nil
}

// renamed names path in a system error about the file, which a Root
// names relative to itself.
func renamed(err error, path string) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Path != path {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}

// check says what is wrong with a file of info, read through limit.
func check(info fs.FileInfo, limit int64) error {
	if !info.Mode().IsRegular() {
		return &NotRegularError{Mode: info.Mode()}
	}
	if info.Size() > limit {
		return &TooLargeError{Size: info.Size(), Limit: limit}
	}
	return nil
}

// File is an input file opened by Open: it reads up to its limit, and
// fails past it.
type File struct {
	f     *os.File
	name  string
	size  int64 // when opened
	limit int64
	left  int64 // of the limit, for Read
}

// Read reads the next bytes; past the limit it fails with a
// *TooLargeError.
func (f *File) Read(p []byte) (int, error) {
	if f.left <= 0 {
		// One byte more says whether the file holds more than the limit.
		var one [1]byte
		if n, _ := f.f.Read(one[:]); n > 0 {
			return 0, &TooLargeError{Size: f.limit + 1, Limit: f.limit}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.f.Read(p)
	f.left -= int64(n)
	return n, err
}

// ReadAt reads len(p) bytes at off, within the limit: bytes past it read
// as the end of the file.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.limit {
		return 0, io.EOF
	}
	short := false
	if int64(len(p)) > f.limit-off {
		p, short = p[:f.limit-off], true
	}
	n, err := f.f.ReadAt(p, off)
	if err == nil && short {
		err = io.EOF
	}
	return n, err
}

// Name is the path the file was opened by.
func (f *File) Name() string { return f.name }

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.size }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }
