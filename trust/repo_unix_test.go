//go:build unix

package trust

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

// TestReadRepoHostileFiles: a CODEOWNERS or CHANGELOG.md that is a link to
// a device is no evidence, and reading it neither hangs nor fills memory.
func TestReadRepoHostileFiles(t *testing.T) {
	root := t.TempDir()
	assert.NilError(t, os.Symlink("/dev/zero", filepath.Join(root, "CODEOWNERS")))
	assert.NilError(t, os.Symlink("/dev/zero", filepath.Join(root, "CHANGELOG.md")))
	r, err := ReadRepo(RepoOptions{Root: root, Project: root, AgentPaths: []string{"agent.py"}, AgentVersion: "1.0.0"})
	assert.NilError(t, err)
	assert.Equal(t, r.Owner, "")
	assert.Equal(t, r.Changelog, "")
}
