package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/internal/waittest"
	"github.com/evalgate/evalgate/results"
)

// TestHTMLInBrowser opens the HTML report of a representative run in
// headless Chromium, on a wide screen, a 420 px wide one and a 420 px wide
// one in dark mode, and checks the page as laid out: every chart is drawn
// with the run's figures, inside the screen, and nothing makes the page
// scroll sideways. Screenshots go to $EVALGATE_ARTIFACTS when set (CI keeps
// them), else to a temporary folder.
//
// Without a browser it skips, unless CI or EVALGATE_REQUIRE_BROWSER=1 is
// set: then a missing browser fails it.
func TestHTMLInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := findChromium(t)
	run := browserRun()
	page, err := HTML(run)
	assert.NilError(t, err)
	artifacts := artifactsDir(t)
	assert.NilError(t, os.WriteFile(filepath.Join(artifacts, "html-report.html"), page, 0o644))

	type testCase struct {
		name  string
		width int
		dark  bool
	}
	var light pageLayout
	check := func(t *testing.T, tc testCase) {
		m := measurePage(t, browser, page, tc.width, tc.dark)
		t.Logf("%s: innerWidth %v clientWidth %v scrollWidth %v scrollHeight %v", tc.name, m.InnerWidth, m.ClientWidth, m.ScrollWidth, m.ScrollHeight)
		// The screenshot first, so that a failing layout leaves a picture.
		screenshot(t, browser, page, tc.width, m.ScrollHeight, tc.dark, filepath.Join(artifacts, "html-report-"+tc.name+".png"))

		assert.Equal(t, m.InnerWidth, float64(tc.width), "the page was not laid out at the width asked for")
		assert.Assert(t, m.ScrollWidth <= m.InnerWidth && m.ScrollWidth <= m.ClientWidth,
			"the page scrolls sideways at %d px: scrollWidth %v, innerWidth %v, clientWidth %v; past the right edge: %s",
			tc.width, m.ScrollWidth, m.InnerWidth, m.ClientWidth, strings.Join(m.Wide, "; "))
		checkCharts(t, run, m)
		assert.Check(t, len(m.Breaks) == 0, "table cells break inside a name: %s", strings.Join(m.Breaks, "; "))
		assert.Check(t, m.Details["tasks-failing"], "the tasks that did not pass are collapsed")
		assert.Check(t, !m.Details["tasks-passing"], "the tasks that passed are open")
		assert.Equal(t, m.Dark, tc.dark, "prefers-color-scheme")
		if tc.dark {
			assert.Check(t, m.Background != light.Background && isDark(m.Background),
				"dark mode kept the background %s (light: %s)", m.Background, light.Background)
		} else {
			light = m
		}
	}
	for _, tc := range []testCase{
		{name: "1400", width: 1400},
		{name: "420", width: 420},
		{name: "420-dark", width: 420, dark: true},
	} {
		t.Run(tc.name, func(t *testing.T) { check(t, tc) })
	}
}

