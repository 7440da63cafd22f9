package regression

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/resultstest"
)

// TestPromoteKeepsTheAssessment: the promoted baseline keeps the run's
// assessment summary, on one line, so the next run's re-assessment has
// something to compare with.
func TestPromoteKeepsTheAssessment(t *testing.T) {
	r := headRun()
	r.Assessment = resultstest.Assessment()
	data, err := Promote(r)
	assert.NilError(t, err)
	lines := strings.Split(string(data), "\n")
	assert.Check(t, strings.HasPrefix(lines[4], `  "assessment": {"id":"asm-7"`), lines[4])
	path := filepath.Join(t.TempDir(), "baseline.json")
	assert.NilError(t, WritePromoted(path, r))
	base, err := Load(context.Background(), path, "")
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(base.Assessment, r.Assessment))
}
