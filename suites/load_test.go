package suites

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

// TestLoadWithHook: the hook is called around the parse of every file,
// with its path, its size and its syntax, and what it returns is called
// once when the parse ends.
func TestLoadWithHook(t *testing.T) {
	dir := t.TempDir()
	jsonSuite := benchWorkload(2)
	yamlSuite := []byte("suiteId: hook.evals.yaml\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: t1\n    input: hi\n    expected: {kind: golden, match: {strategy: exact, value: hi}}\n")
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "a.json"), jsonSuite, 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "b.yaml"), yamlSuite, 0o644))

	type call struct {
		Path string
		Size int
		JSON bool
	}
	var calls []call
	open := 0
	hook := func(path string, size int, json bool) func() {
		assert.Equal(t, open, 0, "a parse began before the last one ended")
		calls = append(calls, call{filepath.Base(path), size, json})
		open++
		return func() { open-- }
	}
	all, err := LoadWith(hook, dir)
	assert.NilError(t, err)
	assert.Equal(t, len(all), 2)
	assert.Equal(t, open, 0, "a parse did not end")
	assert.DeepEqual(t, calls, []call{{"a.json", len(jsonSuite), true}, {"b.yaml", len(yamlSuite), false}})
}
