package report

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/internal/escape"
)

// The assessment badge (AAAF §4.1) is one picture drawn twice, as
// assessment.svg and as assessment.png: badgeLayout lays it out as shapes
// on a 300×150 canvas, and each renderer draws the shapes.
const (
	badgeWidth  = 300
	badgeHeight = 150
)

// Colours of the badge's frame and text.
const (
	badgeBackground = "#FFFFFF"
	badgeBorder     = "#D0D7DE"
	badgeInk        = "#1F2328"
	badgeMuted      = "#57606A"
	badgeOnTier     = "#FFFFFF"
	badgeNoTier     = "#9E9E9E" // an axis without a composite: the lowest tier's grey
)

// shape is a rounded rectangle (text empty) or a line of text whose
// baseline starts, centres or ends (anchor) at x, y.
type shape struct {
	x, y, w, h, r float64
	fill, stroke  string
	text          string
	size          float64
	bold          bool
	anchor        string // start, middle or end
}

// badgeLayout lays out the badge of a: the organisation, the agent's name
// and id, a panel per axis in its tier's colour with the tier and the
// score, the certification and expiry dates and the assessment id.
func badgeLayout(a *assess.Assessment) []shape {
	s := []shape{
		{x: 0.5, y: 0.5, w: badgeWidth - 1, h: badgeHeight - 1, r: 8, fill: badgeBackground, stroke: badgeBorder},
	}
	// Names come from evalgate.yaml: control characters are escaped, as
	// everywhere evalgate prints one, and XML cannot hold them anyway.
	text := func(x, y, size float64, bold bool, fill, anchor, t string) {
		s = append(s, shape{x: x, y: y, size: size, bold: bold, fill: fill, anchor: anchor, text: escape.Text(t)})
	}
	org := a.Organization
	if org == "" {
		org = "AAAF assessment"
	}
	text(12, 19, 10, false, badgeMuted, "start", clip(org, 44))
	text(12, 36, 14, true, badgeInk, "start", clip(cmp.Or(a.Agent.Name, a.Agent.ID, "agent"), 34))
	text(12, 49, 9, false, badgeMuted, "start", clip("id "+cmp.Or(a.Agent.ID, "—"), 52))
	for i, ax := range []*assess.Axis{&a.Performance, &a.Capability} {
		x := 12 + float64(i)*142
		fill, ink, tier, score := badgeNoTier, badgeOnTier, "not assessed", "no dimension measured"
		if ax.Score != nil {
			fill, tier, score = ax.Tier.Colour, ax.Tier.Name, score2(*ax.Score)
			ink = tierInk(ax.Tier.Colour)
			if ax.Provisional {
				score += " · provisional"
			}
		}
		s = append(s, shape{x: x, y: 57, w: 134, h: 56, r: 6, fill: fill})
		mid := x + 67
		text(mid, 71, 8.5, true, ink, "middle", strings.ToUpper(ax.Name))
		text(mid, 91, 16, true, ink, "middle", tier)
		text(mid, 106, 9.5, false, ink, "middle", score)
	}
	text(12, 128, 9, false, badgeMuted, "start",
		"Certified "+a.Timestamp.UTC().Format("2006-01-02")+" · Valid until "+a.ValidUntil.UTC().Format("2006-01-02"))
	text(12, 141, 8, false, badgeMuted, "start", clip("Assessment "+a.ID, 60))
	return s
}

// tierInk is the text colour on a tier's panel: dark on gold, white on the
// others.
func tierInk(fill string) string {
	if fill == "#FFD700" {
		return badgeInk
	}
	return badgeOnTier
}

// clip shortens s to n runes, ending it with "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// AssessmentSVG renders assessment.svg, the 300×150 badge.
func AssessmentSVG(a *assess.Assessment) []byte {
	var b bytes.Buffer
	title := escape.XML(escape.Text(fmt.Sprintf("%s: performance %s, capability %s", cmp.Or(a.Agent.Name, a.Agent.ID, "agent"),
		cmp.Or(a.Performance.Tier.Name, "not assessed"), cmp.Or(a.Capability.Tier.Name, "not assessed"))))
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`+"\n",
		badgeWidth, badgeHeight, badgeWidth, badgeHeight, title)
	fmt.Fprintf(&b, "  <title>%s</title>\n", title)
	b.WriteString(`  <g font-family="Verdana,DejaVu Sans,Geneva,sans-serif">` + "\n")
	for _, sh := range badgeLayout(a) {
		if sh.text == "" {
			stroke := ""
			if sh.stroke != "" {
				stroke = fmt.Sprintf(` stroke="%s"`, sh.stroke)
			}
			fmt.Fprintf(&b, `    <rect x="%s" y="%s" width="%s" height="%s" rx="%s" fill="%s"%s/>`+"\n",
				num(sh.x), num(sh.y), num(sh.w), num(sh.h), num(sh.r), sh.fill, stroke)
			continue
		}
		weight := ""
		if sh.bold {
			weight = ` font-weight="bold"`
		}
		fmt.Fprintf(&b, `    <text x="%s" y="%s" font-size="%s"%s fill="%s" text-anchor="%s">%s</text>`+"\n",
			num(sh.x), num(sh.y), num(sh.size), weight, sh.fill, sh.anchor, escape.XML(sh.text))
	}
	b.WriteString("  </g>\n</svg>\n")
	return b.Bytes()
}

// num renders a coordinate without trailing zeros.
func num(x float64) string { return fmt.Sprintf("%g", x) }
