package report

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/results"
)

// MaxScorecardChars bounds a scorecard: GitHub refuses comments over 65,536
// characters, and the job summary is capped too.
const MaxScorecardChars = 60_000

// ScorecardOptions configure Scorecard.
type ScorecardOptions struct {
	// LinkBase prefixes the link to a task in its suite file, such as
	// "https://github.com/acme/agent/blob/<sha>/". Empty: the links are
	// relative, "evals/refunds.yaml#L31".
	LinkBase string
	// MaxChars bounds the output; MaxScorecardChars when 0.
	MaxChars int
}

// Section budgets, in characters, so that every section gets its turn
// whatever the size of the others; their sum stays under
// MaxScorecardChars with room for the headings.
const (
	budgetSuites   = 9_000
	budgetFailing  = 12_000
	budgetGates    = 6_000
	budgetRegress  = 4_000
	budgetFindings = 3_000
	budgetAll      = 12_000
	budgetChanges  = 8_000
	budgetMisc     = 2_500
)

// Longest id, file or reason shown; longer ones are cut with "…".
const (
	maxIDChars   = 120
	maxWhyChars  = 300
	maxExprChars = 300
)

// Scorecard renders the Markdown scorecard of a run, the body of the pull
// request comment and of the job summary: the verdict line first, a table of
// the suites (score, Δ vs baseline, passed/total, cost, p95), the newly
// failing tasks (or, without a baseline, the failing ones) with the checks
// that failed and a link to each task's line, the gates with their values,
// the findings by severity, the regression with its significance, and the
// rest folded in <details>. It is content-free and stays under
// opts.MaxChars whatever the size of the run: long lists end with "… and N
// more".
func Scorecard(r *results.Run, opts ScorecardOptions) string {
	return RenderScorecard(r, opts).Markdown
}

// RenderedScorecard is a scorecard and what its size limit left out.
type RenderedScorecard struct {
	Markdown string
	// ListsAllFailing is true when the scorecard has a row for every task
	// that did not pass, so that it can be named as the place where they
	// all are.
	ListsAllFailing bool
}

// RenderScorecard renders the scorecard as Scorecard does and says whether
// it lists every failing task.
func RenderScorecard(r *results.Run, opts ScorecardOptions) RenderedScorecard {
	limit := opts.MaxChars
	if limit <= 0 {
		limit = MaxScorecardChars
	}
	if r == nil {
		return RenderedScorecard{Markdown: "### evalgate: no results\n", ListsAllFailing: true}
	}
	c := &card{opts: opts, run: r, scale: float64(limit) / MaxScorecardChars, listsAllFailing: true}
	c.verdict()
	c.suites()
	c.trend() // history.go
	c.failing()
	c.gates()
	c.trust() // scorecard_trust.go
	c.findings()
	c.regression()
	c.assessment() // assessment_md.go
	c.details()
	md, trimmed := capText(c.b.String(), limit)
	return RenderedScorecard{Markdown: md, ListsAllFailing: c.listsAllFailing && !trimmed}
}

type taskRef struct {
	suite *results.Suite
	task  *results.Task
}

type card struct {
	b     strings.Builder
	opts  ScorecardOptions
	run   *results.Run
	scale float64 // budgets shrink with a smaller MaxChars
	// listsAllFailing turns false when the table of every failing task
	// runs out of room.
	listsAllFailing bool
}

// refs finds the tasks the rows name. Only those are put in a map: one of
// every task took a merge of 200,000 tasks a tenth of a second and some
// 20 MB to list a few rows.
func (c *card) refs(rows []results.TaskDiff) map[[2]string]taskRef {
	refs := make(map[[2]string]taskRef, len(rows))
	for _, d := range rows {
		refs[[2]string{d.SuiteID, d.TaskID}] = taskRef{}
	}
	for i := range c.run.Suites {
		s := &c.run.Suites[i]
		for j := range s.Tasks {
			key := [2]string{s.ID, s.Tasks[j].ID}
			if _, ok := refs[key]; ok {
				refs[key] = taskRef{s, &s.Tasks[j]}
			}
		}
	}
	return refs
}

