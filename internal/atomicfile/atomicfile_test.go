package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "file.json")
	assert.NilError(t, WriteFile(path, []byte("one"), 0o640, 0o750))
	assert.NilError(t, WriteFile(path, []byte("two"), 0o640, 0o750))
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "two")
	info, err := os.Stat(path)
	assert.NilError(t, err)
	assert.Equal(t, info.Mode().Perm(), os.FileMode(0o640))
	entries, err := os.ReadDir(filepath.Dir(path))
	assert.NilError(t, err)
	assert.Equal(t, len(entries), 1, "a temporary file was left behind")
}

// TestStreamFails: a write that fails halfway leaves the old file whole
// and no temporary file behind.
func TestStreamFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file.json")
	assert.NilError(t, WriteFile(path, []byte("old"), 0o644, 0o755))
	err := Stream(path, 0o644, 0o755, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half")
		return errors.New("disk on fire")
	})
	assert.Error(t, err, "disk on fire")
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "old")
	entries, err := os.ReadDir(filepath.Dir(path))
	assert.NilError(t, err)
	assert.Equal(t, len(entries), 1, "a temporary file was left behind")
}

// TestLinksAreReplaced: a symbolic link where a file is written, or where a
// folder must be, is replaced; what it pointed at is left as it was.
func TestLinksAreReplaced(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "target")
	assert.NilError(t, os.WriteFile(target, []byte("keep"), 0o644))
	assert.NilError(t, os.Mkdir(filepath.Join(outside, "folder"), 0o755))

	link := func(name, to string) string {
		p := filepath.Join(dir, name)
		assert.NilError(t, os.Symlink(to, p))
		return p
	}
	assert.NilError(t, WriteFile(link("written", target), []byte("new"), 0o644, 0o755))
	f, err := Create(link("created", target), 0o644)
	assert.NilError(t, err)
	_, err = f.WriteString("new")
	assert.NilError(t, err)
	assert.NilError(t, f.Close())
	assert.NilError(t, EnsureDir(link("folder", filepath.Join(outside, "folder")), 0o755))
	assert.NilError(t, EnsureDir(link("dangling", filepath.Join(outside, "missing")), 0o755))

	for _, name := range []string{"written", "created"} {
		fi, err := os.Lstat(filepath.Join(dir, name))
		assert.NilError(t, err)
		assert.Assert(t, fi.Mode().IsRegular(), "%s is %v", name, fi.Mode())
		data, err := os.ReadFile(filepath.Join(dir, name))
		assert.NilError(t, err)
		assert.Equal(t, string(data), "new")
	}
	for _, name := range []string{"folder", "dangling"} {
		fi, err := os.Lstat(filepath.Join(dir, name))
		assert.NilError(t, err)
		assert.Assert(t, fi.IsDir(), "%s is %v", name, fi.Mode())
	}
	data, err := os.ReadFile(target)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "keep")
	entries, err := os.ReadDir(outside)
	assert.NilError(t, err)
	assert.Equal(t, len(entries), 2, "a file or folder was made outside")
}

func TestEnsureDir(t *testing.T) {
	dir := t.TempDir()
	nested := filepath.Join(dir, "a", "b")
	assert.NilError(t, EnsureDir(nested, 0o755))
	assert.NilError(t, EnsureDir(nested, 0o755), "an existing folder is fine")
	file := filepath.Join(dir, "file")
	assert.NilError(t, os.WriteFile(file, []byte("keep"), 0o644))
	assert.ErrorContains(t, EnsureDir(file, 0o755), "is a file, not a folder")
	data, err := os.ReadFile(file)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "keep")
}

// TestCreateReplaces: Create replaces an existing file rather than
// truncating it, so a reader of the old one keeps what it read.
func TestCreateReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events")
	assert.NilError(t, os.WriteFile(path, []byte("old"), 0o600))
	old, err := os.Open(path)
	assert.NilError(t, err)
	defer old.Close()
	f, err := Create(path, 0o644)
	assert.NilError(t, err)
	assert.NilError(t, f.Close())
	data, err := io.ReadAll(old)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "old")
	fi, err := os.Stat(path)
	assert.NilError(t, err)
	assert.Equal(t, fi.Size(), int64(0))
	assert.Equal(t, fi.Mode().Perm(), os.FileMode(0o644))
}
