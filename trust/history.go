package trust

import (
	"math"
	"time"

	"github.com/evalgate/evalgate/results"
)

// Runtime adjustments (docs/trust.md).
const (
	perPassingTrial  = 0.1
	maxPassingPoints = 5.0
	perUnhandled     = -5.0
	perTimeout       = -3.0
)

// Unhandled reports whether a trial's error is one the agent did not
// handle: a crash, a protocol error, an over-size output, a model failure
// or running out of turns. Its own error line is handled; a judge
// failure, a cancellation or an unfixtured call is not the agent's doing.
func Unhandled(kind string) bool {
	switch kind {
	case results.ErrAgentExit, results.ErrProtocol, results.ErrOutputTooLarge, results.ErrModel, results.ErrMaxTurns:
		return true
	}
	return false
}

// Past is an earlier run as the runtime adjustments count it: when it
// finished, and its trials that passed, ended in an unhandled error or
// timed out. A history store's records give it (package history), as do
// earlier results files (PastOf).
type Past struct {
	RunID           string
	FinishedAt      time.Time
	PassingTrials   int
	UnhandledErrors int
	Timeouts        int
}

// PastOf counts an earlier run's trials.
func PastOf(h *results.Run) Past {
	p := Past{RunID: h.RunID, FinishedAt: h.FinishedAt}
	for si := range h.Suites {
		for ti := range h.Suites[si].Tasks {
			for _, tr := range h.Suites[si].Tasks[ti].Trials {
				switch {
				case tr.Passed:
					p.PassingTrials++
				case tr.ErrorKind == results.ErrTimeout:
					p.Timeouts++
				case Unhandled(tr.ErrorKind):
					p.UnhandledErrors++
				}
			}
		}
	}
	return p
}

// adjust counts the history of the HistoryWindow before r: earlier runs
// only (another run id, finished before r and at most 30 days earlier),
// each once, whether it came as a results file or from the store.
func adjust(r *results.Run, history []*results.Run, store []Past) Adjustments {
	var a Adjustments
	seen := map[string]bool{r.RunID: true}
	count := func(p Past) {
		if seen[p.RunID] || p.FinishedAt.After(r.FinishedAt) || r.FinishedAt.Sub(p.FinishedAt) > HistoryWindow {
			return
		}
		seen[p.RunID] = true
		a.Runs++
		a.PassingTrials += p.PassingTrials
		a.UnhandledErrors += p.UnhandledErrors
		a.Timeouts += p.Timeouts
	}
	for _, h := range history {
		if h != nil {
			count(PastOf(h))
		}
	}
	for _, p := range store {
		count(p)
	}
	bonus := min(maxPassingPoints, float64(a.PassingTrials)*perPassingTrial)
	a.Points = math.Round((bonus+float64(a.UnhandledErrors)*perUnhandled+float64(a.Timeouts)*perTimeout)*10) / 10
	return a
}
