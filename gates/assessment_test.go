package gates

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
)

func assessedRun() *results.Run {
	r := sampleRun()
	perf, capa := 0.62, 0.45
	r.Assessment = &results.Assessment{
		Performance: results.AssessmentAxis{Score: &perf, Tier: "Proficient"},
		Capability:  results.AssessmentAxis{Score: &capa, Tier: "Functional"},
	}
	return r
}

// TestAssessmentGates: tiers compare by rank, never by string order, on
// either side of the operator.
func TestAssessmentGates(t *testing.T) {
	cases := []struct {
		expr string
		want bool
	}{
		{`assessment.performance.tier >= "Proficient"`, true},
		{`assessment.performance.tier >= "Competent"`, true}, // "Proficient" < "Competent" as strings
		{`assessment.performance.tier >= "Expert"`, false},   // "Proficient" > "Expert" as strings
		{`assessment.performance.tier > "Novice"`, true},
		{`assessment.performance.tier < "Elite"`, true},
		{`assessment.performance.tier <= "Competent"`, false},
		{`assessment.performance.tier == "Proficient"`, true},
		{`assessment.performance.tier != "Proficient"`, false},
		{`"Expert" > assessment.performance.tier`, true},
		{`assessment.capability.tier >= "Functional" && assessment.capability.tier < "Versatile"`, true},
		{`assessment.capability.tier >= "Full-Stack"`, false},
		{`assessment.performance.score >= 0.6 && assessment.capability.score < 0.5`, true},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			gs, err := Compile([]string{c.expr})
			assert.NilError(t, err)
			got := Evaluate(gs, assessedRun())
			assert.Equal(t, got[0].Error, "")
			assert.Equal(t, got[0].Passed, c.want)
		})
	}
}

func TestAssessmentGateValues(t *testing.T) {
	gs, err := Compile([]string{`assessment.performance.tier >= "Proficient" && assessment.capability.score > 0.4`})
	assert.NilError(t, err)
	got := Evaluate(gs, assessedRun())
	assert.Check(t, is.DeepEqual(got[0].Values, map[string]any{
		"assessment.performance.tier": performanceTier("Proficient"), "assessment.capability.score": 0.45}))
}

func TestAssessmentGateErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{`assessment.performance.tier >= "Pro"`,
			`gate "assessment.performance.tier >= \"Pro\"": column 32: unknown performance tier "Pro"; the tiers are "Novice" < "Competent" < "Proficient" < "Expert" < "Elite"`},
		{`assessment.capability.tier >= "Expert"`,
			`gate "assessment.capability.tier >= \"Expert\"": column 31: unknown capability tier "Expert"; the tiers are "Narrow" < "Functional" < "Versatile" < "Specialist" < "Full-Stack"`},
		{`"proficient" <= assessment.performance.tier`,
			`gate "\"proficient\" <= assessment.performance.tier": column 1: unknown performance tier "proficient"; the tiers are "Novice" < "Competent" < "Proficient" < "Expert" < "Elite"`},
		{`assessment.performance.scor > 0.5`,
			`gate "assessment.performance.scor > 0.5": column 24: assessment.performance has no field "scor"; did you mean score?`},
		{`assesment.performance.score > 0.5`,
			`gate "assesment.performance.score > 0.5": column 1: unknown name "assesment"; did you mean assessment?`},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			_, err := Compile([]string{c.expr})
			assert.Error(t, err, c.want)
		})
	}
}

// TestNoAssessment: a gate reading the assessment of a run without one
// fails with the reason; other gates are not affected.
func TestNoAssessment(t *testing.T) {
	gs, err := Compile([]string{`assessment.performance.tier >= "Proficient"`, `taskCount > 0`, `assessment.capability.score > 0`})
	assert.NilError(t, err)
	got := Evaluate(gs, sampleRun())
	assert.Equal(t, got[0].Error, "no assessment: add assessment: to evalgate.yaml")
	assert.Assert(t, !got[0].Passed)
	assert.Assert(t, got[0].Values == nil, "no zeros shown as if measured")
	assert.Assert(t, got[1].Passed)

	r := assessedRun()
	r.Assessment.Capability = results.AssessmentAxis{}
	got = Evaluate(gs, r)
	assert.Assert(t, got[0].Passed)
	assert.Equal(t, got[2].Error, "no capability composite: none of its dimensions could be measured (assessment.json says why)")
}
