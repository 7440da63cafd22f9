package judges

import (
	"math"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestMeasureGraded compares levels with figures computed by hand.
func TestMeasureGraded(t *testing.T) {
	type testCase struct {
		name         string
		judge, human []float64
		lo, hi       int
		rho, kappa   *float64 // nil: undefined
		accuracy     float64
	}
	run := func(t *testing.T, tc testCase) {
		a := MeasureGraded(tc.judge, tc.human, tc.lo, tc.hi)
		assert.Equal(t, a.KappaWeights, KappaQuadratic)
		assert.DeepEqual(t, a.Scale, &AgreementScale{Min: tc.lo, Max: tc.hi})
		near := func(what string, got, want *float64) {
			if want == nil {
				assert.Check(t, got == nil, "%s = %v, want undefined", what, got)
				return
			}
			assert.Assert(t, got != nil, "%s undefined, want %v", what, *want)
			assert.Check(t, math.Abs(*got-*want) < 1e-12, "%s = %v, want %v", what, *got, *want)
		}
		near("ρ", a.Rho, tc.rho)
		near("κ", a.Kappa, tc.kappa)
		assert.Equal(t, a.Accuracy, tc.accuracy)
	}
	f := func(v float64) *float64 { return &v }
	for _, tc := range []testCase{
		// human 0,1,2,2 against judge 0,2,2,1 on 0..2. Ranks (ties averaged):
		// human 1,2,3.5,3.5, judge 1,3.5,3.5,2; deviations from 2.5 give
		// Σxy = 2.25 and Σx² = Σy² = 4.5: ρ = 0.5. Weights (d/2)²: observed
		// Σw·O = 0.25 + 0.25 = 0.5; both raters' counts are 1,1,2, so
		// Σw·E = (0.25·2 + 1·2·2 + 0.25·2·2)/4 = 1.375: κ = 1 − 0.5/1.375 = 7/11.
		{name: "hand-computed", judge: []float64{0, 2, 2, 1}, human: []float64{0, 1, 2, 2}, lo: 0, hi: 2,
			rho: f(0.5), kappa: f(7.0 / 11), accuracy: 0.5},
		{name: "the same levels", judge: []float64{1, 2, 3, 4}, human: []float64{1, 2, 3, 4}, lo: 1, hi: 4,
			rho: f(1), kappa: f(1), accuracy: 1},
		// Reversed on 0..2: Σw·O = 1 + 0 + 1 = 2, Σw·E = (0.25·2 + 1·2 + 0.25·2)/3 = 1: κ = −1.
		{name: "reversed", judge: []float64{2, 1, 0}, human: []float64{0, 1, 2}, lo: 0, hi: 2,
			rho: f(-1), kappa: f(-1), accuracy: 1.0 / 3},
		// Off by one everywhere on 0..4: ranks agree (ρ = 1) but κ counts the
		// distance. Σw·O = 4·(1/4)² = 0.25; counts judge 1,1,1,1,0 and human
		// 0,1,1,1,1: Σ (i−j)² over i in 0..3, j in 1..4 is 30 + 14 + 6 + 6 = 56,
		// so Σw·E = 56/16/4 = 0.875: κ = 1 − 0.25/0.875 = 5/7.
		{name: "one level apart", judge: []float64{0, 1, 2, 3}, human: []float64{1, 2, 3, 4}, lo: 0, hi: 4,
			rho: f(1), kappa: f(5.0 / 7), accuracy: 0},
		{name: "one level throughout", judge: []float64{2, 2}, human: []float64{2, 2}, lo: 0, hi: 4, accuracy: 1},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestParseGradedLabels(t *testing.T) {
	const scale = `"scale":{"min":0,"max":2,"levels":{"0":"none","1":"some","2":"all"}}`
	labels, err := ParseLabels("labels.jsonl", strings.NewReader(
		`{"output":"a","criterion":"Tools.",`+scale+`,"human":2}`+"\n"+
			`{"output":"b","criterion":"Tools.",`+scale+`,"human":0}`+"\n"))
	assert.NilError(t, err)
	assert.Equal(t, labels[0].Human, 2.0)
	assert.DeepEqual(t, labels[1].Scale, &RubricScale{Min: 0, Max: 2, Levels: []RubricLevel{{0, "none"}, {1, "some"}, {2, "all"}}})

	for _, tc := range []struct{ name, text, want string }{
		{"level off the scale", `{"output":"a","criterion":"c",` + scale + `,"human":3}` + "\n",
			"labels.jsonl:1: human: expected the level a person gave, a whole number from 0 to 2"},
		{"yes/no for a graded label", `{"output":"a","criterion":"c",` + scale + `,"human":true}` + "\n",
			"labels.jsonl:1: human: expected the level a person gave, a whole number from 0 to 2"},
		{"a level not described", `{"output":"a","criterion":"c","scale":{"min":0,"max":2,"levels":{"0":"x","2":"y"}},"human":1}` + "\n",
			"labels.jsonl:1: scale: level 1 needs a descriptor"},
		{"bounds the wrong way", `{"output":"a","criterion":"c","scale":{"min":2,"max":0,"levels":{}},"human":1}` + "\n",
			"labels.jsonl:1: scale: expected min below max and at most 101 levels, got 2..0"},
		{"graded and yes/no mixed", `{"output":"a","criterion":"c",` + scale + `,"human":1}` + "\n" + `{"output":"b","criterion":"c","human":true}` + "\n",
			"labels.jsonl:2: a file holds yes/no labels or graded labels (with a scale), not both; line 1 is graded"},
		{"two scales", `{"output":"a","criterion":"c",` + scale + `,"human":1}` + "\n" +
			`{"output":"b","criterion":"c","scale":{"min":1,"max":2,"levels":{"1":"x","2":"y"}},"human":1}` + "\n",
			"labels.jsonl:2: scale: expected 0..2 as on line 1: graded labels are compared on one scale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLabels("labels.jsonl", strings.NewReader(tc.text))
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
