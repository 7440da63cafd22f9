package judges

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
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/meter"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// addKind adds a kind of check for the test, through the one table every
// kind is in.
func addKind(t *testing.T, kind string, f func(r *checker, c *suites.Check) (string, error)) {
	t.Helper()
	checkKinds[kind] = f
	t.Cleanup(func() { delete(checkKinds, kind) })
}

// TestNewCheckKind adds two kinds of check with no code about deadlines or
// caps of their own: "spin" works until its meter says stop, "scan"
// matches the output with the pattern it is given. Wherever a check can
// be (an assertion of a golden task, a rubric criterion, a level of a
// graded scale), the executor gives the trial its timeout, the run's
// Ctrl-C, and the caps on regular expressions.
func TestNewCheckKind(t *testing.T) {
	started, ended := make(chan struct{}, 1), make(chan struct{}, 1)
	addKind(t, "spin", func(r *checker, c *suites.Check) (string, error) {
		started <- struct{}{}
		defer func() { ended <- struct{}{} }()
		for r.m.Err() == nil {
		}
		return "", r.m.Err()
	})
	addKind(t, "scan", func(r *checker, c *suites.Check) (string, error) {
		re, err := meter.Compile(c.Tool)
		if err != nil {
			return "", err
		}
		ok, err := r.m.Match(re, jsonvalue.Text(r.out))
		return verdict(ok), err
	})
	spin := &suites.Check{ID: "spin", Kind: "spin", Weight: 1}
	big, err := json.Marshal(strings.Repeat("a", 1<<20))
	assert.NilError(t, err)
	obs := &Observation{Output: big}
	out := decodeOutput(big)
	entries := map[string]func(x *Executor, c *suites.Check) error{
		"golden": func(x *Executor, c *suites.Check) error {
			_, _, err := x.Golden(&suites.Task{Expected: suites.Expected{Kind: suites.KindGolden, Assert: []*suites.Check{c}}}, obs)
			return err
		},
		"criterion": func(x *Executor, c *suites.Check) error {
			_, err := x.Criterion(c, obs, out)
			return err
		},
		"level": func(x *Executor, c *suites.Check) error {
			_, err := x.Level(&suites.Scale{Min: 0, Max: 1, Levels: []suites.Level{{}, {Assert: []*suites.Check{c}}}}, obs, out)
			return err
		},
	}
	for name, entry := range entries {
		t.Run(name, func(t *testing.T) {
			x := NewExecutor(context.Background(), 100*time.Millisecond, nil)
			defer x.Close()
			err := entry(x, spin)
			var te *TimeoutError
			assert.Assert(t, errors.As(err, &te), "%v", err)
			assert.Equal(t, te.Error(), "the task's checks did not finish within its timeout of 100ms")
			<-started
			<-ended // the check given up on has stopped

			ctx, cancel := context.WithCancel(context.Background())
			x = NewExecutor(ctx, time.Hour, nil)
			defer x.Close()
			done := make(chan error, 1)
			go func() { done <- entry(x, spin) }()
			<-started
			cancel() // Ctrl-C while the check runs
			assert.ErrorIs(t, <-done, context.Canceled)
			<-ended

			x = NewExecutor(context.Background(), time.Hour, nil)
			defer x.Close()
			err = entry(x, &suites.Check{ID: "scan", Kind: "scan", Tool: "[a-z]{998}Q", Weight: 1})
			var ce *CheckError
			assert.Assert(t, errors.As(err, &ce), "%v", err)
			assert.Check(t, is.Equal(ce.ID, "scan"))
			assert.Check(t, is.Contains(ce.Message, "take at most 268435456 steps to match"))

			err = entry(x, &suites.Check{ID: "scan", Kind: "scan", Tool: strings.Repeat("[a-z]{999}", 50), Weight: 1})
			assert.Assert(t, errors.As(err, &ce), "%v", err)
			assert.Check(t, is.Contains(ce.Message, "compiles to at most 1000 instructions"))
		})
	}
}

