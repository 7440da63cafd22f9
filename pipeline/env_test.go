package pipeline

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

// TestIsTerminal checks terminal detection on what stdout really is: a
// character device such as /dev/null is not a terminal, and neither is a
// file or a buffer.
func TestIsTerminal(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	assert.NilError(t, err)
	defer devNull.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	assert.NilError(t, err)
	defer file.Close()
	for name, stdout := range map[string]io.Writer{
		"/dev/null": devNull,
		"file":      file,
		"buffer":    new(bytes.Buffer),
	} {
		c := &Env{Stdout: stdout}
		assert.Check(t, !c.isTerminal(), name)
	}
}
