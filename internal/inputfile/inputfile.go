// Package inputfile reads a file that evalgate's input names: a suite, the
// project file, a baseline. On a pull request that input may be the
// attacker's, so the file must be a regular file once links are resolved
// (not /dev/zero, a FIFO, a device or a folder) and is read through a size
// limit, so that nothing it points at can hang the read or fill memory.
package inputfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
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

// Read reads the regular file at path, of at most limit bytes. It looks
// before it opens (opening a FIFO would wait for a writer) and again at
// what it opened (the path may have been replaced in between), and reads
// through the limit (a file may grow while it is read). The errors are the
// system's (an *fs.PathError), a *NotRegularError or a *TooLargeError.
func Read(path string, limit int64) ([]byte, error) {
	f, info, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := bytes.NewBuffer(make([]byte, 0, min(info.Size(), limit)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if n := int64(buf.Len()); n > limit {
		return nil, &TooLargeError{Size: n, Limit: limit}
	}
	return buf.Bytes(), nil
}

// open opens the file at path when it is a regular file of at most limit
// bytes, checked before opening it (opening a named pipe would wait for a
// writer) and again on what was opened.
func open(path string, limit int64) (*os.File, fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := check(info, limit); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if info, err = f.Stat(); err == nil {
		err = check(info, limit)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
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

// Open opens the file at path for reading a part at a time, with the
// checks of Read: a regular file once links are resolved, of at most limit
// bytes. Reading past limit bytes (the file grew) fails with a
// *TooLargeError. Datasets are read this way, a row at a time.
func Open(path string, limit int64) (io.ReadCloser, error) {
	f, _, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	return &limitedFile{f: f, left: limit}, nil
}

// limitedFile reads a file up to a limit, and fails past it.
type limitedFile struct {
	f    *os.File
	left int64
	read int64
}

func (l *limitedFile) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more says whether the file holds more than the limit.
		var one [1]byte
		if n, _ := l.f.Read(one[:]); n > 0 {
			return 0, &TooLargeError{Size: l.read + 1, Limit: l.read}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	l.read += int64(n)
	return n, err
}

func (l *limitedFile) Close() error { return l.f.Close() }
