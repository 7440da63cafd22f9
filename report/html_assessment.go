package report

import (
	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/results"
)

// Geometry of the dual-axis chart: capability across, performance up, the
// plot posPlot units square with posMargin left for the axes' labels.
const (
	posPlot   = 200
	posMargin = 30
)

// htmlAssessment is the dual-axis section: where the run sits on the two
// axes (and where the baseline sat), the tier bounds as lines, and each
// axis's dimensions.
type htmlAssessment struct {
	Axes     []htmlAxis // performance, capability
	Point    *htmlPoint // nil when an axis has no score
	Baseline *htmlPoint // nil without a delta on both axes
	PerfLines,
	CapLines []htmlTierLine
}

type htmlAxis struct {
	Name   string // performance or capability
	Score  *float64
	Tier   string
	Colour string // the tier's AAAF colour
	results.AssessmentAxis
	Rows []htmlDimension
}

// htmlDimension is one dimension: its value drawn as a bar of 0 to 1, or
// null and why.
type htmlDimension struct {
	Name   string
	Value  *float64
	Reason string
}

type htmlPoint struct {
	X, Y float64
	Perf float64
	Cap  float64
}

// htmlTierLine is a tier's lower bound on one axis, placed on the chart.
type htmlTierLine struct {
	At   float64 // x for capability, y for performance, in chart units
	Name string
}

// newHTMLAssessment lays the run's assessment out; nil without one.
func newHTMLAssessment(a *results.Assessment) *htmlAssessment {
	if a == nil {
		return nil
	}
	v := &htmlAssessment{}
	for _, ax := range []struct {
		name string
		axis results.AssessmentAxis
	}{{assess.Performance, a.Performance}, {assess.Capability, a.Capability}} {
		h := htmlAxis{Name: ax.name, AssessmentAxis: ax.axis, Score: ax.axis.Score, Tier: ax.axis.Tier}
		if ax.axis.Score != nil {
			h.Colour = assess.TierOf(ax.name, *ax.axis.Score).Colour
		}
		for _, name := range ax.axis.Names() {
			h.Rows = append(h.Rows, htmlDimension{Name: name, Value: ax.axis.Dimensions[name], Reason: ax.axis.Reasons[name]})
		}
		v.Axes = append(v.Axes, h)
	}
	for _, t := range assess.Tiers[assess.Performance][1:] {
		v.PerfLines = append(v.PerfLines, htmlTierLine{At: posY(t.Min), Name: t.Name})
	}
	for _, t := range assess.Tiers[assess.Capability][1:] {
		v.CapLines = append(v.CapLines, htmlTierLine{At: posX(t.Min), Name: t.Name})
	}
	p, c := a.Performance, a.Capability
	if p.Score != nil && c.Score != nil {
		v.Point = &htmlPoint{X: posX(*c.Score), Y: posY(*p.Score), Perf: *p.Score, Cap: *c.Score}
		if p.Delta != nil && c.Delta != nil {
			bp, bc := *p.Score-*p.Delta, *c.Score-*c.Delta
			v.Baseline = &htmlPoint{X: posX(bc), Y: posY(bp), Perf: bp, Cap: bc}
		}
	}
	return v
}

// posX and posY place a score, clamped to 0..1, on the dual-axis chart.
func posX(score float64) float64 { return posMargin + clamp(score, 0, 1)*posPlot }
func posY(score float64) float64 { return (1 - clamp(score, 0, 1)) * posPlot }
