package report

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/results"
)

// auditRun is a run of an agent-definition audit: one prompt graded on
// tools and clarity (0-4 each).
func auditRun(id string, tools, clarity int) *results.Run {
	check := func(id string, idx, level int) results.Check {
		return results.Check{ID: id, Kind: "criterion", Weight: 1, Judged: true, Criterion: &idx, Level: &level,
			Scale: &results.Scale{Min: 0, Max: 4}, Passed: level == 4}
	}
	score := float64(tools+clarity) / 8
	status := results.StatusFailed
	if score >= 0.7 {
		status = results.StatusPassed
	}
	task := results.Task{ID: "support-agent", Status: status, Score: score, Passed: status == results.StatusPassed, PassScore: 0.7,
		Trials: []results.Trial{{Trial: 1, Status: status, Score: score, Passed: status == results.StatusPassed,
			Checks: []results.Check{check("tools", 0, tools), check("clarity", 1, clarity)}}}}
	task.Levels = results.TaskLevels(task.Trials)
	s := results.Suite{ID: "acme.agents.evals.audit", Version: "1.0.0", RunID: id, Trials: 1, Tasks: []results.Task{task}}
	s.Stats = gates.Combine([]results.Suite{s})
	s.Stats.AggregateScore, s.Stats.TaskCount = score, 1
	if task.Passed {
		s.Stats.PassedCount = 1
	}
	r := &results.Run{Schema: results.Schema, RunID: id, Suites: []results.Suite{s}}
	r.Stats = s.Stats
	return r
}

// TestDiffLevels: a pull request that drops a prompt's tool guidance shows
// "tools 4 → 0" in diff and in the scorecard; the unchanged criterion is
// not listed.
func TestDiffLevels(t *testing.T) {
	base, head := auditRun("run-1", 4, 3), auditRun("run-2", 0, 3)
	regression.Compare(base, head, regression.Options{})
	for _, tc := range []struct {
		name string
		got  string
	}{
		{"diff/levels.golden", Diff(base, head, DiffOptions{})},
		{"diff/levels.golden.md", Diff(base, head, DiffOptions{Markdown: true})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Check(t, is.Contains(tc.got, "tools 4 → 0"))
			assert.Check(t, !strings.Contains(tc.got, "clarity 3"))
			golden.Assert(t, tc.got, tc.name)
		})
	}
	card := Scorecard(head, ScorecardOptions{})
	assert.Check(t, is.Contains(card, "\n#### Levels (1)\n\n| Task | Levels |\n|---|---|\n| `acme.agents.evals.audit` / `support-agent` | tools 4 → 0 |\n"))
}
