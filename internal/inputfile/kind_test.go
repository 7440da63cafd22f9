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

// TestNewKind adds a kind of input the way a feature does, by declaring
// it, and shows that every check applies to it with no code of its own:
// the regular file check (a link to /dev/zero, a FIFO, a folder), the
// root (a link out of it), the limit (a file over it, checked before
// reading, and one that grows past it while read), and the wording.
func TestNewKind(t *testing.T) {
	notes := Kind{What: "a notes file", Limit: 16, Hint: "write the notes in notes.txt"}

	root := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(root, name)
		assert.NilError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	ok := write("notes.txt", "a short note")
	large := write("large.txt", "more than sixteen bytes")
	zero := filepath.Join(root, "zero.txt")
	assert.NilError(t, os.Symlink("/dev/zero", zero))
	secret := filepath.Join(t.TempDir(), "secret")
	assert.NilError(t, os.WriteFile(secret, []byte("key"), 0o600))
	out := filepath.Join(root, "out.txt")
	assert.NilError(t, os.Symlink(secret, out))
	fifo := filepath.Join(root, "fifo.txt")
	haveFIFO := syscall.Mkfifo(fifo, 0o644) == nil

	data, err := notes.ReadIn(root, ok)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "a short note")

	type testCase struct {
		name, root, path string
		is               func(error) bool
		message          string
	}
	run := func(t *testing.T, tc testCase) {
		_, err := notes.ReadIn(tc.root, tc.path)
		_, isErr := errors.AsType[*Error](err)
		assert.Assert(t, isErr, "%v", err)
		assert.Assert(t, tc.is(err), "%v", err)
		assert.Equal(t, err.Error(), tc.message)
		// Opened a part at a time, it is refused alike.
		_, err = notes.OpenIn(tc.root, tc.path)
		assert.Equal(t, err.Error(), tc.message)
	}
	isType := func(target any) func(error) bool {
		return func(err error) bool { return errors.As(err, target) }
	}
	testCases := []testCase{
		{name: "a link to /dev/zero", root: "", path: zero, is: isType(new(*NotRegularError)),
			message: "expected a notes file (a regular file), found a character device; write the notes in notes.txt"},
		{name: "a link to /dev/zero, with a root", root: root, path: zero, is: isType(new(*OutsideError)),
			message: "expected a notes file inside " + root + ", got a path that leads outside it through a symbolic link (to /dev/zero); write the notes in notes.txt"},
		{name: "a folder", root: "", path: root, is: isType(new(*NotRegularError)),
			message: "expected a notes file (a regular file), found a folder; write the notes in notes.txt"},
		{name: "over the limit", root: root, path: large, is: isType(new(*TooLargeError)),
			message: "the file is 23 bytes, more than the 16 bytes a notes file may hold; write the notes in notes.txt"},
		{name: "a link out of the root", root: root, path: out, is: isType(new(*OutsideError)),
			message: "expected a notes file inside " + root + ", got a path that leads outside it through a symbolic link (to " + secret + "); write the notes in notes.txt"},
		{name: "missing", root: root, path: filepath.Join(root, "none.txt"), is: func(err error) bool { return errors.Is(err, fs.ErrNotExist) },
			message: "no such file or directory"},
	}
	if haveFIFO {
		testCases = append(testCases, testCase{name: "a named pipe, refused at once", root: root, path: fifo, is: isType(new(*NotRegularError)),
			message: "expected a notes file (a regular file), found a named pipe; write the notes in notes.txt"})
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}

	t.Run("a file that grows past the limit while it is read", func(t *testing.T) {
		f, err := notes.OpenIn(root, ok)
		assert.NilError(t, err)
		defer f.Close()
		assert.NilError(t, os.WriteFile(ok, []byte("a note that grew long"), 0o644))
		_, err = io.ReadAll(f)
		_, over := errors.AsType[*TooLargeError](err)
		assert.Assert(t, over, "%v", err)
		// Its problem is worded without a size the file may not have.
		grown := &Error{Kind: notes, Path: ok, Err: err}
		assert.Equal(t, grown.Error(), "the file is over the 16 bytes a notes file may hold; write the notes in notes.txt")
	})
}
