package suites

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestStateFile loads a world from a file beside the suite, in the folder
// Load walks: it is the task's state and not a suite of its own.
func TestStateFile(t *testing.T) {
	type testCase struct {
		name     string
		files    map[string]string
		want     string   // the first task's state, canonical
		wantErrs []string // instead, with the folder's path as "DIR"
	}
	suite := func(fixtures string) string {
		return "suiteId: acme.t.evals.world\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: t\n    input: x\n    fixtures: " + fixtures + "\n    expected: {kind: golden, state: {}}\n"
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		for name, content := range tc.files {
			p := filepath.Join(dir, name)
			assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			assert.NilError(t, os.WriteFile(p, []byte(content), 0o644))
		}
		got, err := Load(dir)
		if tc.wantErrs != nil {
			assert.Assert(t, err != nil)
			lines := strings.Split(strings.ReplaceAll(err.Error(), dir, "DIR"), "\n")
			assert.DeepEqual(t, lines, tc.wantErrs)
			return
		}
		assert.NilError(t, err)
		assert.Equal(t, len(got), 1, "the state file is not a suite")
		var v any
		assert.NilError(t, json.Unmarshal(got[0].TaskFixtures(mustFull(t, got[0], got[0].Tasks[0])).State, &v))
		b, _ := json.Marshal(v)
		assert.Equal(t, string(b), tc.want)
	}
	for _, tc := range []testCase{
		{
			name: "YAML in the walked folder",
			files: map[string]string{
				"suite.yaml":       suite("{stateFile: worlds/shop.yaml}"),
				"worlds/shop.yaml": "orders:\n  A-1: {status: delivered}\n",
			},
			want: `{"orders":{"A-1":{"status":"delivered"}}}`,
		},
		{
			name: "the suite's world",
			files: map[string]string{
				"suite.yaml":      strings.Replace(suite("{}"), "tasks:", "fixtures: {stateFile: data/world.json}\ntasks:", 1),
				"data/world.json": `{"shared": true}`,
			},
			want: `{"shared":true}`,
		},
		{
			name:  "JSON",
			files: map[string]string{"suite.yaml": suite("{stateFile: shop.json}"), "shop.json": `{"n": 1}`},
			want:  `{"n":1}`,
		},
		{
			name:     "outside the folder",
			files:    map[string]string{"suite.yaml": suite("{stateFile: ../shop.json}")},
			wantErrs: []string{`DIR/suite.yaml:7:27: /tasks/0/fixtures/stateFile: expected a path inside the suite's folder, relative to it (such as worlds/shop.json), got "../shop.json" [semantic]`},
		},
		{
			name:     "missing",
			files:    map[string]string{"suite.yaml": suite("{stateFile: shop.json}")},
			wantErrs: []string{`DIR/suite.yaml:7:27: /tasks/0/fixtures/stateFile: could not read the state file: could not read suite: no such file or directory [semantic]`},
		},
		{
			name:     "not JSON, at its own line",
			files:    map[string]string{"suite.yaml": suite("{stateFile: shop.json}"), "shop.json": "{\n  \"n\": 1,\n}\n"},
			wantErrs: []string{`DIR/shop.json:3:1: expected a key (a string in double quotes), got '}' [syntax]`},
		},
		{
			name:     "both",
			files:    map[string]string{"suite.yaml": suite("{state: {}, stateFile: shop.json}"), "shop.json": `{}`},
			wantErrs: []string{`DIR/suite.yaml:7:27: /tasks/0/fixtures/stateFile: the world is "state" or "stateFile", not both [semantic]`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
