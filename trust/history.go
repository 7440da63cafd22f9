package trust

import (
	"math"

	"github.com/evalgate/evalgate/results"
)

// Runtime adjustments (DESIGN §12).
const (
	perPassingTrial  = 0.1
	maxPassingPoints = 5.0
	perUnhandled     = -5.0
	perTimeout       = -3.0
)

// unhandled reports whether a trial's error is one the agent did not
// handle: a crash, a protocol error, an over-size output, a model failure
// or running out of turns. Its own error line is handled; a judge
// failure, a cancellation or an unfixtured call is not the agent's doing.
func unhandled(kind string) bool {
	switch kind {
	case results.ErrAgentExit, results.ErrProtocol, results.ErrOutputTooLarge, results.ErrModel, results.ErrMaxTurns:
		return true
	}
	return false
}

// adjust counts the history of the HistoryWindow before r: earlier runs
// only (another run id, finished before r and at most 30 days earlier),
// each once.
func adjust(r *results.Run, history []*results.Run) Adjustments {
	var a Adjustments
	seen := map[string]bool{r.RunID: true}
	for _, h := range history {
		if h == nil || seen[h.RunID] || h.FinishedAt.After(r.FinishedAt) || r.FinishedAt.Sub(h.FinishedAt) > HistoryWindow {
			continue
		}
		seen[h.RunID] = true
		a.Runs++
		for si := range h.Suites {
			for ti := range h.Suites[si].Tasks {
				for _, tr := range h.Suites[si].Tasks[ti].Trials {
					switch {
					case tr.Passed:
						a.PassingTrials++
					case tr.ErrorKind == results.ErrTimeout:
						a.Timeouts++
					case unhandled(tr.ErrorKind):
						a.UnhandledErrors++
					}
				}
			}
		}
	}
	bonus := math.Min(maxPassingPoints, float64(a.PassingTrials)*perPassingTrial)
	a.Points = math.Round((bonus+float64(a.UnhandledErrors)*perUnhandled+float64(a.Timeouts)*perTimeout)*10) / 10
	return a
}
