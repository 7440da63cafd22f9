package report

import (
	"fmt"
	"github.com/evalgate/evalgate/results"
)

// trustLevelNames are the levels' names, TL0 to TL4 (package trust).
var trustLevelNames = []string{"Draft", "Assisted", "Supervised", "Autonomous", "Trusted"}

// trust writes the trust scorecard in short: the level, the score, the
// five dimensions' points, and a demotion against the baseline. trust.json
// holds the evidence of every point.
func (c *card) trust() {
	t := c.run.Trust
	if t == nil {
		return
	}
	fmt.Fprintf(&c.b, "\n#### Trust: TL%d %s (%s of 100)\n\n", t.Level, mdText(t.LevelName), formatScore100(t.Score))
	d := t.Dimensions
	fmt.Fprintf(&c.b, "| Contract Clarity | Idempotency | Observability | Error Containment | Governance |\n|--:|--:|--:|--:|--:|\n| %d | %d | %d | %d | %d |\n",
		d.ContractClarity, d.Idempotency, d.Observability, d.ErrorContainment, d.Governance)
	if t.Demoted() && *t.BaselineLevel <= results.MaxTrustLevel {
		from := *t.BaselineLevel
		fmt.Fprintf(&c.b, "\n> ⚠️ **Demoted** from TL%d %s on the baseline to TL%d %s: trust.json says which evidence is missing.\n",
			from, trustLevelNames[from], t.Level, mdText(t.LevelName))
	}
}

// formatScore100 renders a 0-100 score with at most one decimal.
func formatScore100(s float64) string {
	return mdMinus(fmt.Sprintf("%g", float64(int64(s*10+0.5))/10))
}
