package results

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestPosition(t *testing.T) {
	doc := `{
  "runId": "r",
  "a\u002fb": {"x~y": 1},
  "suites": [
    {"suiteId": "s", "tasks": [{"taskId": "t0", "latencyMs": 5, "note": "a, \"b\" ] }"},
      {"taskId": "t1",
       "latencyMs":   1e12, "trials": [[1, {"k": [2]}], null]}]},
    {"suiteId": "s2", "tasks": []}
  ]
}
`
	type testCase struct {
		pointer   string
		line, col int
		ok        bool
	}
	for _, tc := range []testCase{
		{"", 1, 1, true},
		{"/runId", 2, 12, true},
		{"/a~1b/x~0y", 3, 23, true},
		{"/suites/0/tasks/0/latencyMs", 5, 62, true},
		{"/suites/0/tasks/1/latencyMs", 7, 23, true},
		{"/suites/0/tasks/1/trials/0/1/k/0", 7, 51, true},
		{"/suites/1/suiteId", 8, 17, true},
		{"/suites/1/tasks/0", 0, 0, false},
		{"/suites/2", 0, 0, false},
		{"/suites/x", 0, 0, false},
		{"/missing", 0, 0, false},
		{"runId", 0, 0, false},
	} {
		line, col, ok := Position(strings.NewReader(doc), tc.pointer)
		assert.Check(t, ok == tc.ok && line == tc.line && col == tc.col, "%s: got %d:%d %v, want %d:%d %v", tc.pointer, line, col, ok, tc.line, tc.col, tc.ok)
	}
	// Not JSON, or cut short: nothing found, and no panic.
	for _, doc := range []string{"", "{", `{"a": [1, 2`, `{"a" 1}`, "[1 2]", `{"a": "\u00zz"}`} {
		_, _, ok := Position(strings.NewReader(doc), "/a/5")
		assert.Check(t, !ok, "%q", doc)
	}
}

func FuzzPosition(f *testing.F) {
	f.Add(`{"suites": [{"tasks": [{"latencyMs": 1}]}]}`, "/suites/0/tasks/0/latencyMs")
	f.Add(`[1, "a", {"b": null}]`, "/2/b")
	f.Fuzz(func(t *testing.T, doc, pointer string) {
		line, col, ok := Position(strings.NewReader(doc), pointer)
		if ok && (line < 1 || col < 1) {
			t.Fatalf("%q %q: %d:%d", doc, pointer, line, col)
		}
	})
}
