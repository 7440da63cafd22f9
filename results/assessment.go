package results

import (
	"maps"
	"slices"
)

// Assessment is the summary of the run's AAAF dual-axis assessment
// (docs/assessment.md), written when the config has `assessment:`: what gates,
// the scorecard and a later run's comparison read. The full assessment, with
// its evidence, is assessment.json beside results.json.
type Assessment struct {
	ID string `json:"id"`
	// TaskCount is the number of tasks assessed, errored ones included.
	TaskCount   int            `json:"taskCount"`
	Performance AssessmentAxis `json:"performance"`
	Capability  AssessmentAxis `json:"capability"`
	// BaselineRunID is the run whose assessment the deltas are against;
	// empty without a baseline carrying one.
	BaselineRunID string `json:"baselineRunId,omitempty"`
	// TasksAdded is the growth of the task count since the baseline's
	// assessment (50 or more calls for a full re-assessment).
	TasksAdded int `json:"tasksAdded,omitempty"`
}

// AssessmentAxis is one axis of an Assessment.
type AssessmentAxis struct {
	Score       *float64 `json:"score"`          // null when no dimension was measured
	Tier        string   `json:"tier,omitempty"` // empty when Score is null
	Provisional bool     `json:"provisional"`
	// Dimensions maps every dimension of the axis to its value, null when
	// its evidence is missing; Reasons says why, by name.
	Dimensions map[string]*float64 `json:"dimensions"`
	Reasons    map[string]string   `json:"reasons,omitempty"`
	// Delta is the composite's movement against the baseline's; Flagged is
	// set when it moved by more than 0.15.
	Delta   *float64 `json:"delta,omitempty"`
	Flagged bool     `json:"flagged,omitempty"`
}

// Names lists the axis's dimension names, sorted.
func (a *AssessmentAxis) Names() []string { return slices.Sorted(maps.Keys(a.Dimensions)) }

// assessment reports a score of the assessment outside 0..1.
func (c *checker) assessment(a *Assessment) {
	if a == nil {
		return
	}
	c.count("", "/assessment/taskCount", int64(a.TaskCount))
	for _, ax := range []struct {
		name string
		*AssessmentAxis
	}{{"performance", &a.Performance}, {"capability", &a.Capability}} {
		name := ax.name
		if ax.Score != nil {
			c.score("/assessment/"+name, "/score", *ax.Score)
		}
		for _, d := range ax.Names() {
			if v := ax.Dimensions[d]; v != nil {
				c.score(c.at("/assessment/%s/dimensions/%s", name, d), "", *v)
			}
		}
	}
}
