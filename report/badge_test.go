package report

import (
	"encoding/xml"
	"strconv"
	"testing"

	"github.com/evalgate/evalgate/results"
	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

// badgeDoc reads back what a badge viewer relies on.
type badgeDoc struct {
	XMLName xml.Name
	Width   int    `xml:"width,attr"`
	Height  int    `xml:"height,attr"`
	Label   string `xml:"aria-label,attr"`
	Title   string `xml:"title"`
	Rects   []struct {
		X     int    `xml:"x,attr"`
		Width int    `xml:"width,attr"`
		Fill  string `xml:"fill,attr"`
	} `xml:"g>rect"`
	Texts []struct {
		X      int    `xml:"x,attr"`
		Length int    `xml:"textLength,attr"`
		Text   string `xml:",chardata"`
	} `xml:"g>text"`
}

func TestBadge(t *testing.T) {
	type testCase struct {
		name      string
		run       *results.Run
		wantMsg   string
		wantColor string
	}
	passing := ciRun()
	passing.Passed = true
	passing.PassRate = 0.92
	rounding := ciRun()
	rounding.Passed = true
	rounding.PassRate = 0.999
	run := func(t *testing.T, tc testCase) {
		svg := Badge(tc.run)
		golden.Assert(t, string(svg), "badge-"+tc.name+".golden.svg")

		var doc badgeDoc
		assert.NilError(t, xml.Unmarshal(svg, &doc))
		assert.Equal(t, doc.XMLName.Local, "svg")
		assert.Equal(t, doc.Height, 20)
		assert.Equal(t, doc.Title, "evalgate: "+tc.wantMsg)
		assert.Equal(t, doc.Label, doc.Title)
		assert.Equal(t, len(doc.Rects), 3)
		label, msg := doc.Rects[0], doc.Rects[1]
		assert.Equal(t, label.Width+msg.Width, doc.Width)
		assert.Equal(t, msg.X, label.Width)
		assert.Equal(t, msg.Fill, tc.wantColor)
		assert.Equal(t, len(doc.Texts), 4) // shadow and text, twice
		assert.Equal(t, doc.Texts[2].Text, tc.wantMsg)
		// Each half is its text plus 5px padding on either side, and the text
		// is centred in it.
		assert.Equal(t, doc.Texts[1].Length, (label.Width-10)*10)
		assert.Equal(t, doc.Texts[3].Length, (msg.Width-10)*10)
		assert.Equal(t, doc.Texts[3].X, label.Width*10+msg.Width*10/2)
	}
	for _, tc := range []testCase{
		{name: "passing", run: passing, wantMsg: "92% pass", wantColor: badgeGreen},
		{name: "failing", run: ciRun(), wantMsg: "failing · 40% pass", wantColor: badgeRed},
		{name: "rounds-down", run: rounding, wantMsg: "99% pass", wantColor: badgeGreen},
		{name: "no-tasks", run: &results.Run{Passed: true}, wantMsg: "no tasks", wantColor: badgeOrange},
		{name: "interrupted", run: &results.Run{Interrupted: true, Stats: results.Stats{TaskCount: 3}}, wantMsg: "interrupted", wantColor: badgeOrange},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestBadgeEscapes feeds markup through the layout: the SVG stays
// well-formed and the text reads back unchanged.
func TestBadgeEscapes(t *testing.T) {
	type testCase struct {
		name, label, msg, color string
	}
	run := func(t *testing.T, tc testCase) {
		svg := badgeSVG(tc.label, tc.msg, tc.color)
		var doc badgeDoc
		assert.NilError(t, xml.Unmarshal(svg, &doc), "%s", svg)
		assert.Equal(t, doc.Texts[1].Text, tc.label)
		assert.Equal(t, doc.Texts[3].Text, tc.msg)
		assert.Equal(t, doc.Rects[1].Fill, tc.color)
	}
	for _, tc := range []testCase{
		{name: "markup", label: `<script>alert("x")</script>`, msg: `a & b </text>`, color: `"/><x y="`},
		{name: "quotes", label: `it's "quoted"`, msg: "ünïcödé 漢字", color: "#4c1"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
	// Characters XML forbids are replaced, and the SVG stays XML.
	svg := badgeSVG("acme\uFFFE", "bad\x01\uFFFF\xff", "#4c1")
	var doc badgeDoc
	assert.NilError(t, xml.Unmarshal(svg, &doc), "%s", svg)
	assert.Equal(t, doc.Texts[1].Text, "acme\uFFFD")
	assert.Equal(t, doc.Texts[3].Text, "bad\uFFFD\uFFFD\uFFFD")
}

func TestBadgeTextWidth(t *testing.T) {
	type testCase struct {
		text string
		want int
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, badgeTextWidth(tc.text), tc.want)
	}
	// Σ advance widths × 11px / 2048 units per em, rounded up: "evalgate"
	// is 8755 units = 47.02px.
	for _, tc := range []testCase{
		{text: "", want: 0},
		{text: "evalgate", want: 48},
		{text: "iiii", want: 13},      // 4 × 562
		{text: "MMMM", want: 38},      // 4 × 1733
		{text: "漢字", want: 22},        // full-width: 1 em each
		{text: "\x00\u0301", want: 0}, // control and combining marks take no room
	} {
		t.Run(strconv.Quote(tc.text), func(t *testing.T) { run(t, tc) })
	}
}
