package report

import (
	"encoding/xml"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

func TestHTML(t *testing.T) {
	type testCase struct {
		name string
		run  *results.Run
	}
	run := func(t *testing.T, tc testCase) {
		out, err := HTML(tc.run)
		assert.NilError(t, err)
		golden.Assert(t, string(out), "html-"+tc.name+".golden.html")
		// Well-formed enough to parse as XML once the doctype is dropped:
		// every tag the template opens, it closes.
		body := strings.TrimPrefix(string(out), "<!DOCTYPE html>\n")
		dec := xml.NewDecoder(strings.NewReader(body))
		dec.Strict = false
		dec.AutoClose = []string{"meta"}
		for {
			_, err := dec.Token()
			if err != nil {
				assert.Equal(t, err.Error(), "EOF")
				break
			}
		}
	}
	regressed := ciRun()
	regressed.Regression = &results.Regression{
		BaselineRunID: "run-0000", ScoreDelta: -0.2, NewFailures: 2, PValue: 0.5, CILow: -0.4, CIHigh: 0,
		Tasks: []results.TaskDiff{{SuiteID: "acme.support.evals.refunds", TaskID: "partial-refund", Change: results.ChangeNewFailure, ScoreDelta: -0.5}},
	}
	regressed.Gates = []results.Gate{
		{Expr: "regression.newFailures == 0", Values: map[string]any{"regression.newFailures": 2}},
		{Expr: "findings.critical + findings.high == 0", Default: true, Passed: false, Values: map[string]any{"findings.critical": 1, "findings.high": 1}},
	}
	for _, tc := range []testCase{
		{name: "ci", run: ciRun()},
		{name: "regressed", run: regressed},
		{name: "crafted", run: ciCraftedRun()},
		{name: "failing", run: resultstest.Failing()},
		{name: "full", run: resultstest.Full()}, // a trust scorecard, demoted
		{name: "spans", run: spansRun()},        // an agent's OpenTelemetry spans
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestHTMLEscapesIDs(t *testing.T) {
	out, err := HTML(ciCraftedRun())
	assert.NilError(t, err)
	assert.Assert(t, !strings.Contains(string(out), "<c>"), "an id reached the page as markup")
	assert.Assert(t, strings.Contains(string(out), "a&#34;b&lt;c&gt;&amp;d&lt;/testsuite&gt;"))
}

// TestHTMLSelfContained: the page loads nothing and runs nothing, whatever
// the run holds.
func TestHTMLSelfContained(t *testing.T) {
	out, err := HTML(resultstest.Failing())
	assert.NilError(t, err)
	page := strings.ToLower(string(out))
	for _, s := range []string{"<script", "<link", "<img", "<iframe", "<object", "src=", "href=", "url(", "@import", "@font-face"} {
		assert.Check(t, !strings.Contains(page, s), "the page holds %q", s)
	}
}

// TestHTMLSections: every section of the page has its template, and the
// page shows them in the order of htmlSections.
func TestHTMLSections(t *testing.T) {
	for _, s := range htmlSections {
		assert.Check(t, htmlPage().Lookup(s.name) != nil, "no {{define %q}}", s.name)
	}
	out, err := HTML(resultstest.Full())
	assert.NilError(t, err)
	page := string(out)
	last := -1
	for _, id := range []string{"summary", "suites", "findings", "trust", "tasks", "gates", "regression"} {
		i := strings.Index(page, ` id="`+id+`"`)
		assert.Check(t, i > last, "section %q is missing or out of order", id)
		last = i
	}
}

// TestHTMLCellBreaks: a table cell may break after a "/" of a path, a "-"
// before a digit and within a run of more than cellRun characters with
// neither, each marked <wbr>, and nowhere else but at "-" and spaces,
// where browsers break anyway. TestHTMLInBrowser checks where they do.
func TestHTMLCellBreaks(t *testing.T) {
	long := strings.Repeat("x", cellRun)
	for _, tc := range []struct{ in, want string }{
		{"evals/nested/refunds.yaml", "evals/<wbr>nested/<wbr>refunds.yaml"},
		{"refund-lost-parcel", "refund-lost-parcel"},
		{"task-01", "task-<wbr>01"},
		{"match (mismatch), expr-1 (mismatch)", "match (mismatch), expr-<wbr>1 (mismatch)"},
		{long + long + "y", long + "<wbr>" + long + "<wbr>y"},
		{`a<b>&"c"/d`, "a&lt;b&gt;&amp;&#34;c&#34;/<wbr>d"},
		{"line\nbreak", `line\nbreak`},
	} {
		assert.Equal(t, string(cell(tc.in)), tc.want, tc.in)
	}
}

// spansRun is the failing run with the spans an agent sent through
// OpenTelemetry on each trial: a model call, a tool call in error, and a
// span whose name is markup and escapes.
func spansRun() *results.Run {
	r := resultstest.Failing()
	for i := range r.Suites {
		for j := range r.Suites[i].Tasks {
			for k := range r.Suites[i].Tasks[j].Trials {
				r.Suites[i].Tasks[j].Trials[k].Spans = &results.AgentTrace{
					Count: 5, LLMCalls: 1, ToolCalls: 1, Errors: 1, DurationMs: 40, ModelMs: 20, ToolMs: 10,
					List: []results.AgentSpan{
						{Name: "invoke_agent support", Parent: -1, DurationMs: 40, Operation: "invoke_agent"},
						{Name: "chat gpt-4o", Parent: 0, StartMs: 1, DurationMs: 20, Operation: "chat", Model: "gpt-4o", InputTokens: 300, OutputTokens: 20},
						{Name: "execute_tool refund", Parent: 0, StartMs: 22, DurationMs: 10, Operation: "execute_tool", Tool: "refund", Status: "error"},
						{Name: "<script>\x1b[31m\n::error::forged", Parent: 0, StartMs: 33, DurationMs: 2},
					},
				}
			}
		}
	}
	return r
}

// TestHTMLSpans draws, for a task that did not pass, the waterfall of its
// trial's spans, and per suite the share of their time, with each name
// escaped.
func TestHTMLSpans(t *testing.T) {
	out, err := HTML(spansRun())
	assert.NilError(t, err)
	page := string(out)
	assert.Check(t, strings.Contains(page, `<section id="spans">`))
	assert.Check(t, strings.Contains(page, `<figure class="waterfall"`))
	assert.Check(t, strings.Contains(page, `<figure class="share"`))
	assert.Check(t, strings.Contains(page, `<g class="span-error"><text x="0" y="38">execute_tool refund</text>`))
	assert.Check(t, strings.Contains(page, "(1 more not drawn)"))
	for _, s := range []string{"<script>", "\x1b[31m", "\n::error::"} {
		assert.Check(t, !strings.Contains(page, s), "the page holds %q", s)
	}
	out, err = HTML(resultstest.Failing())
	assert.NilError(t, err)
	assert.Check(t, !strings.Contains(string(out), `id="spans"`), "a run without spans has no span section")
}
