package history

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

func TestFlakesOf(t *testing.T) {
	var window []*Record
	// task-0 flips p f p f ...; task-1 always passes; task-2 failed
	// once long ago (beyond the last 20 records) and passed since.
	for i := range 25 {
		s0 := "p"
		if i%2 == 1 {
			s0 = "f"
		}
		s2 := "p"
		if i == 0 {
			s2 = "f"
		}
		window = append(window, rec("r"+time.Duration(i).String(), float64(i), EventPush, s0, "p", s2))
	}
	f := FlakesOf(window)
	assert.DeepEqual(t, f["acme.support.evals.refunds/task-0"], Flakes{Runs: 20, Passed: 10, Flips: 19, Last: true})
	assert.DeepEqual(t, f["acme.support.evals.refunds/task-1"], Flakes{Runs: 20, Passed: 20, Last: true})
	assert.DeepEqual(t, f["acme.support.evals.refunds/task-2"], Flakes{Runs: 20, Passed: 20, Last: true})
	assert.Assert(t, f["acme.support.evals.refunds/task-0"].Known())
	assert.Equal(t, f["acme.support.evals.refunds/task-0"].FlipRate(), 1.0)
	assert.Assert(t, f["acme.support.evals.refunds/task-1"].AlwaysPassed())
}

// run is a finished run of the refunds suite whose tasks have the
// given statuses.
func run(statuses ...string) *results.Run {
	s := results.Suite{ID: "acme.support.evals.refunds"}
	for i, st := range statuses {
		status := results.StatusPassed
		if st == "f" {
			status = results.StatusFailed
		}
		s.Tasks = append(s.Tasks, results.Task{ID: "task-" + string(rune('0'+i)), Status: status, Passed: st == "p"})
	}
	return &results.Run{RunID: "now", Suites: []results.Suite{s}}
}

// TestApply labels the newly failing tasks: one that flipped twice in the
// window is known-flaky, one that passed in every record is new; only
// the new one counts in newFailuresNotFlaky. With a baseline, its new
// failures are the newly failing tasks.
func TestApply(t *testing.T) {
	window := &Window{Store: "dir:.evalgate/history", Records: []*Record{
		rec("a", 0, EventPush, "p", "p", "p", "f"),
		rec("b", 1, EventPush, "f", "p", "p", "f"),
		rec("c", 2, EventPush, "p", "p", "p", "f"),
		rec("d", 3, EventPush, "f", "p", "p", "f"),
		rec("e", 4, EventPush, "p", "p", "f", "f"),
	}, Skipped: []Skipped{{Name: "x.json", Reason: "invalid JSON"}}}

	r := run("f", "f", "f", "f")
	Apply(r, window)
	var labels []string
	for _, task := range r.Suites[0].Tasks {
		labels = append(labels, task.Flaky)
	}
	// task-0 flipped 4 times; task-1 passed always; task-2 failed in the
	// newest record (not newly failing); task-3 always failed.
	assert.DeepEqual(t, labels, []string{results.FlakyKnown, results.FlakyNew, "", ""})
	h := r.History
	assert.Equal(t, h.Runs, 5)
	assert.Equal(t, h.Skipped, 1)
	assert.Equal(t, h.NewFailures, 2)
	assert.Equal(t, h.NewFailuresNotFlaky, 1)
	assert.Equal(t, h.KnownFlaky, 1)
	assert.Equal(t, len(h.Suites[0].Trend), 5)
	assert.Equal(t, h.Suites[0].Trend[4].Score, 0.5)
	assert.Equal(t, h.Suites[0].Trend[4].PassRate, 0.5)

	// With a baseline, its new failures are the newly failing tasks.
	r = run("f", "f", "f", "f")
	r.Regression = &results.Regression{Tasks: []results.TaskDiff{
		{SuiteID: "acme.support.evals.refunds", TaskID: "task-1", Change: results.ChangeNewFailure},
		{SuiteID: "acme.support.evals.refunds", TaskID: "task-3", Change: results.ChangeNewFailure},
	}}
	Apply(r, window)
	assert.Equal(t, r.History.NewFailures, 2)
	assert.Equal(t, r.History.NewFailuresNotFlaky, 2)
	assert.Equal(t, r.Suites[0].Tasks[1].Flaky, results.FlakyNew)
	assert.Equal(t, r.Suites[0].Tasks[3].Flaky, "", "it failed before: not new")

	// No history at all: nothing is labelled.
	r = run("f", "p")
	Apply(r, &Window{Store: "dir:x"})
	assert.Equal(t, r.History.Runs, 0)
	assert.Equal(t, r.History.NewFailures, 0)
	assert.Equal(t, r.Suites[0].Tasks[0].Flaky, "")
}

func TestTrustPastAndAssessWindow(t *testing.T) {
	perf := 0.6
	r := rec("a", 0, EventPush, "p", "t", "x", "f")
	r.Assessment = &Assessment{Performance: Axis{Score: &perf}}
	past := TrustPast([]*Record{r})
	assert.Equal(t, len(past), 1)
	assert.Equal(t, past[0].FinishedAt, day0.Add(time.Minute))
	assert.Equal(t, past[0].PassingTrials, 2+1)
	assert.Equal(t, past[0].Timeouts, 1)
	assert.Equal(t, past[0].UnhandledErrors, 2)
	w := AssessWindow([]*Record{r})
	assert.Equal(t, w.Runs[0].Score, 0.25)
	assert.Equal(t, w.Runs[0].PassRate, 0.25)
	assert.Equal(t, *w.Runs[0].Performance, 0.6)
}
