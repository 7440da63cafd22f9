package report

import (
	"fmt"
	"math"
	"time"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/jsonvalue"
)

// The files of an assessment, written beside results.json and by
// `evalgate assess`.
const (
	AssessmentJSONFile      = "assessment.json"
	AssessmentSVGFile       = "assessment.svg"
	AssessmentPNGFile       = "assessment.png"
	AssessmentMarkdownFile  = "assessment.md"
	AssessmentOpenBadgeFile = "assessment.openbadge.json"
)

// assessmentDoc is assessment.json: AAAF §4.5's AgentAssessmentBadge, plus
// the evidence behind every dimension. Fields are in AAAF's order.
type assessmentDoc struct {
	Type               string           `json:"type"`
	Agent              docAgent         `json:"agent"`
	Assessment         docAssessment    `json:"assessment"`
	Performance        docAxis          `json:"performance"`
	Capability         docAxis          `json:"capability"`
	StandardsAlignment []docStandard    `json:"standards_alignment"`
	Evidence           docEvidence      `json:"evidence"`
	Reassessment       *docReassessment `json:"reassessment,omitempty"`
	Notices            []string         `json:"notices,omitempty"`
}

type docAgent struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Organization string `json:"organization,omitempty"`
}

type docAssessment struct {
	ID         string `json:"id"`
	Timestamp  string `json:"timestamp"`
	ValidUntil string `json:"valid_until"`
	Assessor   string `json:"assessor"`
}

type docAxis struct {
	CompositeScore *float64            `json:"composite_score"`
	Tier           *string             `json:"tier"`
	TierColour     *string             `json:"tier_color"`
	Provisional    bool                `json:"provisional"`
	Dimensions     map[string]*float64 `json:"dimensions"`
	Weights        map[string]float64  `json:"weights"`
}

type docStandard struct {
	Framework string   `json:"framework"`
	Sections  []string `json:"sections"`
}

type docEvidence struct {
	Tasks      int                     `json:"tasks"`
	Dimensions map[string]docDimension `json:"dimensions"`
}

type docDimension struct {
	Counts map[string]int `json:"counts"`
	Reason string         `json:"reason,omitempty"`
}

type docReassessment struct {
	BaselineRunID    string   `json:"baseline_run_id"`
	PerformanceDelta *float64 `json:"performance_delta"`
	CapabilityDelta  *float64 `json:"capability_delta"`
	PerformanceFlag  bool     `json:"performance_flagged"`
	CapabilityFlag   bool     `json:"capability_flagged"`
	TasksAdded       int      `json:"tasks_added"`
}

// assessmentTime renders a time as assessment.json and the badges do.
func assessmentTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// AssessmentJSON renders assessment.json; version names the assessor
// ("evalgate v1.2.3").
func AssessmentJSON(a *assess.Assessment, version string) ([]byte, error) {
	doc := assessmentDoc{
		Type:        "AgentAssessmentBadge",
		Agent:       docAgent{ID: a.Agent.ID, Name: a.Agent.Name, Organization: a.Organization},
		Assessment:  docAssessment{ID: a.ID, Timestamp: assessmentTime(a.Timestamp), ValidUntil: assessmentTime(a.ValidUntil), Assessor: "evalgate " + version},
		Performance: axisDoc(&a.Performance),
		Capability:  axisDoc(&a.Capability),
		StandardsAlignment: []docStandard{
			{Framework: "AAAF dual-axis assessment", Sections: []string{"3.3", "4.1", "4.2", "4.5"}},
			{Framework: "Open Badges 3.0", Sections: []string{"OpenBadgeCredential (evalgate assess --format openbadge)"}},
		},
		Evidence: docEvidence{Tasks: a.Tasks, Dimensions: map[string]docDimension{}},
		Notices:  AssessmentNotices(a),
	}
	for _, ax := range []*assess.Axis{&a.Performance, &a.Capability} {
		for _, d := range ax.Dimensions {
			doc.Evidence.Dimensions[d.Name] = docDimension{Counts: d.Evidence, Reason: d.Reason}
		}
	}
	if m := a.Baseline; m != nil {
		doc.Reassessment = &docReassessment{BaselineRunID: m.BaselineRunID,
			PerformanceDelta: m.Performance, CapabilityDelta: m.Capability,
			PerformanceFlag: assess.Flagged(m.Performance), CapabilityFlag: assess.Flagged(m.Capability),
			TasksAdded: m.TasksAdded}
	}
	return jsonvalue.MarshalFile(doc)
}

