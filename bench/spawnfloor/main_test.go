package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestRun checks that the floor runs the bench agent on every case and
// fails when an answer is not the one the case expects.
func TestRun(t *testing.T) {
	agent, err := filepath.Abs(filepath.Join("..", "agent-plain.sh"))
	assert.NilError(t, err)
	type testCase struct {
		name    string
		cases   string
		wantErr string
	}
	run := func(t *testing.T, tc testCase) {
		path := filepath.Join(t.TempDir(), "cases.jsonl")
		assert.NilError(t, os.WriteFile(path, []byte(tc.cases), 0o644))
		var stderr bytes.Buffer
		err := run([]string{"spawnfloor", "-cases", path, "-agent", agent, "-concurrency", "2"}, &stderr)
		if tc.wantErr == "" {
			assert.NilError(t, err)
			return
		}
		assert.ErrorContains(t, err, tc.wantErr)
	}
	line := func(id, input, want string) string {
		return `{"id":"` + id + `","input":"` + input + `","asserts":[{"type":"equals","value":"` +
			strings.ReplaceAll(want, `"`, `\"`) + `"},{"type":"contains","value":"x"}]}` + "\n"
	}
	for _, tc := range []testCase{
		{
			name: "every answer as expected",
			cases: line("t0", "task t0: add 627 2", `{"id":"t0","answer":629,"text":"The sum of 627 and 2 is 629"}`) +
				line("t1", "task t1: add 1 2", `{"id":"t1","answer":3,"text":"The sum of 1 and 2 is 3"}`) +
				line("t2", "task t2: add 0 0", `{"id":"t2","answer":0,"text":"The sum of 0 and 0 is 0"}`),
		},
		{
			name:    "a wrong answer",
			cases:   line("t0", "task t0: add 1 2", `{"id":"t0","answer":4,"text":"The sum of 1 and 2 is 4"}`),
			wantErr: "case t0: the agent answered",
		},
		{name: "no cases", cases: "", wantErr: "no cases"},
		{name: "not JSON", cases: "{\n", wantErr: "cases.jsonl:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
