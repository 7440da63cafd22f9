package assess_test

import (
	"math"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/results"
)

// task builds a task result: status from passed/errored, one trial per
// entry of trials (score, passed), metadata when given.
type task struct {
	passed, errored bool
	score           float64
	latencyMs       int64
	failedChecks    int
	findings        []string // severities
	checks          []results.Check
	trials          []results.Trial
	domain, cat     string
	complexity      int
	autonomy        *int
	tools           []results.ToolUse
}

func (tc task) build() results.Task {
	t := results.Task{Score: tc.score, Passed: tc.passed, LatencyMs: tc.latencyMs, Status: results.StatusFailed}
	switch {
	case tc.errored:
		t.Status = results.StatusError
	case tc.passed:
		t.Status = results.StatusPassed
	}
	for i := range tc.failedChecks {
		t.FailedChecks = append(t.FailedChecks, "check"+string(rune('a'+i)))
	}
	for _, sev := range tc.findings {
		t.Findings = append(t.Findings, results.Finding{Kind: "k", Severity: sev})
	}
	t.Trials = tc.trials
	if t.Trials == nil {
		t.Trials = []results.Trial{{Score: tc.score, Passed: tc.passed, Checks: tc.checks, Tools: tc.tools}}
	}
	if tc.domain != "" || tc.cat != "" || tc.complexity != 0 || tc.autonomy != nil {
		t.Metadata = &results.Metadata{Domain: tc.domain, Category: tc.cat, Complexity: tc.complexity, AutonomyLevel: tc.autonomy}
	}
	return t
}

func runOf(tasks ...task) *results.Run {
	s := results.Suite{ID: "a.evals.b"}
	for _, tc := range tasks {
		s.Tasks = append(s.Tasks, tc.build())
	}
	return &results.Run{Suites: []results.Suite{s}}
}

func repeat(n int, tc task) []task {
	out := make([]task, n)
	for i := range out {
		out[i] = tc
	}
	return out
}

const tol = 1e-12

func value(t *testing.T, a *assess.Assessment, axis, name string) *float64 {
	t.Helper()
	ax := a.Performance
	if axis == assess.Capability {
		ax = a.Capability
	}
	d := ax.Dimension(name)
	assert.Assert(t, d != nil, name)
	return d.Value
}

func near(t *testing.T, got *float64, want float64) {
	t.Helper()
	assert.Assert(t, got != nil, "want %v, got null", want)
	assert.Assert(t, is.Equal(true, *got > want-tol && *got < want+tol), "want %v, got %v", want, *got)
}

func reason(t *testing.T, a *assess.Assessment, axis, name string) string {
	t.Helper()
	ax := a.Performance
	if axis == assess.Capability {
		ax = a.Capability
	}
	d := ax.Dimension(name)
	if d.Value != nil {
		t.Fatalf("%s: want null, got %v", name, *d.Value)
	}
	return d.Reason
}

