package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/results"
)

// HTML renders a run as one self-contained, content-free HTML page (no
// scripts, no fonts, no external resources): the verdict with the run's
// score bar, a card per suite with its score bar (the bar to pass, the
// baseline) and a strip of its tasks coloured by status, the findings by
// severity, every task (those that did not pass open and first, with the
// reason; those that passed collapsed), the gates with their values and
// the regression. The charts are inline SVG; the page fits a 420 px wide
// screen and follows the reader's dark mode. Every value goes through
// html/template, so ids cannot inject markup, and text from the results
// through escape.Text, so the page holds no control character.
func HTML(r *results.Run) ([]byte, error) {
	v := newHTMLView(r)
	var b bytes.Buffer
	render := func(name string) error {
		if err := htmlPage().ExecuteTemplate(&b, name, v); err != nil {
			return fmt.Errorf("could not render the HTML report: %w", err)
		}
		return nil
	}
	if err := render("start"); err != nil {
		return nil, err
	}
	for _, s := range htmlSections {
		if s.show(v) {
			if err := render(s.name); err != nil {
				return nil, err
			}
		}
	}
	if err := render("end"); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// htmlSection is one part of the page: the template that draws it and
// whether the run has anything for it.
type htmlSection struct {
	name string
	show func(v *htmlView) bool
}

// htmlSections are the parts of the page in page order. A new part is a
// {{define}} in htmlTemplates and a row here.
var htmlSections = []htmlSection{
	{"summary", func(*htmlView) bool { return true }},
	{"suites", func(v *htmlView) bool { return len(v.Suites) > 0 }},
	{"history", func(v *htmlView) bool { return v.Run.History != nil }}, // history.go
	{"findings", func(*htmlView) bool { return true }},
	{"assessment", func(v *htmlView) bool { return v.Assessment != nil }},
	{"trust", func(v *htmlView) bool { return v.Run.Trust != nil }},
	{"tasks", func(v *htmlView) bool { return len(v.Failing)+len(v.Passing) > 0 }},
	{"spans", func(v *htmlView) bool { return v.Spans != nil }}, // html_spans.go
	{"gates", func(v *htmlView) bool { return len(v.Run.Gates) > 0 }},
	{"regression", func(v *htmlView) bool { return v.Run.Regression != nil }},
}

type htmlView struct {
	Run      *results.Run
	Score    htmlBar // the run's
	Suites   []htmlSuite
	Findings []htmlRow
	Trust    []htmlRow // the five trust dimensions, points of 20; nil without a scorecard
	// Assessment is the dual-axis assessment's chart and dimensions; nil
	// without one (html_assessment.go).
	Assessment *htmlAssessment
	Trends     []htmlTrends // each suite's trend charts; nil without a history (history.go)
	Failing    []htmlTask   // errored first, then by score
	Passing    []htmlTask   // in suite order
	// Spans are the charts of the agents' OpenTelemetry spans; nil
	// without any (html_spans.go).
	Spans *htmlSpans
}

// htmlSuite is a suite's card: its figures, score bar and task strip.
type htmlSuite struct {
	*results.Suite
	Score htmlBar
	Strip htmlStrip
}

type htmlTask struct {
	Suite string
	Task  *results.Task
	Why   string
}

// htmlBar is a score bar: the score, the bar to pass and the baseline's
// score, each placed on a 0–100 axis.
type htmlBar struct {
	Suite    string // "" for the run's bar
	Score    float64
	Pass     bool
	Bar      *float64 // the suite's pass score; nil for the run
	Baseline *float64 // score − scoreDelta; nil without a regression
}

// The task strip wraps after stripColumns cells of stripCell units each.
const (
	stripColumns = 40
	stripCell    = 10
)

// htmlStrip is a suite's tasks as a grid of cells, one per task in suite
// order, coloured by status.
type htmlStrip struct {
	Suite                   string
	Width, Height           int
	Cells                   []htmlCell
	Passed, Failed, Errored int
}

type htmlCell struct {
	X, Y   int
	Task   string
	Status string // passed, failed or error
}

// Geometry of the bar charts (findings by severity, trust dimensions): one
// row per name, the chart rowsWidth units wide, the bar's length
// proportional to the count.
const (
	rowsHeight = 24
	rowsWidth  = 400
)

// htmlRow is one row of a bar chart.
type htmlRow struct {
	Name       string
	Count      int
	BarX, BarY int
	TextY      int     // the baseline of the row's text
	W          float64 // the bar's length
	CountX     float64 // where the count is written, after the bar
}

// barRows lays out a bar chart: a row per name, the bars starting at barX
// and scale (the largest count, or the scale's top) taking the width left
// for the bar and its count.
func barRows(names []string, counts []int, barX, scale int) []htmlRow {
	rows := make([]htmlRow, len(names))
	for i, name := range names {
		r := htmlRow{Name: name, Count: counts[i], BarX: barX, BarY: i*rowsHeight + 4, TextY: i*rowsHeight + 17}
		if scale > 0 {
			r.W = float64(min(max(counts[i], 0), scale)) / float64(scale) * float64(rowsWidth-barX-48)
		}
		r.CountX = float64(barX) + r.W + 6
		rows[i] = r
	}
	return rows
}

func newHTMLView(r *results.Run) *htmlView {
	v := &htmlView{Run: r, Score: htmlBar{Score: r.AggregateScore, Pass: r.Passed}}
	if r.Regression != nil {
		v.Score.Baseline = baselineScore(r.AggregateScore, r.Regression.ScoreDelta)
	}
	for i := range r.Suites {
		s := &r.Suites[i]
		card := htmlSuite{
			Suite: s,
			Score: htmlBar{Suite: s.ID, Score: s.AggregateScore, Pass: s.AggregateScore >= s.Thresholds.PassScore, Bar: &s.Thresholds.PassScore},
			Strip: htmlStrip{Suite: s.ID, Width: stripColumns * stripCell},
		}
		if s.Regression != nil {
			card.Score.Baseline = baselineScore(s.AggregateScore, s.Regression.ScoreDelta)
		}
		for k := range s.Tasks {
			t := &s.Tasks[k]
			card.Strip.add(k, t)
			if t.Status == results.StatusPassed {
				v.Passing = append(v.Passing, htmlTask{Suite: s.ID, Task: t})
			} else {
				v.Failing = append(v.Failing, htmlTask{Suite: s.ID, Task: t, Why: FailureMessage(t)})
			}
		}
		card.Strip.Height = (len(s.Tasks) + stripColumns - 1) / stripColumns * stripCell
		v.Suites = append(v.Suites, card)
	}
	slices.SortStableFunc(v.Failing, func(x, y htmlTask) int {
		errored := func(t htmlTask) int {
			if t.Task.Status == results.StatusError {
				return 0
			}
			return 1
		}
		return cmp.Or(cmp.Compare(errored(x), errored(y)), cmp.Compare(x.Task.Score, y.Task.Score))
	})
	v.Spans = newHTMLSpans(r, v.Failing)
	f := r.Findings
	v.Findings = barRows(
		[]string{results.SeverityCritical, results.SeverityHigh, results.SeverityMedium, results.SeverityLow},
		[]int{f.Critical, f.High, f.Medium, f.Low}, 72, max(f.Critical, f.High, f.Medium, f.Low))
	v.Assessment = newHTMLAssessment(r.Assessment)
	v.Trends = newHTMLTrends(r)
	if t := r.Trust; t != nil {
		d := t.Dimensions
		v.Trust = barRows(
			[]string{"contract clarity", "idempotency", "observability", "error containment", "governance"},
			[]int{d.ContractClarity, d.Idempotency, d.Observability, d.ErrorContainment, d.Governance}, 136, 20)
	}
	return v
}

// add draws the k-th task of the suite.
func (s *htmlStrip) add(k int, t *results.Task) {
	c := htmlCell{X: k % stripColumns * stripCell, Y: k / stripColumns * stripCell, Task: t.ID, Status: results.StatusFailed}
	switch t.Status {
	case results.StatusPassed:
		c.Status = t.Status
		s.Passed++
	case results.StatusError:
		c.Status = t.Status
		s.Errored++
	default: // a status this version does not know counts as failed
		s.Failed++
	}
	s.Cells = append(s.Cells, c)
}

// baselineScore is the baseline's score: the score less the change.
func baselineScore(score, delta float64) *float64 {
	b := score - delta
	return &b
}

// axis places a score on the score bar's 0–100 axis; a score outside
// [0, 1] (or NaN) from a hand-made results file stays on the bar.
func axis(score float64) string {
	return units(clamp(score, 0, 1) * 100)
}

// units prints a length of a chart with at most two decimals.
func units(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// barLabel says in words what a score bar draws, for screen readers.
func barLabel(b htmlBar) string {
	parts := []string{"score " + fmt.Sprintf("%.2f", b.Score)}
	if b.Bar != nil {
		parts = append(parts, fmt.Sprintf("bar %.2f", *b.Bar))
	}
	if b.Baseline != nil {
		parts = append(parts, fmt.Sprintf("baseline %.2f", *b.Baseline))
	}
	return strings.Join(parts, ", ")
}

// htmlPage is parsed when a page is first rendered: most commands never
// write one, and parsing took more memory than the rest of evalgate's own
// initialisation.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"score":    func(f float64) string { return fmt.Sprintf("%.2f", f) },
		"usd":      func(f float64) string { return fmt.Sprintf("$%.4f", f) },
		"delta":    func(f float64) string { return fmt.Sprintf("%+.4f", f) },
		"p":        func(f float64) string { return fmt.Sprintf("%.3g", f) },
		"value":    func(v any) string { return htmlText(fmt.Sprint(v)) },
		"t":        htmlText,
		"cell":     cell,
		"axis":     axis,
		"units":    units,
		"barLabel": barLabel,
		"deref":    func(p *int) int { return *p },
		"deref64":  func(p *float64) float64 { return *p },
		"score2":   score2, // an assessment's scores, cut as its badge cuts them
		"pct":      func(p *float64) string { return axis(*p) },
	}).Parse(htmlTemplates + htmlHistoryTemplate + htmlSpanTemplates))
})

