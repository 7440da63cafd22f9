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

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// passingRun is resultstest.Failing after the fixes: every gate holds.
func passingRun() *results.Run {
	r := resultstest.Failing()
	r.Passed = true
	r.Regression = nil
	greeting := resultstest.Greeting()
	r.Suites = []results.Suite{greeting}
	r.Gates = []results.Gate{
		{Expr: "aggregateScore >= 0.9", Passed: true, Values: map[string]any{"aggregateScore": 1.0}},
		{Expr: `suites["acme.support.evals.greeting"].passed`, Default: true, Passed: true},
		{Expr: "findings.critical + findings.high == 0", Default: true, Passed: true,
			Values: map[string]any{"findings.critical": 0.0, "findings.high": 0.0}},
	}
	return r
}

// failingRunWithMessages is resultstest.Failing with the errored task's message, as
// a run of this version writes it.
func failingRunWithMessages() *results.Run {
	r := resultstest.Failing()
	slow := &r.Suites[0].Tasks[2]
	slow.ErrorMessage = "timed out after 2s"
	slow.Trials[0].ErrorMessage = slow.ErrorMessage
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
		refunds, greeting := resultstest.Refunds(), resultstest.Greeting()
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
		term.Finish(failingRunWithMessages())
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
				s := resultstest.Greeting()
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
				s := resultstest.Greeting()
				term.SuiteDone(&s)
				term.Finish(passingRun())
			},
			golden: "terminal-pass.golden",
		},
		{
			name: "limits broken",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				s := resultstest.Refunds()
				s.AggregateScore = 0.8996
				s.TotalCostUsd = 0.75
				s.P95LatencyMs = 61_500
				term.SuiteDone(&s)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "FAIL acme.support.evals.refunds 1.0.0  score 0.8996 (< 0.9000)  1/3 passed  1 task failed  1 error  2 findings (1 high, 1 low)  $0.7500 (> $0.5000)  p95 1m2s (> 2.0s)\n")
			},
		},
		{
			// The suite meets its bar, but not every task passed: the line
			// says so rather than a bare PASS.
			name: "passing suite with failing tasks and findings",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				s := resultstest.Refunds()
				s.Passed = true
				s.Thresholds = results.Thresholds{PassScore: 0.9}
				s.Stats = results.Stats{AggregateScore: 0.92, PassedCount: 9, TaskCount: 12, ErroredCount: 0, Findings: results.Findings{Critical: 1}, UserCostUsd: 0.0042}
				term.SuiteStarted(&s, 12)
				term.SuiteDone(&s)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "PASS acme.support.evals.refunds 1.0.0  score 0.92 (>= 0.90)  9/12 passed  3 tasks failed  1 critical finding  $0.0000 + $0.0042 user  p95 0ms\n")
			},
		},
		{
			// An interrupted run completes its suites with what finished: a
			// suite cut short has no verdict, and one that never started
			// prints nothing.
			name: "partial suites",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				refunds, greeting := resultstest.Refunds(), resultstest.Greeting()
				term.SuiteStarted(&refunds, 5)
				term.SuiteDone(&refunds)
				greeting.Tasks, greeting.TaskCount = nil, 0
				term.SuiteStarted(&greeting, 4)
				term.SuiteDone(&greeting)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "PARTIAL acme.support.evals.refunds 1.0.0  3 of 5 tasks ran  1/3 passed  1 task failed  1 error  2 findings (1 high, 1 low)  $0.0123 (<= $0.5000)  p95 840ms (<= 2.0s)\n")
			},
		},
		{
			name: "a suite whose every task ran is whole",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				s := resultstest.Greeting()
				term.SuiteStarted(&s, 1)
				term.SuiteDone(&s)
			},
			check: func(t *testing.T, out string) {
				assert.Check(t, strings.HasPrefix(out, "PASS acme.support.evals.greeting"), out)
			},
		},
		{
			name: "colour only where told, whatever the environment",
			opts: TerminalOptions{Color: false},
			steps: func(term *Terminal, _ *testClock) {
				saved := color.NoColor
				color.NoColor = false
				defer func() { color.NoColor = saved }()
				term.Finish(resultstest.Failing())
			},
			check: func(t *testing.T, out string) {
				assert.Check(t, !strings.Contains(out, "\x1b"))
			},
		},
		{
			name: "long failing list cut short",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				r := resultstest.Failing()
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
			name: "interrupted: no gates, no verdict, the tasks that never ran",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				r := passingRun()
				r.Passed = false
				r.Interrupted = true
				s := r.Suites[0]
				term.SuiteStarted(&s, 3)
				other := resultstest.Refunds()
				term.SuiteStarted(&other, 4)
				r.Suites = append(r.Suites, other)
				r.Suites[1].Tasks, r.Suites[1].TaskCount = nil, 0
				term.Finish(r)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "\nevalgate: INTERRUPTED — 6 of 7 tasks never ran; no verdict\n")
			},
		},
		{
			name: "interrupted, not told what was selected (merge)",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				r := passingRun()
				r.Passed = false
				r.Interrupted = true
				term.Finish(r)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "\nevalgate: INTERRUPTED — only the tasks that finished are in the results; no verdict\n")
			},
		},
		{
			name: "one failed gate with an error",
			opts: TerminalOptions{Quiet: true},
			steps: func(term *Terminal, _ *testClock) {
				r := passingRun()
				r.Passed = false
				r.Gates = []results.Gate{{Expr: "passRate >= 0.9", Passed: false, Error: "unknown name passrate"}}
				term.Finish(r)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "evalgate: FAIL — gate passRate >= 0.9 could not be evaluated (unknown name passrate)\n")
			},
		},
		{
			// The suites gate read a flag per suite: the one that holds
			// does not explain the failure and is left out.
			name: "one failed gate names what it read",
			opts: TerminalOptions{Quiet: true},
			steps: func(term *Terminal, _ *testClock) {
				r := passingRun()
				r.Passed = false
				r.Gates = []results.Gate{
					{Expr: "all(suiteList, .passed)", Default: true, Passed: false, Values: map[string]any{
						`suites["acme.a.evals.x"].passed`: true, `suites["acme.b.evals.y"].passed`: false,
					}},
					{Expr: "findings.critical + findings.high == 0", Default: true, Passed: true},
				}
				term.Finish(r)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "evalgate: FAIL — gate all(suiteList, .passed) failed (suites[\"acme.b.evals.y\"].passed=false)\n")
			},
		},
		{
			name: "several failed gates, named compactly",
			opts: TerminalOptions{Quiet: true},
			steps: func(term *Terminal, _ *testClock) {
				r := passingRun()
				r.Passed = false
				r.Gates = nil
				for _, e := range []string{"a > 1", "b > 1", "c > 1", "d > 1", "e > 1"} {
					r.Gates = append(r.Gates, results.Gate{Expr: e})
				}
				r.Gates = append(r.Gates, results.Gate{Expr: "ok", Passed: true})
				term.Finish(r)
			},
			check: func(t *testing.T, out string) {
				assert.Equal(t, out, "evalgate: FAIL — 5 of 6 gates failed: a > 1; b > 1; c > 1; and 2 more\n")
			},
		},
		{
			name: "errored tasks with transcripts on point to them",
			opts: TerminalOptions{Transcripts: "evalgate-out/transcripts"},
			steps: func(term *Terminal, _ *testClock) {
				term.Finish(failingRunWithMessages())
			},
			check: func(t *testing.T, out string) {
				assert.Check(t, is.Contains(out, "error: timeout (timed out after 2s)\n  the agent's stderr and output are in evalgate-out/transcripts\n"))
				assert.Check(t, !strings.Contains(out, "--transcripts"))
			},
		},
		{
			name: "no errored task, no hint",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				r := resultstest.Failing()
				r.Suites[0].Tasks = r.Suites[0].Tasks[:2]
				term.Finish(r)
			},
			check: func(t *testing.T, out string) {
				assert.Check(t, !strings.Contains(out, "--transcripts"), out)
			},
		},
		{
			name: "lines after final are warned about, task by task",
			opts: TerminalOptions{},
			steps: func(term *Terminal, _ *testClock) {
				r := passingRun()
				r.Suites = []results.Suite{resultstest.Refunds()}
				r.Suites[0].Tasks[0].LinesAfterFinal = 1
				r.Suites[0].Tasks[1].LinesAfterFinal = 3
				for i := range 11 {
					task := r.Suites[0].Tasks[0]
					task.ID = fmt.Sprintf("chatty-%02d", i)
					r.Suites[0].Tasks = append(r.Suites[0].Tasks, task)
				}
				term.Finish(r)
			},
			check: func(t *testing.T, out string) {
				assert.Check(t, is.Contains(out, "warning: acme.support.evals.refunds/refund-window (evals/refunds.yaml:12): the agent wrote 1 line after final; it was ignored\n"))
				assert.Check(t, is.Contains(out, "warning: acme.support.evals.refunds/late-fee (evals/refunds.yaml:31): the agent wrote 3 lines after final; they were ignored\n"))
				assert.Check(t, is.Equal(strings.Count(out, "after final; "), maxWarnings))
				assert.Check(t, is.Contains(out, "warning: … and 3 more tasks with lines after final (linesAfterFinal in results.json)\n"))
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
			name: "error with its message",
			task: results.Task{Status: results.StatusError, ErrorKind: "protocol", ErrorMessage: "line 1 is not JSON"},
			want: "error: protocol (line 1 is not JSON)",
		},
		{
			name: "a message cannot break the line",
			task: results.Task{Status: results.StatusError, ErrorKind: "agent-exit", ErrorMessage: "exit status 2\n::error::x\x1b[31m"},
			want: `error: agent-exit (exit status 2\n::error::x\x1b[31m)`,
		},
		{
			name: "trials that erred otherwise",
			task: results.Task{
				Status: results.StatusError, ErrorKind: "timeout", ErrorMessage: "timed out after 5s",
				Trials: []results.Trial{
					{Trial: 1, ErrorKind: "timeout", ErrorMessage: "timed out after 5s"},
					{Trial: 2, ErrorKind: "protocol", ErrorMessage: "line 3 is not JSON"},
				},
			},
			want: "error: timeout (timed out after 5s); 0/2 trials passed; trial 2 error: protocol (line 3 is not JSON)",
		},
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

// TestHeartbeat: in a CI log the progress line comes only after the log has
// been silent for HeartbeatSilence, counted from the start, the last suite
// line or the last progress line; never on a live terminal or when quiet.
func TestHeartbeat(t *testing.T) {
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	type tick struct {
		at    time.Duration // after start
		suite bool          // a suite line is printed at this time instead
		want  bool          // a progress line is printed
	}
	tests := []struct {
		name        string
		live, quiet bool
		ticks       []tick
	}{
		{name: "silent from the start", ticks: []tick{{at: 29 * time.Second}, {at: 30 * time.Second, want: true}, {at: 59 * time.Second}, {at: 60 * time.Second, want: true}}},
		{name: "a suite line resets the silence", ticks: []tick{{at: 20 * time.Second, suite: true}, {at: 30 * time.Second}, {at: 49 * time.Second}, {at: 50 * time.Second, want: true}}},
		{name: "live terminal", live: true, ticks: []tick{{at: time.Hour}}},
		{name: "quiet", quiet: true, ticks: []tick{{at: time.Hour}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := start
			var out bytes.Buffer
			term := NewTerminal(TerminalOptions{Out: &out, Live: tc.live, Quiet: tc.quiet, Tasks: 2, Clock: func() time.Time { return now }})
			for _, k := range tc.ticks {
				now = start.Add(k.at)
				if k.suite {
					term.SuiteDone(&resultstest.Failing().Suites[0])
					out.Reset()
					continue
				}
				term.Heartbeat(now)
				got := strings.Contains(out.String(), "progress: ")
				assert.Check(t, got == k.want, "at %v: printed %q", k.at, out.String())
				out.Reset()
			}
		})
	}
}