// TestPerformance pins each performance formula on a hand-computed run.
func TestPerformance(t *testing.T) {
	run := runOf(
		// passed, complexity 1, 2500 ms of 5000: speed clamp(2-0.5)=1
		task{passed: true, score: 1, latencyMs: 2500, complexity: 1, checks: []results.Check{
			{Kind: "toolCalled", Passed: true}, {Kind: "exact", Passed: true}}},
		// failed at 0.5, no complexity (30000 ms): speed 2-1.5=0.5
		task{score: 0.5, latencyMs: 45000, failedChecks: 1, checks: []results.Check{
			{Kind: "toolOrder", Passed: false}, {Kind: "outputSchema", Passed: true}}},
		// errored: counts in the completion rate's denominator only
		task{errored: true, latencyMs: 999999, failedChecks: 3, findings: []string{"critical"}},
	)
	a := assess.Assess([]*results.Run{run}, assess.Options{})
	// (1 + 0.5) / 3
	near(t, value(t, a, assess.Performance, assess.TaskCompletionRate), 0.5)
	// 0.6·(1 − 1/2) + 0.4·(1 − min(1, 1/2))
	near(t, value(t, a, assess.Performance, assess.Accuracy), 0.5)
	// (1 + 0.5) / 2
	near(t, value(t, a, assess.Performance, assess.Speed), 0.75)
	// 2 of 3 process checks passed; exact is not one
	near(t, value(t, a, assess.Performance, assess.ReviewCompliance), 2.0/3)
	assert.Equal(t, reason(t, a, assess.Performance, assess.Consistency),
		"no group of tasks (category, else domain, by complexity) holds 5 tasks; the largest holds 2")
	// renormalised without consistency: (.25·.5 + .25·.5 + .15·.75 + .15·2/3) / .8
	near(t, a.Performance.Score, 0.578125)
	assert.Equal(t, a.Performance.Tier.Name, "Competent")
	assert.Equal(t, a.Performance.Tier.Colour, "#4CAF50")
	assert.Assert(t, a.Performance.Provisional)
	// Nothing for capability: every dimension null, no composite.
	assert.Assert(t, a.Capability.Score == nil)
	assert.Equal(t, a.Capability.Tier.Name, "")
	assert.Equal(t, reason(t, a, assess.Capability, assess.DomainBreadth), "no task carries a domain")
	assert.Equal(t, reason(t, a, assess.Capability, assess.ComplexityCeiling), "no complexity level has 3 tasks")
	assert.Equal(t, reason(t, a, assess.Capability, assess.AutonomyLevel), "no task carries autonomyLevel")
	assert.Equal(t, reason(t, a, assess.Capability, assess.LearningRate), "no history")
	assert.Equal(t, reason(t, a, assess.Capability, assess.ToolProficiency), "no tool was called")
	assert.Equal(t, reason(t, a, assess.Capability, assess.DelegationCapability), "0 tasks of category delegation; 3 needed")
}

func TestAccuracyFindings(t *testing.T) {
	// completed 2, revised 1; weighted = 1 check + 3·1 high + 0.5·2 = 5 → min(1, 5/2) = 1
	run := runOf(
		task{passed: true, score: 1},
		task{score: 0.2, failedChecks: 1, findings: []string{"high", "medium", "low"}},
	)
	a := assess.Assess([]*results.Run{run}, assess.Options{})
	near(t, value(t, a, assess.Performance, assess.Accuracy), 0.3)
	d := a.Performance.Dimension(assess.Accuracy)
	assert.DeepEqual(t, d.Evidence, map[string]int{"completed": 2, "revised": 1, "failedChecks": 1, "criticalHighFindings": 1, "mediumLowFindings": 2})
}

func TestSpeedLatencyBaseline(t *testing.T) {
	run := runOf(task{passed: true, score: 1, latencyMs: 1500, complexity: 2})
	// 2 − 1500/1000 = 0.5 with level 2 set to 1000 ms
	a := assess.Assess([]*results.Run{run}, assess.Options{LatencyBaselineMs: map[int]float64{2: 1000}})
	near(t, value(t, a, assess.Performance, assess.Speed), 0.5)
}

func TestConsistency(t *testing.T) {
	trial := func(score float64, passed bool) []results.Trial {
		return []results.Trial{{Score: score, Passed: passed}}
	}
	cases := []struct {
		name  string
		tasks []task
		want  float64
	}{
		{
			// scores and passes 1,1,1,1,0: mean .8, std .4, cv .5 each → 1 − .5
			name: "one group",
			tasks: append(repeat(4, task{passed: true, score: 1, cat: "c", complexity: 2}),
				task{score: 0, cat: "c", complexity: 2, trials: trial(0, false)}),
			want: 0.5,
		},
		{
			// the group above (0.5 over 5 tasks) and one of 6 steady tasks (1):
			// (5·.5 + 6·1) / 11; the 4 tasks of domain d at level 1 are left out
			name: "weighted by task count",
			tasks: append(append(append(repeat(4, task{passed: true, score: 1, cat: "c", complexity: 2}),
				task{score: 0, cat: "c", complexity: 2, trials: trial(0, false)}),
				repeat(6, task{passed: true, score: 1, domain: "d", complexity: 3})...),
				repeat(4, task{score: 0.3, domain: "d", complexity: 1})...),
			want: 8.5 / 11,
		},
		{
			// every trial scores 0: a mean of 0 gives cv 1
			name:  "mean zero",
			tasks: repeat(5, task{score: 0}),
			want:  0,
		},
		{
			// one task with two trials among five: scores .5,1 and 1×4 (six trials)
			name: "trials",
			tasks: append(repeat(4, task{passed: true, score: 1}),
				task{score: 0.75, trials: []results.Trial{{Score: 0.5}, {Score: 1, Passed: true}}}),
			want: 1 - (0.6*cvOf(0.5, 1, 1, 1, 1, 1) + 0.4*cvOf(0, 1, 1, 1, 1, 1)),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := assess.Assess([]*results.Run{runOf(c.tasks...)}, assess.Options{})
			near(t, value(t, a, assess.Performance, assess.Consistency), c.want)
		})
	}
}

