package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/results"
)

// budgetLevels bounds the scorecard's table of level changes.
const budgetLevels = 4_000

// levelDiffs are the task diffs of a comparison in which a graded
// criterion's level moved (docs/regression.md, "The comparison").
func levelDiffs(reg *results.Regression) []results.TaskDiff {
	if reg == nil {
		return nil
	}
	var out []results.TaskDiff
	for _, td := range reg.Tasks {
		if len(td.Levels) > 0 {
			out = append(out, td)
		}
	}
	return out
}

// levelsText says how a task's graded criteria moved: "tools 4 → 2,
// clarity 1 → 3". The ids are the suite author's, escaped by the caller.
func levelsText(levels []results.LevelChange) string {
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = l.Check + " " + strconv.Itoa(l.Base) + " → " + strconv.Itoa(l.Head)
	}
	return strings.Join(parts, ", ")
}

// levelsSection writes the diff's terminal section of level changes.
func (d *differ) levelsSection() {
	diffs := levelDiffs(d.head.Regression)
	if len(diffs) == 0 {
		return
	}
	fmt.Fprintf(&d.b, "\n%s\n", d.bold.Sprintf("levels (%d)", len(diffs)))
	rows := [][]string{{"SUITE", "TASK", "LEVELS"}}
	for i, td := range diffs {
		if i == maxDiffRows {
			break
		}
		rows = append(rows, []string{td.SuiteID, td.TaskID, levelsText(td.Levels)})
	}
	d.textTable(rows)
	if more := len(diffs) - maxDiffRows; more > 0 {
		fmt.Fprintf(&d.b, "  %s\n", d.dim.Sprintf("… and %s more in results.json", formatCount(more)))
	}
}

// levelsMarkdown writes the Markdown table of level changes, a row at a
// time through add, until add says there is no more room.
func levelsMarkdown(b *strings.Builder, diffs []results.TaskDiff, add func(row string) bool) {
	fmt.Fprintf(b, "\n#### Levels (%s)\n\n| Task | Levels |\n|---|---|\n", formatCount(len(diffs)))
	for _, td := range diffs {
		if !add(fmt.Sprintf("| %s / %s | %s |\n", code(td.SuiteID, true), code(td.TaskID, true), mdText(cut(levelsText(td.Levels), maxWhyChars)))) {
			break
		}
	}
}

// levelsMarkdown writes the diff's Markdown section of level changes.
func (d *differ) levelsMarkdown() {
	diffs := levelDiffs(d.head.Regression)
	if len(diffs) == 0 {
		return
	}
	n := 0
	levelsMarkdown(&d.b, diffs, func(row string) bool {
		if n == maxDiffRows {
			return false
		}
		n++
		d.b.WriteString(row)
		return true
	})
	if more := len(diffs) - maxDiffRows; more > 0 {
		fmt.Fprintf(&d.b, "\n… and %s more (results.json has them all)\n", formatCount(more))
	}
}

// levels writes the scorecard's table of level changes vs the baseline.
func (c *card) levels() {
	diffs := levelDiffs(c.run.Regression)
	if len(diffs) == 0 {
		return
	}
	t := c.table(c.budget(budgetLevels), "level changes")
	levelsMarkdown(&c.b, diffs, t.add)
	t.close(len(diffs))
}