// checkCharts holds the charts as the browser drew them to the run: a
// score bar for the run and one per suite with the baseline where there
// is a regression, a task strip per suite with a cell per task and status,
// and the findings by severity, each with a box inside the screen.
func checkCharts(t *testing.T, run *results.Run, m pageLayout) {
	t.Helper()
	bars := map[string]drawnChart{}
	strips := map[string]drawnChart{}
	var findings, trust []drawnChart
	for _, c := range m.Charts {
		assert.Check(t, c.Width > 0 && c.Height > 0, "chart %s %q has no size: %+v", c.Chart, c.Suite, c)
		assert.Check(t, c.Left >= 0 && c.Right <= m.ClientWidth+0.5, "chart %s %q is not inside the screen: %+v", c.Chart, c.Suite, c)
		switch c.Chart {
		case "score":
			bars[c.Suite] = c
		case "tasks":
			strips[c.Suite] = c
		case "findings":
			findings = append(findings, c)
		case "trust":
			trust = append(trust, c)
		}
	}
	want := 2*len(run.Suites) + 2
	trends := map[string][]drawnChart{}
	for _, c := range m.Charts {
		if c.Chart == "trend" {
			trends[c.Suite] = append(trends[c.Suite], c)
		}
	}
	if h := run.History; h != nil {
		// Four charts a suite with a trend: score, pass rate, cost, p95;
		// a point per earlier run, this run's drawn last, right of them
		// all; the baseline's score as a line.
		for _, sh := range h.Suites {
			s := suiteOf(run, sh.SuiteID)
			got := trends[sh.SuiteID]
			assert.Equal(t, len(got), 4, "trend charts of suite %q", sh.SuiteID)
			want += 4
			for _, c := range got {
				assert.Check(t, c.Points == len(sh.Trend), "suite %q %s: %d points drawn, want %d", sh.SuiteID, c.Metric, c.Points, len(sh.Trend))
				assert.Check(t, c.CurrentRightmost, "suite %q %s: this run is not drawn last", sh.SuiteID, c.Metric)
				if c.Metric == "score" && s.Regression != nil {
					assert.Check(t, c.Markers == 2 && c.Baseline == fmt.Sprintf("%.2f", s.AggregateScore-s.Regression.ScoreDelta), "suite %q: %+v", sh.SuiteID, c)
				}
			}
		}
	}
	if run.Trust != nil {
		want++
	}
	if run.Assessment != nil {
		want++
	}
	assert.Equal(t, len(m.Charts), want, "charts: %+v", m.Charts)

	runBar, ok := bars[""]
	assert.Assert(t, ok, "no score bar of the run")
	assert.Equal(t, runBar.ID, "chart-run-score")
	assert.Equal(t, runBar.Baseline, fmt.Sprintf("%.2f", run.AggregateScore-run.Regression.ScoreDelta))
	for i := range run.Suites {
		s := &run.Suites[i]
		bar, ok := bars[s.ID]
		assert.Assert(t, ok, "no score bar of suite %q", s.ID)
		assert.Equal(t, bar.Score, fmt.Sprintf("%.2f", s.AggregateScore))
		if s.Regression != nil {
			assert.Equal(t, bar.Baseline, fmt.Sprintf("%.2f", s.AggregateScore-s.Regression.ScoreDelta), "suite %q", s.ID)
			assert.Equal(t, bar.Markers, 2, "suite %q: the bar and the baseline", s.ID)
		} else {
			assert.Equal(t, bar.Baseline, "", "suite %q", s.ID)
			assert.Equal(t, bar.Markers, 1, "suite %q: the bar", s.ID)
		}
		strip, ok := strips[s.ID]
		assert.Assert(t, ok, "no task strip of suite %q", s.ID)
		want := map[string]int{}
		for _, task := range s.Tasks {
			want[task.Status]++
		}
		assert.DeepEqual(t, strip.Cells, want)
		assert.Equal(t, strip.Titles, len(s.Tasks), "suite %q: a tooltip per task", s.ID)
	}

	assert.Equal(t, len(findings), 1)
	assert.Equal(t, findings[0].ID, "chart-findings")
	f := run.Findings
	for sev, count := range map[string]int{"critical": f.Critical, "high": f.High, "medium": f.Medium, "low": f.Low} {
		got := m.Findings[sev]
		assert.Check(t, got.Count == count, "%s: %d findings drawn, want %d", sev, got.Count, count)
		assert.Check(t, (got.Width > 0) == (count > 0), "%s: a bar %v px long for %d findings", sev, got.Width, count)
	}
	if a := run.Assessment; a != nil {
		p := m.Position
		assert.Assert(t, p != nil, "no dual-axis chart")
		assert.Check(t, math.Abs(p.Capability-*a.Capability.Score) < 0.02 && math.Abs(p.Performance-*a.Performance.Score) < 0.02,
			"the run is drawn at capability %.3f, performance %.3f; want %.3f, %.3f", p.Capability, p.Performance, *a.Capability.Score, *a.Performance.Score)
		assert.Equal(t, p.Dimensions, len(a.Performance.Dimensions)+len(a.Capability.Dimensions))
	}
	if run.Trust == nil {
		return
	}
	// Every trust bar is drawn on one scale, 0 to 20 points.
	assert.Equal(t, len(trust), 1)
	assert.Equal(t, trust[0].ID, "chart-trust")
	d := run.Trust.Dimensions
	full := 0.0
	for name, points := range map[string]int{"contract clarity": d.ContractClarity, "idempotency": d.Idempotency, "observability": d.Observability, "error containment": d.ErrorContainment, "governance": d.Governance} {
		got := m.Trust[name]
		assert.Check(t, got.Count == points, "%s: %d points drawn, want %d", name, got.Count, points)
		assert.Check(t, (got.Width > 0) == (points > 0), "%s: a bar %v px long for %d points", name, got.Width, points)
		if points == 20 {
			full = got.Width
		}
	}
	for name, got := range m.Trust {
		if full > 0 {
			assert.Check(t, math.Abs(got.Width-full*float64(got.Count)/20) < 1, "%s: a bar %v px long for %d points, where 20 points are %v px", name, got.Width, got.Count, full)
		}
	}
}

