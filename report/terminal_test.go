package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fatih/color"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/results"
)

// passingRun is failingRun after the fixes: every gate holds.
func passingRun() *results.Run {
	r := failingRun()
	r.Passed = true
	r.Regression = nil
	greeting := greetingSuite()
	r.Suites = []results.Suite{greeting}
	r.Gates = []results.Gate{
		{Expr: "aggregateScore >= 0.9", Passed: true, Values: map[string]any{"aggregateScore": 1.0}},
		{Expr: `suites["acme.support.evals.greeting"].passed`, Default: true, Passed: true},
		{Expr: "findings.critical + findings.high == 0", Default: true, Passed: true,
			Values: map[string]any{"findings.critical": 0.0, "findings.high": 0.0}},
	}
	return r
}

func TestTerminal(t *testing.T) {
	type testCase struct {
		name   string
		opts   TerminalOptions // Out and Clock are filled in
		steps  func(term *Terminal, clock *testClock)
		golden string
		check  func(t *testing.T, out string)
	}
	run := func(t *testing.T, tc testCase) {
		var out bytes.Buffer
		clock := newTestClock()
		tc.opts.Out = &out
		tc.opts.Clock = clock.Now
		term := NewTerminal(tc.opts)
		tc.steps(term, clock)
		if tc.golden != "" {
			golden.Assert(t, out.String(), tc.golden)
		}
		if tc.check != nil {
			tc.check(t, out.String())
		}
	}
	// aRun drives a terminal through a whole run of the failing fixture.
	aRun := func(term *Terminal, clock *testClock) {
		refunds, greeting := refundsSuite(), greetingSuite()
		term.Progress(0, 4, 0, 0, 0)
		clock.Advance(10 * time.Second)
		term.Progress(1, 4, 1, 0, 0)
		clock.Advance(50 * time.Millisecond)
		term.Progress(2, 4, 1, 1, 0) // within 100ms of the last draw: skipped
		clock.Advance(5 * time.Second)
		term.Progress(3, 4, 1, 1, 1)
		term.SuiteDone(&refunds)
		clock.Advance(3 * time.Second)
		term.Progress(4, 4, 2, 1, 1) // the last one is always drawn
		term.SuiteDone(&greeting)
		term.Finish(failingRun())
	}
	testCases := []testCase{
		{
			name:   "ci",
			opts:   TerminalOptions{},
			steps:  aRun,
			golden: "terminal-ci.golden",
			check: func(t *testing.T, out string) {
				assert.Check(t, !strings.ContainsAny(out, "\r\x1b"), "CI output has a live line or colours")
			},
		},
		{
			name:   "tty",
			opts:   TerminalOptions{Color: true, Live: true},
			steps:  aRun,
			golden: "terminal-tty.golden",
			check: func(t *testing.T, out string) {
				assert.Check(t, is.Contains(out, "ETA 30s"))
				assert.Check(t, !strings.Contains(out, "2/4 tasks"), "a redraw within 100ms was not skipped")
				assert.Check(t, is.Contains(out, "done in 18s"))
			},
		},
		{
			name:   "quiet",
			opts:   TerminalOptions{Color: false, Live: true, Quiet: true},
			steps:  aRun,
			golden: "terminal-quiet.golden",
		},
		{
			name: "live line comes back right after a suite line",
			opts: TerminalOptions{Live: true},
			steps: func(term *Terminal, clock *testClock) {
				s := greetingSuite()
				term.Progress(1, 3, 1, 0, 0)
				term.SuiteDone(&s)
				clock.Advance(time.Millisecond)
				term.Progress(2, 3, 2, 0, 0)
			},
			check: func(t *testing.T, out string) {
				assert.Check(t, is.Contains(out, "2/3 tasks"))
				assert.Check(t, strings.HasSuffix(out, "\r2/3 tasks  2 passed  0 failed  0 errors  ETA 0s"), "got %q", out)
			},
		},
		{
			name: "passing run",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				s := greetingSuite()
				term.SuiteDone(&s)
				term.Finish(passingRun())
			},
			golden: "terminal-pass.golden",
		},
		{
			name: "limits broken",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				s := refundsSuite()
				s.AggregateScore = 0.8996
				s.TotalCostUsd = 0.75
				s.P95LatencyMs = 61_500
				term.SuiteDone(&s)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "FAIL acme.support.evals.refunds 1.0.0  score 0.8996 (< 0.9000)  1/3 passed  1 error  $0.7500 (> $0.5000)  p95 1m2s (> 2.0s)\n")
			},
		},
		{
			name: "colour only where told, whatever the environment",
			opts: TerminalOptions{Color: false},
			steps: func(term *Terminal, _ *testClock) {
				saved := color.NoColor
				color.NoColor = false
				defer func() { color.NoColor = saved }()
				term.Finish(failingRun())
			},
			check: func(t *testing.T, out string) {
				assert.Check(t, !strings.Contains(out, "\x1b"))
			},
		},
		{
			name: "long failing list cut short",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				r := failingRun()
				s := &r.Suites[0]
				for i := range 60 {
					task := s.Tasks[1]
					task.ID = fmt.Sprintf("case-%02d", i)
					s.Tasks = append(s.Tasks, task)
				}
				term.Finish(r)
			},
			check: func(t *testing.T, out string) {
				assert.Check(t, is.Contains(out, "failing tasks (62)"))
				assert.Check(t, is.Contains(out, "… and 12 more in results.json"))
				assert.Check(t, is.Equal(strings.Count(out, "evals/refunds.yaml:"), 50))
			},
		},
		{
			name: "interrupted, single failing gate with an error",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				r := failingRun()
				r.Interrupted = true
				r.Suites = nil
				r.Regression = nil
				r.Gates = []results.Gate{{Expr: "passRate >= 0.9", Passed: false, Error: "unknown name passrate"}}
				term.Finish(r)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "\ngates\n  FAIL  passRate >= 0.9  error: unknown name passrate\n\n"+
					"evalgate: FAIL — 1 of 1 gate failed (interrupted: only finished tasks count)\n")
			},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestWhy(t *testing.T) {
	type testCase struct {
		name string
		task results.Task
		want string
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, why(&tc.task), tc.want)
	}
	testCases := []testCase{
		{name: "below the bar with nothing else to say", task: results.Task{Status: results.StatusFailed}, want: "below the bar"},
		{name: "error without a kind", task: results.Task{Status: results.StatusError}, want: "error: unknown"},
		{
			name: "checks from the trials when the task lists none",
			task: results.Task{Status: results.StatusFailed, Trials: []results.Trial{
				{Trial: 1, Checks: []results.Check{{ID: "b", Passed: false}, {ID: "a", Passed: false, Reason: "mismatch"}}},
				{Trial: 2, Checks: []results.Check{{ID: "b", Passed: false, Reason: "over-limit"}}},
			}, TrialsPassed: 0},
			want: "a (mismatch), b (over-limit); 0/2 trials passed",
		},
		{
			name: "trial errors and repeated findings by severity",
			task: results.Task{
				Status: results.StatusFailed, TrialsPassed: 1,
				Trials: []results.Trial{{Trial: 1, Passed: true}, {Trial: 2, ErrorKind: "agent-exit"}},
				Findings: []results.Finding{
					{Kind: "pii-leak", Severity: "medium"}, {Kind: "secret-leak", Severity: "critical"},
					{Kind: "pii-leak", Severity: "medium"}, {Kind: "jailbreak", Severity: "high"},
				},
			},
			want: "1/2 trials passed; trial 2 error: agent-exit; findings: critical secret-leak, high jailbreak, medium pii-leak ×2",
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
