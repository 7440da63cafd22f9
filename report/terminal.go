package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fatih/color"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/results"
)

// progressInterval is the shortest time between two redraws of the live
// progress line.
const progressInterval = 100 * time.Millisecond

// MaxFailingRows bounds the failing-task table (and what Explain may add
// to it); results.json has the rest.
const MaxFailingRows = 50

// maxWarnings bounds the warnings about lines after final.
const maxWarnings = 10

// maxVerdictGates is how many failed gates the verdict line names.
const maxVerdictGates = 3

// maxVerdictText bounds a gate's expression and values in the verdict line.
const maxVerdictText = 100

// TerminalOptions configure a Terminal. The caller decides about colour and
// liveness (NO_COLOR, --no-color, whether Out is a terminal); a Terminal
// never looks at the environment or at fatih/color's global switch.
type TerminalOptions struct {
	Out io.Writer
	// Color turns on ANSI colours.
	Color bool
	// Live means Out is a terminal: Progress keeps one line up to date.
	// Otherwise (CI logs) Progress prints nothing, and Heartbeat prints a
	// line when called.
	Live bool
	// Quiet keeps only the verdict line: no progress, no suite lines, no
	// tables.
	Quiet bool
	// Clock tells the time for the progress line's ETA and throttle;
	// nil means time.Now.
	Clock func() time.Time
	// Transcripts is the folder the run writes transcripts to; "" when it
	// writes none. A report with errored tasks points there, or says to
	// run again with --transcripts.
	Transcripts string
	// Tasks is how many tasks the run plans, for Heartbeat before the
	// first Progress.
	Tasks int
}

// Terminal is the human report of a run on the console: a live progress
// line on a terminal, one line per finished suite, and at the end the
// failing tasks, the gates and the verdict. It prints only content-free
// facts: ids, scores, counts, check ids with reason codes, error kinds,
// file:line and {kind, severity}; the one exception is what its caller
// hands Explain, which it prints under the failing tasks.
//
// A Terminal is safe for concurrent use.
type Terminal struct {
	out         io.Writer
	live        bool
	quiet       bool
	clock       func() time.Time
	transcripts string

	pass, fail, warn, bold, dim *color.Color

	mu        sync.Mutex
	start     time.Time
	lastDraw  time.Time
	lastLine  time.Time              // when a CI log last got a line: the start, a suite line or a heartbeat
	counts    [5]int                 // the last Progress: done, total, passed, failed, errored
	explained map[[2]string][]string // Explain's lines by suite and task id
	lineWidth int                    // columns the live line takes on screen; 0 when none is shown
	planned   map[string]int         // tasks selected per suite, from SuiteStarted
}