// cvOf is the coefficient of variation written out for the test.
func cvOf(xs ...float64) float64 {
	var m, ss float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	v := ss / float64(len(xs))
	// Newton's method, so the test does not borrow the code's math.Sqrt path.
	s := v
	for range 60 {
		if s == 0 {
			break
		}
		s = (s + v/s) / 2
	}
	return s / m
}

func TestToolProficiency(t *testing.T) {
	search := func(calls, matched, errors, repeats int) results.ToolUse {
		return results.ToolUse{Name: "search", Calls: calls, Matched: matched, Errors: errors, Repeats: repeats}
	}
	cases := []struct {
		name   string
		tasks  []task
		want   *float64
		reason string
	}{
		{
			// correct 9/10, recovery 1 of 2 error trials passed, unnecessary 1/10:
			// .5·.9 + .3·.5 + .2·.9 = .78
			name: "with recovery",
			tasks: []task{
				{passed: true, score: 1, tools: []results.ToolUse{search(6, 5, 1, 1)}},
				{score: 0, tools: []results.ToolUse{search(4, 4, 1, 0)}},
			},
			want: ptr(0.78),
		},
		{
			// no error: recovery left out, (.5·.8 + .2·(1 − .2)) / .7
			name: "recovery left out",
			tasks: []task{
				{passed: true, score: 1, tools: []results.ToolUse{search(10, 8, 0, 2)}},
			},
			want: ptr((0.5*0.8 + 0.2*0.8) / 0.7),
		},
		{
			// search as in "with recovery" (.78) and fetch, 10 clean calls (1);
			// lookup, 9 calls, is left out
			name: "mean over tools",
			tasks: []task{
				{passed: true, score: 1, tools: []results.ToolUse{search(6, 5, 1, 1), {Name: "fetch", Calls: 10, Matched: 10}, {Name: "lookup", Calls: 9}}},
				{score: 0, tools: []results.ToolUse{search(4, 4, 1, 0)}},
			},
			want: ptr((0.78 + 1) / 2),
		},
		{
			name:   "under 10 calls",
			tasks:  []task{{passed: true, score: 1, tools: []results.ToolUse{search(9, 9, 0, 0)}}},
			reason: "no tool was called 10 times; the most is search with 9",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := assess.Assess([]*results.Run{runOf(c.tasks...)}, assess.Options{})
			if c.want == nil {
				assert.Equal(t, reason(t, a, assess.Capability, assess.ToolProficiency), c.reason)
				return
			}
			near(t, value(t, a, assess.Capability, assess.ToolProficiency), *c.want)
		})
	}
}

func ptr(x float64) *float64 { return &x }

func intp(x int) *int { return &x }

// failing is a task that fails outright: P of such tasks alone is
// (.25·0 + .25·0 + .15·1) / .65 = 0.2307…, below every bar.
var failing = task{score: 0, failedChecks: 1}

var passing = task{passed: true, score: 1}

func with(tc task, f func(*task)) task { f(&tc); return tc }

