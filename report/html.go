package report

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/results"
)

// HTML renders a run as one self-contained, content-free HTML page (no
// scripts, no external resources): the verdict, a table per suite, the
// tasks that did not pass with the reason, the gates with their values, the
// findings and the regression. Every value goes through html/template, so
// ids cannot inject markup, and text from the results through escape.Text,
// so the page holds no control character.
func HTML(r *results.Run) ([]byte, error) {
	v := htmlView{Run: r}
	for i := range r.Suites {
		s := &r.Suites[i]
		for k := range s.Tasks {
			t := &s.Tasks[k]
			if t.Status != results.StatusPassed {
				v.Failing = append(v.Failing, htmlTask{Suite: s.ID, Task: t, Why: FailureMessage(t)})
			}
		}
	}
	sort.SliceStable(v.Failing, func(i, j int) bool {
		a, b := v.Failing[i].Task, v.Failing[j].Task
		if (a.Status == results.StatusError) != (b.Status == results.StatusError) {
			return a.Status == results.StatusError
		}
		return a.Score < b.Score
	})
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, v); err != nil {
		return nil, fmt.Errorf("could not render the HTML report: %w", err)
	}
	return b.Bytes(), nil
}

type htmlView struct {
	Run     *results.Run
	Failing []htmlTask
}

type htmlTask struct {
	Suite string
	Task  *results.Task
	Why   string
}

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"score": func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"usd":   func(f float64) string { return fmt.Sprintf("$%.4f", f) },
	"delta": func(f float64) string { return fmt.Sprintf("%+.4f", f) },
	"p":     func(f float64) string { return fmt.Sprintf("%.3g", f) },
	"value": func(v any) string { return escape.Text(fmt.Sprint(v)) },
	"t":     escape.Text,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>evalgate: {{if .Run.Passed}}PASS{{else}}FAIL{{end}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
th { background: #f6f8fa; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #1a7f37; font-weight: 600; } .fail { color: #cf222e; font-weight: 600; } .error { color: #9a6700; font-weight: 600; }
code { font: 12px ui-monospace, monospace; background: #f6f8fa; padding: .1rem .3rem; border-radius: 4px; }
.muted { color: #59636e; }
</style>
</head>
<body>
{{with .Run}}
<h1>evalgate: {{if .Passed}}<span class="pass">PASS</span>{{else}}<span class="fail">FAIL</span>{{end}}
 — score {{score .AggregateScore}}, {{.PassedCount}}/{{.TaskCount}} tasks passed{{if .ErroredCount}}, {{.ErroredCount}} errored{{end}}</h1>
<p class="muted">run <code>{{t .RunID}}</code>{{if .GitSHA}} at <code>{{t .GitSHA}}</code>{{end}} · {{t .Tool.Name}} {{t .Tool.Version}} · cost {{usd .TotalCostUsd}} · p95 {{.P95LatencyMs}} ms{{if .Interrupted}} · <span class="error">interrupted</span>{{end}}</p>

<h2>Suites</h2>
<table>
<tr><th>suite</th><th>version</th><th>verdict</th><th>score</th><th>bar</th><th>Δ vs baseline</th><th>passed</th><th>errors</th><th>cost</th><th>p95 ms</th></tr>
{{range .Suites}}<tr>
<td><code>{{t .ID}}</code></td><td>{{t .Version}}</td>
<td>{{if .Passed}}<span class="pass">pass</span>{{else}}<span class="fail">fail</span>{{end}}</td>
<td class="num">{{score .AggregateScore}}</td><td class="num">{{score .Thresholds.PassScore}}</td>
<td class="num">{{with .Regression}}{{delta .ScoreDelta}}{{else}}–{{end}}</td>
<td class="num">{{.PassedCount}}/{{.TaskCount}}</td><td class="num">{{.ErroredCount}}</td>
<td class="num">{{usd .TotalCostUsd}}</td><td class="num">{{.P95LatencyMs}}</td>
</tr>{{end}}
</table>
{{end}}

{{if .Failing}}
<h2>Tasks that did not pass ({{len .Failing}})</h2>
<table>
<tr><th>suite</th><th>task</th><th>where</th><th>status</th><th>score / bar</th><th>why</th></tr>
{{range .Failing}}<tr>
<td><code>{{t .Suite}}</code></td><td><code>{{t .Task.ID}}</code></td>
<td><code>{{t .Task.File}}:{{.Task.Line}}</code></td>
<td>{{if eq .Task.Status "error"}}<span class="error">error</span>{{else}}<span class="fail">failed</span>{{end}}</td>
<td class="num">{{score .Task.Score}} / {{score .Task.PassScore}}</td>
<td>{{t .Why}}</td>
</tr>{{end}}
</table>
{{end}}

{{with .Run}}
<h2>Gates</h2>
<table>
<tr><th>verdict</th><th>gate</th><th>values</th></tr>
{{range .Gates}}<tr>
<td>{{if .Passed}}<span class="pass">pass</span>{{else}}<span class="fail">fail</span>{{end}}</td>
<td><code>{{t .Expr}}</code>{{if .Default}} <span class="muted">(default)</span>{{end}}</td>
<td>{{range $k, $v := .Values}}<code>{{t $k}} = {{value $v}}</code> {{end}}{{with .Error}}<span class="error">{{t .}}</span>{{end}}</td>
</tr>{{end}}
</table>

<h2>Findings</h2>
<p>critical {{.Findings.Critical}} · high {{.Findings.High}} · medium {{.Findings.Medium}} · low {{.Findings.Low}}</p>

{{with .Regression}}
<h2>Regression</h2>
<p>against <code>{{t .BaselineRunID}}</code>: score Δ {{delta .ScoreDelta}} (95% interval {{delta .CILow}} … {{delta .CIHigh}}),
{{.NewFailures}} newly failing, {{.Fixed}} fixed, p = {{p .PValue}}</p>
{{if .Tasks}}<table>
<tr><th>suite</th><th>task</th><th>change</th><th>score Δ</th><th>cost Δ</th><th>latency Δ ms</th></tr>
{{range .Tasks}}<tr><td><code>{{t .SuiteID}}</code></td><td><code>{{t .TaskID}}</code></td><td>{{t .Change}}</td>
<td class="num">{{delta .ScoreDelta}}</td><td class="num">{{delta .CostDeltaUsd}}</td><td class="num">{{.LatencyDeltaMs}}</td></tr>{{end}}
</table>{{end}}
{{end}}
{{end}}
</body>
</html>
`))
