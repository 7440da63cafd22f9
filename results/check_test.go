package results_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// TestCheck: a run evalgate writes passes Check, and each kind of number
// out of range is reported at its JSON pointer.
func TestCheck(t *testing.T) {
	assert.NilError(t, resultstest.Full().Check())
	cases := []struct {
		name string
		edit func(r *results.Run)
		want string
	}{
		{"score above 1", func(r *results.Run) { r.Suites[0].Tasks[1].Score = 1e308 },
			"/suites/0/tasks/1/score: expected a number from 0 to 1, got 1e+308"},
		{"trial score below 0", func(r *results.Run) { r.Suites[0].Tasks[0].Trials[0].Score = -1 },
			"/suites/0/tasks/0/trials/0/score: expected a number from 0 to 1, got -1"},
		{"aggregate score", func(r *results.Run) { r.AggregateScore = 2 },
			"/aggregateScore: expected a number from 0 to 1, got 2"},
		{"negative suite cost", func(r *results.Run) { r.Suites[0].TotalCostUsd = -0.5 },
			"/suites/0/totalCostUsd: expected a cost in US dollars from 0 to 1e9, got -0.5"},
		{"negative user simulator cost", func(r *results.Run) { r.Suites[0].Tasks[0].Trials[0].UserCostUsd = -2 },
			"/suites/0/tasks/0/trials/0/userCostUsd: expected a cost in US dollars from 0 to 1e9, got -2"},
		{"user simulator cost of a run", func(r *results.Run) { r.UserCostUsd = 2e9 },
			"/userCostUsd: expected a cost in US dollars from 0 to 1e9, got 2e+09"},
		{"negative task latency", func(r *results.Run) { r.Suites[0].Tasks[0].LatencyMs = -1 },
			"/suites/0/tasks/0/latencyMs: expected a latency in milliseconds from 0 to 1e12, got -1"},
		{"negative tokens", func(r *results.Run) { r.Suites[0].Tasks[0].Trials[0].Tokens.Output = -3 },
			"/suites/0/tasks/0/trials/0/tokens/output: expected a whole number from 0 to 1e12, got -3"},
		{"assessment score", func(r *results.Run) { r.Assessment.Capability.Dimensions["learning_rate"] = resultstest.Ptr(1.5) },
			"/assessment/capability/dimensions/learning_rate: expected a number from 0 to 1, got 1.5"},
		{"threshold", func(r *results.Run) { c := -1.0; r.Suites[0].Thresholds.MaxCostUsd = &c },
			"/suites/0/thresholds/maxCostUsd: expected a cost in US dollars from 0 to 1e9, got -1"},
		{"trust level", func(r *results.Run) { r.Trust.Level = 5 },
			"/trust/level: expected a level from 0 to 4, got 5"},
		{"trust points", func(r *results.Run) { r.Trust.Dimensions.Governance = 21 },
			"/trust/dimensions/governance: expected points from 0 to 20, got 21"},
		{"schema violations", func(r *results.Run) {
			r.Suites[0].Tasks[0].Trials[0].Tools = []results.ToolUse{{Name: "x", SchemaViolations: -1}}
		}, "/suites/0/tasks/0/trials/0/tools/0/schemaViolations: expected a whole number from 0 to 1e12, got -1"},
		{"level above the scale", func(r *results.Run) {
			r.Suites[0].Tasks[0].Trials[0].Checks = []results.Check{graded(5, 0, 4)}
		}, "/suites/0/tasks/0/trials/0/checks/0/level: expected a level from 0 to 4, got 5"},
		{"level below the scale", func(r *results.Run) {
			r.Suites[0].Tasks[0].Trials[0].Checks = []results.Check{graded(0, 1, 3)}
		}, "/suites/0/tasks/0/trials/0/checks/0/level: expected a level from 1 to 3, got 0"},
		{"scale the wrong way round", func(r *results.Run) {
			r.Suites[0].Tasks[0].Trials[0].Checks = []results.Check{graded(2, 4, 2)}
		}, "/suites/0/tasks/0/trials/0/checks/0/scale/max: expected a whole number above scale/min, up to 1e6, got 2"},
		{"level without a scale", func(r *results.Run) {
			c := graded(2, 0, 4)
			c.Scale = nil
			r.Suites[0].Tasks[0].Trials[0].Checks = []results.Check{c}
		}, "/suites/0/tasks/0/trials/0/checks/0/level: expected no level on a check without a scale, got 2"},
		{"negative criterion index", func(r *results.Run) {
			c := graded(2, 0, 4)
			c.Criterion = resultstest.Ptr(-1)
			r.Suites[0].Tasks[0].Trials[0].Checks = []results.Check{c}
		}, "/suites/0/tasks/0/trials/0/checks/0/criterion: expected a whole number from 0 to 1e12, got -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := resultstest.Full()
			c.edit(r)
			assert.Error(t, r.Check(), c.want)
		})
	}
}

// TestReadChecks: Read, which merge uses for each shard, refuses a file
// with a number out of range or of the wrong type, naming file and field
// in JSON's words.
func TestReadChecks(t *testing.T) {
	full := resultstest.Full()
	full.Assessment = nil // its scores come first; the cases edit the first task's
	data, err := json.Marshal(full)
	assert.NilError(t, err)
	for _, c := range []struct{ name, from, to, want string }{
		{"out of range", `"costUsd":`, `"costUsd":-2,"x":`, `/suites/0/tasks/0/costUsd: expected a cost in US dollars from 0 to 1e9, got -2`},
		{"not a whole number", `"latencyMs":`, `"latencyMs":1.5,"x":`, `suites.tasks.latencyMs: expected a whole number that fits in 64 bits, got number 1.5`},
		{"not a number", `,"score":`, `,"score":"high","x":`, `suites.tasks.score: expected a number that fits in 64 bits, got string`},
		{"not JSON", `{`, `{{`, `not JSON: invalid character '{' looking for beginning of object key string at byte 2`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.json")
			assert.NilError(t, os.WriteFile(path, []byte(strings.Replace(string(data), c.from, c.to, 1)), 0o644))
			_, err := results.Read(path)
			assert.Error(t, err, `could not parse results "`+path+`": `+c.want)
		})
	}
}

// graded is a graded criterion's check at level on min..max.
func graded(level, lo, hi int) results.Check {
	return results.Check{ID: "tools", Kind: "criterion", Weight: 1, Criterion: resultstest.Ptr(0),
		Level: &level, Scale: &results.Scale{Min: lo, Max: hi}}
}
