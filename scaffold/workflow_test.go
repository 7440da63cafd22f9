package scaffold

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestInitWritesTheDocumentedWorkflow checks that the workflow `evalgate
// init` writes is, byte for byte, the one the README and
// docs/github-action.md show: the first yaml block of the README's
// "GitHub Actions" section and of the guide's "Quick start".
func TestInitWritesTheDocumentedWorkflow(t *testing.T) {
	dir := t.TempDir()
	var stdout bytes.Buffer
	assert.NilError(t, Init(&stdout, Options{Dir: dir, Template: Starter}))
	written, err := os.ReadFile(filepath.Join(dir, ".github", "workflows", "evalgate.yml"))
	assert.NilError(t, err)

	for _, doc := range []struct{ file, section string }{
		{filepath.Join("..", "README.md"), "## GitHub Actions"},
		{filepath.Join("..", "docs", "github-action.md"), "## Quick start"},
	} {
		t.Run(filepath.Base(doc.file), func(t *testing.T) {
			block := firstYAMLBlock(t, doc.file, doc.section)
			assert.Equal(t, string(written), block, "the workflow init writes differs from the one in %s, %q", doc.file, doc.section)
		})
	}
}

// firstYAMLBlock is the body of the first ```yaml block after the heading
// section in the Markdown file.
func firstYAMLBlock(t *testing.T, file, section string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	assert.NilError(t, err)
	text := string(data)
	i := strings.Index(text, "\n"+section+"\n")
	assert.Assert(t, i >= 0, "%s has no section %q", file, section)
	text = text[i:]
	start := strings.Index(text, "\n```yaml\n")
	assert.Assert(t, start >= 0, "%s, %q, has no yaml block", file, section)
	text = text[start+len("\n```yaml\n"):]
	end := strings.Index(text, "\n```\n")
	assert.Assert(t, end >= 0, "%s, %q: the yaml block never ends", file, section)
	return text[:end+1]
}
