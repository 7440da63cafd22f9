package report

import (
	"github.com/evalgate/evalgate/results"
)

// The span charts of the HTML report, for agents that send OpenTelemetry
// spans (docs/otel.md): per suite, the share of the spans' time in model
// calls, in tools and in the rest; per task that did not pass, the
// waterfall of its first trial's spans, names and durations only.

// maxWaterfallRows bounds the spans a waterfall draws: the first by start
// time, as results.json lists them.
const maxWaterfallRows = 40

// Geometry of a waterfall: a row per span, the name in the left part,
// the bar in the right one, across the time from the first span's start
// to the last one's end.
const (
	waterfallWidth = 400
	waterfallBarX  = 170
	waterfallRow   = 14
	shareWidth     = 400
)

type htmlSpans struct {
	Shares     []htmlShare
	Waterfalls []htmlWaterfall
}

// htmlShare is a suite's time in its trials' spans: in model calls, in
// tools, and the rest, overlaps counted once, as parts of shareWidth.
type htmlShare struct {
	Suite                       string
	Trials                      int
	ModelMs, ToolMs, RestMs     float64
	ModelW, ToolW, RestW, ToolX float64
	RestX                       float64
}

type htmlWaterfall struct {
	Suite, Task string
	Trial       int
	Height      int
	TotalMs     float64
	Rows        []htmlSpanRow
	Omitted     int // spans not drawn
}

type htmlSpanRow struct {
	Name       string
	Label      string // the name, cut to fit left of the bars
	Class      string // model, tool, error or other
	DurationMs float64
	X, W       float64
	Y, TextY   int
}

// newHTMLSpans builds the span charts of a run; nil when no trial has
// spans.
func newHTMLSpans(r *results.Run, failing []htmlTask) *htmlSpans {
	v := &htmlSpans{}
	for i := range r.Suites {
		s := &r.Suites[i]
		sh := htmlShare{Suite: s.ID}
		var total float64
		for _, t := range s.Tasks {
			for _, tr := range t.Trials {
				if sp := tr.Spans; sp != nil && sp.Count > 0 {
					sh.Trials++
					sh.ModelMs += sp.ModelMs
					sh.ToolMs += sp.ToolMs
					sh.RestMs += max(sp.DurationMs-sp.ModelMs-sp.ToolMs, 0)
				}
			}
		}
		total = sh.ModelMs + sh.ToolMs + sh.RestMs
		if sh.Trials == 0 || total <= 0 {
			continue
		}
		sh.ModelW = sh.ModelMs / total * shareWidth
		sh.ToolW = sh.ToolMs / total * shareWidth
		sh.RestW = sh.RestMs / total * shareWidth
		sh.ToolX = sh.ModelW
		sh.RestX = sh.ModelW + sh.ToolW
		v.Shares = append(v.Shares, sh)
	}
	for _, f := range failing {
		if w, ok := waterfall(f); ok {
			v.Waterfalls = append(v.Waterfalls, w)
		}
	}
	if len(v.Shares) == 0 && len(v.Waterfalls) == 0 {
		return nil
	}
	return v
}

// waterfall draws the spans of a task's first trial that has any.
func waterfall(f htmlTask) (htmlWaterfall, bool) {
	for _, tr := range f.Task.Trials {
		sp := tr.Spans
		if sp == nil || len(sp.List) == 0 {
			continue
		}
		list := sp.List[:min(len(sp.List), maxWaterfallRows)]
		w := htmlWaterfall{Suite: f.Suite, Task: f.Task.ID, Trial: tr.Trial, Omitted: sp.Count - len(list)}
		for _, s := range list {
			w.TotalMs = max(w.TotalMs, s.StartMs+s.DurationMs)
		}
		scale := float64(waterfallWidth-waterfallBarX) / max(w.TotalMs, 1e-3)
		for i, s := range list {
			class := "other"
			switch {
			case s.Status == "error" || s.ErrorType != "":
				class = "error"
			case s.Operation == "execute_tool":
				class = "tool"
			case s.InputTokens > 0 || s.OutputTokens > 0 || s.Model != "" && s.Operation != "invoke_agent":
				class = "model"
			}
			w.Rows = append(w.Rows, htmlSpanRow{
				Name: s.Name, Label: spanLabel(s.Name), Class: class, DurationMs: s.DurationMs,
				X: waterfallBarX + s.StartMs*scale, W: max(s.DurationMs*scale, 0.5),
				Y: i * waterfallRow, TextY: i*waterfallRow + 10,
			})
		}
		w.Height = len(list) * waterfallRow
		return w, true
	}
	return htmlWaterfall{}, false
}

// spanLabel is a span's name as its row shows it: the first 26
// characters, the full name being in the bar's title.
func spanLabel(name string) string {
	if r := []rune(name); len(r) > 26 {
		return string(r[:25]) + "…"
	}
	return name
}

// htmlSpanTemplates draw the span charts.
const htmlSpanTemplates = `
{{- define "spans"}}{{with .Spans}}
<section id="spans">
<h2>Inside the agents</h2>
{{- if .Shares}}
<p class="muted">Where the time of the spans the agents sent went: model calls, tools, the rest.</p>
{{range .Shares}}<figure class="share" data-suite="{{.Suite}}">
<figcaption><code>{{cell .Suite}}</code> · {{.Trials}} trials · model {{printf "%.0f" .ModelMs}} ms · tools {{printf "%.0f" .ToolMs}} ms · rest {{printf "%.0f" .RestMs}} ms</figcaption>
<svg class="chart" viewBox="0 0 400 12" preserveAspectRatio="none" role="img" aria-label="time in model calls {{printf "%.0f" .ModelMs}} ms, in tools {{printf "%.0f" .ToolMs}} ms, the rest {{printf "%.0f" .RestMs}} ms"><rect class="span-model" width="{{units .ModelW}}" height="12"/><rect class="span-tool" x="{{units .ToolX}}" width="{{units .ToolW}}" height="12"/><rect class="track" x="{{units .RestX}}" width="{{units .RestW}}" height="12"/></svg>
</figure>
{{end}}{{end}}
{{- range .Waterfalls}}
<figure class="waterfall" data-suite="{{.Suite}}" data-task="{{.Task}}">
<figcaption><code>{{cell .Suite}}</code> / <code>{{cell .Task}}</code>, trial {{.Trial}}: its spans over {{printf "%.1f" .TotalMs}} ms{{if .Omitted}} ({{.Omitted}} more not drawn){{end}}</figcaption>
<svg class="chart" viewBox="0 0 400 {{.Height}}" role="img" aria-label="the spans of trial {{.Trial}}">
{{range .Rows}}<g class="span-{{.Class}}"><text x="0" y="{{.TextY}}">{{t .Label}}</text><rect x="{{units .X}}" y="{{.Y}}" width="{{units .W}}" height="10"><title>{{t .Name}}: {{printf "%.3f" .DurationMs}} ms</title></rect></g>
{{end}}</svg>
</figure>
{{- end}}
<p class="muted"><span class="key span-model"></span> model calls <span class="key span-tool"></span> tools <span class="key span-error"></span> ended in error</p>
</section>
{{end}}{{end}}
`
