package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/results"
)

// The run's history (results.History, docs/history.md) as each output
// draws it: a sparkline per suite in the terminal and the scorecard, and
// trend charts in the HTML report. Each picture is of the window's runs,
// oldest first, and then of this run.

// sparks are the bars of a sparkline, lowest to highest.
var sparks = []rune("▁▂▃▅▇")

// Sparkline draws values as a row of bars, each scaled between the lowest
// and the highest of them; values all equal draw the middle bar.
func Sparkline(values []float64) string {
	if len(values) == 0 {
		return ""
	}
	lo, hi := slices.Min(values), slices.Max(values)
	var b strings.Builder
	for _, v := range values {
		i := len(sparks) / 2
		if hi > lo {
			i = int(math.Round((v - lo) / (hi - lo) * float64(len(sparks)-1)))
		}
		b.WriteRune(sparks[i])
	}
	return b.String()
}

// TrendScores are a suite's scores over the window's runs, then now's
// when now is not nil.
func TrendScores(points []results.TrendPoint, now *float64) []float64 {
	out := make([]float64, 0, len(points)+1)
	for _, p := range points {
		out = append(out, p.Score)
	}
	if now != nil {
		out = append(out, *now)
	}
	return out
}

// TrendLine is a suite's score trend in one line: the sparkline, the
// range, and the last score (this run's, when now is given).
func TrendLine(points []results.TrendPoint, now *float64) string {
	scores := TrendScores(points, now)
	if len(scores) == 0 {
		return "no earlier runs"
	}
	last := "last"
	if now != nil {
		last = "now"
	}
	return fmt.Sprintf("%s score %.3f..%.3f, %s %.3f", Sparkline(scores), slices.Min(scores), slices.Max(scores), last, scores[len(scores)-1])
}

// history writes the terminal's lines of the history: the window read,
// the newly failing tasks it knows as flaky, and one line per suite with
// its trend.
func (t *Terminal) history(b *strings.Builder, r *results.Run) {
	h := r.History
	if h == nil {
		return
	}
	fmt.Fprintf(b, "\n%s %s", t.bold.Sprint("history"), escape.Text(fmt.Sprintf("%s of %s", words.Count(h.Runs, "earlier run", "earlier runs"), h.Store)))
	if h.Skipped > 0 {
		b.WriteString(t.warn.Sprint(fmt.Sprintf(", %s skipped", words.Count(h.Skipped, "record", "records"))))
	}
	if h.NewFailures > 0 {
		fmt.Fprintf(b, ": %s, %d known-flaky", words.Count(h.NewFailures, "newly failing task", "newly failing tasks"), h.NewFailures-h.NewFailuresNotFlaky)
	}
	b.WriteString("\n")
	for i := range r.Suites {
		s := &r.Suites[i]
		sh := h.Suite(s.ID)
		if sh == nil {
			continue
		}
		fmt.Fprintf(b, "  %s  %s\n", escape.Text(s.ID), TrendLine(sh.Trend, &s.AggregateScore))
	}
}

// trend writes the scorecard's table of each suite's trend.
func (c *card) trend() {
	h := c.run.History
	if h == nil || h.Runs == 0 {
		return
	}
	fmt.Fprintf(&c.b, "\n#### Trend over the last %s\n\n| Suite | Score, oldest to now | Range |\n|---|---|--:|\n", formatCount(h.Runs)+" "+words.Plural(h.Runs, "run", "runs"))
	var rows []string
	for i := range c.run.Suites {
		s := &c.run.Suites[i]
		if sh := h.Suite(s.ID); sh != nil {
			scores := TrendScores(sh.Trend, &s.AggregateScore)
			rows = append(rows, fmt.Sprintf("| %s | %s | %.2f–%.2f |\n", code(s.ID, true), Sparkline(scores), slices.Min(scores), slices.Max(scores)))
		}
	}
	t := c.table(c.budget(budgetSuites), "trends")
	for _, row := range rows {
		if !t.add(row) {
			break
		}
	}
	t.close(len(rows))
}

// Geometry of a trend chart: trendWidth by trendHeight units, the line
// drawn between trendTop and trendBottom, the points spread across
// trendLeft to trendRight.
const (
	trendWidth  = 240
	trendHeight = 84
	trendTop    = 22
	trendBottom = 76
	trendLeft   = 8
	trendRight  = 232
)

// htmlTrends are a suite's four trend charts.
type htmlTrends struct {
	Suite  string
	Runs   int // the window's runs holding the suite
	Charts []htmlTrend
}

// htmlTrend is one figure of a suite over the window and this run: the
// line through the points, each point, this run's marked, and the
// baseline's value as a line when there is one.
type htmlTrend struct {
	Suite, Metric string
	Title         string // "score 0.83"
	Path          string // the polyline's points
	Points        []htmlTrendPoint
	Current       htmlTrendPoint
	Baseline      *float64 // the line's y; nil without a baseline
	BaselineValue string
}

type htmlTrendPoint struct {
	X, Y  float64
	Label string // the run and its value, for the tooltip
}