func TestDomainBreadth(t *testing.T) {
	tasks := append(append(
		repeat(3, with(passing, func(t *task) { t.domain = "code" })),
		repeat(3, with(failing, func(t *task) { t.domain = "research" }))...),
		repeat(2, with(passing, func(t *task) { t.domain = "legal" }))...)
	a := assess.Assess([]*results.Run{runOf(tasks...)}, assess.Options{})
	// code reaches 0.40; research (0.23) does not; legal has 2 tasks: 1/12
	near(t, value(t, a, assess.Capability, assess.DomainBreadth), 1.0/12)
	// a taxonomy of its own
	a = assess.Assess([]*results.Run{runOf(tasks...)}, assess.Options{Taxonomy: []string{"code", "research"}})
	near(t, value(t, a, assess.Capability, assess.DomainBreadth), 0.5)
	a = assess.Assess([]*results.Run{runOf(tasks[6:]...)}, assess.Options{})
	assert.Equal(t, reason(t, a, assess.Capability, assess.DomainBreadth), "no domain of the taxonomy has 3 tasks; the most is legal with 2")
}

func TestCeilings(t *testing.T) {
	at := func(tc task, level int) task {
		return with(tc, func(t *task) { t.complexity = level; t.autonomy = intp(min(level, 3)) })
	}
	tasks := append(append(append(
		repeat(3, at(passing, 2)),
		repeat(3, at(failing, 4))...),
		repeat(2, at(passing, 5))...),
		repeat(3, at(passing, 1))...)
	a := assess.Assess([]*results.Run{runOf(tasks...)}, assess.Options{})
	// level 2 is the highest with 3 tasks and P ≥ .6: 2/5
	near(t, value(t, a, assess.Capability, assess.ComplexityCeiling), 0.4)
	// autonomy: levels 1 and 2 (3 passing tasks each) and 3 (3 failing, 2 passing)
	got := value(t, a, assess.Capability, assess.AutonomyLevel)
	assert.Assert(t, got != nil)
	// at autonomy 3: 5 tasks, 2 passed, 3 failed at 0 with a failed check each:
	// completion .4; accuracy .6·.4 + .4·(1 − 3/5) = .4; speed 1; no
	// consistency (complexity 4 and 5 are two groups, of 3 and 2 tasks)
	// P = (.25·.4 + .25·.4 + .15·1) / .65 = .5384… < .6, so the ceiling is 2
	near(t, got, 2.0/3)

	// no level reaches the bar: 0, not null
	a = assess.Assess([]*results.Run{runOf(repeat(3, at(failing, 4))...)}, assess.Options{})
	near(t, value(t, a, assess.Capability, assess.ComplexityCeiling), 0)
	// autonomy 0 reached is 0/3
	a = assess.Assess([]*results.Run{runOf(repeat(3, with(passing, func(t *task) { t.autonomy = intp(0) }))...)}, assess.Options{})
	near(t, value(t, a, assess.Capability, assess.AutonomyLevel), 0)
}

func TestLearningRate(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	// P(now) = 1: every task passed, no check failed, latency 0
	run := runOf(repeat(3, passing)...)
	hist := []assess.HistoryEntry{
		{Time: day(6), Performance: ptr(0.1)}, // the sixth: left out
		{Time: day(2), Performance: ptr(0.7)},
		{Time: day(1), Performance: ptr(0.9)},
		{Time: day(3), Performance: ptr(0.8)},
		{Time: day(4), Performance: ptr(0.8)},
		{Time: day(5), Performance: ptr(0.8)},
		{Time: day(7)}, // no composite: skipped
	}
	a := assess.Assess([]*results.Run{run}, assess.Options{History: hist})
	// (1 − 0.8) / 0.30
	near(t, value(t, a, assess.Capability, assess.LearningRate), 0.2/0.3)
	// clamped to 0 when worse
	a = assess.Assess([]*results.Run{run}, assess.Options{History: []assess.HistoryEntry{{Time: day(1), Performance: ptr(1)}}})
	near(t, value(t, a, assess.Capability, assess.LearningRate), 0)
	// a results.json as history: its own P
	h := assess.FromRun("old.json", runOf(failing, failing, failing), assess.Options{})
	near(t, h.Performance, 0.15/0.65)
}