// htmlText is text from the results as the page shows it: escaped for
// the terminal's sake (escape.Text) and without a character XML forbids
// (escape.XMLChars), since the page holds inline SVG; html/template
// escapes the markup.
func htmlText(s string) string { return escape.XMLChars(escape.Text(s)) }

// cellRun is the longest run of characters a table cell shows without a
// place to break: wider than any id or word, narrower than a phone.
const cellRun = 40

// cell is text for a table cell, escaped, with the places it may break
// (<wbr>) where a browser would not offer them: after each "/" of a path,
// after a "-" before a digit ("task-01"), and every cellRun characters of
// a run that has no "/", "-" or space at all. So a cell breaks only at
// "/", "-" or a space, never inside a name, and yet no hostile id makes
// a table wider than the screen.
func cell(s string) template.HTML {
	rs := []rune(htmlText(s))
	var b strings.Builder
	run := 0
	for i, r := range rs {
		if run == cellRun {
			b.WriteString("<wbr>")
			run = 0
		}
		b.WriteString(template.HTMLEscapeString(string(r)))
		switch {
		case r == '/' || (r == '-' && i+1 < len(rs) && '0' <= rs[i+1] && rs[i+1] <= '9'):
			b.WriteString("<wbr>")
			run = 0
		case r == '-' || r == ' ':
			run = 0
		default:
			run++
		}
	}
	return template.HTML(b.String())
}