// newHTMLTrends lays out each suite's trend charts: score and pass rate on
// 0..1, cost and p95 from 0 to a tenth over their largest value.
func newHTMLTrends(r *results.Run) []htmlTrends {
	if r.History == nil {
		return nil
	}
	var out []htmlTrends
	for i := range r.Suites {
		s := &r.Suites[i]
		sh := r.History.Suite(s.ID)
		if sh == nil || len(sh.Trend) == 0 {
			continue
		}
		ts := htmlTrends{Suite: s.ID, Runs: len(sh.Trend)}
		var baseline *float64
		if s.Regression != nil {
			baseline = baselineScore(s.AggregateScore, s.Regression.ScoreDelta)
		}
		metric := func(name string, now float64, of func(results.TrendPoint) float64, format func(float64) string, fixed bool, base *float64) {
			values := make([]float64, 0, len(sh.Trend)+1)
			for _, p := range sh.Trend {
				values = append(values, of(p))
			}
			values = append(values, now)
			hi := 1.0
			if !fixed {
				hi = slices.Max(values) * 1.1
				if hi <= 0 {
					hi = 1
				}
			}
			y := func(v float64) float64 {
				return trendBottom - math.Max(0, math.Min(1, v/hi))*(trendBottom-trendTop)
			}
			step := float64(trendRight-trendLeft) / float64(max(1, len(values)-1))
			c := htmlTrend{Suite: s.ID, Metric: name, Title: name + " " + format(now)}
			var path strings.Builder
			for k, v := range values {
				p := htmlTrendPoint{X: trendLeft + step*float64(k), Y: y(v)}
				if len(values) == 1 {
					p.X = trendRight
				}
				fmt.Fprintf(&path, "%s,%s ", units(p.X), units(p.Y))
				if k < len(sh.Trend) {
					p.Label = fmt.Sprintf("run %s: %s %s", sh.Trend[k].RunID, name, format(v))
					c.Points = append(c.Points, p)
				} else {
					p.Label = fmt.Sprintf("this run: %s %s", name, format(v))
					c.Current = p
				}
			}
			c.Path = strings.TrimSpace(path.String())
			if base != nil {
				by := y(*base)
				c.Baseline, c.BaselineValue = &by, format(*base)
			}
			ts.Charts = append(ts.Charts, c)
		}
		two := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
		metric("score", s.AggregateScore, func(p results.TrendPoint) float64 { return p.Score }, two, true, baseline)
		passRate := 0.0
		if s.TaskCount > 0 {
			passRate = float64(s.PassedCount) / float64(s.TaskCount)
		}
		metric("pass rate", passRate, func(p results.TrendPoint) float64 { return p.PassRate }, two, true, nil)
		metric("cost", s.TotalCostUsd, func(p results.TrendPoint) float64 { return p.CostUsd }, func(v float64) string { return fmt.Sprintf("$%.4f", v) }, false, nil)
		metric("p95", float64(s.P95LatencyMs), func(p results.TrendPoint) float64 { return float64(p.P95LatencyMs) }, func(v float64) string { return fmt.Sprintf("%.0f ms", v) }, false, nil)
		out = append(out, ts)
	}
	return out
}

// htmlHistoryTemplate is the page's history section.
const htmlHistoryTemplate = `
{{- define "history"}}
<section id="history">
<h2>Trend</h2>
{{with .Run.History}}<p class="muted">{{.Runs}} earlier {{if eq .Runs 1}}run{{else}}runs{{end}} of <code>{{t .Store}}</code>{{if .Skipped}} · <span class="error">{{.Skipped}} skipped</span>{{end}}{{if .NewFailures}} · {{.NewFailures}} newly failing, {{.KnownFlaky}} known-flaky{{end}}</p>{{end}}
{{if .Trends}}<p class="legend muted">earlier runs, oldest first, then <span class="key current"></span> this run · <span class="key baseline"></span> the baseline</p>{{end}}
{{range .Trends}}<article class="suite" data-suite="{{t .Suite}}">
<h3><code>{{t .Suite}}</code> <span class="muted">{{.Runs}} earlier {{if eq .Runs 1}}run{{else}}runs{{end}}</span></h3>
<div class="trends">{{range .Charts}}{{$c := .}}<svg class="chart trend" viewBox="0 0 240 84" role="img" aria-label="{{.Title}} this run; earlier: {{range $i, $p := .Points}}{{if $i}}, {{end}}{{t $p.Label}}{{end}}" data-chart="trend" data-suite="{{t .Suite}}" data-metric="{{.Metric}}" data-points="{{len .Points}}" {{- with .BaselineValue}} data-baseline="{{.}}"{{end}}>
<text x="8" y="14">{{.Title}}</text>
<line class="axisline" x1="8" x2="232" y1="76" y2="76"/>
{{with .Baseline}}<line class="baseline" x1="8" x2="232" y1="{{units .}}" y2="{{units .}}"><title>baseline {{$c.BaselineValue}}</title></line>{{end}}
<polyline class="trendline" points="{{.Path}}"/>
{{range .Points}}<circle class="pt" cx="{{units .X}}" cy="{{units .Y}}" r="2.5"><title>{{t .Label}}</title></circle>{{end}}
<circle class="current" cx="{{units .Current.X}}" cy="{{units .Current.Y}}" r="4.5"><title>{{.Current.Label}}</title></circle>
</svg>{{end}}</div>
</article>
{{end}}</section>
{{end}}
`
