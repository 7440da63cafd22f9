package report

import (
	"bytes"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

func TestSparkline(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		want   string
	}{
		{nil, ""},
		{[]float64{0.5}, "▃"},
		{[]float64{1, 1, 1}, "▃▃▃"},
		{[]float64{0, 0.25, 0.5, 0.75, 1}, "▁▂▃▅▇"},
		{[]float64{1, 5.0 / 6, 1, 4.0 / 6, 5.0 / 6}, "▇▃▇▁▃"},
		{[]float64{3, 1}, "▇▁"},
	} {
		assert.Check(t, is.Equal(Sparkline(tc.values), tc.want), "%v", tc.values)
	}
	now := 0.9
	points := []results.TrendPoint{{Score: 0.5}, {Score: 0.7}}
	assert.Equal(t, TrendLine(points, &now), "▁▃▇ score 0.500..0.900, now 0.900")
	assert.Equal(t, TrendLine(points, nil), "▁▇ score 0.500..0.700, last 0.700")
	assert.Equal(t, TrendLine(nil, nil), "no earlier runs")
}

// TestHistoryOutputs: the terminal says which history the run read and
// draws one line per suite; the scorecard has a table of sparklines.
func TestHistoryOutputs(t *testing.T) {
	r := resultstest.Full()
	var out bytes.Buffer
	NewTerminal(TerminalOptions{Out: &out}).Finish(r)
	assert.Check(t, is.Contains(out.String(), "\nhistory 2 earlier runs of dir:.evalgate/history, 1 record skipped: 2 newly failing tasks, 1 known-flaky\n"+
		"  acme.support.evals.refunds  ▇▁▁ score 0.500..0.750, now 0.500\n"))
	card := Scorecard(r, ScorecardOptions{})
	assert.Check(t, is.Contains(card, "\n#### Trend over the last 2 runs\n\n| Suite | Score, oldest to now | Range |\n|---|---|--:|\n| `acme.support.evals.refunds` | ▇▁▁ | 0.50–0.75 |\n"))
	golden.Assert(t, card, "scorecard/history.md")

	r.History = nil
	out.Reset()
	NewTerminal(TerminalOptions{Out: &out}).Finish(r)
	assert.Check(t, !bytes.Contains(out.Bytes(), []byte("\nhistory ")))
	assert.Check(t, !bytes.Contains([]byte(Scorecard(r, ScorecardOptions{})), []byte("#### Trend")))
}
