//go:build unix

package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// loadSuite parses a suite written in YAML for a test.
func loadSuite(t *testing.T, src string) *suites.Suite {
	t.Helper()
	s, err := suites.Parse("evals/s.yaml", []byte(src))
	assert.NilError(t, err, "suite")
	return s
}

// recorder is an Observer that keeps the order of what it is told.
type recorder struct {
	mu       sync.Mutex
	events   []string
	trials   int
	lastDone int
	progress int
}

func (r *recorder) Trial(s *suites.Suite, t *suites.Task, tr *TrialRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.trials++
}

func (r *recorder) Progress(done, total, passed, failed, errored int) {
	r.progress++
	if done <= r.lastDone || done > total || passed+failed+errored != done {
		r.events = append(r.events, fmt.Sprintf("bad progress %d/%d %d+%d+%d", done, total, passed, failed, errored))
	}
	r.lastDone = done
}

func (r *recorder) SuiteStarted(s *results.Suite, n int) {
	r.events = append(r.events, fmt.Sprintf("started %s %d", s.ID, n))
}

func (r *recorder) TaskScored(s *results.Suite, t *results.Task) {
	r.events = append(r.events, "scored "+t.ID)
}

func (r *recorder) SuiteCompleted(s *results.Suite) {
	r.events = append(r.events, fmt.Sprintf("completed %s %d/%d", s.ID, s.PassedCount, s.TaskCount))
}

// TestRunKeepsSuiteOrder runs tasks that finish in scrambled order (each
// sleeps a different time) with 8 agents at once: results and the streamed
// events still come in suite order.
func TestRunKeepsSuiteOrder(t *testing.T) {
	var a, b strings.Builder
	a.WriteString("suiteId: acme.t.evals.a\nversion: 1.0.0\nmodes: [golden]\ntasks:\n")
	b.WriteString("suiteId: acme.t.evals.b\nversion: 1.0.0\nmodes: [golden]\ntasks:\n")
	var want []string
	want = append(want, "started acme.t.evals.a 12")
	for i := range 12 {
		// Early tasks sleep longest, so they finish last.
		fmt.Fprintf(&a, "  - {taskId: a%d, input: \"%d\", expected: {kind: golden, match: {strategy: exact, value: \"%d\"}}}\n", i, (12-i)*15, (12-i)*15)
		want = append(want, fmt.Sprintf("scored a%d", i))
	}
	want = append(want, "completed acme.t.evals.a 12/12", "started acme.t.evals.b 6")
	for i := range 6 {
		fmt.Fprintf(&b, "  - {taskId: b%d, input: \"%d\", expected: {kind: golden, match: {strategy: exact, value: \"wrong\"}}}\n", i, (6-i)*10)
		want = append(want, fmt.Sprintf("scored b%d", i))
	}
	want = append(want, "completed acme.t.evals.b 0/6")

	plan := Plan([]*suites.Suite{loadSuite(t, a.String()), loadSuite(t, b.String())}, Selection{})
	rec := &recorder{}
	// The agent sleeps its input in milliseconds, then echoes it.
	agent := &Plain{Command: []string{"/bin/sh", "-c", `read ms; sleep "$(echo "$ms" | awk '{print $1/1000}')"; printf '%s' "$ms"`}}
	got, err := Run(context.Background(), plan, Options{Agent: agent, Scorer: scored(), Concurrency: 8, Observer: rec})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(want, rec.events), "events")
	assert.Check(t, rec.trials == 18, "Trial called %d times, want 18", rec.trials)
	var ids []string
	for _, s := range got {
		for _, task := range s.Tasks {
			ids = append(ids, task.ID)
		}
	}
	assert.Check(t, is.DeepEqual([]string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "b0", "b1", "b2", "b3", "b4", "b5"}, ids), "result order")
	assert.Check(t, got[0].AggregateScore == 1 && got[0].Passed && got[1].AggregateScore == 0 && !got[1].Passed, "suite verdicts: a %.2f %v, b %.2f %v", got[0].AggregateScore, got[0].Passed, got[1].AggregateScore, got[1].Passed)
}

