package regression

import (
	"slices"

	"github.com/evalgate/evalgate/results"
)

// levelChanges lists the graded criteria of a task whose level moved from
// base to head, in head's check order. A criterion's level in a run is
// the median of its trials' levels, the lower of the two middle ones for
// an even count; a criterion one side did not grade (an errored trial, a
// criterion added or removed) is not compared.
func levelChanges(base, head *results.Task) []results.LevelChange {
	before := taskLevels(base)
	if len(before) == 0 {
		return nil
	}
	var out []results.LevelChange
	for _, g := range taskLevelOrder(head) {
		b, ok := before[g.id]
		if !ok || b.level == g.level {
			continue
		}
		out = append(out, results.LevelChange{Check: g.id, Criterion: g.criterion, Base: b.level, Head: g.level})
	}
	return out
}

type gradedLevel struct {
	id        string
	criterion int
	level     int
}

// taskLevels is taskLevelOrder by check id.
func taskLevels(t *results.Task) map[string]gradedLevel {
	order := taskLevelOrder(t)
	if len(order) == 0 {
		return nil
	}
	m := make(map[string]gradedLevel, len(order))
	for _, g := range order {
		m[g.id] = g
	}
	return m
}

// taskLevelOrder is the level of each graded check of a task over its
// trials, in the order the checks first appear.
func taskLevelOrder(t *results.Task) []gradedLevel {
	var order []gradedLevel
	levels := map[string][]int{}
	for _, tr := range t.Trials {
		for _, c := range tr.Checks {
			if c.Level == nil {
				continue
			}
			if _, seen := levels[c.ID]; !seen {
				idx := 0
				if c.Criterion != nil {
					idx = *c.Criterion
				}
				order = append(order, gradedLevel{id: c.ID, criterion: idx})
			}
			levels[c.ID] = append(levels[c.ID], *c.Level)
		}
	}
	for i := range order {
		ls := levels[order[i].id]
		slices.Sort(ls)
		order[i].level = ls[(len(ls)-1)/2]
	}
	return order
}

// gradedChecks are the checks of a trial that hold a level, for a
// promoted baseline; nil when none does.
func gradedChecks(checks []results.Check) []results.Check {
	var out []results.Check
	for _, c := range checks {
		if c.Level != nil {
			out = append(out, c)
		}
	}
	return out
}
