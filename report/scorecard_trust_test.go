package report

import (
	"encoding/xml"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// TestScorecardTrust renders the trust section: the level, the points,
// and the demotion against the baseline when there is one.
func TestScorecardTrust(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*results.Trust)
	}{
		{"demoted", nil},
		{"steady", func(tr *results.Trust) { tr.BaselineLevel = resultstest.Ptr(3) }},
		{"no-baseline", func(tr *results.Trust) { tr.BaselineLevel, tr.BaselineScore = nil, nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := resultstest.Full()
			if tc.edit != nil {
				tc.edit(r.Trust)
			}
			c := &card{run: r}
			c.trust()
			golden.Assert(t, c.b.String(), "scorecard-trust/"+tc.name+".md")
		})
	}
	c := &card{run: resultstest.Failing()}
	c.trust()
	assert.Equal(t, c.b.String(), "", "a run without a scorecard has no section")
}

func TestTrustBadge(t *testing.T) {
	for _, tc := range []struct {
		name      string
		trust     *results.Trust
		wantMsg   string
		wantColor string
	}{
		{"tl3", &results.Trust{Level: 3, LevelName: "Autonomous"}, "TL3 Autonomous", "#97ca00"},
		{"tl0", &results.Trust{Level: 0, LevelName: "Draft"}, "TL0 Draft", badgeRed},
		{"none", nil, "no scorecard", "#9f9f9f"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svg := TrustBadge(tc.trust)
			golden.Assert(t, string(svg), "badge-trust-"+tc.name+".golden.svg")
			var doc badgeDoc
			assert.NilError(t, xml.Unmarshal(svg, &doc))
			assert.Equal(t, doc.Title, "trust: "+tc.wantMsg)
			assert.Equal(t, doc.Rects[1].Fill, tc.wantColor)
		})
	}
}
