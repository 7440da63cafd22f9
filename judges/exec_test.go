package judges_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/judges"
)

// writeScript writes an executable shell script into dir.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	assert.NilError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755))
	return p
}

func newExec(t *testing.T, dir string, samples int, timeout time.Duration, command ...string) *judges.Exec {
	t.Helper()
	e, err := judges.NewExec(judges.ExecOptions{
		Command: command, Dir: dir,
		Env:     process.ScrubEnv(os.Environ(), nil, nil),
		Samples: samples, Timeout: timeout,
	})
	assert.NilError(t, err)
	return e
}

func request() *judges.RubricRequest {
	return &judges.RubricRequest{
		SuiteID:  "acme.support.evals.replies",
		TaskID:   "t1",
		Criteria: []judges.RubricCriterion{{Criterion: "Names the order.", Weight: 0.25}, {Criterion: "Is polite.", Weight: 0.75}},
		Input:    json.RawMessage(`"Where is C-3?"`),
		Output:   json.RawMessage(`{"reply":"C-3 is on its way"}`),
		Trace: []fixtures.Call{{ID: "c1", Name: "crm:lookup", Args: json.RawMessage(`{"orderId":"C-3"}`),
			Result: json.RawMessage(`{"status":"in-transit"}`), StartMs: 5, DurationMs: 2}},
	}
}

func TestExecProtocol(t *testing.T) {
	dir := t.TempDir()
	writeScript(t, dir, "judge.sh", `cat > received.json
echo "$EVALGATE_SUITE_ID/$EVALGATE_TASK_ID" > env.txt
echo '{"criteria":[{"met":true,"reason":"names C-3"},{"met":false,"reason":"curt"}]}'
`)
	e := newExec(t, dir, 1, 0, "./judge.sh")
	v, err := e.Decide(context.Background(), request())
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Met, []bool{true, false})
	assert.DeepEqual(t, v.Reasons, []string{"names C-3", "curt"})
	assert.Equal(t, v.CostUsd, 0.0)

	got, err := os.ReadFile(filepath.Join(dir, "received.json"))
	assert.NilError(t, err)
	want := `{"criteria":[{"criterion":"Names the order.","weight":0.25},{"criterion":"Is polite.","weight":0.75}],` +
		`"input":"Where is C-3?","output":{"reply":"C-3 is on its way"},` +
		`"trace":[{"name":"crm:lookup","args":{"orderId":"C-3"},"result":{"status":"in-transit"},"isError":false}]}`
	assert.Equal(t, string(got), want)
	env, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	assert.NilError(t, err)
	assert.Equal(t, string(env), "acme.support.evals.replies/t1\n")
	assert.Equal(t, e.ID(), "exec:./judge.sh")
	assert.NilError(t, e.Unavailable())
}

func TestExecFailures(t *testing.T) {
	type testCase struct {
		name            string
		script          string
		timeout         time.Duration
		wantErr         string
		wantUnavailable bool
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		writeScript(t, dir, "judge.sh", tc.script)
		e := newExec(t, dir, 1, tc.timeout, "./judge.sh")
		_, err := e.Decide(context.Background(), request())
		assert.ErrorContains(t, err, tc.wantErr)
		assert.Equal(t, errors.Is(err, judges.ErrUnavailable), tc.wantUnavailable)
	}
	testCases := []testCase{
		{name: "non-zero exit", script: "echo 'no model key' >&2\nexit 4\n", wantErr: `the judge "./judge.sh" ended with exit status 4: no model key`},
		{name: "wrong count", script: `echo '{"criteria":[{"met":true}]}'`, wantErr: "the judge answered 1 criteria, want 2"},
		{name: "not JSON", script: "echo yes\n", wantErr: "did not answer with a JSON object"},
		{name: "too much output", script: "head -c 2000000 /dev/zero\n", wantErr: "wrote more than"},
		{name: "timeout kills the judge", script: "sleep 30\n", timeout: 200 * time.Millisecond, wantErr: "did not answer within 200ms"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestExecMissingProgramIsUnavailable(t *testing.T) {
	e := newExec(t, t.TempDir(), 1, 0, "./no-such-judge")
	for range 2 {
		_, err := e.Decide(context.Background(), request())
		assert.Assert(t, errors.Is(err, judges.ErrUnavailable), "got %v", err)
	}
	assert.ErrorContains(t, e.Unavailable(), "the judge was unreachable for all 2 calls")
}

func TestExecVotes(t *testing.T) {
	dir := t.TempDir()
	// Each run answers the next line of answers.txt: met, met / not, met / met, not.
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "answers.txt"), []byte(strings.Join([]string{
		`{"criteria":[{"met":true},{"met":true}]}`,
		`{"criteria":[{"met":false},{"met":true}]}`,
		`{"criteria":[{"met":true},{"met":false}]}`,
		`{"criteria":[{"met":false},{"met":false}]}`,
	}, "\n")+"\n"), 0o644))
	writeScript(t, dir, "judge.sh", `cat > /dev/null
n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n
sed -n "${n}p" answers.txt
`)
	three := newExec(t, dir, 3, 0, "./judge.sh")
	v, err := three.Decide(context.Background(), request())
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Met, []bool{true, true})

	assert.NilError(t, os.Remove(filepath.Join(dir, "n")))
	two := newExec(t, dir, 2, 0, "./judge.sh")
	v, err = two.Decide(context.Background(), request())
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Met, []bool{false, true}) // a tie is not met
}

func TestExecIdentityFollowsTheProgram(t *testing.T) {
	dir := t.TempDir()
	writeScript(t, dir, "judge.sh", "echo v1\n")
	a := newExec(t, dir, 1, 0, "sh", "judge.sh")
	b := newExec(t, dir, 1, 0, "sh", "judge.sh")
	assert.Equal(t, a.Identity(), b.Identity())
	assert.Assert(t, a.Identity() != newExec(t, dir, 3, 0, "sh", "judge.sh").Identity(), "samples change the identity")
	writeScript(t, dir, "judge.sh", "echo v2\n")
	assert.Assert(t, a.Identity() != newExec(t, dir, 1, 0, "sh", "judge.sh").Identity(), "an edited program is another judge")

	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "grader"), 0o755))
	writeScript(t, dir, "grader/main.sh", "echo v1\n")
	c := newExec(t, dir, 1, 0, "sh", "grader")
	writeScript(t, dir, "grader/rules.sh", "echo more\n")
	assert.Assert(t, c.Identity() != newExec(t, dir, 1, 0, "sh", "grader").Identity(), "a file added to the program's folder is another judge")
}