func axisDoc(ax *assess.Axis) docAxis {
	d := docAxis{CompositeScore: ax.Score, Provisional: ax.Provisional,
		Dimensions: map[string]*float64{}, Weights: map[string]float64{}}
	if ax.Score != nil {
		d.Tier, d.TierColour = &ax.Tier.Name, &ax.Tier.Colour
	}
	for _, dim := range ax.Dimensions {
		d.Dimensions[dim.Name] = dim.Value
		d.Weights[dim.Name] = dim.Weight
	}
	return d
}

// AssessmentNotices are what an assessment asks of its reader: a
// provisional axis, a composite that moved by more than 0.15, 50 or more
// tasks added since the baseline's assessment.
func AssessmentNotices(a *assess.Assessment) []string {
	var out []string
	if a.Performance.Provisional {
		out = append(out, "performance is provisional: fewer than 20 tasks")
	}
	if a.Capability.Provisional {
		out = append(out, "capability is provisional: fewer than 30 tasks")
	}
	if m := a.Baseline; m != nil {
		for _, mv := range []struct {
			axis  string
			delta *float64
		}{{"performance", m.Performance}, {"capability", m.Capability}} {
			if assess.Flagged(mv.delta) {
				out = append(out, "the "+mv.axis+" composite moved by more than 0.15 against the baseline ("+signed(*mv.delta)+"): review the change before trusting the new tier")
			}
		}
		if m.TasksAdded >= assess.TasksAddedNotice {
			out = append(out, "50 or more tasks were added since the baseline's assessment: a full re-assessment is due")
		}
	}
	return out
}

// signed renders a delta with its sign and two decimals.
func signed(x float64) string { return fmt.Sprintf("%+.2f", x) }

// score2 renders a composite or a dimension with two decimals, rounded
// down (within 1e-9, as tiers are), so a shown 0.60 is never below the
// Proficient bound and 0.5999 never shows as 0.60.
func score2(x float64) string { return fmt.Sprintf("%.2f", math.Floor(x*100+1e-7)/100) }

// AssessmentScore renders a composite as the badges show it: two
// decimals, rounded down.
func AssessmentScore(x float64) string { return score2(x) }

// scoreOrDash renders an optional score with score2, "—" for none.
func scoreOrDash(x *float64) string {
	if x == nil {
		return "—"
	}
	return score2(*x)
}

// AssessmentFormats are the values of `evalgate assess --format`: all is
// json, svg, png and md; openbadge is written only when asked for.
var AssessmentFormats = []string{"all", "json", "svg", "png", "md", "openbadge"}

// AssessmentFiles renders the files of format (one of AssessmentFormats)
// by name; version names the assessor in assessment.json.
func AssessmentFiles(a *assess.Assessment, format, version string) (map[string][]byte, error) {
	files := map[string][]byte{}
	want := func(f string) bool { return format == f || (format == "all" && f != "openbadge") }
	var err error
	if want("json") {
		if files[AssessmentJSONFile], err = AssessmentJSON(a, version); err != nil {
			return nil, err
		}
	}
	if want("svg") {
		files[AssessmentSVGFile] = AssessmentSVG(a)
	}
	if want("png") {
		if files[AssessmentPNGFile], err = AssessmentPNG(a); err != nil {
			return nil, err
		}
	}
	if want("md") {
		files[AssessmentMarkdownFile] = AssessmentMarkdown(a)
	}
	if want("openbadge") {
		if files[AssessmentOpenBadgeFile], err = AssessmentOpenBadge(a); err != nil {
			return nil, err
		}
	}
	return files, nil
}