func TestPlan(t *testing.T) {
	s := loadSuite(t, `suiteId: acme.t.evals.plan
version: 1.0.0
modes: [golden, adversarial]
tags: [suite-tag]
tasks:
  - {taskId: one, tags: [smoke], input: 1, expected: {kind: golden, match: {strategy: exact, value: 1}}}
  - {taskId: two, tags: [slow], input: 2, expected: {kind: golden, match: {strategy: exact, value: 2}}}
  - {taskId: three, input: 3, expected: {kind: golden, match: {strategy: exact, value: 3}}}
`)
	other := loadSuite(t, `suiteId: acme.t.evals.other
version: 1.0.0
modes: [rubric]
tasks:
  - {taskId: one, input: 1, expected: {kind: rubric, rubric: [{criterion: c, weight: 1}]}}
`)
	type testCase struct {
		name string
		sel  Selection
		want []string
	}
	run := func(t *testing.T, tc testCase) {
		var got []string
		for _, p := range Plan([]*suites.Suite{s, other}, tc.sel) {
			for _, task := range p.Tasks {
				got = append(got, p.Suite.ID[len("acme.t.evals."):]+"/"+task.ID)
			}
		}
		assert.Check(t, is.DeepEqual(tc.want, got), "plan")
	}
	for _, tc := range []testCase{
		{name: "everything", want: []string{"plan/one", "plan/two", "plan/three", "other/one"}},
		{name: "task ids in any suite", sel: Selection{Tasks: []string{"one"}}, want: []string{"plan/one", "other/one"}},
		{name: "task tag", sel: Selection{Tags: []string{"slow"}}, want: []string{"plan/two"}},
		{name: "suite tag selects its tasks", sel: Selection{Tags: []string{"suite-tag"}}, want: []string{"plan/one", "plan/two", "plan/three"}},
		{name: "mode selects suites", sel: Selection{Mode: "rubric"}, want: []string{"other/one"}},
		{name: "shard", sel: Selection{Shard: func(suite, task string) bool { return task != "two" }}, want: []string{"plan/one", "plan/three", "other/one"}},
		{name: "nothing", sel: Selection{Tasks: []string{"nope"}}, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestRunStopsOnFatal: an agent that cannot start stops the run with an
// error instead of failing every task one by one.
func TestRunStopsOnFatal(t *testing.T) {
	s := loadSuite(t, `suiteId: acme.t.evals.fatal
version: 1.0.0
modes: [golden]
tasks:
  - {taskId: a, input: 1, expected: {kind: golden, match: {strategy: exact, value: 1}}}
  - {taskId: b, input: 1, expected: {kind: golden, match: {strategy: exact, value: 1}}}
`)
	_, err := Run(context.Background(), Plan([]*suites.Suite{s}, Selection{}), Options{
		Agent: &Plain{Command: []string{filepath.Join(t.TempDir(), "missing")}}, Scorer: scored(),
	})
	assert.Assert(t, err != nil && strings.Contains(err.Error(), "could not start agent"), "err = %v, want could not start agent", err)
}

// TestRunRubricWithoutJudge: a judged criterion with no judge is an error
// "no judge configured", never a pass; an assert criterion still counts.
func TestRunRubricWithoutJudge(t *testing.T) {
	s := loadSuite(t, `suiteId: acme.t.evals.rubric
version: 1.0.0
modes: [rubric]
tasks:
  - taskId: judged
    input: hi
    expected:
      kind: rubric
      rubric:
        - {criterion: polite, weight: 0.5}
        - {criterion: echoes, weight: 0.5, assert: {expr: 'output == "hi"'}}
  - taskId: asserts-only
    input: hi
    expected:
      kind: rubric
      rubric:
        - {criterion: echoes, weight: 1, assert: {expr: 'output == "hi"'}}
`)
	got, err := Run(context.Background(), Plan([]*suites.Suite{s}, Selection{}), Options{
		Agent: &Plain{Command: []string{"/bin/cat"}}, Scorer: scored(),
	})
	assert.NilError(t, err)
	judged, asserts := got[0].Tasks[0], got[0].Tasks[1]
	assert.Check(t, judged.Status == results.StatusError && judged.ErrorKind == results.ErrJudge && !judged.Passed, "judged: status %s kind %s passed %v", judged.Status, judged.ErrorKind, judged.Passed)
	assert.Check(t, judged.ErrorMessage == "no judge configured for rubric[0]", "judged: message %q, want the criterion named", judged.ErrorMessage)
	assert.Check(t, asserts.Status == results.StatusPassed && asserts.Score == 1, "asserts only: status %s score %v", asserts.Status, asserts.Score)
}

// TestRunTimeoutFromTask: a task's timeoutMs wins over the run's timeout.
func TestRunTimeoutFromTask(t *testing.T) {
	s := loadSuite(t, `suiteId: acme.t.evals.timeout
version: 1.0.0
modes: [golden]
tasks:
  - {taskId: slow, timeoutMs: 200, input: x, expected: {kind: golden, match: {strategy: exact, value: x}}}
`)
	got, err := Run(context.Background(), Plan([]*suites.Suite{s}, Selection{}), Options{
		Agent:   &Plain{Command: []string{"/bin/sh", "-c", "sleep 600"}},
		Scorer:  scored(),
		Timeout: time.Hour,
	})
	assert.NilError(t, err)
	task := got[0].Tasks[0]
	assert.Check(t, task.ErrorKind == results.ErrTimeout, "error kind %q, want timeout", task.ErrorKind)
	assert.Check(t, task.ErrorMessage == "timed out after 200ms", "error message %q: the task's 200ms timeout did not apply", task.ErrorMessage)
}

// TestRunLiveShadowInjectsNothing: in live-shadow mode the agent gets no
// memory and every tool call an error.
func TestRunLiveShadowInjectsNothing(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	s := loadSuite(t, `suiteId: acme.t.evals.live
version: 1.0.0
modes: [golden, live-shadow]
tasks:
  - taskId: t
    input: {call: [{name: "crm:lookup"}], behaviour: results}
    expected: {kind: golden, match: {strategy: json-subset, value: [{isError: false}]}}
    fixtures:
      toolResponses: [{tool: "crm:lookup", response: {ok: true}}]
      memorySeed: [{k: v}]
`)
	agent := &Exec{Command: []string{python, filepath.Join("testdata", "agent.py")}}
	for mode, wantPass := range map[string]bool{"": true, "live-shadow": false} {
		got, err := Run(context.Background(), Plan([]*suites.Suite{s}, Selection{}), Options{Agent: agent, Scorer: scored(), Mode: mode})
		assert.NilError(t, err)
		if task := got[0].Tasks[0]; task.Passed != wantPass {
			b, _ := json.Marshal(task)
			t.Errorf("mode %q: passed %v, want %v: %s", mode, task.Passed, wantPass, b)
		}
	}
}

// muteScript is an agent that fails before writing a line, the way a
// mistyped command does, except on the tasks it was told to answer: for
// "slow" it sleeps for an hour, for "ok" it echoes.
const muteScript = `read x
case "$x" in
ok) printf ok; exit 0 ;;
slow) sleep 3600 ;;
esac
echo "python3: can't open file 'nope.py': [Errno 2] No such file or directory" >&2
exit 2`

// muteSuite is a suite with one task per input, in order.
func muteSuite(t *testing.T, inputs ...string) *suites.Suite {
	var b strings.Builder
	b.WriteString("suiteId: acme.t.evals.mute\nversion: 1.0.0\nmodes: [golden]\ntasks:\n")
	for i, in := range inputs {
		fmt.Fprintf(&b, "  - {taskId: t%d, input: %s, expected: {kind: golden, match: {strategy: exact, value: ok}}}\n", i, in)
	}
	return loadSuite(t, b.String())
}

// TestRunStopsWhenTheAgentNeverSpeaks: when the first trials of the first
// three tasks all fail before a line, the run stops at once with a
// CannotRunError, kills the trials still running and reports nothing.
func TestRunStopsWhenTheAgentNeverSpeaks(t *testing.T) {
	type testCase struct {
		name      string
		inputs    []string
		trials    int
		wantTasks int // CannotRunError.Tasks
	}
	run := func(t *testing.T, tc testCase) {
		s := muteSuite(t, tc.inputs...)
		rec := &recorder{}
		// Run returns only once every trial has ended: the slow ones, which
		// sleep for an hour, because it killed them.
		_, err := Run(context.Background(), Plan([]*suites.Suite{s}, Selection{}), Options{
			Agent:       &Plain{Command: []string{"/bin/sh", "-c", muteScript}},
			Scorer:      scored(),
			Concurrency: 8,
			Trials:      tc.trials,
			Observer:    rec,
		})
		var cr *CannotRunError
		assert.Assert(t, errors.As(err, &cr), "err = %v, want a CannotRunError", err)
		want := &CannotRunError{Tasks: tc.wantTasks, Exit: "exit status 2", Stderr: []byte("python3: can't open file 'nope.py': [Errno 2] No such file or directory\n")}
		assert.Check(t, is.DeepEqual(want, cr), "error")
		assert.Check(t, len(rec.events) == 0, "the observer was told %v, want nothing: no task could run", rec.events)
		assert.Check(t, rec.progress == 0, "progress was reported %d times, want none", rec.progress)
	}
	for _, tc := range []testCase{
		{name: "three tasks decide, the slow ones are killed", inputs: []string{"a", "b", "c", "slow", "slow", "slow"}, wantTasks: 3},
		{name: "one task", inputs: []string{"a"}, wantTasks: 1},
		{name: "two tasks of three trials", inputs: []string{"a", "b"}, trials: 3, wantTasks: 2},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestRunGoesOnWhenOneTaskCrashes: a task that crashes the agent before a
// line, even first and in every trial, is that task's error when another
// task shows the agent runs; the tasks held back meanwhile are reported
// in order.
func TestRunGoesOnWhenOneTaskCrashes(t *testing.T) {
	for _, concurrency := range []int{1, 8} {
		t.Run(fmt.Sprint("concurrency ", concurrency), func(t *testing.T) {
			s := muteSuite(t, "crash", "ok", "ok", "ok")
			rec := &recorder{}
			got, err := Run(context.Background(), Plan([]*suites.Suite{s}, Selection{}), Options{
				Agent:       &Plain{Command: []string{"/bin/sh", "-c", muteScript}},
				Scorer:      scored(),
				Concurrency: concurrency,
				Trials:      3,
				Observer:    rec,
			})
			assert.NilError(t, err, "err = %v, want the run to go on", err)
			want := []string{"started acme.t.evals.mute 4", "scored t0", "scored t1", "scored t2", "scored t3", "completed acme.t.evals.mute 3/4"}
			assert.Check(t, is.DeepEqual(want, rec.events), "events")
			crashed := got[0].Tasks[0]
			assert.Check(t, crashed.Status == results.StatusError && crashed.ErrorKind == results.ErrAgentExit && crashed.ErrorMessage == "exit status 2 before any output", "crashed task: status %s, kind %s, message %q", crashed.Status, crashed.ErrorKind, crashed.ErrorMessage)
			m := crashed.Trials[2].ErrorMessage
			assert.Check(t, m == "exit status 2 before any output", "trial 3 message %q", m)
			assert.Check(t, rec.lastDone == 4, "last progress at %d tasks, want 4", rec.lastDone)
		})
	}
}
