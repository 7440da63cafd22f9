package gates

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/results"
)

// sampleRun is a run of two suites with a baseline.
func sampleRun() *results.Run {
	refunds := results.Suite{ID: "acme.evals.refunds", Passed: false, Stats: results.Stats{
		AggregateScore: 0.75, PassRate: 0.5, PassedCount: 2, TaskCount: 4, ErroredCount: 1,
		TotalCostUsd: 0.03, AgentCostUsd: 0.02, JudgeCostUsd: 0.01, P95LatencyMs: 1800,
		Findings: results.Findings{High: 1, Low: 2},
	}, Regression: &results.SuiteRegression{ScoreDelta: -0.25, NewFailures: 1, Fixed: 0, PValue: 0.5}}
	search := results.Suite{ID: "acme.evals.search", Passed: true, Stats: results.Stats{
		AggregateScore: 1, PassRate: 1, PassedCount: 2, TaskCount: 2,
		TotalCostUsd: 0.01, AgentCostUsd: 0.01, P95LatencyMs: 900,
	}}
	return &results.Run{
		Stats: results.Stats{
			AggregateScore: 5.0 / 6, PassRate: 4.0 / 6, PassedCount: 4, TaskCount: 6, ErroredCount: 1,
			TotalCostUsd: 0.04, AgentCostUsd: 0.03, JudgeCostUsd: 0.01, P95LatencyMs: 1800,
			Findings: results.Findings{Critical: 0, High: 1, Medium: 0, Low: 2},
		},
		Regression: &results.Regression{BaselineRunID: "base", ScoreDelta: -0.1, NewFailures: 1, Fixed: 2, PValue: 0.25},
		Suites:     []results.Suite{refunds, search},
	}
}

