package report

import (
	"fmt"

	"github.com/evalgate/evalgate/results"
)

// Trust badge colors by level, shields.io's: TL0 red, TL1 orange, TL2
// yellow, TL3 green, TL4 bright green.
var trustColors = []string{badgeRed, badgeOrange, "#dfb317", "#97ca00", badgeGreen}

// TrustBadge renders the trust level as a shields.io-style flat SVG badge
// beside the score badge: label "trust", message "TL3 Autonomous" in the
// level's color, or "no scorecard" in grey.
func TrustBadge(t *results.Trust) []byte {
	if t == nil || t.Level < results.MinTrustLevel || t.Level > results.MaxTrustLevel {
		return badgeSVG("trust", "no scorecard", "#9f9f9f")
	}
	return badgeSVG("trust", fmt.Sprintf("TL%d %s", t.Level, t.LevelName), trustColors[t.Level])
}
