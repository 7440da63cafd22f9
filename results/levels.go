package results

import "slices"

// Level is a graded criterion's level in a task: with trials, the median
// over the trials that graded it, the lower of the two middle levels for
// an even count (as a judge's samples are folded).
type Level struct {
	Check     string `json:"check"`     // the check's id: the criterion's id, else rubric[i]
	Criterion int    `json:"criterion"` // its index in the task's rubric
	Level     int    `json:"level"`
}

// TaskLevels folds the graded checks of trials into one Level per
// criterion, in the order the checks first appear; nil when no trial
// graded any.
func TaskLevels(trials []Trial) []Level {
	var out []Level
	levels := map[string][]int{}
	for _, tr := range trials {
		for _, c := range tr.Checks {
			if c.Level == nil {
				continue
			}
			if _, seen := levels[c.ID]; !seen {
				l := Level{Check: c.ID}
				if c.Criterion != nil {
					l.Criterion = *c.Criterion
				}
				out = append(out, l)
			}
			levels[c.ID] = append(levels[c.ID], *c.Level)
		}
	}
	for i := range out {
		ls := levels[out[i].Check]
		slices.Sort(ls)
		out[i].Level = ls[(len(ls)-1)/2]
	}
	return out
}
