package words

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		n             int
		plural, count string
	}{
		{0, "tasks", "0 tasks"},
		{1, "task", "1 task"},
		{2, "tasks", "2 tasks"},
		{-1, "tasks", "-1 tasks"},
	} {
		assert.Equal(t, Plural(tc.n, "task", "tasks"), tc.plural)
		assert.Equal(t, Count(tc.n, "task", "tasks"), tc.count)
	}
}