// pageLayout is what the measuring script reports of the page.
type pageLayout struct {
	Error                                string
	InnerWidth, ClientWidth, ScrollWidth float64
	ScrollHeight                         float64 // as the page opens
	Dark                                 bool
	Background                           string   // of the page
	Wide                                 []string // elements past the right edge
	Charts                               []drawnChart
	Findings                             map[string]drawnSeverity
	Trust                                map[string]drawnSeverity // a trust dimension's points and bar
	// Position is where the dual-axis chart put the run, as shares of its
	// plot, and how many dimension rows the section lists.
	Position *struct {
		Capability, Performance float64
		Dimensions              int
	}
	Details map[string]bool // id: open as the page opens
	// Breaks are the line breaks of table cells after a character other
	// than "/", "-" or a space: the text before and after each.
	Breaks []string
}

// drawnSeverity is a row of a bar chart (findings, trust): the count and
// the bar's length on screen.
type drawnSeverity struct {
	Count int
	Width float64
}

type drawnChart struct {
	Chart, Suite, ID, Score, Baseline string
	Left, Right, Width, Height        float64
	Markers                           int            // lines: the bar, the baseline
	Cells                             map[string]int // a strip's cells by status
	Titles                            int            // a strip's tooltips
	Metric                            string         // a trend's figure
	Points                            int            // a trend's earlier runs drawn
	CurrentRightmost                  bool           // a trend's run drawn right of the earlier ones
}

