package report

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/results"
)

// diffRuns are a baseline in which late-fee passed and an old task existed,
// and resultstest.Failing compared with it.
func diffRuns() (base, head *results.Run) {
	base = resultstest.Failing()
	base.RunID = "run-41"
	base.Regression = nil
	s := &base.Suites[0]
	s.Regression = nil
	lf := &s.Tasks[1]
	lf.Score, lf.Passed, lf.Status, lf.FailedChecks, lf.Findings = 1, true, results.StatusPassed, nil, nil
	lf.CostUsd, lf.LatencyMs = 0.0073, 720
	s.Tasks = append(s.Tasks, results.Task{ID: "old-task", Status: results.StatusPassed, Score: 1, Passed: true})
	s.Stats = results.Stats{AggregateScore: 0.75, PassedCount: 3, TaskCount: 4, TotalCostUsd: 0.0113, P95LatencyMs: 720}
	base.Suites[1].Tasks[0].Score, base.Suites[1].Tasks[0].Passed = 0, false // hello was failing: now fixed
	base.Suites[1].Stats = results.Stats{TaskCount: 1, P95LatencyMs: 1100}
	base.Stats = gates.Combine(base.Suites)

	head = resultstest.Failing()
	for i := range head.Suites {
		head.Suites[i].Regression = nil
	}
	regression.Compare(base, head, regression.Options{Source: "base.json"})
	return base, head
}

func TestDiffGolden(t *testing.T) {
	type testCase struct {
		name string
		opts DiffOptions
	}
	run := func(t *testing.T, tc testCase) {
		base, head := diffRuns()
		got := Diff(base, head, tc.opts)
		golden.Assert(t, got, "diff/"+tc.name)
	}
	for _, tc := range []testCase{
		{name: "text.golden"},
		{name: "color.golden", opts: DiffOptions{Color: true}},
		{name: "md.golden.md", opts: DiffOptions{Markdown: true, LinkBase: "https://github.com/acme/agent/blob/0123456/"}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestDiffVerdict(t *testing.T) {
	type testCase struct {
		name string
		reg  *results.Regression
		want string
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, DiffVerdict(tc.reg), tc.want)
	}
	for _, tc := range []testCase{
		{name: "no comparison", want: VerdictUnchanged},
		{name: "nothing moved", reg: &results.Regression{}, want: VerdictUnchanged},
		{name: "a new failure outweighs a fix", reg: &results.Regression{NewFailures: 1, Fixed: 3, ScoreDelta: 0.2}, want: VerdictRegressed},
		{name: "score fell", reg: &results.Regression{ScoreDelta: -0.01}, want: VerdictRegressed},
		{name: "fixed", reg: &results.Regression{Fixed: 1}, want: VerdictImproved},
		{name: "score rose", reg: &results.Regression{ScoreDelta: 0.01}, want: VerdictImproved},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestDiffNoColorByDefault(t *testing.T) {
	base, head := diffRuns()
	assert.Assert(t, !strings.Contains(Diff(base, head, DiffOptions{}), "\x1b["))
	assert.Assert(t, strings.Contains(Diff(base, head, DiffOptions{Color: true}), "\x1b["))
	assert.Assert(t, !strings.Contains(Diff(base, head, DiffOptions{Color: true, Markdown: true}), "\x1b["), "Markdown never carries colour")
}
