package judges

import (
	"slices"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// Reasons of a graded criterion below the top of its scale.
const (
	ReasonPartial = "partial" // above the bottom of the scale, below the top
	ReasonNotMet  = "not-met" // at the bottom of the scale
)

// GradedCheck is the check of the graded criterion number index, with id,
// at level on its scale (nil when no level was decided). It passes at the
// top of the scale.
func GradedCheck(id string, index int, c *suites.Criterion, level *int) results.Check {
	ck := results.Check{
		ID:        id,
		Kind:      "criterion",
		Weight:    c.Weight,
		Criterion: &index,
		Scale:     &results.Scale{Min: c.Scale.Min, Max: c.Scale.Max},
	}
	SetLevel(&ck, level)
	return ck
}

// SetLevel records level on a graded check, with its verdict and reason.
func SetLevel(ck *results.Check, level *int) {
	ck.Level = level
	switch {
	case level == nil:
		ck.Passed, ck.Reason = false, ""
	case *level >= ck.Scale.Max:
		ck.Passed, ck.Reason = true, ""
	case *level > ck.Scale.Min:
		ck.Passed, ck.Reason = false, ReasonPartial
	default:
		ck.Passed, ck.Reason = false, ReasonNotMet
	}
}

// GradeLevel decides a scale graded by its levels' checks without a judge:
// the highest level whose checks all hold, else the bottom of the scale.
// out is the output as jsonvalue.Decode returns it.
func GradeLevel(s *suites.Scale, obs *Observation, out any) int {
	r := runner{obs: obs, out: out}
	for i := len(s.Levels) - 1; i > 0; i-- {
		if holds(&r, s.Levels[i].Assert) {
			return s.Min + i
		}
	}
	return s.Min
}

func holds(r *runner, checks []*suites.Check) bool {
	for _, c := range checks {
		if r.reason(c) != "" {
			return false
		}
	}
	return true
}

// RubricScale is a graded criterion's scale as a judge sees it: the exec
// judge reads it on stdin, the OpenAI judge in its prompt.
type RubricScale struct {
	Min    int           `json:"min"`
	Max    int           `json:"max"`
	Levels []RubricLevel `json:"levels"`
}

// RubricLevel is one level of a scale and what it means.
type RubricLevel struct {
	Level      int    `json:"level"`
	Descriptor string `json:"descriptor"`
}

// ScaleFor is the scale of a suite's criterion as a judge sees it.
func ScaleFor(s *suites.Scale) *RubricScale {
	out := &RubricScale{Min: s.Min, Max: s.Max, Levels: make([]RubricLevel, len(s.Levels))}
	for i, l := range s.Levels {
		out.Levels[i] = RubricLevel{Level: s.Min + i, Descriptor: l.Descriptor}
	}
	return out
}

// Median folds samples of one graded criterion's levels into one: the
// middle level, and between the two middle ones of an even count the
// lower, so a tie never grades up (as a tied vote is "not met").
func Median(levels []int) int {
	s := slices.Clone(levels)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
