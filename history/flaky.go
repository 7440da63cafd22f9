package history

import (
	"github.com/evalgate/evalgate/results"
)

// FlakeWindow is how many of the newest records a task's flips are
// counted over, and KnownFlakyFlips how many flips make it known flaky.
const (
	FlakeWindow     = 20
	KnownFlakyFlips = 2
)

// Flakes is a task's verdicts over the last FlakeWindow records that
// hold it.
type Flakes struct {
	Runs   int  // records holding the task
	Passed int  // of them, those in which it passed
	Flips  int  // verdict changes from one of them to the next
	Last   bool // it passed in the newest of them
}

// FlipRate is the share of the changes between its records that were
// flips.
func (f Flakes) FlipRate() float64 {
	if f.Runs < 2 {
		return 0
	}
	return float64(f.Flips) / float64(f.Runs-1)
}

// Known reports whether the task flipped KnownFlakyFlips times or more.
func (f Flakes) Known() bool { return f.Flips >= KnownFlakyFlips }

// AlwaysPassed reports whether the task passed in every record holding
// it, and there was one.
func (f Flakes) AlwaysPassed() bool { return f.Runs > 0 && f.Passed == f.Runs }

// FlakesOf counts each task's flips over the newest FlakeWindow of
// records (oldest first), by "<suiteId>/<taskId>".
func FlakesOf(records []*Record) map[string]Flakes {
	if len(records) > FlakeWindow {
		records = records[len(records)-FlakeWindow:]
	}
	out := map[string]Flakes{}
	for _, rec := range records {
		for key, t := range rec.Tasks {
			f, seen := out[key]
			passed := t.Status == results.StatusPassed
			if seen && passed != f.Last {
				f.Flips++
			}
			f.Runs++
			if passed {
				f.Passed++
			}
			f.Last = passed
			out[key] = f
		}
	}
	return out
}

// Apply gives the run what its window says: each task's flakiness label,
// the newly failing tasks with and without the known flaky ones, and
// each suite's trend (results.History). The newly failing tasks are the
// baseline's new failures when the run has a baseline, else the failing
// tasks that passed in the newest record holding them.
func Apply(run *results.Run, w *Window) {
	flakes := FlakesOf(w.Records)
	h := &results.History{Store: w.Store, Runs: len(w.Records), Skipped: len(w.Skipped), Suites: []results.SuiteHistory{}}
	newFailure := map[string]bool{}
	if run.Regression != nil {
		for _, d := range run.Regression.Tasks {
			if d.Change == results.ChangeNewFailure {
				newFailure[d.SuiteID+"/"+d.TaskID] = true
			}
		}
	}
	for i := range run.Suites {
		s := &run.Suites[i]
		sh := results.SuiteHistory{SuiteID: s.ID, Trend: Trend(w.Records, s.ID)}
		for j := range s.Tasks {
			t := &s.Tasks[j]
			key := s.ID + "/" + t.ID
			f := flakes[key]
			newly := newFailure[key]
			if run.Regression == nil {
				newly = t.Status != results.StatusPassed && f.Runs > 0 && f.Last
			}
			t.Flaky = ""
			switch {
			case f.Known():
				t.Flaky = results.FlakyKnown
				h.KnownFlaky++
			case newly && f.AlwaysPassed():
				t.Flaky = results.FlakyNew
			}
			if newly {
				sh.NewFailures++
				if t.Flaky != results.FlakyKnown {
					sh.NewFailuresNotFlaky++
				}
			}
		}
		h.NewFailures += sh.NewFailures
		h.NewFailuresNotFlaky += sh.NewFailuresNotFlaky
		h.Suites = append(h.Suites, sh)
	}
	run.History = h
}

// Trend is the suite's figures in each record holding it, oldest first.
func Trend(records []*Record, suiteID string) []results.TrendPoint {
	points := []results.TrendPoint{}
	for _, rec := range records {
		for _, s := range rec.Suites {
			if s.SuiteID == suiteID {
				points = append(points, results.TrendPoint{RunID: rec.RunID, StartedAt: rec.StartedAt, Score: s.Score,
					PassRate: s.PassRate(), CostUsd: s.CostUsd, P95LatencyMs: s.P95LatencyMs})
				break
			}
		}
	}
	return points
}
