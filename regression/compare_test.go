package regression

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

// task is a one-trial task result with a score and a verdict.
func task(id string, score float64, passed bool) results.Task {
	status := results.StatusFailed
	if passed {
		status = results.StatusPassed
	}
	return results.Task{ID: id, Status: status, Score: score, Passed: passed, CostUsd: score / 100, LatencyMs: int64(100 * (1 + score))}
}

func suite(id, version string, tasks ...results.Task) results.Suite {
	return results.Suite{ID: id, Version: version, RunID: "run-" + id, Trials: 1, Tasks: tasks}
}

const refunds = "acme.evals.refunds"

func TestCompare(t *testing.T) {
	type testCase struct {
		name       string
		base, head []results.Suite
		opts       Options
		want       *results.Regression
		wantSuites []*results.SuiteRegression // per head suite
	}
	run := func(t *testing.T, tc testCase) {
		base := &results.Run{RunID: "base-run", Suites: tc.base}
		head := &results.Run{RunID: "head-run", Suites: tc.head}
		got := Compare(base, head, tc.opts)
		assert.Equal(t, got, head.Regression)
		// The interval is tested in TestBootstrap; here it only has to hold
		// the delta.
		assert.Assert(t, got.CILow <= got.ScoreDelta && got.ScoreDelta <= got.CIHigh, "[%v, %v] misses %v", got.CILow, got.CIHigh, got.ScoreDelta)
		assert.DeepEqual(t, got, tc.want, cmpopts.IgnoreFields(results.Regression{}, "CILow", "CIHigh"),
			cmpopts.EquateApprox(0, 1e-12))
		var suites []*results.SuiteRegression
		for i := range head.Suites {
			suites = append(suites, head.Suites[i].Regression)
			if r := head.Suites[i].Regression; r != nil {
				assert.DeepEqual(t, CompareSuite(base, &head.Suites[i], tc.opts), r)
			}
		}
		assert.DeepEqual(t, suites, tc.wantSuites, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty())
	}
	seven := func(fail ...string) results.Suite {
		s := suite(refunds, "1.0.0")
		for _, id := range []string{"a", "b", "c", "d", "e", "f", "g"} {
			tk := task(id, 1, true)
			for _, f := range fail {
				if f == id {
					tk = task(id, 0, false)
				}
			}
			s.Tasks = append(s.Tasks, tk)
		}
		return s
	}
	for _, tc := range []testCase{
		{
			name:       "same results",
			base:       []results.Suite{seven()},
			head:       []results.Suite{seven()},
			want:       &results.Regression{BaselineRunID: "base-run", PValue: 1},
			wantSuites: []*results.SuiteRegression{{BaselineRunID: "run-" + refunds, PValue: 1}},
		},
		{
			name: "two of seven newly fail",
			base: []results.Suite{seven()},
			head: []results.Suite{seven("b", "e")},
			opts: Options{Source: "baseline.json"},
			want: &results.Regression{
				BaselineRunID: "base-run", BaselineFile: "baseline.json",
				ScoreDelta: -2.0 / 7, NewFailures: 2, NewConsistentFailures: 2, PValue: 0.5,
				Tasks: []results.TaskDiff{
					{SuiteID: refunds, TaskID: "b", Change: results.ChangeNewFailure, ScoreDelta: -1, CostDeltaUsd: -0.01, LatencyDeltaMs: -100},
					{SuiteID: refunds, TaskID: "e", Change: results.ChangeNewFailure, ScoreDelta: -1, CostDeltaUsd: -0.01, LatencyDeltaMs: -100},
				},
			},
			wantSuites: []*results.SuiteRegression{{BaselineRunID: "run-" + refunds, ScoreDelta: -2.0 / 7, NewFailures: 2, NewConsistentFailures: 2, PValue: 0.5}},
		},
		{
			name: "fixed, moved, added and removed",
			base: []results.Suite{suite(refunds, "1.0.0", task("a", 0, false), task("b", 1, true), task("c", 0.5, false), task("gone", 1, true))},
			head: []results.Suite{suite(refunds, "1.1.0", task("a", 1, true), task("b", 1, true), task("c", 0.25, false), task("new", 1, true))},
			want: &results.Regression{
				BaselineRunID: "base-run",
				ScoreDelta:    (1 + 0 - 0.25) / 3, Fixed: 1, PValue: 1,
				Warnings: []string{
					"suite acme.evals.refunds: the baseline ran version 1.0.0, this run 1.1.0; compared task by task",
					"suite acme.evals.refunds: since the baseline 1 task was added and 1 task was removed; compared task by task",
				},
				Tasks: []results.TaskDiff{
					{SuiteID: refunds, TaskID: "a", Change: results.ChangeFixed, ScoreDelta: 1, CostDeltaUsd: 0.01, LatencyDeltaMs: 100},
					{SuiteID: refunds, TaskID: "c", Change: results.ChangeScore, ScoreDelta: -0.25, CostDeltaUsd: -0.0025, LatencyDeltaMs: -25},
					{SuiteID: refunds, TaskID: "new", Change: results.ChangeAdded},
					{SuiteID: refunds, TaskID: "gone", Change: results.ChangeRemoved},
				},
			},
			wantSuites: []*results.SuiteRegression{{
				BaselineRunID: "run-" + refunds, ScoreDelta: 0.75 / 3, Fixed: 1, PValue: 1,
				Added: []string{"new"}, Removed: []string{"gone"},
			}},
		},
		{
			name: "tasks left out by a shard are not removed",
			base: []results.Suite{seven()},
			head: []results.Suite{suite(refunds, "1.0.0", task("a", 1, true), task("c", 0, false))},
			opts: Options{InSuites: func(suiteID, taskID string) bool { return suiteID == refunds }},
			want: &results.Regression{
				BaselineRunID: "base-run", ScoreDelta: -0.5, NewFailures: 1, NewConsistentFailures: 1, PValue: 1,
				Tasks: []results.TaskDiff{{SuiteID: refunds, TaskID: "c", Change: results.ChangeNewFailure, ScoreDelta: -1, CostDeltaUsd: -0.01, LatencyDeltaMs: -100}},
			},
			wantSuites: []*results.SuiteRegression{{BaselineRunID: "run-" + refunds, ScoreDelta: -0.5, NewFailures: 1, NewConsistentFailures: 1, PValue: 1}},
		},
		{
			name: "suites on one side only",
			base: []results.Suite{suite("acme.evals.old", "1.0.0", task("x", 1, true))},
			head: []results.Suite{suite(refunds, "1.0.0", task("a", 1, true))},
			want: &results.Regression{
				BaselineRunID: "base-run", PValue: 1,
				Warnings: []string{
					"suite acme.evals.refunds is not in the baseline: its 1 task is listed as added",
					"suite acme.evals.old is in the baseline but not in this run: not compared",
				},
				Tasks: []results.TaskDiff{{SuiteID: refunds, TaskID: "a", Change: results.ChangeAdded}},
			},
			wantSuites: []*results.SuiteRegression{nil},
		},
		{
			name: "trials: mean scores and pass^k",
			base: []results.Suite{{ID: refunds, Version: "1.0.0", Trials: 1, Tasks: []results.Task{task("a", 1, true), task("b", 1, true)}}},
			head: []results.Suite{{ID: refunds, Version: "1.0.0", Trials: 5, Tasks: []results.Task{
				task("a", 1, true),
				{ID: "b", Status: results.StatusFailed, Score: 0.6, Passed: false, PassAtK: true, TrialsPassed: 3, CostUsd: 0.05, LatencyMs: 200},
			}}},
			want: &results.Regression{
				BaselineRunID: "base-run", ScoreDelta: -0.2, NewFailures: 1, PValue: 1,
				Warnings: []string{"suite acme.evals.refunds: the baseline ran 1 trial per task, this run 5; costs are totals over trials"},
				Tasks:    []results.TaskDiff{{SuiteID: refunds, TaskID: "b", Change: results.ChangeNewFailure, ScoreDelta: -0.4, CostDeltaUsd: 0.04}},
			},
			wantSuites: []*results.SuiteRegression{{BaselineRunID: "base-run", ScoreDelta: -0.2, NewFailures: 1, PValue: 1}},
		},
		{
			name: "trials: a task that passes no trial is a consistent failure, a flaky one is not",
			base: []results.Suite{{ID: refunds, Version: "1.0.0", Trials: 3, Tasks: []results.Task{task("a", 1, true), task("b", 1, true), task("c", 1, true)}}},
			head: []results.Suite{{ID: refunds, Version: "1.0.0", Trials: 3, Tasks: []results.Task{
				task("a", 1, true),
				{ID: "b", Status: results.StatusFailed, Score: 2.0 / 3, Passed: false, PassAtK: true, TrialsPassed: 2, CostUsd: 0.01, LatencyMs: 200},
				{ID: "c", Status: results.StatusFailed, Score: 0, Passed: false, PassAtK: false, CostUsd: 0.01, LatencyMs: 200},
			}}},
			want: &results.Regression{
				BaselineRunID: "base-run", ScoreDelta: -(1.0/3 + 1) / 3, NewFailures: 2, NewConsistentFailures: 1, PValue: 0.5,
				Tasks: []results.TaskDiff{
					{SuiteID: refunds, TaskID: "b", Change: results.ChangeNewFailure, ScoreDelta: -1.0 / 3},
					{SuiteID: refunds, TaskID: "c", Change: results.ChangeNewFailure, ScoreDelta: -1},
				},
			},
			wantSuites: []*results.SuiteRegression{{BaselineRunID: "base-run", ScoreDelta: -(1.0/3 + 1) / 3, NewFailures: 2, NewConsistentFailures: 1, PValue: 0.5}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestCompareExactDelta(t *testing.T) {
	base := &results.Run{RunID: "b", Suites: []results.Suite{suite(refunds, "1.0.0")}}
	head := &results.Run{RunID: "h", Suites: []results.Suite{suite(refunds, "1.0.0")}}
	for i := range 7 {
		id := string(rune('a' + i))
		base.Suites[0].Tasks = append(base.Suites[0].Tasks, task(id, 1, true))
		head.Suites[0].Tasks = append(head.Suites[0].Tasks, task(id, map[bool]float64{true: 0, false: 1}[i < 2], i >= 2))
	}
	reg := Compare(base, head, Options{})
	assert.Equal(t, reg.ScoreDelta, -2.0/7, "the delta is the exact mean of the per-task deltas")
}

func TestSignTestOf(t *testing.T) {
	reg := &results.Regression{Tasks: []results.TaskDiff{
		{Change: results.ChangeNewFailure, ScoreDelta: -1},
		{Change: results.ChangeScore, ScoreDelta: -0.25},
		{Change: results.ChangeNewFailure, ScoreDelta: 0}, // a verdict flip with no score move is a tie
		{Change: results.ChangeFixed, ScoreDelta: 0.5},
		{Change: results.ChangeAdded},
		{Change: results.ChangeRemoved},
	}}
	up, down, p := SignTestOf(reg)
	assert.Equal(t, up, 1)
	assert.Equal(t, down, 2)
	assert.Equal(t, p, 1.0) // 2·(1+3)/8 capped
	_, _, p = SignTestOf(nil)
	assert.Equal(t, p, 1.0)
	assert.Assert(t, cmp.Equal(SignTest(0, 4), 0.125))
}
