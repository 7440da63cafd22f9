package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
)

func TestDecode(t *testing.T) {
	good := encode(t, rec("r1", 0, EventPush, "p", "f", "t"))
	type testCase struct {
		name string
		data []byte
		want string // "" for none
	}
	edit := func(old, new string) []byte { return bytes.Replace(good, []byte(old), []byte(new), 1) }
	run := func(t *testing.T, tc testCase) {
		r, err := Decode(tc.data)
		if tc.want == "" {
			assert.NilError(t, err)
			assert.Equal(t, r.RunID, "r1")
			return
		}
		assert.ErrorContains(t, err, tc.want)
	}
	for _, tc := range []testCase{
		{name: "as written", data: good},
		{name: "an unknown key", data: edit(`"runId"`, `"later":{"x":1},"runId"`)},
		{name: "not JSON", data: good[:20], want: "not a JSON object"},
		{name: "no schema", data: edit(`"schema":"evalgate-history/1",`, ``), want: "/schema: missing"},
		{name: "another format", data: edit(`evalgate-history/1`, `https://evalgate.dev/schemas/results/v1`), want: `/schema: expected evalgate-history/1, got "https://evalgate.dev/schemas/results/v1"`},
		{name: "a newer schema", data: edit(`evalgate-history/1`, `evalgate-history/7`), want: "written by a newer evalgate (schema evalgate-history/7; this one reads evalgate-history/1)"},
		{name: "no run id", data: edit(`"runId":"r1"`, `"runId":""`), want: "/runId: missing"},
		{name: "a run id that is a path", data: edit(`"runId":"r1"`, `"runId":"../../etc"`), want: `/runId: expected letters, digits`},
		{name: "no start", data: edit(`"startedAt":"2026-11-01T09:00:00Z"`, `"startedAt":"0001-01-01T00:00:00Z"`), want: "/startedAt: missing"},
		{name: "a bad start", data: edit(`"startedAt":"2026-11-01T09:00:00Z"`, `"startedAt":"yesterday"`), want: `/startedAt: expected an RFC 3339 time, got "yesterday"`},
		{name: "an unknown event", data: edit(`"event":"push"`, `"event":"release"`), want: `/event: expected one of push, pull_request, schedule, local, got "release"`},
		{name: "a negative latency", data: edit(`"latencyMs":100`, `"latencyMs":-1`), want: "/latencyMs: expected milliseconds from 0 to 1e12, got -1"},
		{name: "a huge cost", data: edit(`"costUsd":0.003`, `"costUsd":1e300`), want: "/suites/0/costUsd: expected a cost from 0 to 1e9 US dollars"},
		{name: "a number too large for any float", data: edit(`"costUsd":0.003`, `"costUsd":1e999`), want: "expected a finite number in range"},
		{name: "a string for a number", data: edit(`"trials":2`, `"trials":"2"`), want: `trials: expected a number, got string`},
		{name: "more passed trials than trials", data: edit(`"passedTrials":2`, `"passedTrials":9`), want: "passedTrials: 9, more than its 2 trials"},
		{name: "a key without a suite", data: edit(`"acme.support.evals.refunds/task-0"`, `"task-0"`), want: "/tasks/task-0: expected a key <suiteId>/<taskId>"},
		{name: "a control character", data: edit(`"ref":"refs/heads/main"`, `"ref":"main\u001b[31m"`), want: "/ref: holds a control character"},
		{name: "no tasks", data: edit(`"tasks":{`, `"tasks":null,"x":{`), want: "/tasks: missing"},
		{name: "a trust level out of range", data: edit(`"gates"`, `"trust":{"score":50,"level":9,"dimensions":{}},"gates"`), want: "/trust/level: expected a level from 0 to 4, got 9"},
		{name: "too large", data: append(good, bytes.Repeat([]byte(" "), MaxRecordBytes)...), want: "over the 4.0 MiB a record may hold"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestFutureErrorIsTyped(t *testing.T) {
	_, err := Decode(bytes.Replace(encode(t, rec("r1", 0, EventPush)), []byte(Schema), []byte("evalgate-history/2"), 1))
	_, ok := errors.AsType[*FutureError](err)
	assert.Assert(t, ok, "%v", err)
}

// TestFromRun: a run's record holds its suites, each task's outcome and
// errors by kind (a passed task whose trials were spilled counts its
// passed trials), the gates, the assessment and the trust summary.
func TestFromRun(t *testing.T) {
	start := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	perf := 0.71
	run := &results.Run{
		RunID: "abc", StartedAt: start, FinishedAt: start.Add(90 * time.Second), GitSHA: "e8acfa9", Tool: results.Tool{Version: "v1.2.0"},
		Gates:      []results.Gate{{Expr: "passRate >= 0.5", Passed: true, Values: map[string]any{"passRate": 0.5}}},
		Assessment: &results.Assessment{Performance: results.AssessmentAxis{Score: &perf, Tier: "Proficient"}},
		Trust:      &results.Trust{Score: 81, Level: 3, LevelName: "Autonomous", Dimensions: results.TrustDimensions{ContractClarity: 16}},
		Suites: []results.Suite{{ID: "acme.support.evals.refunds", Version: "1.2.0", Passed: false,
			Stats: results.Stats{AggregateScore: 0.5, PassedCount: 1, TaskCount: 2, ErroredCount: 1, TotalCostUsd: 0.02, P95LatencyMs: 900},
			Tasks: []results.Task{
				{ID: "spilled", Status: results.StatusPassed, Passed: true, TrialsPassed: 3, LatencyMs: 300, CostUsd: 0.01},
				{ID: "crashed", Status: results.StatusError, TrialsPassed: 1, LatencyMs: 900, CostUsd: 0.01, Trials: []results.Trial{
					{Status: results.StatusPassed, Passed: true}, {Status: results.StatusError, ErrorKind: results.ErrAgentExit},
					{Status: results.StatusError, ErrorKind: results.ErrTimeout}}},
			}}},
	}
	r := FromRun(run, Meta{Event: EventPush, Ref: "refs/heads/main", Repository: "acme/agent", Agent: &Agent{ID: "support", Version: "1.4.0"}})
	assert.DeepEqual(t, r, &Record{
		Schema: Schema, RunID: "abc", StartedAt: start, DurationMs: 90_000, Commit: "e8acfa9", Ref: "refs/heads/main", Event: EventPush,
		EvalgateVersion: "v1.2.0", Repository: "acme/agent", Agent: &Agent{ID: "support", Version: "1.4.0"},
		Suites: []Suite{{SuiteID: "acme.support.evals.refunds", Version: "1.2.0", Score: 0.5, TaskCount: 2, PassedCount: 1, ErrorCount: 1, CostUsd: 0.02, P95LatencyMs: 900}},
		Tasks: map[string]Task{
			"acme.support.evals.refunds/spilled": {Status: "passed", Trials: 3, PassedTrials: 3, LatencyMs: 300, CostUsd: 0.01},
			"acme.support.evals.refunds/crashed": {Status: "error", Trials: 3, PassedTrials: 1, LatencyMs: 900, CostUsd: 0.01, Errors: map[string]int{"agent-exit": 1, "timeout": 1}},
		},
		Gates:      []Gate{{Expr: "passRate >= 0.5", Passed: true}},
		Assessment: &Assessment{Performance: Axis{Score: &perf, Tier: "Proficient"}},
		Trust:      &Trust{Score: 81, Level: 3, Dimensions: results.TrustDimensions{ContractClarity: 16}},
	})
	data := encode(t, r)
	assert.Check(t, bytes.HasSuffix(data, []byte("}\n")) && bytes.Count(data, []byte("\n")) == 1, "one line")
	assert.Check(t, is.Contains(string(data), `"selection":null`))
	back, err := Decode(data)
	assert.NilError(t, err)
	assert.DeepEqual(t, back, r)
	assert.Equal(t, FileName(r), "20261102T100000.000Z-abc.json")
}

func TestRecordProblem(t *testing.T) {
	for _, tc := range []struct {
		run  results.Run
		want string
	}{
		{results.Run{}, ""},
		{results.Run{Interrupted: true}, "it was interrupted"},
		{results.Run{Shard: &results.Shard{Index: 2, Count: 4}}, "it is shard 2 of 4"},
		{results.Run{Selection: &results.Selection{Tags: []string{"smoke"}}}, "it ran only some of the tasks (--tag smoke)"},
	} {
		got := RecordProblem(&tc.run)
		assert.Check(t, (got == "") == (tc.want == "") && strings.HasPrefix(got, tc.want), "%q", got)
	}
}

func TestEncodeRefusesAnOversizedRecord(t *testing.T) {
	r := rec("big", 0, EventPush)
	for i := range 40_000 {
		r.Tasks[strings.Repeat("s", 40)+"/"+strings.Repeat("t", 40)+"-"+strconv.Itoa(i)] = Task{Status: "passed"}
	}
	_, err := Encode(r)
	assert.ErrorContains(t, err, "over the 4.0 MiB a record may hold; a suite of this size is not recorded")
}

func FuzzDecode(f *testing.F) {
	seed, err := Encode(rec("r1", 0, EventPush, "p", "f", "x"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"schema":"evalgate-history/1"}`))
	f.Add([]byte(`{"schema":"evalgate-history/1","runId":"a","startedAt":"2026-01-01T00:00:00Z","event":"push","suites":[],"tasks":{"a/b":{"status":"passed","trials":1e400}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data)
		if err != nil {
			// A record refused for one of its tasks is refused by the
			// quick check too: the two agree.
			var rec Record
			if json.Unmarshal(data, &rec) == nil && rec.Schema == Schema && strings.HasPrefix(err.Error(), "/tasks/") {
				all := true
				for k, task := range rec.Tasks {
					all = all && taskOK(k, &task)
				}
				if all {
					t.Fatalf("the quick check passes every task of a record refused with %v", err)
				}
			}
			return
		}
		for k, task := range r.Tasks {
			if !taskOK(k, &task) {
				t.Fatalf("the quick check refuses task %q of a record the full check takes", k)
			}
		}
		// What decodes is checked: it encodes again and decodes the same.
		again, err := Encode(r)
		if err != nil {
			t.Fatalf("a checked record does not encode: %v", err)
		}
		if _, err := Decode(again); err != nil {
			t.Fatalf("a checked record does not decode again: %v", err)
		}
	})
}
