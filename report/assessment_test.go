package report

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"testing"
	"time"

	"golang.org/x/image/font"
	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/assess"
)

func ptrf(x float64) *float64 { return &x }

// sampleAssessment is a Proficient, provisional performance against a
// baseline and a capability with no composite.
func sampleAssessment() *assess.Assessment {
	now := time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)
	dim := func(name string, w float64, v *float64, reason string, ev map[string]int) assess.Dimension {
		return assess.Dimension{Name: name, Weight: w, Value: v, Reason: reason, Evidence: ev}
	}
	return &assess.Assessment{
		Agent: assess.Agent{ID: "acme-support", Name: "Acme <Support> | Agent"}, Organization: "Acme & Co",
		ID: "asm-0001", Timestamp: now, ValidUntil: now.AddDate(0, 0, 90), Tasks: 12,
		Performance: assess.Axis{Name: assess.Performance, Score: ptrf(0.6 - 1e-12), Tier: assess.TierOf(assess.Performance, 0.6-1e-12), Provisional: true,
			Dimensions: []assess.Dimension{
				dim(assess.TaskCompletionRate, 0.25, ptrf(0.75), "", map[string]int{"tasks": 12, "passed": 9, "completed": 12}),
				dim(assess.Consistency, 0.2, nil, "no group of tasks (category, else domain, by complexity) holds 5 tasks; the largest holds 4", map[string]int{"groups": 0}),
			}},
		Capability: assess.Axis{Name: assess.Capability, Provisional: true, Dimensions: []assess.Dimension{
			dim(assess.LearningRate, 0.1, nil, "no history", map[string]int{"historyEntries": 0}),
		}},
		Baseline: &assess.Movement{BaselineRunID: "run-41", Performance: ptrf(0.2), TasksAdded: 50},
	}
}

func TestAssessmentGoldens(t *testing.T) {
	a := sampleAssessment()
	data, err := AssessmentJSON(a, "v1.0.0")
	assert.NilError(t, err)
	golden.Assert(t, string(data), "assessment/assessment.json")
	golden.Assert(t, string(AssessmentSVG(a)), "assessment/assessment.svg")
	golden.Assert(t, string(AssessmentMarkdown(a)), "assessment/assessment.md")
	data, err = AssessmentOpenBadge(a)
	assert.NilError(t, err)
	golden.Assert(t, string(data), "assessment/assessment.openbadge.json")
}

func TestAssessmentSVG(t *testing.T) {
	svg := AssessmentSVG(sampleAssessment())
	var doc struct {
		Width  string `xml:"width,attr"`
		Height string `xml:"height,attr"`
	}
	assert.NilError(t, xml.Unmarshal(svg, &doc))
	assert.Equal(t, doc.Width+"x"+doc.Height, "300x150")
	assert.Assert(t, bytes.Contains(svg, []byte(`fill="#2196F3"`)), "the Proficient panel")
	assert.Assert(t, bytes.Contains(svg, []byte(`fill="#9E9E9E"`)), "the capability panel without a tier")
	assert.Assert(t, bytes.Contains(svg, []byte("Acme &lt;Support&gt; | Agent")), "names are escaped")

	// A name with control characters, or characters XML forbids (a
	// U+FFFE once made the badge invalid XML), still makes well-formed
	// XML.
	for _, names := range [][2]string{
		{"bad\x01name\nline", "org\x1b[31m"},
		{"agent\uFFFE", "acme\uFFFE\uFFFF corp\xff"},
	} {
		a := sampleAssessment()
		a.Agent.Name, a.Organization = names[0], names[1]
		assertXML(t, AssessmentSVG(a))
	}
}

// assertXML checks that doc is well-formed XML.
func assertXML(t *testing.T, doc []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	for {
		_, err := dec.Token()
		if err != nil {
			assert.Equal(t, err.Error(), "EOF", "%s", doc)
			break
		}
	}
}

func TestAssessmentPNG(t *testing.T) {
	a := sampleAssessment()
	data, err := AssessmentPNG(a)
	assert.NilError(t, err)
	img, err := png.Decode(bytes.NewReader(data))
	assert.NilError(t, err)
	assert.Equal(t, img.Bounds().Dx(), 600)
	assert.Equal(t, img.Bounds().Dy(), 300)
	// inside the performance panel, clear of its text: the tier's blue
	r, g, b, _ := img.At(2*16, 2*110).RGBA()
	assert.Equal(t, [3]uint32{r >> 8, g >> 8, b >> 8}, [3]uint32{0x21, 0x96, 0xF3})
	again, err := AssessmentPNG(a)
	assert.NilError(t, err)
	assert.Assert(t, bytes.Equal(data, again), "the same assessment gives the same bytes")
}

func TestAssessmentFiles(t *testing.T) {
	for format, want := range map[string][]string{
		"all":       {AssessmentJSONFile, AssessmentMarkdownFile, AssessmentPNGFile, AssessmentSVGFile},
		"svg":       {AssessmentSVGFile},
		"openbadge": {AssessmentOpenBadgeFile},
	} {
		files, err := AssessmentFiles(sampleAssessment(), format, "dev")
		assert.NilError(t, err)
		var got []string
		for _, name := range want {
			if _, ok := files[name]; ok {
				got = append(got, name)
			}
		}
		assert.DeepEqual(t, got, want)
		assert.Equal(t, len(files), len(want), format)
	}
}

// TestPNGHyphen: the PNG draws "-" as a hyphen, narrower than a figure,
// not as the Go fonts' hyphen-minus, a minus sign as wide as one
// ("Full-Stack", the dates).
func TestPNGHyphen(t *testing.T) {
	for _, bold := range []bool{false, true} {
		face, err := newFace(16*pngScale, bold)
		assert.NilError(t, err)
		figure := font.MeasureString(face, "0")
		assert.Check(t, font.MeasureString(face, "-")*10 >= figure*9, "the Go fonts' hyphen-minus is about as wide as a figure")
		hyphen := pngText("-")
		assert.Check(t, font.MeasureString(face, hyphen)*10 < figure*7, "bold %v: the hyphen drawn is %v wide, a figure %v", bold, font.MeasureString(face, hyphen), figure)
		ink, _ := font.BoundString(face, hyphen)
		assert.Check(t, ink.Max.X > ink.Min.X && ink.Max.Y > ink.Min.Y, "bold %v: the hyphen drawn has no ink", bold)
		assert.Equal(t, pngText("Full-Stack 2026-11-28"), "Full\u00adStack 2026\u00ad11\u00ad28")
	}
}
