package inputfile

import (
	"errors"
	"fmt"
	"io/fs"
)

// A Kind is one kind of file evalgate's inputs name: what messages call
// it and the most bytes one may hold. Declaring one is all a new kind of
// input needs: its Read and Open are those of the package, so the regular
// file check, the root and the limit apply to it, and its problems are
// worded as every other kind's.
//
//	var Labels = inputfile.Kind{What: "a labels file", Limit: 64 << 20, Hint: "write one label a line"}
//	data, err := Labels.ReadIn(repo, path)
type Kind struct {
	What  string // with its article: "a results file"
	Limit int64  // bytes
	// Hint says what to do about a file that is not what it should be
	// ("name the results.json a run wrote"); "" for none.
	Hint string
}

// Read reads the file at path as Read does; the error is an *Error.
func (k Kind) Read(path string) ([]byte, error) { return k.ReadIn("", path) }

// ReadIn reads the file at path, inside root, as ReadIn does; the error
// is an *Error.
func (k Kind) ReadIn(root, path string) ([]byte, error) {
	data, err := ReadIn(root, path, k.Limit)
	if err != nil {
		return nil, k.wrap(root, path, err)
	}
	return data, nil
}

// Open opens the file at path as Open does; the error is an *Error.
func (k Kind) Open(path string) (*File, error) { return k.OpenIn("", path) }

// OpenIn opens the file at path, inside root, as OpenIn does; the error
// is an *Error. Reading past the limit fails with a *TooLargeError.
func (k Kind) OpenIn(root, path string) (*File, error) {
	f, err := OpenIn(root, path, k.Limit)
	if err != nil {
		return nil, k.wrap(root, path, err)
	}
	return f, nil
}

func (k Kind) wrap(root, path string, err error) error {
	return &Error{Kind: k, Path: path, Root: root, Err: err}
}

// Error is a file of a Kind that could not be read. Its message says
// what is wrong without the path, which the caller names: "expected a
// results file (a regular file), found a character device". Err is a
// *NotRegularError, a *TooLargeError, an *OutsideError or the system's
// error (errors.Is(err, fs.ErrNotExist) holds for a missing file).
type Error struct {
	Kind Kind
	Path string
	Root string // "" when the file has none
	Err  error
}

func (e *Error) Error() string {
	msg := e.problem()
	if e.Kind.Hint != "" && !errors.Is(e.Err, fs.ErrNotExist) {
		msg += "; " + e.Kind.Hint
	}
	return msg
}

// problem is what is wrong, in words.
func (e *Error) problem() string {
	if nr, ok := errors.AsType[*NotRegularError](e.Err); ok {
		return fmt.Sprintf("expected %s (a regular file), found %s", e.Kind.What, nr.What())
	}
	if tl, ok := errors.AsType[*TooLargeError](e.Err); ok {
		if tl.Size == tl.Limit+1 { // found while reading: it grew past the limit
			return fmt.Sprintf("the file is over the %s %s may hold", Size(tl.Limit), e.Kind.What)
		}
		return fmt.Sprintf("the file is %d bytes, more than the %s %s may hold", tl.Size, Size(tl.Limit), e.Kind.What)
	}
	if out, ok := errors.AsType[*OutsideError](e.Err); ok {
		if out.Real == "" {
			return fmt.Sprintf("expected %s inside %s, got a path that leads outside it", e.Kind.What, out.Root)
		}
		return fmt.Sprintf("expected %s inside %s, got a path that leads outside it through a symbolic link (to %s)", e.Kind.What, out.Root, out.Real)
	}
	if pe, ok := errors.AsType[*fs.PathError](e.Err); ok {
		return pe.Err.Error()
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Size writes a limit in bytes as people read it: "64 MiB", "1 GiB",
// "1000 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