// measureScript runs in a test page that holds the report in an iframe
// of the width under test (a browser window is at least 500 px wide), and
// writes what it finds of the laid-out report into #measure.
const measureScript = `
addEventListener("load", () => {
  const out = document.getElementById("measure");
  try {
    const d = document.getElementById("report").contentDocument, w = d.defaultView, root = d.documentElement;
    const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      (el.getAttribute("class") ? "." + el.getAttribute("class").replace(/ /g, ".") : "");
    const m = {
      innerWidth: w.innerWidth, scrollHeight: root.scrollHeight,
      dark: w.matchMedia("(prefers-color-scheme: dark)").matches,
      background: w.getComputedStyle(root).backgroundColor,
      wide: [], charts: [], findings: {}, trust: {}, details: {}, position: null,
    };
    // How the page opens, then everything open, so that collapsed tables are measured too.
    for (const el of d.querySelectorAll("details[id]")) m.details[el.id] = el.open;
    for (const el of d.querySelectorAll("details")) el.open = true;
    Object.assign(m, {clientWidth: root.clientWidth, scrollWidth: root.scrollWidth});
    for (const el of d.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.right > root.clientWidth + 0.5 && !el.closest("svg > *")) m.wide.push(name(el) + " right " + Math.round(r.right));
    }
    m.wide = m.wide.slice(0, 20);
    // Where each table cell's text wraps: the character before every line
    // break must be "/", "-" or a space, unless the break ends a run of 40
    // characters with none (the report's cellRun).
    m.breaks = [];
    for (const td of d.querySelectorAll("td")) {
      const walk = d.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      let top = null, before = "", seen = "", run = 0;
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const s = n.textContent;
        for (let i = 0; i < s.length; i++) {
          const c = s[i];
          if (/\s/.test(c)) { before = " "; run = 0; seen += " "; continue; }
          const r = d.createRange();
          r.setStart(n, i);
          r.setEnd(n, i + 1);
          const box = r.getClientRects()[0];
          if (!box) continue;
          if (top !== null && box.top > top + 1 && !"/- ".includes(before) && run < 40) {
            m.breaks.push(JSON.stringify(seen.slice(-24)) + " | " + JSON.stringify(s.slice(i, i + 12)));
          }
          top = box.top;
          before = c;
          run = "/-".includes(c) ? 0 : run + 1;
          seen += c;
        }
      }
    }
    m.breaks = m.breaks.slice(0, 20);
    for (const svg of d.querySelectorAll("svg[data-chart]")) {
      const r = svg.getBoundingClientRect(), cells = {};
      for (const c of svg.querySelectorAll("rect[data-status]")) cells[c.dataset.status] = (cells[c.dataset.status] || 0) + 1;
      m.charts.push({
        chart: svg.dataset.chart, suite: svg.dataset.suite || "", id: svg.id, score: svg.dataset.score || "", baseline: svg.dataset.baseline || "",
        left: r.left, right: r.right, width: r.width, height: r.height,
        markers: svg.querySelectorAll("line").length, cells: cells, titles: svg.querySelectorAll("rect[data-status] > title").length,
        metric: svg.dataset.metric || "", points: svg.querySelectorAll("circle.pt").length,
        currentRightmost: (() => {
          const cur = svg.querySelector("circle.current");
          if (!cur) return false;
          const x = cur.getBoundingClientRect().left;
          return [...svg.querySelectorAll("circle.pt")].every(p => p.getBoundingClientRect().left < x);
        })(),
      });
    }
    for (const g of d.querySelectorAll("#chart-findings g[data-severity]")) {
      m.findings[g.dataset.severity] = {count: Number(g.dataset.count), width: g.querySelector("rect").getBoundingClientRect().width};
    }
    const pos = d.querySelector("#chart-assessment");
    if (pos) {
      const plot = pos.querySelector("rect.plot").getBoundingClientRect(), dot = pos.querySelector("circle.point").getBoundingClientRect();
      m.position = {
        capability: (dot.left + dot.width / 2 - plot.left) / plot.width,
        performance: (plot.bottom - dot.top - dot.height / 2) / plot.height,
        dimensions: d.querySelectorAll("#assessment tr[data-dimension]").length,
      };
    }
    for (const g of d.querySelectorAll("#chart-trust g[data-dimension]")) {
      m.trust[g.dataset.dimension] = {count: Number(g.dataset.points), width: g.querySelector("rect").getBoundingClientRect().width};
    }
    out.textContent = JSON.stringify(m);
  } catch (e) {
    out.textContent = JSON.stringify({error: String(e)});
  }
});
`

var measured = regexp.MustCompile(`<pre id="measure"[^>]*>([^<]*)</pre>`)