func (c *card) budget(n int) int { return int(float64(n) * c.scale) }

// verdict writes the first line and the run's figures under it.
func (c *card) verdict() {
	r := c.run
	failed := 0
	for _, g := range r.Gates {
		if !g.Passed {
			failed++
		}
	}
	n := len(r.Gates)
	mark, word := "✅", "PASS"
	if !r.Passed {
		mark, word = "❌", "FAIL"
	}
	var why string
	switch {
	case r.Passed && n == 0:
		why = "no gates"
	case r.Passed && n == 1:
		why = "the gate holds"
	case r.Passed:
		why = fmt.Sprintf("all %d gates hold", n)
	case failed > 0:
		why = fmt.Sprintf("%d of %d %s failed", failed, n, words.Plural(n, "gate", "gates"))
	default:
		why = "the run did not finish"
	}
	fmt.Fprintf(&c.b, "### %s evalgate: %s — %s\n\n", mark, word, why)

	parts := []string{fmt.Sprintf("**score %s**", strconv.FormatFloat(r.AggregateScore, 'f', 3, 64))}
	if reg := r.Regression; reg != nil {
		parts[0] += " (" + mdDelta(reg.ScoreDelta) + " vs baseline)"
	}
	parts = append(parts, formatCount(r.PassedCount)+"/"+formatCount(r.TaskCount)+" tasks passed")
	if r.ErroredCount > 0 {
		parts = append(parts, formatCount(r.ErroredCount)+" "+words.Plural(r.ErroredCount, "error", "errors"))
	}
	if reg := r.Regression; reg != nil {
		parts = append(parts, formatCount(reg.NewFailures)+" newly failing", formatCount(reg.Fixed)+" fixed")
	}
	cost := formatUsd(r.TotalCostUsd)
	if r.UserCostUsd > 0 {
		cost += " + " + formatUsd(r.UserCostUsd) + " simulated user"
	}
	parts = append(parts, cost, "p95 "+formatMs(r.P95LatencyMs))
	c.b.WriteString(strings.Join(parts, " · ") + "\n")
	if r.Interrupted {
		c.b.WriteString("\n> [!WARNING]\n> The run was interrupted: only the tasks that finished are counted.\n")
	}
	if r.Shard != nil {
		fmt.Fprintf(&c.b, "\n> [!NOTE]\n> Shard %d of %d: only this shard's tasks are counted.\n", r.Shard.Index, r.Shard.Count)
	}
	c.shards() // scorecard_shards.go
}

// suites writes one row per suite.
func (c *card) suites() {
	r := c.run
	if len(r.Suites) == 0 {
		return
	}
	c.b.WriteString("\n| | Suite | Score | Δ vs baseline | Passed | Cost | p95 |\n|:-:|---|--:|--:|--:|--:|--:|\n")
	t := c.table(c.budget(budgetSuites), "suites")
	for i := range r.Suites {
		s := &r.Suites[i]
		mark := "✅"
		if !s.Passed {
			mark = "❌"
		}
		delta := "—"
		if s.Regression != nil {
			delta = mdDelta(s.Regression.ScoreDelta)
		}
		passed := formatCount(s.PassedCount) + "/" + formatCount(s.TaskCount)
		if s.ErroredCount > 0 {
			passed += " (" + formatCount(s.ErroredCount) + " " + words.Plural(s.ErroredCount, "error", "errors") + ")"
		}
		cost := formatUsd(s.TotalCostUsd)
		if m := s.Thresholds.MaxCostUsd; m != nil {
			cost += " / " + formatUsd(*m)
		}
		p95 := formatMs(s.P95LatencyMs)
		if m := s.Thresholds.MaxP95LatencyMs; m != nil {
			p95 += " / " + formatMs(*m)
		}
		row := fmt.Sprintf("| %s | %s %s | %s / %s | %s | %s | %s | %s |\n", mark, code(s.ID, true), code(s.Version, true),
			formatScore(s.AggregateScore, s.Thresholds.PassScore), formatScore(s.Thresholds.PassScore, s.AggregateScore),
			delta, passed, cost, p95)
		if !t.add(row) {
			break
		}
	}
	t.close(len(r.Suites))
}

