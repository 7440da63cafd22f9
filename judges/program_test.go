package judges_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// programTask is a golden task whose one assertion is the program check
// command, run in dir.
func programTask(dir string, negate bool, command ...string) *suites.Task {
	return &suites.Task{ID: "t", Expected: suites.Expected{Kind: suites.KindGolden, Assert: []*suites.Check{
		{ID: "prog", Kind: suites.CheckExec, Weight: 1, Exec: command, Dir: dir, Negate: negate},
	}}}
}

// noTimeout is the timeout of a program that must answer however slowly
// it starts on a busy machine: longer than any test's deadline.
const noTimeout = time.Hour

func newPrograms(t *testing.T, timeout time.Duration) *judges.Programs {
	t.Helper()
	ps := judges.NewPrograms(context.Background(), judges.ProgramOptions{Env: process.ScrubEnv(os.Environ(), nil, nil), Timeout: timeout})
	t.Cleanup(ps.Close)
	return ps
}

// TestProgramCheckPersists: one process answers every request of a worker;
// at most one per request running at once is started.
func TestProgramCheckPersists(t *testing.T) {
	dir := t.TempDir()
	// The program logs each start, and passes when the output holds the
	// row's answer.
	writeScript(t, dir, "check.sh", `echo start >> starts.log
while read -r line; do
  case "$line" in
    *'"output":"yes"'*'"vars":{"answer":"yes"}'*) echo '{"pass": true}' ;;
    *) echo '{"pass": false, "reason": "no"}' ;;
  esac
done
`)
	ps := newPrograms(t, noTimeout)
	task := programTask(dir, false, "./check.sh")
	obs := &judges.Observation{Input: json.RawMessage(`"q"`), Output: json.RawMessage(`"yes"`), Vars: json.RawMessage(`{"answer":"yes"}`)}
	for range 50 {
		checks, _, err := judges.GoldenContext(context.Background(), task, obs, ps)
		assert.NilError(t, err)
		assert.DeepEqual(t, checks, []results.Check{{ID: "prog", Kind: "exec", Weight: 1, Passed: true}})
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				_, _, err := judges.GoldenContext(context.Background(), task, &judges.Observation{Output: json.RawMessage(`"no"`)}, ps)
				assert.Check(t, err)
			}
		}()
	}
	wg.Wait()
	ps.Close()
	log, err := os.ReadFile(filepath.Join(dir, "starts.log"))
	assert.NilError(t, err)
	starts := strings.Count(string(log), "start")
	assert.Assert(t, starts >= 1 && starts <= 4, "%d processes for 90 requests, at most 4 at once", starts)

	// negate turns the verdict around.
	checks, _, err := judges.GoldenContext(context.Background(), programTask(dir, true, "./check.sh"), obs, newPrograms(t, noTimeout))
	assert.NilError(t, err)
	assert.DeepEqual(t, checks, []results.Check{{ID: "prog", Kind: "exec", Weight: 1, Passed: false, Reason: judges.ReasonNegated}})
}

// TestProgramCheckFailures: a program that cannot start, crashes, hangs or
// answers something else fails its check with a CheckError in evalgate's
// words, and the next request starts the program again.
func TestProgramCheckFailures(t *testing.T) {
	dir := t.TempDir()
	writeScript(t, dir, "crash.sh", "read -r line; exit 3\n")
	writeScript(t, dir, "hang.sh", "sleep 30\n")
	writeScript(t, dir, "garbage.sh", "while read -r line; do echo 'hello'; done\n")
	writeScript(t, dir, "nopass.sh", "while read -r line; do echo '{\"score\": 1}'; done\n")
	writeScript(t, dir, "badscore.sh", "while read -r line; do echo '{\"pass\": true, \"score\": 7}'; done\n")
	// once.sh crashes on its first request, then (started again) answers.
	writeScript(t, dir, "once.sh", "if [ -e ran ]; then while read -r line; do echo '{\"pass\": true}'; done; fi; touch ran; exit 1\n")
	obs := &judges.Observation{Output: json.RawMessage(`"x"`)}
	for _, tc := range []struct {
		command []string
		want    string
	}{
		{[]string{"./crash.sh"}, `check prog: the program "./crash.sh" ended with exit status 3 before answering`},
		{[]string{"./hang.sh"}, `check prog: the program "./hang.sh" did not answer within 300ms`}, // and only it times out
		{[]string{"./garbage.sh"}, `check prog: the program "./garbage.sh" answered a line that is not a JSON object {"pass": true|false, …}`},
		{[]string{"./nopass.sh"}, `check prog: the program "./nopass.sh" answered without "pass": expected {"pass": true|false, "score"?: 0..1, "reason"?: "…"}`},
		{[]string{"./badscore.sh"}, `check prog: the program "./badscore.sh" answered a "score" outside 0..1`},
		{[]string{"./missing.sh"}, `check prog: the program "./missing.sh" could not be started`},
	} {
		t.Run(tc.command[0], func(t *testing.T) {
			timeout := noTimeout
			if tc.command[0] == "./hang.sh" {
				timeout = 300 * time.Millisecond
			}
			_, _, err := judges.GoldenContext(context.Background(), programTask(dir, false, tc.command...), obs, newPrograms(t, timeout))
			ce, ok := errors.AsType[*judges.CheckError](err)
			assert.Assert(t, ok, "%v", err)
			assert.Assert(t, strings.HasPrefix(ce.Error(), tc.want), "%s", ce.Error())
		})
	}
	ps := newPrograms(t, noTimeout)
	task := programTask(dir, false, "./once.sh")
	_, _, err := judges.GoldenContext(context.Background(), task, obs, ps)
	assert.ErrorContains(t, err, "ended with exit status 1")
	checks, _, err := judges.GoldenContext(context.Background(), task, obs, ps)
	assert.NilError(t, err)
	assert.Equal(t, checks[0].Passed, true)
}

// TestProgramCheckWithoutPrograms: Golden alone cannot run programs, and
// says so rather than passing.
func TestProgramCheckWithoutPrograms(t *testing.T) {
	checks, _ := judges.Golden(programTask(".", false, "true"), &judges.Observation{Output: json.RawMessage(`"x"`)})
	assert.DeepEqual(t, checks, []results.Check{{ID: "prog", Kind: "exec", Weight: 1, Reason: judges.ReasonUnsupported}})
}

// TestProgramCheckIdleCap: past MaxIdle waiting processes, the one idle
// longest is ended, and its program started again when asked again.
func TestProgramCheckIdleCap(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.sh", "b.sh"} {
		writeScript(t, dir, name, "echo "+name+" >> starts.log\nwhile read -r line; do echo '{\"pass\": true}'; done\n")
	}
	ps := judges.NewPrograms(context.Background(), judges.ProgramOptions{Env: process.ScrubEnv(os.Environ(), nil, nil), MaxIdle: 1})
	obs := &judges.Observation{Output: json.RawMessage(`"x"`)}
	for _, name := range []string{"./a.sh", "./a.sh", "./b.sh", "./a.sh"} {
		_, _, err := judges.GoldenContext(context.Background(), programTask(dir, false, name), obs, ps)
		assert.NilError(t, err)
	}
	ps.Close()
	log, err := os.ReadFile(filepath.Join(dir, "starts.log"))
	assert.NilError(t, err)
	assert.Equal(t, string(log), "a.sh\nb.sh\na.sh\n")
}