// measurePage lays the report out in a frame width px wide and 900 high
// and returns what the measuring script found.
func measurePage(t *testing.T, browser string, page []byte, width int, dark bool) pageLayout {
	t.Helper()
	test := fmt.Sprintf(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>body { margin: 0 } iframe { border: 0; display: block }</style></head>
<body><iframe id="report" width="%d" height="900" srcdoc="%s"></iframe>
<pre id="measure" hidden></pre>
<script>%s</script>
</body></html>`, width, html.EscapeString(string(page)), measureScript)
	dom := runChromium(t, browser, test, dark, fmt.Sprintf("--window-size=%d,900", max(width, 500)), "--dump-dom")
	sub := measured.FindSubmatch(dom)
	assert.Assert(t, sub != nil, "no measurement in the page:\n%s", dom)
	var m pageLayout
	assert.NilError(t, json.Unmarshal([]byte(html.UnescapeString(string(sub[1]))), &m))
	assert.Assert(t, m.Error == "", "the measuring script failed: %s", m.Error)
	return m
}

// screenshot saves the whole report, width px wide, as a PNG.
func screenshot(t *testing.T, browser string, page []byte, width int, height float64, dark bool, file string) {
	t.Helper()
	h := min(max(int(height), 100), 16000)
	test := fmt.Sprintf(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>body { margin: 0 } iframe { border: 0; display: block }</style></head>
<body><iframe width="%d" height="%d" srcdoc="%s"></iframe></body></html>`, width, h, html.EscapeString(string(page)))
	runChromium(t, browser, test, dark, fmt.Sprintf("--window-size=%d,%d", width, h), "--screenshot="+file)
	info, err := os.Stat(file)
	assert.NilError(t, err, "no screenshot")
	assert.Assert(t, info.Size() > 0, "an empty screenshot")
	t.Logf("screenshot: %s", file)
}

// runChromium opens the test page from a file in headless Chromium with a
// fresh profile, away from any network, and returns its stdout.
func runChromium(t *testing.T, browser, test string, dark bool, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "test.html")
	assert.NilError(t, os.WriteFile(file, []byte(test), 0o644))
	cmd := []string{browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		// Without these it waits on the network, which the tests may not have.
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"),
		"--virtual-time-budget=5000",
	}
	if dark {
		cmd = append(cmd, "--force-dark-mode")
	}
	cmd = append(append(cmd, args...), "file://"+filepath.ToSlash(file))
	var out bytes.Buffer
	p, err := process.Run(waittest.Context(t), process.Spec{Command: cmd, Env: process.ScrubEnv(os.Environ(), nil, nil)}, &out)
	assert.NilError(t, err, "could not run %s", browser)
	assert.Assert(t, p.Success(), "%s: %s\n%s", browser, p.Exit(), p.Stderr())
	return out.Bytes()
}

// findChromium is the browser to test with: $EVALGATE_CHROMIUM, else the
// first of chromium, chromium-browser and google-chrome on PATH.
func findChromium(t *testing.T) string {
	t.Helper()
	names := []string{"chromium", "chromium-browser", "google-chrome"}
	if env := os.Getenv("EVALGATE_CHROMIUM"); env != "" {
		names = []string{env}
	}
	for _, name := range names {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	msg := "no browser: none of " + strings.Join(names, ", ") + " found (install Chromium or set EVALGATE_CHROMIUM)"
	if os.Getenv("CI") != "" || os.Getenv("EVALGATE_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + "; CI or EVALGATE_REQUIRE_BROWSER=1 requires the browser test")
	}
	t.Skip(msg + "; the browser test of the HTML report is skipped")
	return ""
}

// artifactsDir is where screenshots go: $EVALGATE_ARTIFACTS, made when
// missing, else a temporary folder.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("EVALGATE_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	assert.NilError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// isDark reports whether a CSS colour "rgb(r, g, b)" is a dark one.
func isDark(color string) bool {
	f := strings.FieldsFunc(color, func(r rune) bool { return !('0' <= r && r <= '9') && r != '.' })
	if len(f) < 3 {
		return false
	}
	sum := 0.0
	for _, s := range f[:3] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return false
		}
		sum += v
	}
	return sum/3 < 80
}

