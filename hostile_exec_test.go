package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// hostileExecCases try the one check executor (docs/security.md, "One
// check executor"): checks of every kind under the trial's deadline and
// the run's context, regular expressions capped on their compiled
// programs and their cost, the world within its budget.
func hostileExecCases() []hostileCase {
	return []hostileCase{
		{
			name: "rubric and graded asserts that would run for minutes", agent: "letters.sh", suite: "slowrubric.yaml",
			wantExit: 1, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				res := readOut(t, dir, "results.json")
				assert.Check(t, is.Equal(strings.Count(res, `"errorKind": "timeout"`), 4), res)
				assert.Check(t, is.Contains(res, "the task's checks did not finish within its timeout of 3s"))
			},
		},
		{
			name: "a pattern built at run time past the caps, and a match past the cost budget", agent: "letters.sh", suite: "costlyrubric.yaml",
			wantExit: 1, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				res := readOut(t, dir, "results.json")
				assert.Check(t, is.Equal(strings.Count(res, `"errorKind": "check"`), 4), res)
				assert.Check(t, is.Contains(res, "in its expression, the pattern of a matches: expected a regular expression that compiles to at most 1000 instructions"))
				assert.Check(t, is.Contains(res, "in its expression, a matches: expected a regular expression and a text that take at most"))
			},
		},
		{
			// The assert would run for days: the run ends only because
			// Ctrl-C stopped it.
			name: "SIGINT while a rubric assert runs", agent: "marking.sh", exec: true, suite: "sigintrubric.yaml",
			setup: func(t *testing.T, dir string) {
				data, err := os.ReadFile(filepath.Join("testdata", "hostile", "agents", "marker.sh"))
				assert.NilError(t, err)
				writeEvals(t, dir, "marker.sh", string(data))
			},
			wantExit: 130, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				assert.Check(t, is.Contains(readOut(t, dir, "results.json"), `"interrupted": true`))
			},
		},
		{
			name: "a world that copies itself into itself", agent: "grower.sh", exec: true, suite: "grower.yaml",
			wantExit: 1, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				res := readOut(t, dir, "results.json")
				assert.Check(t, is.Equal(strings.Count(res, `"errorKind": "world-too-large"`), 4), res)
				assert.Check(t, is.Contains(res, "replaying the goldCalls: call 16 would have grown the world past"))
			},
		},
	}
}
