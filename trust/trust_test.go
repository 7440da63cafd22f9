package trust

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
)

var now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func yes() *bool { b := true; return &b }

// task is a passing task with two identical trials that answered with
// usage, called a tool whose arguments were checked, and checked an
// outputSchema.
func task(id string, tags []string, faults ...string) results.Task {
	trial := results.Trial{
		Trial: 1, Status: results.StatusPassed, Passed: true, Score: 1, ToolCalls: 1, UsageReported: true,
		Tools:  []results.ToolUse{{Name: "refund", Calls: 1, Matched: 1, MaxSame: 1}},
		Checks: []results.Check{{ID: "match", Passed: true}, {ID: checkToolArgs, Passed: true}},
	}
	second := trial
	second.Trial = 2
	return results.Task{
		ID: id, Status: results.StatusPassed, Passed: true, Score: 1, Tags: tags, Faults: faults,
		SchemaValid: yes(), Idempotent: yes(), Trials: []results.Trial{trial, second},
	}
}

// fullRun has every piece of run evidence.
func fullRun() *results.Run {
	return &results.Run{
		RunID: "now", FinishedAt: now,
		Health: &results.Health{Passed: true},
		Suites: []results.Suite{{
			ID: "acme.shop.evals.trust", Version: "1.2.0", Trials: 2,
			Tools: &results.SuiteTools{Declared: 2, WithSchema: 2, SideEffect: 1},
			Tasks: []results.Task{
				task("plain", []string{"happy-path"}),
				task("tool-down", []string{"error-handling"}, "error", "raw", "timeout"),
				task("over-budget", []string{"budget-exceeded"}),
				task("loop", []string{"replan-loop"}),
				task("odd-input", []string{"edge-adversarial"}),
			},
		}},
	}
}

func fullRepo() Repo {
	return Repo{
		Owner: "@acme/support", OwnerSource: "CODEOWNERS", AgentVersion: "1.4.0",
		Changelog: "CHANGELOG.md", ChangelogEntry: true, Gates: 1,
		Attestations: []Attestation{
			{Kind: KindSecurityReview, By: "ana", Date: "2026-11-01", AgentVersion: "1.4.0"},
			{Kind: KindTL4Signoff, By: "bo", Date: "2026-11-02", AgentVersion: "1.4.0"},
		},
	}
}

// historyRun is an earlier run, days before now, with passing trials and
// the given error kinds.
func historyRun(id string, days float64, passing int, errs ...string) *results.Run {
	var trials []results.Trial
	for range passing {
		trials = append(trials, results.Trial{Status: results.StatusPassed, Passed: true})
	}
	for _, k := range errs {
		trials = append(trials, results.Trial{Status: results.StatusError, ErrorKind: k})
	}
	return &results.Run{RunID: id, FinishedAt: now.Add(-time.Duration(days * 24 * float64(time.Hour))),
		Suites: []results.Suite{{Tasks: []results.Task{{Trials: trials}}}}}
}