// NewTerminal returns a Terminal; the progress ETA counts from now.
func NewTerminal(o TerminalOptions) *Terminal {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	t := &Terminal{
		out:         o.Out,
		live:        o.Live,
		quiet:       o.Quiet,
		clock:       o.Clock,
		transcripts: o.Transcripts,
		pass:        color.New(color.FgGreen, color.Bold),
		fail:        color.New(color.FgRed, color.Bold),
		warn:        color.New(color.FgYellow),
		bold:        color.New(color.Bold),
		dim:         color.New(color.Faint),
	}
	for _, c := range []*color.Color{t.pass, t.fail, t.warn, t.bold, t.dim} {
		if o.Color {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	t.start = t.clock()
	t.lastLine = t.start
	t.counts[1] = o.Tasks
	return t
}

// Progress redraws the live line with done of total tasks finished and how
// they went, and an ETA from the time spent so far. It redraws at most every
// 100ms, except for the last task and when no line is shown (at the start
// and after a suite line), and draws nothing unless the Terminal is live
// and not quiet; the counts are kept for Heartbeat either way.
func (t *Terminal) Progress(done, total, passed, failed, errored int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counts = [5]int{done, total, passed, failed, errored}
	if !t.live || t.quiet {
		return
	}
	now := t.clock()
	if t.lineWidth > 0 && done < total && now.Sub(t.lastDraw) < progressInterval {
		return
	}
	t.lastDraw = now

	elapsed := now.Sub(t.start)
	var tail string
	if done >= total {
		tail = "done in " + formatDuration(elapsed)
	} else {
		tail = eta(elapsed, done, total)
	}
	counts := fmt.Sprintf("%d/%d tasks", done, total)
	plain := []string{counts, words.Count(passed, "passed", "passed"), words.Count(failed, "failed", "failed"), words.Count(errored, "error", "errors"), tail}
	colored := []string{
		t.bold.Sprint(counts),
		t.colorIf(passed > 0, t.pass, plain[1]),
		t.colorIf(failed > 0, t.fail, plain[2]),
		t.colorIf(errored > 0, t.warn, plain[3]),
		t.dim.Sprint(tail),
	}
	width := utf8.RuneCountInString(strings.Join(plain, "  "))
	line := "\r" + strings.Join(colored, "  ")
	if pad := t.lineWidth - width; pad > 0 {
		line += strings.Repeat(" ", pad)
	}
	t.lineWidth = width
	io.WriteString(t.out, line)
}

// eta is "ETA 2m" for a run that took elapsed for done of total tasks,
// "ETA --" before the first.
func eta(elapsed time.Duration, done, total int) string {
	if done <= 0 {
		return "ETA --"
	}
	return "ETA " + formatDuration(time.Duration(float64(elapsed)/float64(done)*float64(total-done)))
}

// HeartbeatSilence is how long a CI log goes without a line before
// Heartbeat speaks: the log stays quiet but for its suite lines, and a long
// suite still shows the run is alive.
const HeartbeatSilence = 30 * time.Second

// Heartbeat prints one line saying how far the run is, where no live line
// shows it (CI logs), when the log has had no line for HeartbeatSilence at
// now; the caller calls it on a timer, with the timer's time:
//
//	progress: 12/40 tasks  10 passed  1 failed  1 error  2m elapsed, ETA 4m40s
//
// It does nothing on a live terminal or when Quiet.
func (t *Terminal) Heartbeat(now time.Time) {
	if t.live || t.quiet {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Sub(t.lastLine) < HeartbeatSilence {
		return
	}
	t.lastLine = now
	elapsed := now.Sub(t.start)
	c := t.counts
	fmt.Fprintf(t.out, "%s %d/%d tasks  %s  %s  %s  %s elapsed, %s\n", t.dim.Sprint("progress:"), c[0], c[1],
		words.Count(c[2], "passed", "passed"), words.Count(c[3], "failed", "failed"), words.Count(c[4], "error", "errors"),
		formatDuration(elapsed), eta(elapsed, c[0], c[1]))
}

// Explain hands the Terminal what a failing task's checks expected and
// got (lines such as `match (contains): expected to contain "delivered",
// got "Order A-17 is in transit."`), for Finish to print under the table
// of failing tasks, each line escaped. These lines quote the task and the
// agent: the caller decides whether they may be shown (a terminal,
// --explain), and nothing else the Terminal prints ever holds them.
func (t *Terminal) Explain(suiteID, taskID string, lines []string) {
	if t.quiet || len(lines) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.explained == nil {
		t.explained = map[[2]string][]string{}
	}
	t.explained[[2]string{suiteID, taskID}] = lines
}

// SuiteStarted tells the Terminal how many tasks of a suite were selected,
// so that a suite cut short by an interrupt is not reported as complete.
func (t *Terminal) SuiteStarted(s *results.Suite, taskCount int) {
	if s == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.planned == nil {
		t.planned = map[string]int{}
	}
	t.planned[s.ID] = taskCount
}

// SuiteDone prints one line for a finished suite:
//
//	PASS acme.support.evals.refunds 1.0.0  score 0.92 (>= 0.90)  9/12 passed  2 tasks failed  1 error  1 critical finding  $0.0123  p95 840ms
//
// PASS and FAIL are the suite's openwop verdict, its score against its
// bar; the tasks that did not pass and the findings are named beside it,
// so a passing suite with failing tasks does not read as all clear. Cost
// and p95 latency show the suite's limit when it sets one. A suite whose
// tasks did not all run (an interrupted run) has no verdict:
//
//	PARTIAL acme.support.evals.refunds 1.0.0  5 of 12 tasks ran  4/5 passed  1 task failed  $0.0051  p95 810ms
//
// and one where none ran prints nothing.
func (t *Terminal) SuiteDone(s *results.Suite) {
	if t.quiet || s == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	planned, known := t.planned[s.ID]
	partial := known && s.TaskCount < planned
	if partial && s.TaskCount == 0 {
		return
	}
	t.clearLine()
	t.lastLine = t.clock()

	var b strings.Builder
	switch {
	case partial:
		b.WriteString(t.warn.Sprint("PARTIAL"))
	case s.Passed:
		b.WriteString(t.pass.Sprint("PASS"))
	default:
		b.WriteString(t.fail.Sprint("FAIL"))
	}
	fmt.Fprintf(&b, " %s %s", t.bold.Sprint(escape.Text(s.ID)), escape.Text(s.Version))

	if partial {
		fmt.Fprintf(&b, "  %d of %d tasks ran", s.TaskCount, planned)
	} else {
		bar := s.Thresholds.PassScore
		// The comparison shown is the one that holds, so a failing figure
		// reads "0.86 (< 0.90)" rather than restating the bar it missed.
		score := "score " + formatScore(s.AggregateScore, bar) + " (" + cmpOp(s.AggregateScore >= bar, ">=", "<") + " " + formatScore(bar, s.AggregateScore) + ")"
		b.WriteString("  " + t.colorIf(s.AggregateScore < bar, t.fail, score))
	}

	b.WriteString(fmt.Sprintf("  %d/%d passed", s.PassedCount, s.TaskCount))
	if failed := s.TaskCount - s.PassedCount - s.ErroredCount; failed > 0 {
		b.WriteString("  " + t.fail.Sprint(words.Count(failed, "task failed", "tasks failed")))
	}
	if s.ErroredCount > 0 {
		b.WriteString("  " + t.warn.Sprint(words.Count(s.ErroredCount, "error", "errors")))
	}
	if f := s.Findings; f != (results.Findings{}) {
		b.WriteString("  " + t.colorIf(f.Critical+f.High > 0, t.fail, findingCounts(f)))
	}

	cost := formatUsd(s.TotalCostUsd)
	overCost := false
	if m := s.Thresholds.MaxCostUsd; m != nil {
		overCost = s.TotalCostUsd > *m
		cost += " (" + cmpOp(!overCost, "<=", ">") + " " + formatUsd(*m) + ")"
	}
	b.WriteString("  " + t.colorIf(overCost, t.fail, cost))
	if s.UserCostUsd > 0 {
		b.WriteString(" + " + formatUsd(s.UserCostUsd) + " user")
	}

	p95 := "p95 " + formatMs(s.P95LatencyMs)
	overLatency := false
	if m := s.Thresholds.MaxP95LatencyMs; m != nil {
		overLatency = s.P95LatencyMs > *m
		p95 += " (" + cmpOp(!overLatency, "<=", ">") + " " + formatMs(*m) + ")"
	}
	b.WriteString("  " + t.colorIf(overLatency, t.fail, p95))

	b.WriteByte('\n')
	io.WriteString(t.out, b.String())
}

// cmpOp returns ok when the figure meets its bar, else notOK.
func cmpOp(holds bool, ok, notOK string) string {
	if holds {
		return ok
	}
	return notOK
}

// Finish prints the end of the report: a table of the tasks that did not
// pass (suite, task, file:line, score against its bar, and why: the failed
// check ids with their reason codes or the error kind, then the findings by
// severity), the regression against the baseline, the gates with the values
// they read and their verdicts, and the verdict line. Quiet keeps only the
// verdict line.
func (t *Terminal) Finish(r *results.Run) {
	if r == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clearLine()

	var b strings.Builder
	if !t.quiet {
		t.failingTable(&b, r)
		t.explanations(&b, r)
		t.transcriptsHint(&b, r)
		t.linesAfterFinal(&b, r)
		t.regression(&b, r.Regression)
		t.history(&b, r) // history.go
		if !r.Interrupted {
			// Gates read a partial run as if it were whole: not shown.
			t.gates(&b, r.Gates)
		}
	}
	t.verdict(&b, r)
	io.WriteString(t.out, b.String())
}

// explanations writes, for each task of the failing table that Explain
// was told about, in the table's order, what its checks expected and got.
func (t *Terminal) explanations(b *strings.Builder, r *results.Run) {
	if len(t.explained) == 0 {
		return
	}
	rows, header := 0, false
	eachFailing(r, func(s *results.Suite, task *results.Task) bool {
		if rows++; rows > MaxFailingRows {
			return false
		}
		lines := t.explained[[2]string{s.ID, task.ID}]
		if len(lines) == 0 {
			return true
		}
		if !header {
			header = true
			b.WriteString("\n" + t.bold.Sprint("expected vs got") + " " + t.dim.Sprint("(quotes the task and the agent: shown here, written to no output)") + "\n")
		}
		fmt.Fprintf(b, "  %s %s\n", t.bold.Sprint(escape.Text(s.ID+"/"+task.ID)), t.dim.Sprint(escape.Text(where(task))))
		for _, l := range lines {
			fmt.Fprintf(b, "    %s\n", escape.Text(l))
		}
		return true
	})
}

// eachFailing calls f with each task of r that did not pass, in run
// order, until f returns false.
func eachFailing(r *results.Run, f func(s *results.Suite, task *results.Task) bool) {
	for si := range r.Suites {
		s := &r.Suites[si]
		for ti := range s.Tasks {
			if !s.Tasks[ti].Passed && !f(s, &s.Tasks[ti]) {
				return
			}
		}
	}
}

// transcriptsHint says once, under a report with errored tasks, where the
// agent's own words are: error messages never quote them.
func (t *Terminal) transcriptsHint(b *strings.Builder, r *results.Run) {
	if !anyTask(r, func(task *results.Task) bool { return task.Status == results.StatusError }) {
		return
	}
	if t.transcripts != "" {
		fmt.Fprintf(b, "  %s\n", t.dim.Sprint("the agent's stderr and output are in "+escape.Text(t.transcripts)))
		return
	}
	fmt.Fprintf(b, "  %s\n", t.dim.Sprint("re-run with --transcripts to see the agent's stderr and output"))
}

// linesAfterFinal warns, task by task, about the lines agents wrote after
// their final line, which were ignored.
func (t *Terminal) linesAfterFinal(b *strings.Builder, r *results.Run) {
	shown, more := 0, 0
	for si := range r.Suites {
		s := &r.Suites[si]
		for ti := range s.Tasks {
			task := &s.Tasks[ti]
			if task.LinesAfterFinal == 0 {
				continue
			}
			if shown == maxWarnings {
				more++
				continue
			}
			if shown == 0 {
				b.WriteByte('\n')
			}
			shown++
			fmt.Fprintf(b, "%s\n", t.warn.Sprintf("warning: %s/%s (%s): the agent wrote %s after final; %s ignored",
				escape.Text(s.ID), escape.Text(task.ID), escape.Text(where(task)), words.Count(task.LinesAfterFinal, "line", "lines"), words.Plural(task.LinesAfterFinal, "it was", "they were")))
		}
	}
	if more > 0 {
		fmt.Fprintf(b, "%s\n", t.warn.Sprintf("warning: … and %d more %s with lines after final (linesAfterFinal in results.json)", more, words.Plural(more, "task", "tasks")))
	}
}

// anyTask reports whether a task of r satisfies f.
func anyTask(r *results.Run, f func(*results.Task) bool) bool {
	for si := range r.Suites {
		for ti := range r.Suites[si].Tasks {
			if f(&r.Suites[si].Tasks[ti]) {
				return true
			}
		}
	}
	return false
}

// failingTable writes the tasks that did not pass, in run order.
func (t *Terminal) failingTable(b *strings.Builder, r *results.Run) {
	var rows [][]string
	total := 0
	eachFailing(r, func(s *results.Suite, task *results.Task) bool {
		total++
		if len(rows) < MaxFailingRows {
			rows = append(rows, []string{
				escape.Text(s.ID),
				escape.Text(task.ID),
				escape.Text(where(task)),
				formatScore(task.Score, task.PassScore) + "/" + formatScore(task.PassScore, task.Score),
				why(task),
			})
		}
		return true
	})
	if total == 0 {
		return
	}
	b.WriteString("\n" + t.bold.Sprintf("failing tasks (%d)", total) + "\n")
	header := []string{"SUITE", "TASK", "WHERE", "SCORE", "WHY"}
	widths := make([]int, len(header))
	for _, row := range append([][]string{header}, rows...) {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	t.row(b, header, widths, t.dim)
	for _, row := range rows {
		t.row(b, row, widths, nil)
	}
	if more := total - len(rows); more > 0 {
		fmt.Fprintf(b, "  %s\n", t.dim.Sprintf("… and %d more in results.json", more))
	}
}

// row writes one table row; every cell but the last is padded to its width.
func (t *Terminal) row(b *strings.Builder, cells []string, widths []int, c *color.Color) {
	b.WriteString(" ")
	for i, cell := range cells {
		b.WriteByte(' ')
		if c != nil {
			b.WriteString(c.Sprint(cell))
		} else {
			b.WriteString(cell)
		}
		if i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+1))
		}
	}
	b.WriteByte('\n')
}

// regression writes the one-line comparison with the baseline.
func (t *Terminal) regression(b *strings.Builder, reg *results.Regression) {
	if reg == nil {
		return
	}
	fmt.Fprintf(b, "\n%s %s: score %s, %s, %d fixed, p=%s\n",
		t.bold.Sprint("regression vs baseline"), escape.Text(reg.BaselineRunID),
		formatDelta(reg.ScoreDelta),
		t.colorIf(reg.NewFailures > 0, t.fail, words.Count(reg.NewFailures, "new failure", "new failures")),
		reg.Fixed, strconv.FormatFloat(reg.PValue, 'f', 3, 64))
	for _, w := range reg.Warnings {
		fmt.Fprintf(b, "  %s\n", t.warn.Sprint("warning: "+escape.Text(w)))
	}
}

// gates writes every gate with its verdict and the values it read.
func (t *Terminal) gates(b *strings.Builder, gates []results.Gate) {
	if len(gates) == 0 {
		return
	}
	b.WriteString("\n" + t.bold.Sprint("gates") + "\n")
	width := 0
	for _, g := range gates {
		width = max(width, utf8.RuneCountInString(escape.Text(g.Expr)))
	}
	for _, g := range gates {
		verdict := t.pass.Sprint("PASS")
		if !g.Passed {
			verdict = t.fail.Sprint("FAIL")
		}
		detail := formatValues(g.Values)
		if g.Error != "" {
			detail = t.fail.Sprint("error: " + g.Error)
		}
		expr := escape.Text(g.Expr)
		line := "  " + verdict + "  " + expr
		if detail != "" {
			line += strings.Repeat(" ", width-utf8.RuneCountInString(expr)+2) + t.dim.Sprint(escape.Text(detail))
		}
		b.WriteString(line + "\n")
	}
}

// verdict writes the last line: the run's verdict and which gates failed,
// or, for an interrupted run, how many tasks never ran and no verdict.
func (t *Terminal) verdict(b *strings.Builder, r *results.Run) {
	var failed []results.Gate
	for _, g := range r.Gates {
		if !g.Passed {
			failed = append(failed, g)
		}
	}
	n := len(r.Gates)
	var line string
	switch {
	case r.Interrupted:
		line = t.warn.Sprint("INTERRUPTED") + " — " + t.notRun(r) + "; no verdict"
	case r.Passed && n == 0:
		line = t.pass.Sprint("PASS") + " — no gates"
	case r.Passed && n == 1:
		line = t.pass.Sprint("PASS") + " — the gate holds"
	case r.Passed:
		line = t.pass.Sprint("PASS") + fmt.Sprintf(" — all %d gates hold", n)
	case len(failed) == 1:
		line = t.fail.Sprint("FAIL") + " — gate " + failedGate(failed[0])
	case len(failed) > 1:
		names := make([]string, 0, maxVerdictGates+1)
		for i, g := range failed {
			if i == maxVerdictGates {
				names = append(names, fmt.Sprintf("and %d more", len(failed)-i))
				break
			}
			names = append(names, cut(escape.Text(g.Expr), maxVerdictText))
		}
		line = t.fail.Sprint("FAIL") + fmt.Sprintf(" — %d of %d gates failed: %s", len(failed), n, strings.Join(names, "; "))
	default:
		line = t.fail.Sprint("FAIL")
	}
	if !t.quiet {
		// A blank line parts the verdict from the report above it; with
		// --quiet there is none, and the verdict is the whole output.
		b.WriteByte('\n')
	}
	b.WriteString("evalgate: " + line + "\n")
}

// notRun says how many tasks of an interrupted run never ran, when the
// Terminal was told what was selected.
func (t *Terminal) notRun(r *results.Run) string {
	if len(t.planned) == 0 {
		return "only the tasks that finished are in the results"
	}
	planned, ran := 0, 0
	for _, n := range t.planned {
		planned += n
	}
	for si := range r.Suites {
		ran += r.Suites[si].TaskCount
	}
	return fmt.Sprintf("%d of %d %s never ran", planned-ran, planned, words.Plural(planned, "task", "tasks"))
}

// failedGate names a failed gate and what it read, for the verdict line:
// "findings.critical + findings.high == 0 failed (findings.critical=1)".
// A true value never explains a failure, so only the others are shown.
func failedGate(g results.Gate) string {
	s := cut(escape.Text(g.Expr), maxVerdictText)
	if g.Error != "" {
		return s + " could not be evaluated (" + cut(escape.Text(g.Error), maxVerdictText) + ")"
	}
	values := map[string]any{}
	for k, v := range g.Values {
		if v != true {
			values[k] = v
		}
	}
	if v := formatValues(values); v != "" {
		return s + " failed (" + cut(escape.Text(v), maxVerdictText) + ")"
	}
	return s + " failed"
}

// clearLine wipes the live line, if one is shown, so that the next output
// starts at the beginning of a clean line.
func (t *Terminal) clearLine() {
	if t.lineWidth == 0 {
		return
	}
	io.WriteString(t.out, "\r"+strings.Repeat(" ", t.lineWidth)+"\r")
	t.lineWidth = 0
}

func (t *Terminal) colorIf(cond bool, c *color.Color, s string) string {
	if cond {
		return c.Sprint(s)
	}
	return s
}

// where is the task's file:line, or its file when the line is unknown.
func where(t *results.Task) string {
	if t.Line <= 0 {
		return t.File
	}
	return t.File + ":" + strconv.Itoa(t.Line)
}

// findingCounts writes findings by severity, most severe first: "1
// critical finding", "3 findings (1 high, 2 low)".
func findingCounts(f results.Findings) string {
	var parts []string
	for _, c := range []struct {
		n    int
		name string
	}{{f.Critical, results.SeverityCritical}, {f.High, results.SeverityHigh}, {f.Medium, results.SeverityMedium}, {f.Low, results.SeverityLow}} {
		if c.n > 0 {
			parts = append(parts, strconv.Itoa(c.n)+" "+c.name)
		}
	}
	total := f.Critical + f.High + f.Medium + f.Low
	if len(parts) == 1 {
		return parts[0] + " " + words.Plural(total, "finding", "findings")
	}
	return fmt.Sprintf("%d findings (%s)", total, strings.Join(parts, ", "))
}

// severityRank orders severities, most severe first.
var severityRank = map[string]int{
	results.SeverityCritical: 0,
	results.SeverityHigh:     1,
	results.SeverityMedium:   2,
	results.SeverityLow:      3,
}

// why says, without any content, why a task did not pass: its error kind,
// the checks that failed with their reason codes, the trials that passed
// when it ran more than once, and its findings by severity. Check ids come
// from the suite and error messages from the run: the whole is escaped.
func why(t *results.Task) string {
	var parts []string
	if t.Status == results.StatusError {
		parts = append(parts, "error: "+errorText(t.ErrorKind, t.ErrorMessage))
	}
	if checks := failedChecks(t); checks != "" {
		parts = append(parts, checks)
	}
	if len(t.Trials) > 1 {
		parts = append(parts, fmt.Sprintf("%d/%d trials passed", t.TrialsPassed, len(t.Trials)))
		for _, tr := range t.Trials {
			if tr.ErrorKind != "" && (tr.ErrorKind != t.ErrorKind || tr.ErrorMessage != t.ErrorMessage) {
				parts = append(parts, fmt.Sprintf("trial %d error: %s", tr.Trial, errorText(tr.ErrorKind, tr.ErrorMessage)))
			}
		}
	}
	if f := findingsBySeverity(t.Findings); f != "" {
		parts = append(parts, "findings: "+f)
	}
	if len(parts) == 0 {
		parts = append(parts, "below the bar")
	}
	return escape.Text(strings.Join(parts, "; "))
}

// errorText is an error kind with its content-free message: "timeout
// (timed out after 5s)".
func errorText(kind, message string) string {
	if kind == "" {
		kind = "unknown"
	}
	if message == "" {
		return kind
	}
	return kind + " (" + escape.Text(message) + ")"
}

// failedChecks lists the failed checks as "id (reason)", in the task's
// sorted order; the reason is the first one any trial gave. A graded
// criterion below the top of its scale shows its level instead, "tools
// (2/4)": the task's level of the scale's max.
func failedChecks(t *results.Task) string {
	reasons := map[string]string{}
	var ids []string
	for _, tr := range t.Trials {
		for _, c := range tr.Checks {
			if c.Passed {
				continue
			}
			if l := taskLevel(t, c.ID); l != nil && c.Scale != nil {
				reasons[c.ID] = fmt.Sprintf("%d/%d", *l, c.Scale.Max)
				if !slices.Contains(ids, c.ID) {
					ids = append(ids, c.ID)
				}
				continue
			}
			if _, seen := reasons[c.ID]; !seen {
				ids = append(ids, c.ID)
				reasons[c.ID] = c.Reason
			} else if reasons[c.ID] == "" {
				reasons[c.ID] = c.Reason
			}
		}
	}
	if len(t.FailedChecks) > 0 {
		ids = t.FailedChecks
	} else {
		slices.Sort(ids)
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id
		if r := reasons[id]; r != "" {
			parts[i] += " (" + r + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// taskLevel is the level of the task's graded check id; nil when it has
// none.
func taskLevel(t *results.Task, id string) *int {
	for i := range t.Levels {
		if t.Levels[i].Check == id {
			return &t.Levels[i].Level
		}
	}
	return nil
}

// findingsBySeverity lists findings most severe first, as "high
// unsafe-tool-call", with a count when one repeats.
func findingsBySeverity(fs []results.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	count := map[results.Finding]int{}
	var uniq []results.Finding
	for _, f := range fs {
		if count[f] == 0 {
			uniq = append(uniq, f)
		}
		count[f]++
	}
	slices.SortStableFunc(uniq, func(a, b results.Finding) int {
		return cmp.Or(cmp.Compare(rank(a.Severity), rank(b.Severity)), strings.Compare(a.Kind, b.Kind))
	})
	parts := make([]string, len(uniq))
	for i, f := range uniq {
		parts[i] = f.Severity + " " + f.Kind
		if n := count[f]; n > 1 {
			parts[i] += fmt.Sprintf(" ×%d", n)
		}
	}
	return strings.Join(parts, ", ")
}

func rank(severity string) int {
	if r, ok := severityRank[severity]; ok {
		return r
	}
	return len(severityRank)
}

// formatScore writes a score with two decimals, or more when two decimals
// would make it look equal to other, the value it is compared with.
func formatScore(v, other float64) string {
	for prec := 2; prec < 4; prec++ {
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if v == other || s != strconv.FormatFloat(other, 'f', prec, 64) {
			return s
		}
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// formatDelta writes a signed score change.
func formatDelta(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	if v >= 0 {
		s = "+" + s
	}
	return s
}

// formatUsd writes dollars with four decimals, enough for per-task costs.
func formatUsd(v float64) string {
	return "$" + strconv.FormatFloat(v, 'f', 4, 64)
}

// formatMs writes a latency: 840ms, 1.2s, 1m5s.
func formatMs(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + "ms"
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + "s"
	}
	return formatDuration(time.Duration(ms) * time.Millisecond)
}

// formatDuration writes a duration rounded to the second.
func formatDuration(d time.Duration) string {
	return d.Round(time.Second).String()
}

// formatValues writes a gate's values as name=value, sorted by name.
func formatValues(values map[string]any) string {
	if len(values) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(values))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + formatValue(values[n])
	}
	return strings.Join(parts, " ")
}

// formatValue writes one gate value; floats get at most four decimals.
func formatValue(v any) string {
	switch x := v.(type) {
	case float64:
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if dot := strings.IndexByte(s, '.'); dot >= 0 && len(s)-dot-1 > 4 {
			s = strconv.FormatFloat(x, 'f', 4, 64)
		}
		return s
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}
