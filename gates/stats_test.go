package gates

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
)

func TestP95(t *testing.T) {
	type testCase struct {
		name string
		ms   []int64
		want int64
	}
	seq := func(n int) []int64 {
		ms := make([]int64, n)
		for i := range ms {
			ms[i] = int64(n - i) // descending, so P95 must sort
		}
		return ms
	}
	run := func(t *testing.T, tc testCase) {
		in := append([]int64(nil), tc.ms...)
		got := P95(tc.ms)
		assert.Check(t, got == tc.want, "P95 = %d, want %d", got, tc.want)
		assert.Check(t, is.DeepEqual(in, tc.ms), "P95 changed its input")
	}
	testCases := []testCase{
		{name: "no tasks", ms: nil, want: 0},
		{name: "one", ms: []int64{70}, want: 70},
		{name: "two: rank 2", ms: []int64{100, 5}, want: 100},
		{name: "ten: rank ceil(9.5)=10", ms: seq(10), want: 10},
		{name: "nineteen: rank ceil(18.05)=19", ms: seq(19), want: 19},
		{name: "twenty: rank 19 exactly", ms: seq(20), want: 19},
		{name: "twenty-one: rank ceil(19.95)=20", ms: seq(21), want: 20},
		{name: "hundred: rank 95", ms: seq(100), want: 95},
		{name: "thousand: rank 950", ms: seq(1000), want: 950},
		{name: "ties", ms: []int64{3, 3, 3, 1}, want: 3},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestSuitePassed(t *testing.T) {
	type testCase struct {
		name string
		th   results.Thresholds
		st   results.Stats
		want bool
	}
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	run := func(t *testing.T, tc testCase) {
		got := SuitePassed(tc.th, tc.st)
		assert.Check(t, got == tc.want, "SuitePassed = %v, want %v", got, tc.want)
	}
	testCases := []testCase{
		{name: "perfect score, default bar", th: results.Thresholds{PassScore: 1}, st: results.Stats{AggregateScore: 1}, want: true},
		{name: "below the default bar", th: results.Thresholds{PassScore: 1}, st: results.Stats{AggregateScore: 0.99}, want: false},
		{name: "at the bar", th: results.Thresholds{PassScore: 0.8}, st: results.Stats{AggregateScore: 0.8}, want: true},
		{name: "at the bar up to rounding: mean of 0.7 three times is 0.6999999999999998", th: results.Thresholds{PassScore: 0.7},
			st: Aggregate([]results.Task{{Score: 0.7}, {Score: 0.7}, {Score: 0.7}}), want: true},
		{name: "below the bar", th: results.Thresholds{PassScore: 0.8}, st: results.Stats{AggregateScore: 0.79}, want: false},
		{name: "within cost", th: results.Thresholds{PassScore: 0.5, MaxCostUsd: f(0.3)}, st: results.Stats{AggregateScore: 1, TotalCostUsd: 0.1 + 0.2}, want: true},
		{name: "over cost", th: results.Thresholds{PassScore: 0.5, MaxCostUsd: f(0.3)}, st: results.Stats{AggregateScore: 1, TotalCostUsd: 0.31}, want: false},
		{name: "zero cost limit", th: results.Thresholds{MaxCostUsd: f(0)}, st: results.Stats{AggregateScore: 1, TotalCostUsd: 0.0001}, want: false},
		{name: "within p95", th: results.Thresholds{PassScore: 0.5, MaxP95LatencyMs: i(2000)}, st: results.Stats{AggregateScore: 1, P95LatencyMs: 2000}, want: true},
		{name: "over p95", th: results.Thresholds{PassScore: 0.5, MaxP95LatencyMs: i(2000)}, st: results.Stats{AggregateScore: 1, P95LatencyMs: 2001}, want: false},
		{name: "limits unset", th: results.Thresholds{PassScore: 0.5}, st: results.Stats{AggregateScore: 0.5, TotalCostUsd: 1e6, P95LatencyMs: 1e9}, want: true},
		{name: "no tasks", th: results.Thresholds{PassScore: 1}, st: results.Stats{}, want: false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestAggregate(t *testing.T) {
	type testCase struct {
		name  string
		tasks []results.Task
		want  results.Stats
	}
	run := func(t *testing.T, tc testCase) {
		assert.Check(t, is.DeepEqual(tc.want, Aggregate(tc.tasks)), "Aggregate")
	}
	testCases := []testCase{
		{name: "no tasks", want: results.Stats{}},
		{
			name: "mixed",
			tasks: []results.Task{
				{Status: results.StatusPassed, Passed: true, Score: 1, LatencyMs: 100, AgentCostUsd: 0.25, JudgeCostUsd: 0.5,
					Findings: []results.Finding{{Kind: "unfixtured-tool-call", Severity: "low"}}},
				{Status: results.StatusFailed, Score: 0.5, LatencyMs: 300, AgentCostUsd: 0.25,
					Findings: []results.Finding{{Kind: "canary-leak", Severity: "critical"}, {Kind: "pii-leak", Severity: "medium"}, {Kind: "jailbreak", Severity: "high"}}},
				{Status: results.StatusError, ErrorKind: results.ErrTimeout, Score: 0, LatencyMs: 200},
				{Status: results.StatusPassed, Passed: true, Score: 0.5, LatencyMs: 50, JudgeCostUsd: 0.125, UserCostUsd: 0.0625},
			},
			want: results.Stats{
				AggregateScore: 0.5, PassRate: 0.5, PassedCount: 2, TaskCount: 4, ErroredCount: 1,
				TotalCostUsd: 1.125, AgentCostUsd: 0.5, JudgeCostUsd: 0.625, UserCostUsd: 0.0625, P95LatencyMs: 300,
				Findings: results.Findings{Critical: 1, High: 1, Medium: 1, Low: 1},
			},
		},
		{
			name:  "all errored",
			tasks: []results.Task{{Status: results.StatusError}, {Status: results.StatusError, LatencyMs: 9}},
			want:  results.Stats{TaskCount: 2, ErroredCount: 2, P95LatencyMs: 9},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestCombine(t *testing.T) {
	suites := []results.Suite{
		{ID: "a", Tasks: []results.Task{{Score: 1, Passed: true, LatencyMs: 10}}},
		{ID: "b", Tasks: []results.Task{{Score: 0, LatencyMs: 30}, {Score: 0.5, LatencyMs: 20, AgentCostUsd: 0.5,
			Findings: []results.Finding{{Kind: "secret-leak", Severity: "critical"}}}}},
		{ID: "empty"},
	}
	want := results.Stats{
		AggregateScore: 0.5, // over all 3 tasks, not the mean of suite means (0.625)
		PassRate:       1.0 / 3, PassedCount: 1, TaskCount: 3,
		TotalCostUsd: 0.5, AgentCostUsd: 0.5, P95LatencyMs: 30,
		Findings: results.Findings{Critical: 1},
	}
	assert.Check(t, is.DeepEqual(want, Combine(suites)), "Combine")
}