// TestBandEdges pins each level's rule: everything reaches TL4, and taking
// one piece of evidence away drops the level as docs/trust.md says.
func TestBandEdges(t *testing.T) {
	type testCase struct {
		name      string
		edit      func(in *Input)
		wantLevel int
		wantScore float64
		wantNext  string // a substring of Next
	}
	run := func(t *testing.T, tc testCase) {
		in := Input{Run: fullRun(), Repo: fullRepo(), History: []*results.Run{historyRun("h1", 1, 60)}}
		if tc.edit != nil {
			tc.edit(&in)
		}
		sc := Compute(in)
		dump := fmt.Sprintf("%+v", sc)
		assert.Equal(t, sc.Level, tc.wantLevel, dump)
		assert.Equal(t, sc.LevelName, Levels[tc.wantLevel].Name)
		assert.Equal(t, sc.Score, tc.wantScore, dump)
		if tc.wantNext != "" {
			assert.Check(t, is.Contains(strings.Join(sc.Next, "\n"), tc.wantNext))
		}
	}
	for _, tc := range []testCase{
		{name: "everything: TL4", wantLevel: 4, wantScore: 100},
		{name: "nothing: TL0", edit: func(in *Input) { *in = Input{Run: &results.Run{RunID: "x"}} }, wantLevel: 0, wantScore: 0,
			wantNext: "a score of 25 for TL1 Assisted"},
		{name: "no tl4 sign-off stops at TL3", edit: func(in *Input) { in.Repo.Attestations = in.Repo.Attestations[:1] },
			wantLevel: 3, wantScore: 100, wantNext: "a tl4-signoff attestation in .evalgate/trust.yaml for agent version 1.4.0"},
		{name: "a sign-off for another version does not count", edit: func(in *Input) { in.Repo.Attestations[1].AgentVersion = "1.3.0" },
			wantLevel: 3, wantScore: 100, wantNext: "tl4-signoff"},
		{name: "no history stops at TL3", edit: func(in *Input) { in.History = nil },
			wantLevel: 3, wantScore: 100, wantNext: "history with at least 50 passing trials in the last 30 days (has 0"},
		{name: "history older than 30 days does not count", edit: func(in *Input) { in.History = []*results.Run{historyRun("old", 31, 60)} },
			wantLevel: 3, wantScore: 100, wantNext: "(has 0;"},
		{name: "49 passing trials are not enough", edit: func(in *Input) { in.History = []*results.Run{historyRun("h", 2, 49)} },
			wantLevel: 3, wantScore: 100, wantNext: "(has 49;"},
		{name: "an unhandled error in history stops at TL3", edit: func(in *Input) {
			in.History = append(in.History, historyRun("h2", 3, 0, results.ErrAgentExit))
		}, wantLevel: 3, wantScore: 100, wantNext: "no unhandled error in the last 30 days of history (has 1)"},
		{name: "TL4 from the history store alone", edit: func(in *Input) {
			in.History = nil
			in.Store = []Past{{RunID: "s1", FinishedAt: now.Add(-48 * time.Hour), PassingTrials: 30}, {RunID: "s2", FinishedAt: now.Add(-24 * time.Hour), PassingTrials: 30}}
		}, wantLevel: 4, wantScore: 100},
		{name: "an unhandled error in the store within 30 days loses TL4", edit: func(in *Input) {
			in.History = nil
			in.Store = []Past{{RunID: "s1", FinishedAt: now.Add(-48 * time.Hour), PassingTrials: 60}, {RunID: "s2", FinishedAt: now.Add(-29 * 24 * time.Hour), UnhandledErrors: 1}}
		}, wantLevel: 3, wantScore: 100, wantNext: "no unhandled error in the last 30 days of history (has 1)"},
		{name: "an unhandled error in the store older than 30 days does not", edit: func(in *Input) {
			in.History = nil
			in.Store = []Past{{RunID: "s1", FinishedAt: now.Add(-48 * time.Hour), PassingTrials: 60}, {RunID: "s2", FinishedAt: now.Add(-31 * 24 * time.Hour), UnhandledErrors: 1}}
		}, wantLevel: 4, wantScore: 100},
		{name: "no owner: governance under TL4's minimum", edit: func(in *Input) { in.Repo.Owner = "" },
			wantLevel: 3, wantScore: 100, wantNext: "Governance at 18 points or more (has 15)"},
		{name: "no owner and no changelog entry: a dimension under 15 stops at TL2", edit: func(in *Input) {
			in.Repo.Owner, in.Repo.ChangelogEntry = "", false
		}, wantLevel: 2, wantScore: 97, wantNext: "Governance at 15 points or more (has 12)"},
		{name: "trials 1: idempotency unknown", edit: func(in *Input) {
			for i := range in.Run.Suites[0].Tasks {
				in.Run.Suites[0].Tasks[i].Idempotent = nil
			}
		}, wantLevel: 2, wantScore: 87, wantNext: "Idempotency at 15 points or more (has 2)"},
		{name: "no fault tasks", edit: func(in *Input) { in.Run.Suites[0].Tasks[1].Faults = nil },
			wantLevel: 3, wantScore: 96, wantNext: "Error Containment at 18 points or more (has 15)"},
		{name: "no schemas", edit: func(in *Input) {
			s := &in.Run.Suites[0]
			s.Tools.WithSchema = 0
			for i := range s.Tasks {
				s.Tasks[i].SchemaValid = nil
				for j := range s.Tasks[i].Trials {
					s.Tasks[i].Trials[j].Checks = s.Tasks[i].Trials[j].Checks[:1]
				}
			}
		}, wantLevel: 2, wantScore: 91, wantNext: "Contract Clarity at 15 points or more (has 6)"},
		{name: "a failing health command", edit: func(in *Input) { in.Run.Health = &results.Health{Message: "exit status 1"} },
			wantLevel: 3, wantScore: 100, wantNext: "Observability at 18 points or more (has 16)"},
		{name: "history adjustments: timeouts and crashes cost points", edit: func(in *Input) {
			in.History = []*results.Run{historyRun("h", 1, 10, results.ErrTimeout, results.ErrProtocol, results.ErrAgentReported)}
			in.Repo.Owner, in.Repo.ChangelogEntry = "", false // 92 before the adjustments
		}, wantLevel: 2, wantScore: 85},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestLevelBands pins the score bands and TL3's per-dimension floor.
func TestLevelBands(t *testing.T) {
	for _, tc := range []struct {
		points []int
		want   int
	}{
		{[]int{5, 5, 5, 5, 4}, 0},
		{[]int{5, 5, 5, 5, 5}, 1},
		{[]int{10, 10, 10, 10, 9}, 1},
		{[]int{10, 10, 10, 10, 10}, 2},
		{[]int{20, 20, 20, 9, 0}, 2},
		{[]int{20, 20, 20, 10, 0}, 2}, // 70, but dimensions under 15
		{[]int{15, 15, 15, 15, 10}, 2},
		{[]int{15, 15, 15, 15, 15}, 3},
		{[]int{20, 20, 20, 20, 9}, 2},
		{[]int{18, 18, 18, 18, 18}, 3}, // 90, no sign-off or history
	} {
		t.Run(fmt.Sprint(tc.points), func(t *testing.T) {
			sc := &Scorecard{}
			for i, d := range sc.Dimensions.list() {
				d.Dim.Points = tc.points[i]
				sc.Score += float64(tc.points[i])
			}
			sc.level(&Repo{})
			assert.Equal(t, sc.Level, tc.want)
		})
	}
}

func TestAdjustments(t *testing.T) {
	r := &results.Run{RunID: "now", FinishedAt: now}
	for _, tc := range []struct {
		name    string
		history []*results.Run
		store   []Past
		want    Adjustments
	}{
		{"none", nil, nil, Adjustments{}},
		{"passing trials, capped at +5", []*results.Run{historyRun("a", 1, 40), historyRun("b", 2, 30)}, nil, Adjustments{Runs: 2, PassingTrials: 70, Points: 5}},
		{"each run once", []*results.Run{historyRun("a", 1, 12), historyRun("a", 1, 12)}, nil, Adjustments{Runs: 1, PassingTrials: 12, Points: 1.2}},
		{"the run itself and later runs do not count", []*results.Run{historyRun("now", 1, 12), historyRun("later", -1, 12)}, nil, Adjustments{}},
		{"errors and timeouts", []*results.Run{historyRun("a", 29, 3, results.ErrTimeout, results.ErrAgentExit, results.ErrAgentReported, results.ErrJudge)}, nil,
			Adjustments{Runs: 1, PassingTrials: 3, UnhandledErrors: 1, Timeouts: 1, Points: -7.7}},
		{"the store's runs, a run in both once, one past 30 days not", []*results.Run{historyRun("a", 1, 12)},
			[]Past{{RunID: "a", FinishedAt: now.Add(-24 * time.Hour), PassingTrials: 12}, {RunID: "s", FinishedAt: now.Add(-48 * time.Hour), PassingTrials: 8, Timeouts: 1},
				{RunID: "old", FinishedAt: now.Add(-31 * 24 * time.Hour), UnhandledErrors: 4}},
			Adjustments{Runs: 2, PassingTrials: 20, Timeouts: 1, Points: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.DeepEqual(t, adjust(r, tc.history, tc.store), tc.want) })
	}
}

// TestObservabilityFromSpans gives an agent that speaks no protocol but
// sends OpenTelemetry spans the points of one that speaks: its spans
// show what it did.
func TestObservabilityFromSpans(t *testing.T) {
	run := fullRun()
	for i := range run.Suites[0].Tasks {
		for j := range run.Suites[0].Tasks[i].Trials {
			tr := &run.Suites[0].Tasks[i].Trials[j]
			tr.ToolCalls, tr.UsageReported, tr.Tools = 0, false, nil
		}
	}
	silent := Compute(Input{Run: run}).Dimensions.Observability
	for i := range run.Suites[0].Tasks {
		for j := range run.Suites[0].Tasks[i].Trials {
			run.Suites[0].Tasks[i].Trials[j].Spans = &results.AgentTrace{Count: 3}
		}
	}
	traced := Compute(Input{Run: run}).Dimensions.Observability
	assert.Check(t, is.Equal(traced.Points, silent.Points+4))
	assert.Check(t, is.Contains(traced.Evidence, "the agent speaks a protocol: it called tools, reported usage or sent OpenTelemetry spans (+4)"))
}

// TestScenarioEventsFromSpans: a scenario that names an event
// (error-handling: error.handled, budget-exceeded: budget.exceeded)
// counts only when every trial of its tasks that sent spans reports it,
// as a span event or a span; an agent that sends no spans is judged by
// its tasks' verdicts alone, and the other scenarios ask for no event.
func TestScenarioEventsFromSpans(t *testing.T) {
	spans := func(events []string, spanNames ...string) *results.AgentTrace {
		a := &results.AgentTrace{Count: 1 + len(spanNames)}
		a.List = append(a.List, results.AgentSpan{Name: "invoke_agent a"})
		for _, s := range spanNames {
			a.List = append(a.List, results.AgentSpan{Name: s})
		}
		for _, e := range events {
			a.Events = append(a.Events, results.EventCount{Name: e, Count: 1})
		}
		return a
	}
	for _, tc := range []struct {
		name    string
		task    string // the task whose trials get the spans
		first   *results.AgentTrace
		second  *results.AgentTrace
		points  int
		failed  bool   // the task did not pass
		has     string // a line of the dimension's evidence or missing
		missing bool
	}{
		{name: "no spans: judged as before", task: "tool-down", points: 20, has: "scenario error-handling: 1 task, passing (+2)"},
		{name: "error.handled as a span event", task: "tool-down", first: spans([]string{"tool.failed", "error.handled"}), second: spans([]string{"error.handled"}),
			points: 20, has: "scenario error-handling: 1 task, passing; the spans sent report error.handled (+2)"},
		{name: "budget.exceeded as a span's name", task: "over-budget", first: spans(nil, "budget.exceeded"), second: spans(nil, "budget.exceeded"),
			points: 20, has: "scenario budget-exceeded: 1 task, passing; the spans sent report budget.exceeded (+2)"},
		{name: "one trial without the event", task: "tool-down", first: spans([]string{"error.handled"}), second: spans([]string{"tool.failed"}),
			points: 18, has: "scenario error-handling: the spans of [acme.shop.evals.trust/tool-down] have no error.handled event (+2)", missing: true},
		{name: "a trial with spans and one without: only the first is asked", task: "over-budget", first: spans([]string{"budget.exceeded"}),
			points: 20, has: "scenario budget-exceeded: 1 task, passing; the spans sent report budget.exceeded (+2)"},
		{name: "budget-exceeded without its event", task: "over-budget", first: spans([]string{"error.handled"}), second: spans(nil),
			points: 18, has: "scenario budget-exceeded: the spans of [acme.shop.evals.trust/over-budget] have no budget.exceeded event (+2)", missing: true},
		{name: "an empty trace asks for nothing", task: "tool-down", first: &results.AgentTrace{}, second: &results.AgentTrace{},
			points: 20, has: "scenario error-handling: 1 task, passing (+2)"},
		{name: "failing and without its event: both said", task: "tool-down", first: spans(nil), second: spans(nil), failed: true,
			points: 13, has: "scenario error-handling: [acme.shop.evals.trust/tool-down] did not pass; the spans of [acme.shop.evals.trust/tool-down] have no error.handled event (+2)", missing: true},
		{name: "replan-loop names no event", task: "loop", first: spans(nil), second: spans(nil),
			points: 20, has: "scenario replan-loop: 1 task, passing (+2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := fullRun()
			for i := range run.Suites[0].Tasks {
				task := &run.Suites[0].Tasks[i]
				if task.ID == tc.task {
					task.Trials[0].Spans, task.Trials[1].Spans = tc.first, tc.second
					task.Passed = !tc.failed
				}
			}
			d := Compute(Input{Run: run}).Dimensions.ErrorContainment
			assert.Check(t, is.Equal(d.Points, tc.points), "%+v", d)
			lines := d.Evidence
			if tc.missing {
				lines = d.Missing
			}
			assert.Check(t, is.Contains(lines, tc.has), "%+v", d)
		})
	}
}
