package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/results"
)

// Verdicts of a diff.
const (
	VerdictRegressed = "REGRESSED"
	VerdictImproved  = "IMPROVED"
	VerdictUnchanged = "UNCHANGED"
)

// maxDiffRows bounds each task list of a diff; results.json has the rest.
const maxDiffRows = 100

// DiffOptions configure Diff.
type DiffOptions struct {
	// Markdown renders Markdown tables instead of terminal text.
	Markdown bool
	// Color turns on ANSI colours in terminal text.
	Color bool
	// LinkBase prefixes Markdown links to tasks, as in ScorecardOptions.
	LinkBase string
}

// DiffVerdict sums a comparison up: REGRESSED when a task newly fails or the
// score fell, else IMPROVED when a task was fixed or the score rose, else
// UNCHANGED.
func DiffVerdict(reg *results.Regression) string {
	switch {
	case reg == nil:
		return VerdictUnchanged
	case reg.NewFailures > 0 || reg.ScoreDelta < -1e-9:
		return VerdictRegressed
	case reg.Fixed > 0 || reg.ScoreDelta > 1e-9:
		return VerdictImproved
	}
	return VerdictUnchanged
}

// Diff renders how head moved against base: the verdict with the score
// change and its significance, each suite's score, pass count, cost and p95
// latency before and after, the newly failing and the fixed tasks with why
// they fail, the added and removed tasks, and the comparison's warnings.
// head.Regression must hold the comparison (regression.Compare). The output
// is content-free.
func Diff(base, head *results.Run, opts DiffOptions) string {
	d := &differ{base: base, head: head, opts: opts}
	d.styles()
	if opts.Markdown {
		d.markdown()
	} else {
		d.text()
	}
	return d.b.String()
}

type differ struct {
	b          strings.Builder
	base, head *results.Run
	opts       DiffOptions
	good, bad  *color.Color
	bold, dim  *color.Color
	warn       *color.Color
}