// failing writes the tasks the reviewer must look at: the newly failing
// ones against a baseline, else every task that did not pass.
func (c *card) failing() {
	r := c.run
	if reg := r.Regression; reg != nil {
		var rows []results.TaskDiff
		for _, d := range reg.Tasks {
			if d.Change == results.ChangeNewFailure {
				rows = append(rows, d)
			}
		}
		if len(rows) == 0 {
			c.b.WriteString("\n**No newly failing tasks.**\n")
			return
		}
		fmt.Fprintf(&c.b, "\n#### Newly failing (%s)\n\n| Task | Where | Score | Why |\n|---|---|--:|---|\n", formatCount(len(rows)))
		t := c.table(c.budget(budgetFailing), "failing tasks")
		refs := c.refs(rows)
		for _, d := range rows {
			ref := refs[[2]string{d.SuiteID, d.TaskID}]
			if ref.task == nil {
				continue
			}
			score := formatScore(ref.task.Score-d.ScoreDelta, ref.task.Score) + " → " + formatScore(ref.task.Score, ref.task.Score-d.ScoreDelta)
			if !t.add(c.taskRow(ref, score)) {
				break
			}
		}
		t.close(len(rows))
		return
	}
	if failing := c.failingTasks(); len(failing) > 0 {
		c.failingTable(failing, "\n#### Failing tasks (%s)\n\n", budgetFailing)
	}
}

// failingTable writes the failing tasks as a table under heading (a format
// taking their count), within the budget's rows.
func (c *card) failingTable(failing []taskRef, heading string, budget int) {
	fmt.Fprintf(&c.b, heading, formatCount(len(failing)))
	c.b.WriteString("| Task | Where | Score | Why |\n|---|---|--:|---|\n")
	t := c.table(c.budget(budget), "failing tasks")
	for _, ref := range failing {
		if !t.add(c.taskRow(ref, scoreOfBar(ref.task))) {
			c.listsAllFailing = false
			break
		}
	}
	t.close(len(failing))
}

func (c *card) failingTasks() []taskRef {
	var out []taskRef
	for i := range c.run.Suites {
		s := &c.run.Suites[i]
		for j := range s.Tasks {
			if !s.Tasks[j].Passed {
				out = append(out, taskRef{s, &s.Tasks[j]})
			}
		}
	}
	return out
}

func scoreOfBar(t *results.Task) string {
	return formatScore(t.Score, t.PassScore) + " / " + formatScore(t.PassScore, t.Score)
}

// taskRow is a row of a task table: suite / task, a link to its line, the
// score cell and why it did not pass.
func (c *card) taskRow(ref taskRef, score string) string {
	return fmt.Sprintf("| %s / %s | %s | %s | %s |\n", code(ref.suite.ID, true), code(ref.task.ID, true),
		c.link(ref.task), score, code(cut(why(ref.task), maxWhyChars), true))
}

// link is a Markdown link to the task's line in its suite file; a file
// outside the repository is named, not linked.
func (c *card) link(t *results.Task) string {
	if t.File == "" {
		return "—"
	}
	if !results.InRepo(t.File) {
		return code(cut(where(t), maxIDChars), true)
	}
	target := c.opts.LinkBase + escapePath(t.File)
	if t.Line > 0 {
		target += "#L" + strconv.Itoa(t.Line)
	}
	return "[" + code(cut(where(t), maxIDChars), true) + "](" + target + ")"
}

// gates writes each gate with its verdict and values, failed ones first.
func (c *card) gates() {
	gs := c.run.Gates
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(&c.b, "\n#### Gates\n\n")
	t := c.table(c.budget(budgetGates), "gates")
	written := 0
	for _, failedPass := range []bool{false, true} {
		for _, g := range gs {
			if g.Passed != failedPass {
				continue
			}
			mark := "✅"
			if !g.Passed {
				mark = "❌"
			}
			line := "- " + mark + " " + code(cut(g.Expr, maxExprChars), false)
			if g.Default {
				line += " (default)"
			}
			if g.Error != "" {
				line += " — error: " + code(cut(g.Error, maxWhyChars), false)
			} else if v := formatValues(g.Values); v != "" {
				line += " — " + code(cut(v, maxWhyChars), false)
			}
			if !t.add(line + "\n") {
				t.close(len(gs))
				return
			}
			written++
		}
	}
	t.close(len(gs))
}

