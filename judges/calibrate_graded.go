package judges

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/evalgate/evalgate/internal/diag"
)

// labelScale is a graded label's "scale" as written:
// {"min": 0, "max": 4, "levels": {"0": "...", ..., "4": "..."}}, as a
// suite writes a criterion's scale.
type labelScale struct {
	Min    *int              `json:"min"`
	Max    *int              `json:"max"`
	Levels map[string]string `json:"levels"`
}

// gradedLabel reads a graded label's scale and its human level; the
// problems say what is wrong with either.
func gradedLabel(scale, human json.RawMessage) (*RubricScale, float64, []string) {
	var ls labelScale
	if err := json.Unmarshal(scale, &ls); err != nil || ls.Min == nil || ls.Max == nil || ls.Levels == nil {
		return nil, 0, []string{`scale: expected {"min": 0, "max": 4, "levels": {"0": "...", ...}} with whole numbers and a descriptor per level`}
	}
	lo, hi := *ls.Min, *ls.Max
	if lo >= hi || hi-lo+1 > 101 {
		return nil, 0, []string{fmt.Sprintf("scale: expected min below max and at most 101 levels, got %d..%d", lo, hi)}
	}
	s := &RubricScale{Min: lo, Max: hi}
	var problems []string
	for n := lo; n <= hi; n++ {
		d, ok := ls.Levels[strconv.Itoa(n)]
		if !ok || d == "" {
			problems = append(problems, fmt.Sprintf("scale: level %d needs a descriptor", n))
		}
		s.Levels = append(s.Levels, RubricLevel{Level: n, Descriptor: d})
	}
	if len(ls.Levels) > hi-lo+1 {
		problems = append(problems, fmt.Sprintf("scale: expected levels %d to %d only", lo, hi))
	}
	var level int
	if human == nil {
		return s, 0, problems // "human is required" is said once
	}
	if err := json.Unmarshal(human, &level); err != nil || level < lo || level > hi {
		problems = append(problems, fmt.Sprintf("human: expected the level a person gave, a whole number from %d to %d", lo, hi))
	}
	return s, float64(level), problems
}

// checkGradedLabels reports labels that cannot be measured together: yes/no
// labels mixed with graded ones, or graded ones on different scales (the
// weighted κ compares levels of one scale).
func checkGradedLabels(name string, labels []Label) LabelErrors {
	if len(labels) == 0 {
		return nil
	}
	first := labels[0]
	for _, l := range labels[1:] {
		switch {
		case (l.Scale == nil) != (first.Scale == nil):
			return LabelErrors{&LabelError{Pos: diag.Pos{File: name, Line: l.Line},
				Message: fmt.Sprintf("a file holds yes/no labels or graded labels (with a scale), not both; line %d is %s", first.Line, labelKind(first))}}
		case l.Scale != nil && (l.Scale.Min != first.Scale.Min || l.Scale.Max != first.Scale.Max):
			return LabelErrors{&LabelError{Pos: diag.Pos{File: name, Line: l.Line},
				Message: fmt.Sprintf("scale: expected %d..%d as on line %d: graded labels are compared on one scale", first.Scale.Min, first.Scale.Max, first.Line)}}
		}
	}
	return nil
}

func labelKind(l Label) string {
	if l.Scale != nil {
		return "graded"
	}
	return "yes/no"
}

// Weightings of κ, as Agreement records them.
const KappaQuadratic = "quadratic"

// MeasureGraded compares a judge's levels with people's, index by index,
// on the scale lo..hi: Spearman ρ on the levels, the quadratic-weighted κ,
// and as accuracy the share of exact agreement. The confusion counts stay 0.
func MeasureGraded(judge, human []float64, lo, hi int) Agreement {
	a := Agreement{N: len(judge), Scale: &AgreementScale{Min: lo, Max: hi}, KappaWeights: KappaQuadratic}
	exact := 0
	j, h := make([]int, len(judge)), make([]int, len(human))
	for i := range judge {
		j[i], h[i] = int(judge[i]), int(human[i])
		if j[i] == h[i] {
			exact++
		}
	}
	if a.N > 0 {
		a.Accuracy = float64(exact) / float64(a.N)
	}
	if r, ok := Spearman(judge, human); ok {
		a.Rho = &r
	}
	if k, ok := QuadraticKappa(j, h, lo, hi); ok {
		a.Kappa = &k
	}
	return a
}

// AgreementScale is the scale graded labels were compared on.
type AgreementScale struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// QuadraticKappa is the quadratic-weighted κ of two raters' levels on
// lo..hi: 1 − Σ w·O / Σ w·E, where O counts the pairs of levels given, E
// is what chance would give with each rater's own distribution, and a
// disagreement by d levels weighs (d/(hi − lo))². ok is false when it is
// undefined: no ratings, a level off the scale, or chance agreement
// already perfect (both raters always giving one and the same level).
func QuadraticKappa(a, b []int, lo, hi int) (kappa float64, ok bool) {
	if len(a) != len(b) || len(a) == 0 || hi <= lo {
		return 0, false
	}
	k := hi - lo + 1
	ha, hb := make([]float64, k), make([]float64, k)
	var observed float64
	w := func(i, j int) float64 { d := float64(i-j) / float64(hi-lo); return d * d }
	for i := range a {
		x, y := a[i]-lo, b[i]-lo
		if x < 0 || x >= k || y < 0 || y >= k {
			return 0, false
		}
		ha[x]++
		hb[y]++
		observed += w(x, y)
	}
	n := float64(len(a))
	var expected float64
	for i := range k {
		for j := range k {
			expected += w(i, j) * ha[i] * hb[j] / n
		}
	}
	if expected == 0 {
		return 0, false
	}
	return 1 - observed/expected, true
}