func (d *differ) styles() {
	d.good = color.New(color.FgGreen, color.Bold)
	d.bad = color.New(color.FgRed, color.Bold)
	d.bold = color.New(color.Bold)
	d.dim = color.New(color.Faint)
	d.warn = color.New(color.FgYellow)
	for _, c := range []*color.Color{d.good, d.bad, d.bold, d.dim, d.warn} {
		if d.opts.Color && !d.opts.Markdown {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
}

// suitePair is a suite of the head and its baseline, either may be nil.
type suitePair struct {
	id         string
	base, head *results.Suite
}

func (d *differ) pairs() []suitePair {
	var out []suitePair
	baseByID := map[string]*results.Suite{}
	for i := range d.base.Suites {
		baseByID[d.base.Suites[i].ID] = &d.base.Suites[i]
	}
	seen := map[string]bool{}
	for i := range d.head.Suites {
		s := &d.head.Suites[i]
		seen[s.ID] = true
		out = append(out, suitePair{id: s.ID, base: baseByID[s.ID], head: s})
	}
	for i := range d.base.Suites {
		if s := &d.base.Suites[i]; !seen[s.ID] {
			out = append(out, suitePair{id: s.ID, base: s})
		}
	}
	return out
}

// changed lists the task diffs of one kind with their head tasks (nil for
// removed tasks).
func (d *differ) changed(kind string) ([]results.TaskDiff, []*results.Task) {
	reg := d.head.Regression
	if reg == nil {
		return nil, nil
	}
	index := map[[2]string]*results.Task{}
	for i := range d.head.Suites {
		s := &d.head.Suites[i]
		for j := range s.Tasks {
			index[[2]string{s.ID, s.Tasks[j].ID}] = &s.Tasks[j]
		}
	}
	var diffs []results.TaskDiff
	var tasks []*results.Task
	for _, td := range reg.Tasks {
		if td.Change == kind {
			diffs = append(diffs, td)
			tasks = append(tasks, index[[2]string{td.SuiteID, td.TaskID}])
		}
	}
	return diffs, tasks
}

func (d *differ) headline() (verdict, summary string) {
	reg := d.head.Regression
	verdict = DiffVerdict(reg)
	if reg == nil {
		return verdict, "no comparison"
	}
	up, down, sign := regression.SignTestOf(reg)
	failing := formatCount(reg.NewFailures) + " newly failing"
	if reg.NewFailures > 0 {
		failing += " (" + formatCount(reg.NewConsistentFailures) + " in every trial)"
	}
	summary = fmt.Sprintf("score %s → %s (%s, 95%% CI %s to %s), %s, %s fixed, McNemar p=%s, sign test p=%s (%d up, %d down)",
		strconv.FormatFloat(d.base.AggregateScore, 'f', 3, 64), strconv.FormatFloat(d.head.AggregateScore, 'f', 3, 64),
		formatDelta(reg.ScoreDelta), formatDelta(reg.CILow), formatDelta(reg.CIHigh),
		failing, formatCount(reg.Fixed), formatP(reg.PValue), formatP(sign), up, down)
	return verdict, summary
}

// text renders the terminal form.
func (d *differ) text() {
	verdict, summary := d.headline()
	vc := d.dim
	switch verdict {
	case VerdictRegressed:
		vc = d.bad
	case VerdictImproved:
		vc = d.good
	}
	fmt.Fprintf(&d.b, "%s  %s → %s\n%s\n", vc.Sprint(verdict), escape.Text(d.base.RunID), escape.Text(d.head.RunID), summary)

	rows := [][]string{{"SUITE", "SCORE", "Δ", "PASSED", "COST", "P95"}}
	for _, p := range d.pairs() {
		rows = append(rows, d.suiteCells(p, formatDelta))
	}
	d.b.WriteString("\n" + d.bold.Sprint("suites") + "\n")
	d.textTable(rows)

	for _, sec := range []struct {
		kind, title string
		c           *color.Color
	}{
		{results.ChangeNewFailure, "newly failing", d.bad},
		{results.ChangeFixed, "fixed", d.good},
	} {
		diffs, tasks := d.changed(sec.kind)
		if len(diffs) == 0 {
			continue
		}
		fmt.Fprintf(&d.b, "\n%s\n", sec.c.Sprintf("%s (%d)", sec.title, len(diffs)))
		rows := [][]string{{"SUITE", "TASK", "WHERE", "SCORE", "WHY"}}
		for i, td := range diffs {
			if i == maxDiffRows {
				break
			}
			rows = append(rows, taskCells(td, tasks[i], formatDelta))
		}
		d.textTable(rows)
		if more := len(diffs) - maxDiffRows; more > 0 {
			fmt.Fprintf(&d.b, "  %s\n", d.dim.Sprintf("… and %s more in results.json", formatCount(more)))
		}
	}
	d.levelsSection() // diff_levels.go
	if reg := d.head.Regression; reg != nil {
		for _, kind := range []string{results.ChangeAdded, results.ChangeRemoved} {
			diffs, _ := d.changed(kind)
			if len(diffs) == 0 {
				continue
			}
			fmt.Fprintf(&d.b, "\n%s\n", d.bold.Sprintf("%s (%d)", kind, len(diffs)))
			for i, td := range diffs {
				if i == maxDiffRows {
					fmt.Fprintf(&d.b, "  %s\n", d.dim.Sprintf("… and %s more", formatCount(len(diffs)-maxDiffRows)))
					break
				}
				fmt.Fprintf(&d.b, "  %s %s\n", escape.Text(td.SuiteID), escape.Text(td.TaskID))
			}
		}
		for _, w := range reg.Warnings {
			fmt.Fprintf(&d.b, "%s\n", d.warn.Sprint("warning: "+escape.Text(w)))
		}
	}
}

// suiteCells are a suite's figures before → after.
func (d *differ) suiteCells(p suitePair, delta func(float64) string) []string {
	var b, h results.Stats
	if p.base != nil {
		b = p.base.Stats
	}
	if p.head != nil {
		h = p.head.Stats
	}
	score := func(s *results.Suite, st results.Stats) string {
		if s == nil {
			return "—"
		}
		return strconv.FormatFloat(st.AggregateScore, 'f', 3, 64)
	}
	count := func(s *results.Suite, st results.Stats) string {
		if s == nil {
			return "—"
		}
		return formatCount(st.PassedCount) + "/" + formatCount(st.TaskCount)
	}
	cost := func(s *results.Suite, st results.Stats) string {
		if s == nil {
			return "—"
		}
		return formatUsd(st.TotalCostUsd)
	}
	p95 := func(s *results.Suite, st results.Stats) string {
		if s == nil {
			return "—"
		}
		return formatMs(st.P95LatencyMs)
	}
	deltaCell := "—"
	if p.head != nil && p.head.Regression != nil {
		deltaCell = delta(p.head.Regression.ScoreDelta)
	}
	costCell := cost(p.base, b) + " → " + cost(p.head, h)
	latCell := p95(p.base, b) + " → " + p95(p.head, h)
	if p.base != nil && p.head != nil {
		costCell += " (" + usdDelta(h.TotalCostUsd-b.TotalCostUsd) + ")"
		latCell += " (" + msDelta(h.P95LatencyMs-b.P95LatencyMs) + ")"
	}
	return []string{p.id, score(p.base, b) + " → " + score(p.head, h), deltaCell,
		count(p.base, b) + " → " + count(p.head, h), costCell, latCell}
}

// taskCells are a changed task's row: suite, task, where, score, why.
func taskCells(td results.TaskDiff, t *results.Task, delta func(float64) string) []string {
	if t == nil {
		return []string{td.SuiteID, td.TaskID, "", delta(td.ScoreDelta), ""}
	}
	before := t.Score - td.ScoreDelta
	score := formatScore(before, t.Score) + " → " + formatScore(t.Score, before)
	if n := len(t.Trials); n > 1 {
		score += fmt.Sprintf(" (%d/%d trials)", t.TrialsPassed, n)
	}
	reason := ""
	if !t.Passed {
		reason = why(t)
	}
	return []string{td.SuiteID, td.TaskID, where(t), score, reason}
}

// textTable writes rows as a table; the cells, ids and files from the two
// results among them, are escaped.
func (d *differ) textTable(rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			row[i] = escape.Text(cell)
			widths[i] = max(widths[i], utf8.RuneCountInString(row[i]))
		}
	}
	for r, row := range rows {
		var line strings.Builder
		line.WriteString(" ")
		for i, cell := range row {
			line.WriteByte(' ')
			if r == 0 {
				line.WriteString(d.dim.Sprint(cell))
			} else {
				line.WriteString(cell)
			}
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+1))
			}
		}
		d.b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// markdown renders the Markdown form.
