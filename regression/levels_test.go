package regression

import (
	"context"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

// gradedTask is a task whose trials graded criterion 0 ("tools", 0-4) at
// the given levels, and criterion 1 (no id) at 2 in every trial.
func gradedTask(id string, score float64, levels ...int) results.Task {
	t := task(id, score, score >= 0.5)
	for i, l := range levels {
		tools, other := l, 2
		t.Trials = append(t.Trials, results.Trial{Trial: i + 1, Score: score, Checks: []results.Check{
			{ID: "tools", Kind: "criterion", Weight: 1, Criterion: new(0), Level: &tools, Scale: &results.Scale{Min: 0, Max: 4}},
			{ID: "rubric[1]", Kind: "criterion", Weight: 1, Criterion: new(1), Level: &other, Scale: &results.Scale{Min: 0, Max: 4}},
			{ID: "brief", Kind: "expr", Weight: 1, Passed: true},
		}})
	}
	t.Levels = results.TaskLevels(t.Trials)
	return t
}

func TestCompareLevels(t *testing.T) {
	type testCase struct {
		name       string
		base, head results.Task
		want       []results.LevelChange
		change     string
	}
	run := func(t *testing.T, tc testCase) {
		base := &results.Run{Suites: []results.Suite{suite(refunds, "1.0.0", tc.base)}}
		head := &results.Run{Suites: []results.Suite{suite(refunds, "1.0.0", tc.head)}}
		reg := Compare(base, head, Options{})
		if tc.change == "" {
			assert.Equal(t, len(reg.Tasks), 0)
			return
		}
		assert.Equal(t, len(reg.Tasks), 1)
		assert.Equal(t, reg.Tasks[0].Change, tc.change)
		assert.DeepEqual(t, reg.Tasks[0].Levels, tc.want)
	}
	for _, tc := range []testCase{
		{name: "a level falls", base: gradedTask("p", 1, 4), head: gradedTask("p", 0.5, 0),
			want: []results.LevelChange{{Check: "tools", Criterion: 0, Base: 4, Head: 0}}, change: results.ChangeScore},
		{name: "a level rises past the bar", base: gradedTask("p", 0.25, 1), head: gradedTask("p", 0.75, 3),
			want: []results.LevelChange{{Check: "tools", Criterion: 0, Base: 1, Head: 3}}, change: results.ChangeFixed},
		{name: "the median of trials", base: gradedTask("p", 1, 4, 4, 1), head: gradedTask("p", 0.9, 1, 3, 4, 2),
			want: []results.LevelChange{{Check: "tools", Criterion: 0, Base: 4, Head: 2}}, change: results.ChangeScore},
		{name: "same level, same score", base: gradedTask("p", 1, 3), head: gradedTask("p", 1, 3)},
		{name: "same median", base: gradedTask("p", 1, 3, 2, 3), head: gradedTask("p", 1, 3)},
		{name: "a baseline without levels", base: task("p", 1, true), head: gradedTask("p", 0.5, 0), change: results.ChangeScore},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestPromoteKeepsLevels: a promoted baseline keeps the tasks' levels, so a
// later run's levels compare with it.
func TestPromoteKeepsLevels(t *testing.T) {
	run := &results.Run{Schema: results.Schema, RunID: "run-1", Suites: []results.Suite{suite(refunds, "1.0.0", gradedTask("p", 1, 4))}}
	path := filepath.Join(t.TempDir(), "baseline.json")
	assert.NilError(t, WritePromoted(path, run))
	base, err := Load(context.Background(), path, "")
	assert.NilError(t, err)
	assert.DeepEqual(t, base.Suites[0].Tasks[0].Levels, []results.Level{{Check: "tools", Criterion: 0, Level: 4}, {Check: "rubric[1]", Criterion: 1, Level: 2}})
	head := &results.Run{Suites: []results.Suite{suite(refunds, "1.0.0", gradedTask("p", 0.5, 0))}}
	reg := Compare(base, head, Options{})
	assert.DeepEqual(t, reg.Tasks[0].Levels, []results.LevelChange{{Check: "tools", Criterion: 0, Base: 4, Head: 0}})
}
