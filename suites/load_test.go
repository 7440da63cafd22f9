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

// TestLoadSizeLimits checks that a suite file over its size limit is
// refused before it is read: MaxSuiteBytes for any suite, MaxYAMLBytes
// for YAML, by extension or, without one, by content.
func TestLoadSizeLimits(t *testing.T) {
	cases := []struct {
		name string
		size int64
		want string
	}{
		{"big.json", MaxSuiteBytes + 1, "the file is 67108865 bytes; expected a suite of at most 67108864 bytes (64 MiB) [io]"},
		{"big.yaml", MaxYAMLBytes + 1, "the file is 4194305 bytes; expected a YAML suite of at most 4194304 bytes (4 MiB): YAML is parsed whole, so write a larger suite as JSON, which is read a task at a time [io]"},
		{"big", MaxYAMLBytes + 1, "the file is 4194305 bytes; expected a YAML suite of at most 4194304 bytes (4 MiB): YAML is parsed whole, so write a larger suite as JSON, which is read a task at a time [io]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name)
			f, err := os.Create(path)
			assert.NilError(t, err)
			assert.NilError(t, f.Truncate(c.size)) // sparse: no disk used
			assert.NilError(t, f.Close())
			_, err = Load(path)
			assert.Error(t, err, path+": "+c.want)
		})
	}
}