// browserRun is a run with what makes a page wide or long: three suites,
// passing, failing and errored tasks, findings of every severity, a
// regression of the run and of two suites, and ids, files and gates too
// long for a narrow screen.
func browserRun() *results.Run {
	r := resultstest.Failing()
	long := "acme.support.evals." + strings.Repeat("very-long-suite-id-", 8) + "end"
	s := results.Suite{
		ID: long, Version: "3.0.0-" + strings.Repeat("rc", 30), File: "evals/" + strings.Repeat("nested/", 20) + "long.yaml",
		Modes: []string{"golden"}, Trials: 1, Thresholds: results.Thresholds{PassScore: 0.8},
		Regression: &results.SuiteRegression{BaselineRunID: "run-41", ScoreDelta: 0.1, Fixed: 3},
	}
	for i := range 95 {
		t := results.Task{
			ID: fmt.Sprintf("task-%02d", i), File: s.File, Line: 10 + 7*i, Kind: "golden",
			Status: results.StatusPassed, Score: 1, PassScore: 0.8, Passed: true, TrialsPassed: 1, LatencyMs: int64(100 + i),
			Trials: []results.Trial{{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true}},
		}
		switch {
		case i%13 == 5:
			t.Status, t.ErrorKind, t.Score, t.Passed = results.StatusError, results.ErrAgentExit, 0, false
			t.ErrorMessage = "exit status 2 before any line"
		case i%7 == 3:
			t.Status, t.Score, t.Passed = results.StatusFailed, 0.25, false
			t.FailedChecks = []string{"match", "assert[" + strconv.Itoa(i) + "]-" + strings.Repeat("x", 80)}
			t.Findings = []results.Finding{{Kind: "canary-leak", Severity: results.SeverityCritical}, {Kind: "pii-leak", Severity: results.SeverityMedium}}
		}
		if i%10 == 0 {
			t.ID = strings.Repeat(fmt.Sprintf("an-unbroken-task-id-%02d-", i), 8)
		}
		s.Tasks = append(s.Tasks, t)
		switch t.Status {
		case results.StatusPassed:
			s.PassedCount++
		case results.StatusError:
			s.ErroredCount++
		}
		for _, f := range t.Findings {
			s.Findings.Add(f.Severity)
		}
		s.AggregateScore += t.Score / 95
	}
	s.TaskCount = len(s.Tasks)
	s.TotalCostUsd, s.P95LatencyMs = 0.02, 1390
	r.Suites = append(r.Suites, s)
	r.TaskCount += s.TaskCount
	r.PassedCount += s.PassedCount
	r.ErroredCount += s.ErroredCount
	r.Findings.Critical += s.Findings.Critical
	r.Findings.Medium += s.Findings.Medium
	r.Regression.Tasks = append(r.Regression.Tasks, results.TaskDiff{
		SuiteID: long, TaskID: s.Tasks[0].ID, Change: results.ChangeFixed, ScoreDelta: 0.75,
	})
	r.Assessment = resultstest.Assessment()
	// Twelve earlier runs of the long suite, its score climbing.
	r.History = &results.History{Store: "git:evalgate-history", Runs: 12, NewFailures: 3, NewFailuresNotFlaky: 2, KnownFlaky: 1}
	sh := results.SuiteHistory{SuiteID: long}
	for i := range 12 {
		sh.Trend = append(sh.Trend, results.TrendPoint{RunID: fmt.Sprintf("run-%02d", 30+i), StartedAt: r.StartedAt.AddDate(0, 0, i-12),
			Score: 0.5 + 0.02*float64(i), PassRate: 0.6 + 0.01*float64(i), CostUsd: 0.01 * float64(1+i%3), P95LatencyMs: int64(900 + 40*i)})
	}
	r.History.Suites = append(r.History.Suites, sh)
	r.Trust = &results.Trust{Score: 64.5, Level: 2, LevelName: "Supervised", Dimensions: results.TrustDimensions{
		ContractClarity: 20, Idempotency: 0, Observability: 17, ErrorContainment: 12, Governance: 15,
	}, BaselineLevel: resultstest.Ptr(3), BaselineScore: resultstest.Ptr(71.0)}
	r.Gates = append(r.Gates, results.Gate{
		Expr:   "suites['" + long + "'].aggregateScore >= 0.8 && " + strings.Repeat("passRate >= 0.5 && ", 6) + "true",
		Passed: true, Values: map[string]any{"suites['" + long + "'].aggregateScore": 0.81},
	})
	return r
}

func suiteOf(run *results.Run, id string) *results.Suite {
	for i := range run.Suites {
		if run.Suites[i].ID == id {
			return &run.Suites[i]
		}
	}
	return nil
}
