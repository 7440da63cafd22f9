package history

import (
	"time"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/trust"
)

// TrustPast is what the trust scorecard counts of each record: when the
// run finished, and its trials that passed, ended in an unhandled error
// or timed out.
func TrustPast(records []*Record) []trust.Past {
	out := make([]trust.Past, 0, len(records))
	for _, rec := range records {
		p := trust.Past{RunID: rec.RunID, FinishedAt: rec.StartedAt.Add(time.Duration(rec.DurationMs) * time.Millisecond)}
		for _, t := range rec.Tasks {
			p.PassingTrials += t.PassedTrials
			for kind, n := range t.Errors {
				switch {
				case kind == "timeout":
					p.Timeouts += n
				case trust.Unhandled(kind):
					p.UnhandledErrors += n
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// AssessWindow is the window as the assessment reads it: each run's
// aggregate score and pass rate over its suites, and its performance
// composite.
func AssessWindow(records []*Record) *assess.Window {
	w := &assess.Window{Runs: make([]assess.WindowRun, 0, len(records))}
	for _, rec := range records {
		r := assess.WindowRun{Time: rec.StartedAt}
		r.Score, r.PassRate = rec.Figures()
		if rec.Assessment != nil {
			r.Performance = rec.Assessment.Performance.Score
		}
		w.Runs = append(w.Runs, r)
	}
	return w
}

// Figures are the run's aggregate score (the mean task score) and pass
// rate over all its suites.
func (r *Record) Figures() (score, passRate float64) {
	tasks, passed := 0, 0
	for _, s := range r.Suites {
		score += s.Score * float64(s.TaskCount)
		tasks += s.TaskCount
		passed += s.PassedCount
	}
	if tasks == 0 {
		return 0, 0
	}
	return score / float64(tasks), float64(passed) / float64(tasks)
}
