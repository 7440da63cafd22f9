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