func TestCategories(t *testing.T) {
	tasks := append(repeat(3, with(passing, func(t *task) { t.cat = "delegation" })),
		repeat(2, with(passing, func(t *task) { t.cat = "orchestration" }))...)
	a := assess.Assess([]*results.Run{runOf(tasks...)}, assess.Options{})
	near(t, value(t, a, assess.Capability, assess.DelegationCapability), 1)
	assert.Equal(t, reason(t, a, assess.Capability, assess.OrchestrationSkills), "2 tasks of category orchestration; 3 needed")
	// capability composite over the two measured dimensions: delegation 1 and
	// complexity... none; domain none: (.15·1) / .15
	near(t, a.Capability.Score, 1)
	assert.Equal(t, a.Capability.Tier.Name, "Full-Stack")
}

func TestWeights(t *testing.T) {
	run := runOf(passing, task{score: 0.5, latencyMs: 90000})
	// completion .75, accuracy .6·.5 + .4·1 = .7, speed (1 + 0)/2 = .5,
	// review and consistency null. Only speed weighs: .5
	a := assess.Assess([]*results.Run{run}, assess.Options{Weights: map[string]float64{assess.TaskCompletionRate: 0, assess.Accuracy: 0}})
	near(t, a.Performance.Score, 0.5)
	assert.Equal(t, a.Performance.Dimension(assess.Speed).Weight, 0.15)
}

func TestProvisional(t *testing.T) {
	for _, c := range []struct {
		n          int
		perf, capa bool
	}{{19, true, true}, {20, false, true}, {29, false, true}, {30, false, false}} {
		a := assess.Assess([]*results.Run{runOf(repeat(c.n, passing)...)}, assess.Options{})
		assert.Equal(t, a.Performance.Provisional, c.perf, c.n)
		assert.Equal(t, a.Capability.Provisional, c.capa, c.n)
	}
}

// TestShards: several runs are assessed as one.
func TestShards(t *testing.T) {
	a := assess.Assess([]*results.Run{runOf(passing), runOf(task{score: 0.5})}, assess.Options{})
	assert.Equal(t, a.Tasks, 2)
	near(t, value(t, a, assess.Performance, assess.TaskCompletionRate), 0.75)
}

// TestTiers: the bounds are inclusive, within 1e-9.
func TestTiers(t *testing.T) {
	cases := []struct {
		axis  string
		score float64
		want  string
	}{
		{assess.Performance, 0, "Novice"},
		{assess.Performance, 0.3999, "Novice"},
		{assess.Performance, 0.40, "Competent"},
		{assess.Performance, 0.1 + 0.2 + 0.1, "Competent"}, // 0.4000000000000001
		{assess.Performance, 0.6 - 1e-12, "Proficient"},    // rounding below the bound
		{assess.Performance, 0.6 - 1e-8, "Competent"},
		{assess.Performance, 0.60, "Proficient"},
		{assess.Performance, 0.75, "Expert"},
		{assess.Performance, 0.90, "Elite"},
		{assess.Performance, 1, "Elite"},
		{assess.Capability, 0.2999, "Narrow"},
		{assess.Capability, 0.30, "Functional"},
		{assess.Capability, 0.50, "Versatile"},
		{assess.Capability, 0.7 - 1e-12, "Specialist"},
		{assess.Capability, 0.70, "Specialist"},
		{assess.Capability, 0.85, "Full-Stack"},
	}
	for _, c := range cases {
		assert.Equal(t, assess.TierOf(c.axis, c.score).Name, c.want, "%s %v", c.axis, c.score)
	}
	colours := []string{}
	for _, tier := range assess.Tiers[assess.Capability] {
		colours = append(colours, tier.Colour)
	}
	assert.DeepEqual(t, colours, []string{"#9E9E9E", "#4CAF50", "#2196F3", "#9C27B0", "#FFD700"})
}