func TestEvaluate(t *testing.T) {
	type testCase struct {
		name      string
		expr      string
		run       func(*results.Run) // changes to the sample run
		want      bool
		values    map[string]any
		wantError string
	}
	run := func(t *testing.T, tc testCase) {
		gs, err := Compile([]string{tc.expr})
		assert.NilError(t, err, "Compile")
		r := sampleRun()
		if tc.run != nil {
			tc.run(r)
		}
		got := Evaluate(gs, r)
		want := []results.Gate{{Expr: tc.expr, Passed: tc.want, Values: tc.values, Error: tc.wantError}}
		assert.Check(t, is.DeepEqual(want, got), "Evaluate")
	}
	testCases := []testCase{
		{name: "aggregateScore", expr: "aggregateScore >= 0.9", want: false, values: map[string]any{"aggregateScore": 5.0 / 6}},
		{name: "passRate", expr: "passRate > 0.6", want: true, values: map[string]any{"passRate": 4.0 / 6}},
		{name: "passedCount and taskCount", expr: "passedCount == taskCount - 2", want: true, values: map[string]any{"passedCount": 4, "taskCount": 6}},
		{name: "erroredCount", expr: "erroredCount == 0", want: false, values: map[string]any{"erroredCount": 1}},
		{name: "totalCostUsd", expr: "totalCostUsd < 0.05", want: true, values: map[string]any{"totalCostUsd": 0.04}},
		{name: "agentCostUsd and judgeCostUsd", expr: "agentCostUsd > judgeCostUsd", want: true, values: map[string]any{"agentCostUsd": 0.03, "judgeCostUsd": 0.01}},
		{name: "userCostUsd", expr: "userCostUsd > 0.01 && totalCostUsd < 0.05", run: func(r *results.Run) { r.Stats.UserCostUsd = 0.02 }, want: true, values: map[string]any{"userCostUsd": 0.02, "totalCostUsd": 0.04}},
		{name: "p95LatencyMs", expr: "p95LatencyMs <= 1500", want: false, values: map[string]any{"p95LatencyMs": 1800}},
		{name: "passed: every suite passed", expr: "passed", want: false, values: map[string]any{"passed": false}},
		{name: "passed with every suite passing", expr: "passed", run: func(r *results.Run) { r.Suites[0].Passed = true }, want: true, values: map[string]any{"passed": true}},
		{name: "findings", expr: "findings.critical == 0 && findings.high == 1 && findings.medium == 0 && findings.low == 2", want: true,
			values: map[string]any{"findings.critical": 0, "findings.high": 1, "findings.medium": 0, "findings.low": 2}},
		{name: "regression", expr: "regression.newFailures == 0 || regression.scoreDelta > -0.05", want: false,
			values: map[string]any{"regression.newFailures": 1, "regression.scoreDelta": -0.1}},
		{name: "regression fixed and pValue", expr: "regression.fixed == 2 && regression.pValue < 0.3", want: true,
			values: map[string]any{"regression.fixed": 2, "regression.pValue": 0.25}},
		{name: "regression newConsistentFailures", expr: "regression.newConsistentFailures == 0 && suites[\"acme.evals.refunds\"].regression.newConsistentFailures == 1",
			run: func(r *results.Run) {
				r.Regression.NewConsistentFailures = 0
				r.Suites[0].Regression.NewConsistentFailures = 1
			}, want: true,
			values: map[string]any{"regression.newConsistentFailures": 0, `suites["acme.evals.refunds"].regression.newConsistentFailures`: 1}},
		{name: "no baseline", expr: "regression.scoreDelta == 0 && regression.newFailures == 0 && regression.newConsistentFailures == 0 && regression.fixed == 0 && regression.pValue == 1",
			run: func(r *results.Run) { r.Regression = nil }, want: true,
			values: map[string]any{"regression.scoreDelta": 0.0, "regression.newFailures": 0, "regression.newConsistentFailures": 0, "regression.fixed": 0, "regression.pValue": 1.0}},
		{name: "newFailuresNotFlaky without a history", expr: "regression.newFailuresNotFlaky == 1 && history.runs == 0", want: true,
			values: map[string]any{"regression.newFailuresNotFlaky": 1, "history.runs": 0}},
		{name: "newFailuresNotFlaky and history.runs from the history", expr: `regression.newFailuresNotFlaky == 0 && suites["acme.evals.refunds"].regression.newFailuresNotFlaky == 0 && history.runs == 12`,
			run: func(r *results.Run) {
				r.History = &results.History{Runs: 12, NewFailures: 1, KnownFlaky: 1,
					Suites: []results.SuiteHistory{{SuiteID: "acme.evals.refunds", NewFailures: 1}}}
			}, want: true,
			values: map[string]any{"regression.newFailuresNotFlaky": 0, `suites["acme.evals.refunds"].regression.newFailuresNotFlaky`: 0, "history.runs": 12}},
		{name: "suites by id", expr: `suites["acme.evals.search"].passed && suites["acme.evals.search"].aggregateScore == 1`, want: true,
			values: map[string]any{`suites["acme.evals.search"].passed`: true, `suites["acme.evals.search"].aggregateScore`: 1.0}},
		{name: "suite findings and regression", expr: `suites["acme.evals.refunds"].findings.high == 0 || suites["acme.evals.refunds"].regression.newFailures == 0`, want: false,
			values: map[string]any{`suites["acme.evals.refunds"].findings.high`: 1, `suites["acme.evals.refunds"].regression.newFailures`: 1}},
		{name: "suite without a baseline", expr: `suites["acme.evals.search"].regression.pValue == 1`, want: true,
			values: map[string]any{`suites["acme.evals.search"].regression.pValue`: 1.0}},
		{name: "suite every figure", expr: `suites["acme.evals.refunds"].passRate + suites["acme.evals.refunds"].passedCount + suites["acme.evals.refunds"].taskCount + suites["acme.evals.refunds"].erroredCount + suites["acme.evals.refunds"].totalCostUsd + suites["acme.evals.refunds"].agentCostUsd + suites["acme.evals.refunds"].judgeCostUsd + suites["acme.evals.refunds"].p95LatencyMs > 1800`, want: true,
			values: map[string]any{`suites["acme.evals.refunds"].passRate`: 0.5, `suites["acme.evals.refunds"].passedCount`: 2, `suites["acme.evals.refunds"].taskCount`: 4,
				`suites["acme.evals.refunds"].erroredCount`: 1, `suites["acme.evals.refunds"].totalCostUsd`: 0.03, `suites["acme.evals.refunds"].agentCostUsd`: 0.02,
				`suites["acme.evals.refunds"].judgeCostUsd`: 0.01, `suites["acme.evals.refunds"].p95LatencyMs`: 1800}},
		{name: "suites by member syntax", expr: `suites.x.passed`, run: func(r *results.Run) { r.Suites[1].ID = "x" }, want: true, values: map[string]any{`suites["x"].passed`: true}},
		{name: "suite not in the run", expr: `suites["acme.evals.billing"].passed`, want: false, wantError: `no suite "acme.evals.billing" in this run`},
		{name: "suite not in the run, dynamic key", expr: `let id = "acme.evals." + "billing"; suites[id].passed`, want: false,
			wantError: "could not evaluate: a suites[...] lookup names a suite not in this run (1:48)"},
		{name: "suiteList predicate", expr: `all(suiteList, .aggregateScore >= 0.75)`, want: true,
			values: map[string]any{`suites["acme.evals.refunds"].aggregateScore`: 0.75, `suites["acme.evals.search"].aggregateScore`: 1.0}},
		{name: "suiteList count", expr: `len(suiteList) == 2`, want: true},
		{name: "suiteList with a run variable", expr: `any(suiteList, .p95LatencyMs > p95LatencyMs / 2)`, want: true,
			values: map[string]any{"p95LatencyMs": 1800, `suites["acme.evals.refunds"].p95LatencyMs`: 1800, `suites["acme.evals.search"].p95LatencyMs`: 900}},
		{name: "constant", expr: "true", want: true},
		{name: "no judge", expr: "!judge.configured && !judge.calibrated && judge.agreement == 0", want: true,
			values: map[string]any{"judge.configured": false, "judge.calibrated": false, "judge.agreement": 0.0}},
		{name: "calibrated judge", expr: "judge.calibrated && judge.agreement >= 0.8",
			run: func(r *results.Run) {
				rho := 0.86
				r.Judge = &results.JudgeInfo{ID: "openai:m", Calibrated: true, Agreement: &rho}
			}, want: true,
			values: map[string]any{"judge.calibrated": true, "judge.agreement": 0.86}},
		{name: "uncalibrated judge", expr: "!judge.configured || judge.calibrated",
			run: func(r *results.Run) { r.Judge = &results.JudgeInfo{ID: "exec:abc"} }, want: false,
			values: map[string]any{"judge.configured": true, "judge.calibrated": false}},
		{name: "trust level and score", expr: "trust.level >= 3 && trust.score > 70",
			run: func(r *results.Run) { r.Trust = &results.Trust{Score: 72.5, Level: 3, LevelName: "Autonomous"} }, want: true,
			values: map[string]any{"trust.level": 3, "trust.score": 72.5}},
		{name: "trust level too low", expr: "trust.level >= 3",
			run: func(r *results.Run) { r.Trust = &results.Trust{Score: 55, Level: 2, LevelName: "Supervised"} }, want: false,
			values: map[string]any{"trust.level": 2}},
		{name: "trust without a scorecard", expr: "trust.level >= 0 || passed", want: false, wantError: errNoTrust},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestCompileErrors(t *testing.T) {
	type testCase struct {
		name  string
		exprs []string
		want  string
	}
	run := func(t *testing.T, tc testCase) {
		gs, err := Compile(tc.exprs)
		assert.Assert(t, err != nil, "Compile = %d gates, want an error", len(gs))
		assert.Check(t, err.Error() == tc.want, "error:\n got %s\nwant %s", err, tc.want)
		for _, goName := range []string{"gates.", "float64", "*", "reflect", "Vars"} {
			assert.Check(t, !strings.Contains(strings.ReplaceAll(err.Error(), "* 2", ""), goName), "error %q speaks Go (%q)", err, goName)
		}
	}
	vars := "agentCostUsd, aggregateScore, assessment, erroredCount, findings, history, judge, judgeCostUsd, p95LatencyMs, passRate, passed, passedCount, regression, suiteList, suites, taskCount, totalCostUsd, trust, userCostUsd"
	testCases := []testCase{
		{name: "misspelt variable", exprs: []string{"aggregateScor >= 0.9"},
			want: `gate "aggregateScor >= 0.9": column 1: unknown name "aggregateScor"; did you mean aggregateScore?`},
		{name: "variable in the wrong case", exprs: []string{"passrate > 0.5"},
			want: `gate "passrate > 0.5": column 1: unknown name "passrate"; did you mean passRate?`},
		{name: "unknown variable", exprs: []string{"score > 0.5"},
			want: `gate "score > 0.5": column 1: unknown name "score"; the variables are ` + vars},
		{name: "unknown finding severity", exprs: []string{"findings.severe == 0"},
			want: `gate "findings.severe == 0": column 10: findings has no field "severe"; its fields are critical, high, low, medium`},
		{name: "misspelt regression field", exprs: []string{"regression.newFailure == 0"},
			want: `gate "regression.newFailure == 0": column 12: regression has no field "newFailure"; did you mean newFailures?`},
		{name: "swapped letters", exprs: []string{"findings.hihg == 0"},
			want: `gate "findings.hihg == 0": column 10: findings has no field "hihg"; did you mean high?`},
		{name: "misspelt judge field", exprs: []string{"judge.calibratd"},
			want: `gate "judge.calibratd": column 7: judge has no field "calibratd"; did you mean calibrated?`},
		{name: "unknown suite field", exprs: []string{`suites["a.evals.b"].score > 0.5`},
			want: `gate "suites[\"a.evals.b\"].score > 0.5": column 21: suite has no field "score"; its fields are agentCostUsd, aggregateScore, erroredCount, findings, judgeCostUsd, p95LatencyMs, passRate, passed, passedCount, regression, taskCount, totalCostUsd, userCostUsd`},
		{name: "misspelt field in a suiteList predicate", exprs: []string{"all(suiteList, .pased)"},
			want: `gate "all(suiteList, .pased)": column 17: suite has no field "pased"; did you mean passed?`},
		{name: "syntax error", exprs: []string{"aggregateScore >= "},
			want: `gate "aggregateScore >= ": column 18: unexpected end of the expression`},
		{name: "on the second line", exprs: []string{"aggregateScore >= 0.9 &&\n  passRat > 0.5"},
			want: `gate "aggregateScore >= 0.9 &&\n  passRat > 0.5": line 2, column 3: unknown name "passRat"; did you mean passRate?`},
		{name: "not a boolean", exprs: []string{"aggregateScore * 2"},
			want: `gate "aggregateScore * 2": the expression must yield true or false, not a value of type number`},
		{name: "mismatched types", exprs: []string{`taskCount > "5"`},
			want: `gate "taskCount > \"5\"": column 11: invalid operation: > (mismatched types integer and string)`},
		{name: "a suite compared", exprs: []string{`suites["x"] == true`},
			want: `gate "suites[\"x\"] == true": column 13: invalid operation: == (mismatched types suite and boolean)`},
		{name: "empty", exprs: []string{"  "},
			want: `gate "  ": the expression is empty`},
		{name: "nested too deep", exprs: []string{strings.Repeat("(", 65) + "passed" + strings.Repeat(")", 65)},
			want: `gate "` + strings.Repeat("(", 65) + "passed" + strings.Repeat(")", 65) + `": expected brackets nested at most 64 levels deep in an expression; the '(' at byte 65 opens level 65`},
		{name: "nested half a million deep", exprs: []string{strings.Repeat("(", 500_000) + "passed" + strings.Repeat(")", 500_000)},
			want: `gate "` + strings.Repeat("(", 80) + `"...: expected an expression of at most 4096 bytes, got 1000006 bytes; split it into several gates`},
		{name: "every bad gate reported", exprs: []string{"passRate > 0.5", "foo", "passRate >"},
			want: "gate \"foo\": column 1: unknown name \"foo\"; the variables are " + vars + "\n" +
				`gate "passRate >": column 10: unexpected end of the expression`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestCompileErrorPlaces checks what a caller needs to point at a gate:
// its index in the list and the problem's line and column in it.
func TestCompileErrorPlaces(t *testing.T) {
	_, err := Compile([]string{"passRate > 0.5", "aggregateScor >= 0.9", "passed &&\n  findings.hig == 0", "aggregateScore"})
	var errs CompileErrors
	assert.Assert(t, errors.As(err, &errs), "%v", err)
	type place struct{ Index, Line, Col int }
	var got []place
	for _, e := range errs {
		got = append(got, place{e.Index, e.Line, e.Col})
	}
	assert.DeepEqual(t, got, []place{{1, 1, 1}, {2, 2, 12}, {3, 0, 0}})
}

func TestDefaults(t *testing.T) {
	type testCase struct {
		name   string
		run    func(*results.Run)
		passed []bool
	}
	run := func(t *testing.T, tc testCase) {
		gs := Defaults()
		r := sampleRun()
		if tc.run != nil {
			tc.run(r)
		}
		got := Evaluate(gs, r)
		assert.Assert(t, len(got) == 2, "got %d default gates, want 2", len(got))
		for i, g := range got {
			assert.Check(t, g.Default && g.Error == "", "gate %q: default %v, error %q", g.Expr, g.Default, g.Error)
			assert.Check(t, g.Passed == tc.passed[i], "gate %q passed = %v, want %v (values %v)", g.Expr, g.Passed, tc.passed[i], g.Values)
		}
	}
	clean := func(r *results.Run) {
		r.Suites[0].Passed = true
		r.Findings = results.Findings{Medium: 3, Low: 9}
	}
	testCases := []testCase{
		{name: "a suite failed and a high finding", passed: []bool{false, false}},
		{name: "all clean", run: clean, passed: []bool{true, true}},
		{name: "a critical finding", run: func(r *results.Run) { clean(r); r.Findings.Critical = 1 }, passed: []bool{true, false}},
		{name: "a suite failed", run: func(r *results.Run) { clean(r); r.Suites[1].Passed = false }, passed: []bool{false, true}},
		{name: "no suites", run: func(r *results.Run) { clean(r); r.Suites = nil }, passed: []bool{true, true}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestEvaluateGolden pins the gates block of results.json, which the
// scorecard prints as "aggregateScore = 0.83 (>= 0.9 failed)".
func TestEvaluateGolden(t *testing.T) {
	gs, err := Compile([]string{
		"aggregateScore >= 0.9",
		"regression.newFailures == 0",
		`suites["acme.evals.search"].p95LatencyMs < 1000`,
		`suites["acme.evals.gone"].passed`,
	})
	assert.NilError(t, err)
	gs = append(gs, Defaults()...)
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	assert.NilError(t, enc.Encode(Evaluate(gs, sampleRun())))
	golden.Assert(t, out.String(), "evaluate.json")
}