// TestExecutorExpressions: an assertion's expression spends through the
// executor's meter: a pattern it builds is capped as a literal one, and
// its loops end with the timeout.
func TestExecutorExpressions(t *testing.T) {
	big, err := json.Marshal(strings.Repeat("a", 1<<20))
	assert.NilError(t, err)
	obs := &Observation{Output: big}
	task := func(src string) *suites.Task {
		return &suites.Task{Expected: suites.Expected{Kind: suites.KindGolden, Assert: []*suites.Check{
			{ID: "e", Kind: suites.CheckExpr, Weight: 1, Program: compileExpr(t, src)}}}}
	}
	x := NewExecutor(context.Background(), 200*time.Millisecond, nil)
	defer x.Close()
	_, _, err = x.Golden(task(`all(1..999999, {not (output matches "[a-z]{199}Q")})`), obs)
	var te *TimeoutError
	assert.Check(t, errors.As(err, &te), "%v", err)

	x = NewExecutor(context.Background(), time.Hour, nil)
	defer x.Close()
	_, _, err = x.Golden(task(`output matches repeat("[a-z]{999}", 50) + "Q"`), obs)
	var ce *CheckError
	assert.Assert(t, errors.As(err, &ce), "%v", err)
	assert.Check(t, is.Equal(ce.Error(), "check e: in its expression, the pattern of a matches: expected a regular expression that compiles to at most 1000 instructions, got about 49951; counted repetitions such as x{100} count each copy"))

	checks, _, err := x.Golden(task(`output matches "^a+$"`), obs)
	assert.NilError(t, err)
	assert.DeepEqual(t, checks, []results.Check{{ID: "e", Kind: suites.CheckExpr, Weight: 1, Passed: true}})

	// The regex strategy of a match is held to the cost budget too.
	m := &suites.Match{Strategy: suites.StrategyRegex, Value: json.RawMessage(`"[a-z]{998}Q"`), Regexp: meter.MustCompile("[a-z]{998}Q")}
	_, _, err = x.Golden(&suites.Task{Expected: suites.Expected{Kind: suites.KindGolden, Match: m}}, obs)
	assert.Assert(t, errors.As(err, &ce), "%v", err)
	assert.Check(t, is.Equal(ce.ID, CheckMatch))
}

// TestGoldStateUnderTheDeadline: the replay of the gold calls is a part of
// the checks: a handler that hangs ends with the executor's timeout, and
// a world that would grow past its budget is the replay's error.
func TestGoldStateUnderTheDeadline(t *testing.T) {
	from, err := suites.ParseTemplate("/a")
	assert.NilError(t, err)
	path, err := suites.ParseTemplate("/a/-")
	assert.NilError(t, err)
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "hang.sh"), []byte("read -r line\nexec sleep 300\n"), 0o755))
	// Strings of 64 KiB reach the budget in a few copies.
	x64 := strings.Repeat("x", 1<<16)
	f := &suites.Fixtures{
		State: json.RawMessage(`{"a":["` + x64 + `"]}`),
		ToolResponses: []suites.ToolResponse{
			{Tool: "hang", Handler: []string{"sh", "hang.sh"}},
			{Tool: "grow", Effect: []suites.PatchOp{{Op: "copy", From: &from, Path: path}}},
		},
	}
	gold := func(tool string, n int) *suites.Task {
		task := &suites.Task{Expected: suites.Expected{Kind: suites.KindGolden}}
		for range n {
			task.Expected.GoldCalls = append(task.Expected.GoldCalls, suites.GoldCall{Tool: tool})
		}
		return task
	}
	opts := fixtures.Options{Handlers: fixtures.Handlers{Dir: dir, Timeout: time.Hour}}

	x := NewExecutor(context.Background(), 200*time.Millisecond, nil)
	defer x.Close()
	_, err = x.GoldState(gold("hang", 1), f, opts)
	var te *TimeoutError
	assert.Check(t, errors.As(err, &te), "%v", err)

	x = NewExecutor(context.Background(), time.Hour, nil)
	defer x.Close()
	state, err := x.GoldState(gold("grow", 40), f, opts)
	var we *fixtures.WorldError
	assert.Assert(t, errors.As(err, &we), "%v", err)
	assert.Check(t, int64(len(state)) <= we.Budget)

	state, err = x.GoldState(gold("grow", 2), f, opts)
	assert.NilError(t, err)
	assert.Equal(t, string(state), strings.ReplaceAll(`{"a":["x",["x"],["x",["x"]]]}`, "x", x64))
}
