package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// smallRun is the greeting suite alone, every gate holding, no baseline.
func smallRun() *results.Run {
	r := resultstest.Failing()
	r.Passed = true
	r.Suites = []results.Suite{resultstest.Greeting()}
	r.Stats = r.Suites[0].Stats
	r.Regression = nil
	r.Gates = []results.Gate{
		{Expr: "all(suiteList, .passed)", Default: true, Passed: true, Values: map[string]any{`suites["acme.support.evals.greeting"].passed`: true}},
		{Expr: "findings.critical + findings.high == 0", Default: true, Passed: true, Values: map[string]any{"findings.critical": 0, "findings.high": 0}},
	}
	return r
}

// noBaselineRun is resultstest.Failing before any baseline existed.
func noBaselineRun() *results.Run {
	r := resultstest.Failing()
	r.Regression = nil
	for i := range r.Suites {
		r.Suites[i].Regression = nil
	}
	r.Gates = r.Gates[:1]
	r.Gates[0].Passed = false
	r.Gates[0].Expr = "aggregateScore >= 0.9"
	return r
}

// hugeRun has suites many suites of tasksPerSuite tasks, every other task
// newly failing against the baseline, findings everywhere and many gates.
func hugeRun(suites, tasksPerSuite int) *results.Run {
	r := resultstest.Failing()
	r.Suites = nil
	r.Regression = &results.Regression{BaselineRunID: "run-41", PValue: 0.0001, ScoreDelta: -0.5, CILow: -0.52, CIHigh: -0.48}
	total, passed := 0, 0
	for si := range suites {
		s := resultstest.Refunds()
		s.ID = fmt.Sprintf("acme.support.evals.s%05d", si)
		s.Tasks = nil
		for ti := range tasksPerSuite {
			t := results.Task{
				ID: fmt.Sprintf("task-%06d", ti), File: fmt.Sprintf("evals/s%05d.yaml", si), Line: 10 + 7*ti, Kind: "golden",
				Status: results.StatusPassed, Score: 1, PassScore: 1, Passed: true, PassAtK: true, TrialsPassed: 1, LatencyMs: 100,
				Trials: []results.Trial{{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true, Checks: []results.Check{{ID: "match", Kind: "exact", Weight: 1, Passed: true}}}},
			}
			if ti%2 == 0 {
				t.Status, t.Score, t.Passed, t.PassAtK, t.TrialsPassed = results.StatusFailed, 0, false, false, 0
				t.FailedChecks = []string{"match"}
				t.Findings = []results.Finding{{Kind: "pii-leak", Severity: results.SeverityMedium}}
				t.Trials[0].Checks[0].Passed, t.Trials[0].Checks[0].Reason = false, "mismatch"
				r.Regression.NewFailures++
				r.Regression.Tasks = append(r.Regression.Tasks, results.TaskDiff{SuiteID: s.ID, TaskID: t.ID, Change: results.ChangeNewFailure, ScoreDelta: -1})
			} else {
				passed++
			}
			total++
			s.Tasks = append(s.Tasks, t)
		}
		s.TaskCount, s.PassedCount = len(s.Tasks), len(s.Tasks)/2
		s.Regression = &results.SuiteRegression{BaselineRunID: "run-41", ScoreDelta: -0.5, NewFailures: (len(s.Tasks) + 1) / 2, PValue: 0.001}
		r.Suites = append(r.Suites, s)
		r.Regression.Warnings = append(r.Regression.Warnings, fmt.Sprintf("suite %s: the baseline ran version 0.9.0, this run 1.0.0; compared task by task", s.ID))
	}
	r.TaskCount, r.PassedCount = total, passed
	r.Findings = results.Findings{Medium: total - passed}
	for i := range 200 {
		r.Gates = append(r.Gates, results.Gate{Expr: fmt.Sprintf("suites[\"acme.support.evals.s%05d\"].aggregateScore >= 0.9", i), Values: map[string]any{"x": 0.5}})
	}
	return r
}