// htmlTemplates are the page's templates: "start" and "end" around the
// sections of htmlSections, each a {{define}} of its own.
const htmlTemplates = `
{{- define "start" -}}
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>evalgate: {{if .Run.Passed}}PASS{{else}}FAIL{{end}}</title>
<style>
:root {
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d0d7de; --subtle: #f6f8fa;
  --pass: #1a7f37; --fail: #cf222e; --error: #9a6700; --track: #e6eaef; --mark: #1f2328; --baseline: #0969da;
  --critical: #cf222e; --high: #bc4c00; --medium: #9a6700; --low: #59636e;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --subtle: #151b23;
    --pass: #3fb950; --fail: #f85149; --error: #d29922; --track: #262c36; --mark: #e6edf3; --baseline: #4493f8;
    --critical: #f85149; --high: #db6d28; --medium: #d29922; --low: #9198a1;
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; } h3 { font-size: 1rem; margin: 0 0 .25rem; }
h1, h2, h3, p, li, summary, code { overflow-wrap: anywhere; }
td, td code { overflow-wrap: break-word; }
code { font: 12px ui-monospace, monospace; background: var(--subtle); padding: .1rem .3rem; border-radius: 4px; }
.pass { color: var(--pass); font-weight: 600; } .fail { color: var(--fail); font-weight: 600; } .error { color: var(--error); font-weight: 600; }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid var(--border); vertical-align: top; }
th { background: var(--subtle); white-space: nowrap; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; } td.word { white-space: nowrap; }
details { margin: .75rem 0; } summary { cursor: pointer; font-weight: 600; }
svg.chart { display: block; width: 100%; height: auto; margin: .35rem 0; }
svg.bar { height: 1.25rem; max-width: 40rem; }
svg.strip { max-width: 40rem; }
svg.findings { max-width: 32rem; }
svg text { fill: var(--fg); font: 13px system-ui, sans-serif; }
.track { fill: var(--track); }
.is-pass, .is-passed { fill: var(--pass); } .is-fail, .is-failed { fill: var(--fail); } .is-error { fill: var(--error); }
line.threshold { stroke: var(--mark); stroke-width: 2px; }
line.baseline { stroke: var(--baseline); stroke-width: 2px; stroke-dasharray: 4 2; }
.trust-bar { fill: var(--baseline); }
.span-model rect, rect.span-model, .key.span-model { fill: var(--baseline); background: var(--baseline); } .span-tool rect, rect.span-tool, .key.span-tool { fill: var(--pass); background: var(--pass); }
.span-error rect, .key.span-error { fill: var(--fail); background: var(--fail); } .span-other rect { fill: var(--mark); opacity: .45; }
svg.position { max-width: 24rem; }
.plot { fill: none; stroke: var(--border); }
.tierline { stroke: var(--border); stroke-dasharray: 3 2; }
svg text.tiername { font-size: 7px; fill: var(--muted); } svg text.axisname { font-size: 9px; fill: var(--muted); }
.point { fill: var(--baseline); } .basepoint { fill: none; stroke: var(--mark); stroke-dasharray: 2 1; } .movement { stroke: var(--mark); stroke-dasharray: 2 2; }
svg.dimbar { display: block; width: 100%; min-width: 4rem; max-width: 16rem; height: .6rem; }
.dimfill { fill: var(--baseline); }
.trends { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: .5rem; }
svg.trend { max-width: 20rem; } svg.trend text { font-size: 11px; }
.trendline { fill: none; stroke: var(--muted); stroke-width: 1.5px; } .axisline { stroke: var(--border); }
.pt { fill: var(--muted); } .current { fill: var(--baseline); stroke: var(--bg); stroke-width: 1.5px; }
.key.current { background: var(--baseline); border-radius: 50%; }
svg.swatch { display: inline; width: .8em; height: .8em; vertical-align: -.05em; }
.sev-critical { fill: var(--critical); } .sev-high { fill: var(--high); } .sev-medium { fill: var(--medium); } .sev-low { fill: var(--low); }
.suite { border: 1px solid var(--border); border-radius: 6px; padding: .6rem .8rem; margin: .75rem 0; }
.suite p { margin: .2rem 0; }
.legend { font-size: 12px; }
.key { display: inline-block; width: .8rem; height: .8rem; vertical-align: -.1rem; border-radius: 2px; }
.key.is-pass, .key.is-passed { background: var(--pass); } .key.is-fail, .key.is-failed { background: var(--fail); } .key.is-error { background: var(--error); }
.key.threshold { width: 3px; background: var(--mark); } .key.baseline { width: 0; border-left: 2px dashed var(--baseline); border-radius: 0; }
/* Narrow screens: each table row becomes a block of "label: value" lines, so no table is wider than the screen. */
@media (max-width: 40rem) {
  body { padding: .75rem; }
  table.rows, table.rows tbody, table.rows tr, table.rows td { display: block; width: 100%; }
  table.rows thead { display: none; }
  table.rows tr { border-bottom: 1px solid var(--border); padding: .3rem 0; }
  table.rows td { border: 0; padding: .1rem 0; text-align: left; }
  table.rows td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
}
</style>
</head>
<body>
{{end}}

{{- define "end"}}</body>
</html>
{{end}}

{{- define "summary"}}{{with .Run}}
<header id="summary">
<h1>evalgate: {{if .Passed}}<span class="pass">PASS</span>{{else}}<span class="fail">FAIL</span>{{end}}
 — score {{score .AggregateScore}}, {{.PassedCount}}/{{.TaskCount}} tasks passed{{if .ErroredCount}}, {{.ErroredCount}} errored{{end}}</h1>
<p class="muted">run <code>{{t .RunID}}</code>{{if .GitSHA}} at <code>{{t .GitSHA}}</code>{{end}} · {{t .Tool.Name}} {{t .Tool.Version}} · cost {{usd .TotalCostUsd}} · p95 {{.P95LatencyMs}} ms{{if .Interrupted}} · <span class="error">interrupted</span>{{end}}</p>
{{- end}}
{{template "scorebar" .Score}}
{{- with .Run.Regression}}
<p class="legend muted">the run's score; <span class="key baseline"></span> the baseline, <code>{{t .BaselineRunID}}</code></p>
{{- end}}
</header>
{{end}}

{{- define "scorebar"}}<svg class="chart bar" viewBox="-1 0 102 20" preserveAspectRatio="none" role="img" aria-label="{{barLabel .}}" data-chart="score" {{- if .Suite}} data-suite="{{t .Suite}}"{{else}} id="chart-run-score"{{end}} data-score="{{score .Score}}" {{- with .Bar}} data-bar="{{score .}}"{{end}} {{- with .Baseline}} data-baseline="{{score .}}"{{end}}>
<rect class="track" x="0" y="4" width="100" height="12"/>
<rect class="{{if .Pass}}is-pass{{else}}is-fail{{end}}" x="0" y="4" width="{{axis .Score}}" height="12"><title>score {{score .Score}}</title></rect>
{{- with .Bar}}
<line class="threshold" x1="{{axis .}}" x2="{{axis .}}" y1="0" y2="20" vector-effect="non-scaling-stroke"><title>bar {{score .}}</title></line>
{{- end}}
{{- with .Baseline}}
<line class="baseline" x1="{{axis .}}" x2="{{axis .}}" y1="0" y2="20" vector-effect="non-scaling-stroke"><title>baseline {{score .}}</title></line>
{{- end}}
</svg>
{{- end}}

{{- define "strip"}}<svg class="chart strip" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="tasks: {{.Passed}} passed, {{.Failed}} failed, {{.Errored}} errored" data-chart="tasks" data-suite="{{t .Suite}}" data-tasks="{{len .Cells}}">
{{range .Cells}}<rect class="is-{{.Status}}" x="{{.X}}" y="{{.Y}}" width="9" height="9" data-status="{{.Status}}"><title>{{t .Task}}: {{.Status}}</title></rect>
{{end}}</svg>
{{- end}}

{{- define "suites"}}
<section id="suites">
<h2>Suites</h2>
<p class="legend muted">score: <span class="key is-pass"></span> at or over the bar · <span class="key is-fail"></span> under it · <span class="key threshold"></span> the bar · <span class="key baseline"></span> the baseline.
Tasks: <span class="key is-passed"></span> passed · <span class="key is-failed"></span> failed · <span class="key is-error"></span> error.</p>
{{range .Suites}}<article class="suite" data-suite="{{t .ID}}">
<h3><code>{{t .ID}}</code> <span class="muted">{{t .Version}}</span> {{if .Passed}}<span class="pass">pass</span>{{else}}<span class="fail">fail</span>{{end}}</h3>
<p>score <strong>{{score .AggregateScore}}</strong> (bar {{score .Thresholds.PassScore}}){{with .Regression}} · Δ vs baseline {{delta .ScoreDelta}}{{end}} · {{.PassedCount}}/{{.TaskCount}} passed · {{.ErroredCount}} errored · cost {{usd .TotalCostUsd}} · p95 {{.P95LatencyMs}} ms</p>
{{template "scorebar" .Score}}
{{template "strip" .Strip}}
</article>
{{end}}</section>
{{end}}

{{- define "findings"}}
<section id="findings">
<h2>Findings</h2>
{{with .Run.Findings}}<p>critical {{.Critical}} · high {{.High}} · medium {{.Medium}} · low {{.Low}}</p>{{end}}
<svg id="chart-findings" class="chart findings" viewBox="0 0 400 96" role="img" aria-label="findings by severity:{{range $i, $s := .Findings}}{{if $i}},{{end}} {{.Name}} {{.Count}}{{end}}" data-chart="findings">
{{range .Findings}}<g data-severity="{{.Name}}" data-count="{{.Count}}"><text x="0" y="{{.TextY}}">{{.Name}}</text><rect class="sev-{{.Name}}" x="{{.BarX}}" y="{{.BarY}}" width="{{units .W}}" height="16"><title>{{.Name}}: {{.Count}}</title></rect><text x="{{units .CountX}}" y="{{.TextY}}">{{.Count}}</text></g>
{{end}}</svg>
</section>
{{end}}

{{- define "assessment"}}{{with .Assessment}}
<section id="assessment">
<h2>Assessment: performance × capability</h2>
{{range .Axes}}<p class="axis" data-axis="{{.Name}}">{{.Name}}: {{if .Score}}<svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" rx="2" fill="{{.Colour}}"/></svg> <strong>{{.Tier}}</strong> {{score2 (deref64 .Score)}}{{else}}<strong>not measured</strong>{{end}}
{{- if .Provisional}} · <span class="muted">provisional: too few tasks for a settled tier</span>{{end}}
{{- with .Delta}} · {{delta (deref64 .)}} vs baseline{{end}}{{if .Flagged}} · <span class="fail">moved by more than 0.15</span>{{end}}</p>
{{end}}
{{- with .Point}}<svg id="chart-assessment" class="chart position" viewBox="0 0 240 232" role="img" aria-label="performance {{score2 .Perf}}, capability {{score2 .Cap}}" data-chart="assessment" data-performance="{{score2 .Perf}}" data-capability="{{score2 .Cap}}">
<rect class="plot" x="30" y="0" width="200" height="200"/>
{{range $.Assessment.PerfLines}}<line class="tierline" x1="30" x2="230" y1="{{units .At}}" y2="{{units .At}}"/><text class="tiername" x="33" y="{{units .At}}" dy="-2">{{.Name}}</text>
{{end}}{{range $.Assessment.CapLines}}<line class="tierline" x1="{{units .At}}" x2="{{units .At}}" y1="0" y2="200"/><text class="tiername" x="{{units .At}}" y="198" dx="2" transform="rotate(-90 {{units .At}} 198)" dy="8">{{.Name}}</text>
{{end}}<text class="axisname" x="130" y="226" text-anchor="middle">capability</text><text class="axisname" x="12" y="100" text-anchor="middle" transform="rotate(-90 12 100)">performance</text>
{{with $.Assessment.Baseline}}<line class="movement" x1="{{units .X}}" y1="{{units .Y}}" x2="{{units $.Assessment.Point.X}}" y2="{{units $.Assessment.Point.Y}}"/><circle class="basepoint" cx="{{units .X}}" cy="{{units .Y}}" r="4"><title>baseline: performance {{score2 .Perf}}, capability {{score2 .Cap}}</title></circle>
{{end}}<circle class="point" cx="{{units .X}}" cy="{{units .Y}}" r="5"><title>this run: performance {{score2 .Perf}}, capability {{score2 .Cap}}</title></circle>
</svg>
{{end}}
{{- range .Axes}}<h3>{{.Name}}</h3>
<table class="rows dims" data-axis="{{.Name}}">
<thead><tr><th>{{.Name}} dimension</th><th>value</th><th>of 1</th></tr></thead>
<tbody>
{{range .Rows}}<tr data-dimension="{{.Name}}"><td data-label="dimension"><code>{{.Name}}</code></td>
{{- if .Value}}<td data-label="value" class="num">{{score2 (deref64 .Value)}}</td><td><svg class="dimbar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect class="track" width="100" height="8"/><rect class="dimfill" width="{{pct .Value}}" height="8"/></svg></td>
{{- else}}<td data-label="value">null</td><td data-label="why" class="muted">{{cell .Reason}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}<p class="muted">The evidence behind every dimension is in <code>assessment.json</code>.</p>
</section>
{{end}}{{end}}

{{- define "trust"}}
<section id="trust">
<h2>Trust scorecard</h2>
{{with .Run.Trust}}<p>level <strong id="trust-level" data-level="{{.Level}}">TL{{.Level}} {{t .LevelName}}</strong> · {{printf "%.1f" .Score}} of 100{{if .Demoted}} · <span class="fail">demoted from TL{{deref .BaselineLevel}}</span>{{end}} · the evidence of every point is in <code>trust.json</code></p>{{end}}
<svg id="chart-trust" class="chart findings" viewBox="0 0 400 120" role="img" aria-label="trust dimensions, points of 20:{{range $i, $d := .Trust}}{{if $i}},{{end}} {{.Name}} {{.Count}}{{end}}" data-chart="trust">
{{range .Trust}}<g data-dimension="{{.Name}}" data-points="{{.Count}}"><text x="0" y="{{.TextY}}">{{.Name}}</text><rect class="trust-bar" x="{{.BarX}}" y="{{.BarY}}" width="{{units .W}}" height="16"><title>{{.Name}}: {{.Count}} of 20</title></rect><text x="{{units .CountX}}" y="{{.TextY}}">{{.Count}}</text></g>
{{end}}</svg>
</section>
{{end}}

{{- define "tasks"}}
<section id="tasks">
<h2>Tasks</h2>
{{- if .Failing}}
<details id="tasks-failing" open>
<summary>Did not pass ({{len .Failing}})</summary>
<table class="rows">
<thead><tr><th>suite</th><th>task</th><th>where</th><th>status</th><th>score / bar</th><th>why</th></tr></thead>
<tbody>
{{range .Failing}}<tr>
<td data-label="suite"><code>{{cell .Suite}}</code></td><td data-label="task"><code>{{cell .Task.ID}}</code></td>
<td data-label="where"><code>{{cell .Task.File}}:{{.Task.Line}}</code></td>
<td data-label="status" class="word">{{if eq .Task.Status "error"}}<span class="error">error</span>{{else}}<span class="fail">failed</span>{{end}}{{with .Task.Flaky}} <span class="muted flaky" data-flaky="{{.}}">{{.}}</span>{{end}}</td>
<td data-label="score / bar" class="num">{{score .Task.Score}} / {{score .Task.PassScore}}</td>
<td data-label="why">{{cell .Why}}</td>
</tr>
{{end}}</tbody>
</table>
</details>
{{- end}}
{{- if .Passing}}
<details id="tasks-passing">
<summary>Passed ({{len .Passing}})</summary>
<table class="rows">
<thead><tr><th>suite</th><th>task</th><th>where</th><th>score / bar</th><th>trials passed</th><th>latency ms</th></tr></thead>
<tbody>
{{range .Passing}}<tr>
<td data-label="suite"><code>{{cell .Suite}}</code></td><td data-label="task"><code>{{cell .Task.ID}}</code></td>
<td data-label="where"><code>{{cell .Task.File}}:{{.Task.Line}}</code></td>
<td data-label="score / bar" class="num">{{score .Task.Score}} / {{score .Task.PassScore}}</td>
<td data-label="trials passed" class="num">{{.Task.TrialsPassed}}/{{len .Task.Trials}}</td>
<td data-label="latency ms" class="num">{{.Task.LatencyMs}}</td>
</tr>
{{end}}</tbody>
</table>
</details>
{{- end}}
</section>
{{end}}

{{- define "gates"}}{{with .Run}}
<section id="gates">
<h2>Gates</h2>
<table class="rows">
<thead><tr><th>verdict</th><th>gate</th><th>values</th></tr></thead>
<tbody>
{{range .Gates}}<tr>
<td data-label="verdict" class="word">{{if .Passed}}<span class="pass">pass</span>{{else}}<span class="fail">fail</span>{{end}}</td>
<td data-label="gate"><code>{{cell .Expr}}</code>{{if .Default}} <span class="muted">(default)</span>{{end}}</td>
<td data-label="values">{{range $k, $v := .Values}}<code>{{cell $k}} = {{cell (value $v)}}</code> {{end}}{{with .Error}}<span class="error">{{cell .}}</span>{{end}}</td>
</tr>
{{end}}</tbody>
</table>
</section>
{{end}}{{end}}

{{- define "regression"}}{{with .Run.Regression}}
<section id="regression">
<h2>Regression</h2>
<p>against <code>{{t .BaselineRunID}}</code>: score Δ {{delta .ScoreDelta}} (95% interval {{delta .CILow}} … {{delta .CIHigh}}),
{{.NewFailures}} newly failing, {{.Fixed}} fixed, p = {{p .PValue}}</p>
{{- if .Tasks}}
<table class="rows">
<thead><tr><th>suite</th><th>task</th><th>change</th><th>score Δ</th><th>cost Δ</th><th>latency Δ ms</th></tr></thead>
<tbody>
{{range .Tasks}}<tr><td data-label="suite"><code>{{cell .SuiteID}}</code></td><td data-label="task"><code>{{cell .TaskID}}</code></td><td data-label="change">{{cell .Change}}</td>
<td data-label="score Δ" class="num">{{delta .ScoreDelta}}</td><td data-label="cost Δ" class="num">{{delta .CostDeltaUsd}}</td><td data-label="latency Δ ms" class="num">{{.LatencyDeltaMs}}</td></tr>
{{end}}</tbody>
</table>
{{- end}}
</section>
{{end}}{{end}}
`
