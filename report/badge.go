package report

import (
	"bytes"
	"fmt"
	"math"
	"unicode"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/results"
)

// Badge colors, as shields.io names them.
const (
	badgeGreen  = "#4c1"    // brightgreen: every gate holds
	badgeRed    = "#e05d44" // red: a gate failed
	badgeOrange = "#fe7d37" // orange: nothing to judge (no tasks, interrupted run)
	badgeGrey   = "#555"    // the label
)

// Badge renders a shields.io-style flat SVG badge for the run: label
// "evalgate", message the pass rate and the verdict ("92% pass" in green
// when every gate holds, "failing · 71% pass" in red when one fails) or
// "no tasks"/"interrupted" in orange. Text widths come from Verdana 11px
// advance widths, so the badge fits its text without a font at hand.
func Badge(r *results.Run) []byte {
	msg, color := badgeMessage(r)
	return badgeSVG("evalgate", msg, color)
}

func badgeMessage(r *results.Run) (string, string) {
	switch {
	case r == nil || r.TaskCount == 0:
		return "no tasks", badgeOrange
	case r.Interrupted:
		return "interrupted", badgeOrange
	}
	// Round down so 99.6% never shows as a clean 100%.
	pct := int(math.Floor(r.PassRate*100 + 1e-9))
	if r.Passed {
		return fmt.Sprintf("%d%% pass", pct), badgeGreen
	}
	return fmt.Sprintf("failing · %d%% pass", pct), badgeRed
}

// badgeSVG lays out the two halves of a flat badge. Coordinates of text are
// in tenths of a pixel (font-size 110 under scale(.1)), as shields does, so
// text is positioned with sub-pixel precision.
func badgeSVG(label, msg, color string) []byte {
	lw := badgeTextWidth(label)
	mw := badgeTextWidth(msg)
	labelW := lw + 10
	msgW := mw + 10
	total := labelW + msgW
	title := escape.XML(label + ": " + msg)
	l := escape.XML(label)
	m := escape.XML(msg)

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s">`, total, title)
	fmt.Fprintf(&b, `<title>%s</title>`, title)
	b.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(&b, `<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`, total)
	fmt.Fprintf(&b, `<g clip-path="url(#r)"><rect width="%d" height="20" fill="%s"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>`,
		labelW, badgeGrey, labelW, msgW, escape.XML(color), total)
	b.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">`)
	badgeText(&b, labelW*10/2, lw*10, l)
	badgeText(&b, labelW*10+msgW*10/2, mw*10, m)
	b.WriteString("</g></svg>\n")
	return b.Bytes()
}

// badgeText writes one text with its drop shadow.
func badgeText(b *bytes.Buffer, x, length int, text string) {
	fmt.Fprintf(b, `<text aria-hidden="true" x="%d" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="%d">%s</text>`, x, length, text)
	fmt.Fprintf(b, `<text x="%d" y="140" transform="scale(.1)" fill="#fff" textLength="%d">%s</text>`, x, length, text)
}

// badgeTextWidth estimates the width in pixels of s in Verdana 11px, rounded
// up to a whole pixel.
func badgeTextWidth(s string) int {
	var units int
	for _, r := range s {
		units += badgeRuneUnits(r)
	}
	return int(math.Ceil(float64(units) * 11 / 2048))
}

// badgeRuneUnits is the advance width of r in Verdana's 2048 units per em.
func badgeRuneUnits(r rune) int {
	if w, ok := verdanaUnits[r]; ok {
		return w
	}
	switch {
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r),
		unicode.Is(unicode.Katakana, r), unicode.Is(unicode.Hangul, r):
		return 2048
	case unicode.IsUpper(r):
		return 1450
	case unicode.IsControl(r), unicode.Is(unicode.Mn, r):
		return 0
	}
	return 1300
}

// verdanaUnits holds Verdana's advance widths (units of 1/2048 em) for the
// printable ASCII characters and the few others badges use.
var verdanaUnits = map[rune]int{
	' ': 720, '!': 806, '"': 940, '#': 1710, '$': 1302, '%': 2220, '&': 1486, '\'': 550,
	'(': 930, ')': 930, '*': 1302, '+': 1710, ',': 745, '-': 930, '.': 745, '/': 930,
	'0': 1302, '1': 1302, '2': 1302, '3': 1302, '4': 1302, '5': 1302, '6': 1302, '7': 1302,
	'8': 1302, '9': 1302, ':': 930, ';': 930, '<': 1710, '=': 1710, '>': 1710, '?': 1117,
	'@': 2048, 'A': 1401, 'B': 1405, 'C': 1430, 'D': 1577, 'E': 1294, 'F': 1178, 'G': 1587,
	'H': 1540, 'I': 862, 'J': 934, 'K': 1415, 'L': 1141, 'M': 1733, 'N': 1532, 'O': 1612,
	'P': 1235, 'Q': 1612, 'R': 1423, 'S': 1399, 'T': 1239, 'U': 1503, 'V': 1401, 'W': 2029,
	'X': 1405, 'Y': 1234, 'Z': 1405, '[': 930, '\\': 930, ']': 930, '^': 1710, '_': 1302,
	'`': 1302, 'a': 1229, 'b': 1276, 'c': 1067, 'd': 1276, 'e': 1220, 'f': 720, 'g': 1276,
	'h': 1296, 'i': 562, 'j': 705, 'k': 1212, 'l': 562, 'm': 1992, 'n': 1296, 'o': 1243,
	'p': 1276, 'q': 1276, 'r': 874, 's': 1067, 't': 807, 'u': 1296, 'v': 1212, 'w': 1675,
	'x': 1212, 'y': 1212, 'z': 1075, '{': 1300, '|': 930, '}': 1300, '~': 1710,
	'·': 745, '…': 2048,
}
