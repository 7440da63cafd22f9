package regression

import (
	"github.com/evalgate/evalgate/results"
)

// levelChanges lists the graded criteria of a task whose level moved from
// base to head (results.Task.Levels), in head's order; a criterion one
// side did not grade (an errored trial, a criterion added or removed) is
// not compared.
func levelChanges(base, head *results.Task) []results.LevelChange {
	if len(base.Levels) == 0 {
		return nil
	}
	before := make(map[string]int, len(base.Levels))
	for _, l := range base.Levels {
		before[l.Check] = l.Level
	}
	var out []results.LevelChange
	for _, l := range head.Levels {
		if b, ok := before[l.Check]; ok && b != l.Level {
			out = append(out, results.LevelChange{Check: l.Check, Criterion: l.Criterion, Base: b, Head: l.Level})
		}
	}
	return out
}