func (d *differ) markdown() {
	verdict, summary := d.headline()
	mark := "➖"
	switch verdict {
	case VerdictRegressed:
		mark = "🔻"
	case VerdictImproved:
		mark = "🔺"
	}
	fmt.Fprintf(&d.b, "### %s %s: %s → %s\n\n%s\n", mark, verdict, code(d.base.RunID, false), code(d.head.RunID, false),
		strings.ReplaceAll(summary, "-", "−"))
	d.b.WriteString("\n| Suite | Score | Δ | Passed | Cost | p95 |\n|---|--:|--:|--:|--:|--:|\n")
	for _, p := range d.pairs() {
		cells := d.suiteCells(p, mdDelta)
		cells[0] = code(cells[0], true)
		d.b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	c := &card{opts: ScorecardOptions{LinkBase: d.opts.LinkBase}}
	for _, sec := range []struct{ kind, title string }{
		{results.ChangeNewFailure, "Newly failing"},
		{results.ChangeFixed, "Fixed"},
	} {
		diffs, tasks := d.changed(sec.kind)
		if len(diffs) == 0 {
			continue
		}
		fmt.Fprintf(&d.b, "\n#### %s (%s)\n\n| Task | Where | Score | Why |\n|---|---|--:|---|\n", sec.title, formatCount(len(diffs)))
		for i, td := range diffs {
			if i == maxDiffRows {
				fmt.Fprintf(&d.b, "\n… and %s more (results.json has them all)\n", formatCount(len(diffs)-maxDiffRows))
				break
			}
			cells := taskCells(td, tasks[i], mdDelta)
			where := "—"
			if tasks[i] != nil {
				where = c.link(tasks[i])
			}
			fmt.Fprintf(&d.b, "| %s / %s | %s | %s | %s |\n", code(cells[0], true), code(cells[1], true), where, cells[3], code(cut(cells[4], maxWhyChars), true))
		}
	}
	d.levelsMarkdown() // diff_levels.go
	if reg := d.head.Regression; reg != nil {
		for _, kind := range []string{results.ChangeAdded, results.ChangeRemoved} {
			diffs, _ := d.changed(kind)
			if len(diffs) == 0 {
				continue
			}
			ids := make([]string, 0, min(len(diffs), maxDiffRows))
			for i, td := range diffs {
				if i == maxDiffRows {
					break
				}
				ids = append(ids, code(td.SuiteID+"/"+td.TaskID, false))
			}
			more := ""
			if len(diffs) > maxDiffRows {
				more = fmt.Sprintf(" … and %s more", formatCount(len(diffs)-maxDiffRows))
			}
			fmt.Fprintf(&d.b, "\n**%s (%s):** %s%s\n", strings.ToUpper(kind[:1])+kind[1:], formatCount(len(diffs)), strings.Join(ids, ", "), more)
		}
		if len(reg.Warnings) > 0 {
			d.b.WriteString("\n")
			for _, w := range reg.Warnings {
				d.b.WriteString("> ⚠️ " + mdText(w) + "\n>\n")
			}
		}
	}
}

func usdDelta(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	if v >= 0 {
		return "+$" + s
	}
	return "-$" + strings.TrimPrefix(s, "-")
}

func msDelta(ms int64) string {
	if ms >= 0 {
		return "+" + formatMs(ms)
	}
	return "-" + formatMs(-ms)
}