func TestCompare(t *testing.T) {
	now := assess.Assess([]*results.Run{runOf(repeat(60, passing)...)}, assess.Options{})
	base := &results.Assessment{TaskCount: 10,
		Performance: results.AssessmentAxis{Score: ptr(0.84)},
		Capability:  results.AssessmentAxis{}}
	now.Compare("r0", base)
	s := now.Summary()
	near(t, s.Performance.Delta, 0.16)
	assert.Assert(t, s.Performance.Flagged)
	assert.Assert(t, s.Capability.Delta == nil)
	assert.Equal(t, s.TasksAdded, 50)
	assert.Equal(t, s.BaselineRunID, "r0")
	// exactly 0.15 (computed as 0.15000000000000002) is not flagged
	assert.Assert(t, !assess.Flagged(ptr(0.75-0.6)))
	assert.Assert(t, assess.Flagged(ptr(-0.151)))
}

// TestWindow: with a history store's window, learning_rate is the slope of
// the performance composite over the window's runs and this one, and
// consistency is measured across the runs; each is null, with its reason,
// while the window is too short.
func TestWindow(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, 1+d, 0, 0, 0, 0, time.UTC) }
	// P(now) = 1: every task passed, no check failed, latency 0, and
	// across runs that all scored 1, consistency 1.
	run := runOf(repeat(3, passing)...)
	steady := func(d int, p float64) assess.WindowRun {
		return assess.WindowRun{Time: day(d), Score: 1, PassRate: 1, Performance: ptr(p)}
	}
	w := &assess.Window{Runs: []assess.WindowRun{steady(0, 0.90), steady(1, 0.92), steady(2, 0.93), steady(3, 0.95)}}
	a := assess.Assess([]*results.Run{run}, assess.Options{Window: w, Now: day(4)})
	near(t, value(t, a, assess.Performance, assess.Consistency), 1)
	// By hand: x = 0..4 days, y = .90 .92 .93 .95 1; mean x 2, mean y .94;
	// Σ(x−2)(y−.94) = .08+.02+0+.01+.12 = .23, Σ(x−2)² = 10: slope .023 a
	// day, over 4 days .092, / 0.30.
	near(t, value(t, a, assess.Capability, assess.LearningRate), 0.092/0.30)
	assert.Equal(t, a.Capability.Dimension(assess.LearningRate).Evidence["runs"], 5)

	// A run of the window without a composite is left out of the slope.
	w.Runs = append([]assess.WindowRun{{Time: day(0), Score: 1, PassRate: 1}}, w.Runs...)
	a = assess.Assess([]*results.Run{run}, assess.Options{Window: w, Now: day(4)})
	near(t, value(t, a, assess.Capability, assess.LearningRate), 0.092/0.30)

	// Across runs: the run itself (1, 1) and the window's scores and pass
	// rates; population standard deviation over the mean.
	mixed := &assess.Window{Runs: []assess.WindowRun{
		{Time: day(0), Score: 0.8, PassRate: 0.5}, {Time: day(1), Score: 0.6, PassRate: 0.5},
		{Time: day(2), Score: 1, PassRate: 1}, {Time: day(3), Score: 0.8, PassRate: 0.5},
	}}
	a = assess.Assess([]*results.Run{run}, assess.Options{Window: mixed, Now: day(4)})
	// scores 1 .8 .6 1 .8: mean .84, variance .0224; passes 1 .5 .5 1 .5:
	// mean .7, variance .06.
	near(t, value(t, a, assess.Performance, assess.Consistency), 1-(0.6*math.Sqrt(0.0224)/0.84+0.4*math.Sqrt(0.06)/0.7))
	assert.Equal(t, reason(t, a, assess.Capability, assess.LearningRate), "the history window holds 0 assessed runs and this one; 5 runs needed")

	short := &assess.Window{Runs: []assess.WindowRun{steady(0, 0.9), steady(1, 0.9)}}
	a = assess.Assess([]*results.Run{run}, assess.Options{Window: short, Now: day(4)})
	assert.Equal(t, reason(t, a, assess.Performance, assess.Consistency), "the history window holds 2 runs and this one; 5 runs needed")
	assert.Equal(t, reason(t, a, assess.Capability, assess.LearningRate), "the history window holds 2 assessed runs and this one; 5 runs needed")
}
