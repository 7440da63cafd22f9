package judges

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

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

// level decides a scale graded by its levels' checks (see
// Executor.Level).
func (r *checker) level(s *suites.Scale) (int, error) {
	for i := len(s.Levels) - 1; i > 0; i-- {
		ok, err := r.holds(s.Levels[i].Assert)
		if err != nil {
			return 0, err
		}
		if ok {
			return s.Min + i, nil
		}
	}
	return s.Min, nil
}

func (r *checker) holds(checks []*suites.Check) (bool, error) {
	for _, c := range checks {
		reason, err := r.reason(c)
		if err != nil || reason != "" {
			return false, err
		}
	}
	return true, nil
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

// graded reports whether any criterion asked has a scale.
func graded(criteria []RubricCriterion) bool {
	for _, c := range criteria {
		if c.Scale != nil {
			return true
		}
	}
	return false
}

// medians folds the samples' levels of each graded criterion with Median;
// a binary criterion's entry is 0.
func medians(criteria []RubricCriterion, samples [][]int) []int {
	out := make([]int, len(criteria))
	col := make([]int, 0, len(samples))
	for i, c := range criteria {
		if c.Scale == nil {
			continue
		}
		col = col[:0]
		for _, s := range samples {
			if i < len(s) {
				col = append(col, s[i])
			}
		}
		if len(col) > 0 {
			out[i] = Median(col)
		}
	}
	return out
}

// gradedEntry is one entry of a judge's answer when some criterion asked
// is graded: met for a binary criterion, level for a graded one.
type gradedEntry struct {
	Met    *bool           `json:"met"`
	Level  json.RawMessage `json:"level"`
	Reason string          `json:"reason"`
}

// parseVerdict reads a judge's reply to criteria. With no graded criterion
// it is parseAnswer's {"criteria":[{"met":true,"reason":"..."}]}; a graded
// criterion's entry holds {"level": n, "reason": "..."} instead, n a whole
// number on its scale. A level missing, fractional or outside min..max is
// an error, never rounded or clamped: the judge did not answer the
// question asked.
func parseVerdict(text []byte, criteria []RubricCriterion) (*RubricVerdict, error) {
	if !graded(criteria) {
		met, reasons, err := parseAnswer(text, len(criteria))
		if err != nil {
			return nil, err
		}
		return &RubricVerdict{Met: met, Reasons: reasons}, nil
	}
	body, err := answerObject(text)
	if err != nil {
		return nil, err
	}
	var a struct {
		Criteria []gradedEntry `json:"criteria"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("the judge's answer is not the expected JSON object {\"criteria\": [{\"level\": 2, \"reason\": \"...\"}]}: %s", jsonProblem(err))
	}
	if len(a.Criteria) != len(criteria) {
		return nil, fmt.Errorf("the judge answered %d criteria, want %d", len(a.Criteria), len(criteria))
	}
	v := &RubricVerdict{Met: make([]bool, len(criteria)), Levels: make([]int, len(criteria)), Reasons: make([]string, len(criteria))}
	for i, e := range a.Criteria {
		c := criteria[i]
		v.Reasons[i] = e.Reason
		if c.Scale == nil {
			if e.Met == nil {
				return nil, fmt.Errorf("the judge's answer for criterion %d has no \"met\"", i+1)
			}
			v.Met[i] = *e.Met
			continue
		}
		if e.Level == nil || string(e.Level) == "null" {
			return nil, fmt.Errorf("the judge's answer for criterion %d has no \"level\"; expected a whole number from %d to %d", i+1, c.Scale.Min, c.Scale.Max)
		}
		n, err := strconv.ParseInt(string(e.Level), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("the judge's answer for criterion %d has level %s; expected a whole number from %d to %d", i+1, clip(e.Level), c.Scale.Min, c.Scale.Max)
		}
		if n < int64(c.Scale.Min) || n > int64(c.Scale.Max) {
			return nil, fmt.Errorf("the judge's answer for criterion %d has level %d, outside its scale %d..%d", i+1, n, c.Scale.Min, c.Scale.Max)
		}
		v.Levels[i], v.Met[i] = int(n), int(n) >= c.Scale.Max
	}
	return v, nil
}

// clip shortens what a judge answered for a message.
func clip(v json.RawMessage) string {
	if len(v) > 20 {
		return string(v[:20]) + "..."
	}
	return string(v)
}