// findings writes the run's findings by severity, when there are any.
func (c *card) findings() {
	f := c.run.Findings
	if f.Critical+f.High+f.Medium+f.Low == 0 {
		return
	}
	fmt.Fprintf(&c.b, "\n#### Findings\n\n| Critical | High | Medium | Low |\n|--:|--:|--:|--:|\n| %s | %s | %s | %s |\n",
		formatCount(f.Critical), formatCount(f.High), formatCount(f.Medium), formatCount(f.Low))
	var with []taskRef
	for i := range c.run.Suites {
		s := &c.run.Suites[i]
		for j := range s.Tasks {
			if len(s.Tasks[j].Findings) > 0 {
				with = append(with, taskRef{s, &s.Tasks[j]})
			}
		}
	}
	if len(with) == 0 {
		return
	}
	fmt.Fprintf(&c.b, "\n<details><summary>Tasks with findings (%s)</summary>\n\n| Task | Where | Findings |\n|---|---|---|\n", formatCount(len(with)))
	t := c.table(c.budget(budgetFindings), "tasks with findings")
	for _, ref := range with {
		row := fmt.Sprintf("| %s / %s | %s | %s |\n", code(ref.suite.ID, true), code(ref.task.ID, true), c.link(ref.task),
			code(cut(findingsBySeverity(ref.task.Findings), maxWhyChars), true))
		if !t.add(row) {
			break
		}
	}
	t.close(len(with))
	c.b.WriteString("\n</details>\n")
}

// regression writes the comparison with the baseline and its significance.
func (c *card) regression() {
	reg := c.run.Regression
	if reg == nil {
		return
	}
	fmt.Fprintf(&c.b, "\n#### Regression vs baseline %s\n\n", code(cut(reg.BaselineRunID, maxIDChars), false))
	up, down, sign := regression.SignTestOf(reg)
	fmt.Fprintf(&c.b, "- score %s (95%% CI %s to %s)\n", mdDelta(reg.ScoreDelta), mdDelta(reg.CILow), mdDelta(reg.CIHigh))
	fmt.Fprintf(&c.b, "- %s newly failing, %s fixed: McNemar p = %s\n", formatCount(reg.NewFailures), formatCount(reg.Fixed), formatP(reg.PValue))
	fmt.Fprintf(&c.b, "- %s %s up, %s down: sign test p = %s\n", formatCount(up), words.Plural(up, "score", "scores"), formatCount(down), formatP(sign))
	c.levels() // diff_levels.go
	if len(reg.Warnings) == 0 {
		return
	}
	c.b.WriteString("\n")
	t := c.table(c.budget(budgetRegress), "warnings")
	for _, w := range reg.Warnings {
		if !t.add("> ⚠️ " + mdText(cut(w, maxWhyChars)) + "\n>\n") {
			break
		}
	}
	t.close(len(reg.Warnings))
}

