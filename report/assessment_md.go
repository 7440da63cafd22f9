package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/results"
)

// AssessmentMarkdown renders assessment.md: the badge's facts, each axis's
// dimensions with weight, value and evidence (a null explained), the
// movement against the baseline and the notices.
func AssessmentMarkdown(a *assess.Assessment) []byte {
	var b strings.Builder
	name := cmp.Or(a.Agent.Name, a.Agent.ID, "agent")
	fmt.Fprintf(&b, "# AAAF assessment: %s\n\n", mdText(name))
	var facts []string
	if a.Organization != "" {
		facts = append(facts, mdText(a.Organization))
	}
	if a.Agent.ID != "" {
		facts = append(facts, "agent "+code(a.Agent.ID, false))
	}
	facts = append(facts, "assessment "+code(a.ID, false),
		"certified "+a.Timestamp.UTC().Format("2006-01-02"),
		"valid until "+a.ValidUntil.UTC().Format("2006-01-02"),
		fmt.Sprintf("%d %s", a.Tasks, words.Plural(a.Tasks, "task", "tasks")))
	b.WriteString(strings.Join(facts, " · ") + "\n\n")

	b.WriteString("| axis | composite | tier | |\n|---|---|---|---|\n")
	for _, ax := range []*assess.Axis{&a.Performance, &a.Capability} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", axisTitle(ax.Name), scoreOrDash(ax.Score), cmp.Or(ax.Tier.Name, "not assessed"), provisionalNote(ax.Name, ax.Provisional))
	}
	for _, ax := range []*assess.Axis{&a.Performance, &a.Capability} {
		fmt.Fprintf(&b, "\n## %s\n\n| dimension | weight | value | evidence |\n|---|---|---|---|\n", axisTitle(ax.Name))
		for _, d := range ax.Dimensions {
			ev := counts(d.Evidence)
			if d.Value == nil {
				ev = "null: " + mdText(d.Reason) + " (" + ev + ")"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", d.Name, trimFloat(d.Weight), scoreOrDash(d.Value), ev)
		}
	}
	if m := a.Baseline; m != nil {
		fmt.Fprintf(&b, "\n## Against the baseline\n\nBaseline run %s: performance %s, capability %s, %+d tasks.\n",
			code(m.BaselineRunID, false), movement(m.Performance), movement(m.Capability), m.TasksAdded)
	}
	if notes := AssessmentNotices(a); len(notes) > 0 {
		b.WriteString("\n## Notices\n\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return []byte(b.String())
}

func axisTitle(axis string) string { return strings.ToUpper(axis[:1]) + axis[1:] }

// provisionalNote says an axis is provisional, and why.
func provisionalNote(axis string, provisional bool) string {
	if !provisional {
		return ""
	}
	n := assess.MinPerformanceTasks
	if axis == assess.Capability {
		n = assess.MinCapabilityTasks
	}
	return fmt.Sprintf("provisional: fewer than %d tasks", n)
}

// movement renders a composite's delta, marked when flagged.
func movement(d *float64) string {
	switch {
	case d == nil:
		return "—"
	case assess.Flagged(d):
		return signed(*d) + " ⚠ moved by more than 0.15"
	}
	return signed(*d)
}

// counts renders evidence counts as "key n, key n", by key.
func counts(ev map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(ev)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, ev[k]))
	}
	return strings.Join(parts, ", ")
}

// trimFloat renders a weight without trailing zeros.
func trimFloat(x float64) string { return fmt.Sprintf("%g", x) }

// scorecardAssessment writes the scorecard's dual-axis section: both tiers,
// the dimensions with nulls explained, and the movement against the
// baseline's assessment.
func (c *card) assessment() {
	a, b := c.run.Assessment, &c.b
	if a == nil {
		return
	}
	b.WriteString("\n### Assessment (AAAF dual axis)\n\n| axis | composite | tier | vs baseline | |\n|---|---|---|---|---|\n")
	for _, ax := range []struct {
		name string
		*results.AssessmentAxis
	}{{assess.Performance, &a.Performance}, {assess.Capability, &a.Capability}} {
		vs := "—"
		if a.BaselineRunID != "" {
			vs = mdMinus(movement(ax.Delta))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", axisTitle(ax.name), scoreOrDash(ax.Score), cmp.Or(ax.Tier, "not assessed"), vs, provisionalNote(ax.name, ax.Provisional))
	}
	b.WriteString("\n<details><summary>Dimensions</summary>\n\n| dimension | value | |\n|---|---|---|\n")
	for _, ax := range []struct {
		name string
		*results.AssessmentAxis
	}{{assess.Performance, &a.Performance}, {assess.Capability, &a.Capability}} {
		for _, d := range assess.Dimensions[ax.name] {
			v, ok := ax.Dimensions[d]
			if !ok {
				continue
			}
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", d, scoreOrDash(v), mdText(ax.Reasons[d]))
		}
	}
	b.WriteString("\n</details>\n")
	if a.BaselineRunID != "" && a.TasksAdded >= assess.TasksAddedNotice {
		fmt.Fprintf(b, "\n%d tasks were added since the baseline's assessment: a full re-assessment is due.\n", a.TasksAdded)
	}
}
