package judges

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

func TestJudgeMessage(t *testing.T) {
	checks := []results.Check{
		{ID: "rubric[0]", Judged: true},
		{ID: "rubric[1]"},
		{ID: "rubric[2]", Judged: true},
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errNoJudge, "no judge configured for rubric[0], rubric[2]"},
		{fmt.Errorf("the judge was unreachable: %w", ErrUnavailable), "the judge could not be reached for rubric[0], rubric[2]"},
		// What the judge said may quote the task: it stays out.
		{errors.New(`the judge "judge.py" ended with exit status 1: the output "secret" is rude`), "the judge gave no usable verdict for rubric[0], rubric[2]"},
	} {
		got := judgeMessage(tc.err, checks)
		assert.Check(t, got == tc.want, "judgeMessage(%v) = %q, want %q", tc.err, got, tc.want)
	}
}

// TestChecksUnderTheTaskTimeout: the golden checks of a trial run under the
// task's timeout, counted from when they start, and under the run's
// context: checks still running when either ends give the trial its error
// at once instead of holding it.
func TestChecksUnderTheTaskTimeout(t *testing.T) {
	s, err := suites.Parse("slowcheck.yaml", []byte(`suiteId: acme.t.evals.slowcheck
version: 1.0.0
modes: [golden]
tasks:
  - taskId: slow-check
    input: x
    expected:
      kind: golden
      match: {strategy: regex, value: '^(a|b|ab|ba)*c'}
      assert:
        - expr: 'output matches "^(a|aa|aaa)*b"'
`))
	assert.NilError(t, err)
	task, err := s.Full(s.Tasks[0])
	assert.NilError(t, err)
	big, err := json.Marshal(strings.Repeat("ab", 4<<20))
	assert.NilError(t, err)
	obs := &Observation{Input: task.Input, Output: big}

	golden := func(ctx context.Context, timeout time.Duration, obs *Observation) ([]results.Check, error) {
		x := NewExecutor(ctx, timeout, nil)
		defer x.Close()
		checks, _, err := x.Golden(task, obs)
		return checks, err
	}
	_, err = golden(context.Background(), time.Millisecond, obs)
	var te *TimeoutError
	assert.Assert(t, errors.As(err, &te), "%v", err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = golden(ctx, time.Minute, obs)
	assert.ErrorIs(t, err, context.Canceled)

	checks, err := golden(context.Background(), time.Minute, &Observation{Input: task.Input, Output: json.RawMessage(`"abc"`)})
	assert.NilError(t, err)
	assert.Check(t, is.Len(checks, 2))
}