// assessedRun is resultstest.Failing with an assessment that moved against
// the baseline's.
func assessedRun() *results.Run {
	r := resultstest.Failing()
	r.Assessment = resultstest.Assessment()
	r.Assessment.TasksAdded = 52
	return r
}

// injectionRun carries ids, files, checks and gates that try to break out
// of their Markdown cells: pipes, backticks, HTML, links, mentions.
func injectionRun() *results.Run {
	r := noBaselineRun()
	s := &r.Suites[0]
	s.ID = "evil|suite`<img src=x onerror=alert(1)>"
	s.Version = "1.0.0 | **bold**"
	t := &s.Tasks[1]
	t.ID = "task|with`back``ticks"
	t.File = "evals/we ird|(x)[y].yaml"
	t.FailedChecks = []string{"check|id", "[link](https://example.com)"}
	t.Trials[0].Checks = []results.Check{
		{ID: "check|id", Kind: "expr", Weight: 1, Reason: "<script>"},
		{ID: "[link](https://example.com)", Kind: "expr", Weight: 1, Reason: "@admin"},
	}
	r.Gates[0].Expr = "aggregateScore >= 0.9 || `x` == \"|\" \n## heading"
	r.RunID = "</details><b>run</b>"
	return r
}

func TestScorecardGolden(t *testing.T) {
	type testCase struct {
		name string
		run  *results.Run
		opts ScorecardOptions
	}
	run := func(t *testing.T, tc testCase) {
		got := Scorecard(tc.run, tc.opts)
		assert.Assert(t, utf8.ValidString(got))
		assert.Assert(t, len(got) < MaxScorecardChars, "%d characters", len(got))
		assert.Assert(t, strings.HasPrefix(got, "### "), "the verdict comes first")
		open, closed := 0, 0
		for _, line := range strings.Split(got, "\n") {
			if strings.HasPrefix(line, "<details>") {
				open++
			}
			if line == "</details>" {
				closed++
			}
		}
		assert.Equal(t, open, closed, "every <details> is closed")
		golden.Assert(t, got, "scorecard/"+tc.name+".md")
	}
	for _, tc := range []testCase{
		{name: "small", run: smallRun()},
		{name: "no-baseline", run: noBaselineRun()},
		{name: "simulated-user", run: func() *results.Run {
			r := noBaselineRun()
			r.Stats.UserCostUsd = 0.0042 // a simulated user's model, apart from the agent's cost
			return r
		}()},
		{name: "regression", run: resultstest.Failing(), opts: ScorecardOptions{LinkBase: "https://github.com/acme/agent/blob/0123456/"}},
		{name: "huge", run: hugeRun(40, 2000)},
		{name: "injection", run: injectionRun()},
		{name: "assessment", run: assessedRun()},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestScorecardSize(t *testing.T) {
	type testCase struct {
		name          string
		suites, tasks int
		limit         int
		wantMore      string
	}
	run := func(t *testing.T, tc testCase) {
		got := Scorecard(hugeRun(tc.suites, tc.tasks), ScorecardOptions{MaxChars: tc.limit})
		limit := tc.limit
		if limit == 0 {
			limit = MaxScorecardChars
		}
		assert.Assert(t, len(got) <= limit, "%d characters, limit %d", len(got), limit)
		assert.Assert(t, strings.Contains(got, tc.wantMore), "no %q in the scorecard", tc.wantMore)
		assert.Assert(t, strings.HasPrefix(got, "### ❌ evalgate: FAIL"))
	}
	for _, tc := range []testCase{
		{name: "one huge suite", suites: 1, tasks: 100_000, wantMore: "more failing tasks"},
		{name: "many suites", suites: 5_000, tasks: 2, wantMore: "more suites"},
		{name: "tight limit", suites: 10, tasks: 100, limit: 10_000, wantMore: "more"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestMarkdownEscaping(t *testing.T) {
	type testCase struct {
		in      string
		inTable bool
		want    string
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, code(tc.in, tc.inTable), tc.want)
	}
	for _, tc := range []testCase{
		{in: "late-fee", want: "`late-fee`"},
		{in: "a|b", inTable: true, want: "`a\\|b`"},
		{in: "a|b", want: "`a|b`"},
		{in: "a`b", want: "`` a`b ``"},
		{in: "a``b\nc", want: "``` a``b\\nc ```"},
		{in: "x\n::error::forged\x1b[31m|", inTable: true, want: "`x\\n::error::forged\\x1b[31m\\|`"},
		{in: "", want: ""},
	} {
		t.Run(tc.in, func(t *testing.T) { run(t, tc) })
	}
	assert.Equal(t, mdText("<b>[x](y)</b> & @me|"), `&lt;b&gt;\[x\]\(y\)&lt;/b&gt; &amp; @me\|`)
	assert.Equal(t, mdText("a\n::error::forged\x07"), `a\\n::error::forged\\x07`)
	assert.Equal(t, escapePath("evals/we ird|(x).yaml"), "evals/we%20ird%7C%28x%29.yaml")
	assert.Equal(t, formatCount(4211), "4,211")
	assert.Equal(t, formatCount(1234567), "1,234,567")
}

// TestScorecardErrorMessage: an errored task's row says what happened in
// the same content-free words as the terminal and results.json.
func TestScorecardErrorMessage(t *testing.T) {
	r := noBaselineRun()
	slow := &r.Suites[0].Tasks[2]
	slow.ErrorKind, slow.ErrorMessage = "agent-exit", "exit status 2 before any line"
	got := Scorecard(r, ScorecardOptions{})
	assert.Assert(t, strings.Contains(got, "`error: agent-exit (exit status 2 before any line)`"), got)
}

// Links point at the task's line in the repository; a file outside it is
// named, not linked.
func TestScorecardLinks(t *testing.T) {
	type testCase struct {
		name, file string
		want       string
	}
	run := func(t *testing.T, tc testCase) {
		r := noBaselineRun()
		r.Suites = r.Suites[:1]
		for i := range r.Suites[0].Tasks {
			r.Suites[0].Tasks[i].File = tc.file
		}
		got := Scorecard(r, ScorecardOptions{LinkBase: "https://github.com/acme/agent/blob/0123456/"})
		assert.Assert(t, strings.Contains(got, "| "+tc.want+" |"), got)
	}
	for _, tc := range []testCase{
		{name: "in the repository", file: "sub/evals/refunds.yaml",
			want: "[`sub/evals/refunds.yaml:31`](https://github.com/acme/agent/blob/0123456/sub/evals/refunds.yaml#L31)"},
		{name: "climbs out", file: "../shared/refunds.yaml", want: "`../shared/refunds.yaml:31`"},
		{name: "absolute", file: "/opt/evals/refunds.yaml", want: "`/opt/evals/refunds.yaml:31`"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// RenderScorecard says whether the scorecard lists every failing task, so
// that the annotations' notice names it only when it does.
func TestScorecardListsAllFailing(t *testing.T) {
	type testCase struct {
		name string
		run  *results.Run
		opts ScorecardOptions
		want bool
	}
	run := func(t *testing.T, tc testCase) {
		got := RenderScorecard(tc.run, tc.opts)
		assert.Equal(t, got.ListsAllFailing, tc.want)
		assert.Equal(t, got.Markdown, Scorecard(tc.run, tc.opts))
	}
	for _, tc := range []testCase{
		{name: "no failing tasks", run: smallRun(), want: true},
		{name: "without a baseline", run: noBaselineRun(), want: true},
		{name: "with a baseline, in the folded table", run: resultstest.Failing(), want: true},
		{name: "too many for the table", run: hugeRun(1, 20_000), want: false},
		{name: "cut to a tight limit", run: noBaselineRun(), opts: ScorecardOptions{MaxChars: 600}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
