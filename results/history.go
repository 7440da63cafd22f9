package results

import "time"

// Flakiness labels of a task (docs/history.md).
const (
	// FlakyKnown is a task whose verdict flipped at least twice in the
	// history's last records: its failure now is likely noise.
	FlakyKnown = "known-flaky"
	// FlakyNew is a newly failing task that passed in every record of
	// the history: its failure is news.
	FlakyNew = "new"
)

// History is what the run read of its history store: how many records
// its window held, the newly failing tasks with and without the known
// flaky ones, and each suite's trend. Nil when the run read no history.
type History struct {
	Store string `json:"store"`
	// Runs counts the records of the window (the gate variable
	// history.runs); Skipped those it could not read.
	Runs    int `json:"runs"`
	Skipped int `json:"skipped,omitempty"`
	// NewFailures counts the newly failing tasks: the baseline's new
	// failures, or without a baseline the failing tasks that passed in
	// the newest record holding them; NewFailuresNotFlaky those of them
	// not labelled known-flaky.
	NewFailures         int            `json:"newFailures"`
	NewFailuresNotFlaky int            `json:"newFailuresNotFlaky"`
	KnownFlaky          int            `json:"knownFlaky"`
	Suites              []SuiteHistory `json:"bySuite"`
}

// SuiteHistory is one suite's share of the History.
type SuiteHistory struct {
	SuiteID             string `json:"suiteId"`
	NewFailures         int    `json:"newFailures"`
	NewFailuresNotFlaky int    `json:"newFailuresNotFlaky"`
	// Trend is the suite in each record of the window that holds it,
	// oldest first; the run itself is not in it.
	Trend []TrendPoint `json:"trend"`
}

// TrendPoint is a suite's figures in one earlier run.
type TrendPoint struct {
	RunID        string    `json:"runId"`
	StartedAt    time.Time `json:"startedAt"`
	Score        float64   `json:"aggregateScore"`
	PassRate     float64   `json:"passRate"`
	CostUsd      float64   `json:"totalCostUsd"`
	P95LatencyMs int64     `json:"p95LatencyMs"`
}

// Suite returns the history of the suite id; nil when it has none.
func (h *History) Suite(id string) *SuiteHistory {
	if h == nil {
		return nil
	}
	for i := range h.Suites {
		if h.Suites[i].SuiteID == id {
			return &h.Suites[i]
		}
	}
	return nil
}

// check puts the history's numbers in range.
func (h *History) check(c *checker) {
	if h == nil {
		return
	}
	c.count("", "/history/runs", int64(h.Runs))
	c.count("", "/history/skipped", int64(h.Skipped))
	c.count("", "/history/newFailures", int64(h.NewFailures))
	c.count("", "/history/newFailuresNotFlaky", int64(h.NewFailuresNotFlaky))
	c.count("", "/history/knownFlaky", int64(h.KnownFlaky))
	for i := range h.Suites {
		s := &h.Suites[i]
		p := c.at("/history/bySuite/%d", i)
		c.count(p, "/newFailures", int64(s.NewFailures))
		c.count(p, "/newFailuresNotFlaky", int64(s.NewFailuresNotFlaky))
		for j, t := range s.Trend {
			q := c.at("%s/trend/%d", p, j)
			c.score(q, "/aggregateScore", t.Score)
			c.score(q, "/passRate", t.PassRate)
			c.cost(q, "/totalCostUsd", t.CostUsd)
			c.latency(q, "/p95LatencyMs", t.P95LatencyMs)
		}
	}
}