// details writes the folded sections: every failing task when the table
// above held only the newly failing ones, the fixed tasks, the score
// movements, added and removed tasks, and the run's identity.
func (c *card) details() {
	r := c.run
	if reg := r.Regression; reg != nil {
		if failing := c.failingTasks(); len(failing) > 0 {
			c.failingTable(failing, "\n<details><summary>All failing tasks (%s)</summary>\n\n", budgetAll)
			c.b.WriteString("\n</details>\n")
		}
		if len(reg.Tasks) > 0 {
			fmt.Fprintf(&c.b, "\n<details><summary>Task changes vs baseline (%s)</summary>\n\n| Task | Change | Δ score | Δ cost | Δ latency |\n|---|---|--:|--:|--:|\n", formatCount(len(reg.Tasks)))
			t := c.table(c.budget(budgetChanges), "changes")
			for _, d := range reg.Tasks {
				row := fmt.Sprintf("| %s / %s | %s | %s | %s | %s |\n", code(d.SuiteID, true), code(d.TaskID, true), mdText(d.Change),
					mdDelta(d.ScoreDelta), mdUsdDelta(d.CostDeltaUsd), mdMsDelta(d.LatencyDeltaMs))
				if !t.add(row) {
					break
				}
			}
			t.close(len(reg.Tasks))
			c.b.WriteString("\n</details>\n")
		}
	}
	fmt.Fprintf(&c.b, "\n<details><summary>Run</summary>\n\n")
	t := c.table(c.budget(budgetMisc), "lines")
	lines := []string{"- run " + code(cut(r.RunID, maxIDChars), false)}
	if r.GitSHA != "" {
		lines = append(lines, "- commit "+code(cut(r.GitSHA, maxIDChars), false))
	}
	if r.Tool.Version != "" {
		lines = append(lines, "- "+code(cut(r.Tool.Name+" "+r.Tool.Version, maxIDChars), false))
	}
	if r.Regression != nil && r.Regression.BaselineFile != "" {
		lines = append(lines, "- baseline "+code(cut(r.Regression.BaselineFile, maxIDChars), false))
	}
	for _, l := range lines {
		if !t.add(l + "\n") {
			break
		}
	}
	c.b.WriteString("\n</details>\n")
}

// table writes rows under a character budget.
type table struct {
	c       *card
	left    int
	written int
	what    string
}

func (c *card) table(budget int, what string) *table {
	return &table{c: c, left: budget, what: what}
}

// add writes row if it fits the budget; false once it does not.
func (t *table) add(row string) bool {
	if len(row) > t.left {
		t.left = 0
		return false
	}
	t.left -= len(row)
	t.c.b.WriteString(row)
	t.written++
	return true
}

// close notes the rows of total that did not fit.
func (t *table) close(total int) {
	if rest := total - t.written; rest > 0 {
		fmt.Fprintf(&t.c.b, "\n… and %s more %s (results.json has them all)\n", formatCount(rest), t.what)
	}
}

// capText is the last guard of the size limit: the section budgets keep a
// scorecard far below it, but a cut at a line boundary is better than a
// comment GitHub rejects.
func capText(s string, limit int) (text string, cut bool) {
	if len(s) <= limit {
		return s, false
	}
	const note = "\n… the scorecard was cut to fit; results.json has everything\n"
	cutAt := strings.LastIndexByte(s[:limit-len(note)], '\n')
	if cutAt < 0 {
		cutAt = 0
	}
	return s[:cutAt] + note, true
}

// code renders s as inline code, safe anywhere in Markdown: escaped
// (internal/escape, so no newline ends the line or the cell), in a backtick
// fence longer than any run of backticks in s, and in a table cell with the
// pipes escaped (GitHub splits cells on them even in code). Markdown shows
// code as it is: no markup or HTML in it takes effect.
func code(s string, inTable bool) string {
	if s == "" {
		return ""
	}
	s = escape.Text(s)
	if inTable {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdText escapes s for Markdown text: control characters and newlines
// first (internal/escape), then punctuation that could open markup is
// backslash-escaped and HTML is turned into entities, so an id cannot
// end its line or cell, or inject a link, an image, a mention's markup or
// a tag.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range escape.Text(s) {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '(', ')', '#', '|', '!', '~', '{', '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapePath escapes each segment of a slash-separated path for a link.
func escapePath(p string) string {
	segs := strings.Split(strings.ReplaceAll(p, `\`, "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// cut shortens s to n runes, ending with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// mdDelta writes a signed score change with a true minus sign.
func mdDelta(v float64) string {
	if v < 0 && v > -0.0005 {
		v = 0
	}
	return mdMinus(formatDelta(v))
}

func mdUsdDelta(v float64) string { return mdMinus(usdDelta(v)) }

func mdMsDelta(ms int64) string { return mdMinus(msDelta(ms)) }

// mdMinus writes a delta's sign as a true minus, which Markdown renders
// without taking it for a list marker or a hyphen.
func mdMinus(s string) string { return strings.Replace(s, "-", "−", 1) }

// formatP writes a p-value with three decimals, or "< 0.001".
func formatP(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// formatCount writes a count with thousands separators: 4,211.
func formatCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
