package spelling

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"expected", "expected", 0},
		{"expectd", "expected", 1},
		{"evlas", "evals", 1}, // a swap of neighbours is one edit
		{"stratgy", "strategy", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3},
	} {
		assert.Equal(t, Distance(tc.a, tc.b), tc.want, "%q %q", tc.a, tc.b)
		assert.Equal(t, Distance(tc.b, tc.a), tc.want, "%q %q", tc.b, tc.a)
	}
}

func TestNearest(t *testing.T) {
	keys := []string{"taskId", "input", "expected", "fixtures"}
	for _, tc := range []struct {
		name  string
		limit int
		want  string
	}{
		{"expectd", 2, "expected"},
		{"TASKID", 0, "taskId"}, // case alone is no edit
		{"inptu", 1, "input"},
		{"output", 2, ""},
		{"", 2, ""},
	} {
		assert.Equal(t, Nearest(tc.name, keys, tc.limit), tc.want, tc.name)
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("expectd", "expected")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := Distance(a, b)
		if d < 0 || d > max(len(a), len(b)) || (d == 0) != (a == b) || d != Distance(b, a) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, d)
		}
	})
}
