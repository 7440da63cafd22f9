package regression

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"
	"gotest.tools/v3/icmd"

	"github.com/evalgate/evalgate/results"
)

// headRun is a two-suite run with trials, checks and everything a full
// results.json holds.
func headRun() *results.Run {
	refundsSuite := suite(refunds, "1.2.0",
		results.Task{ID: "window", Line: 12, Status: results.StatusPassed, Score: 1, Passed: true, PassAtK: true, TrialsPassed: 2,
			CostUsd: 0.002, LatencyMs: 310, FailedChecks: nil,
			Trials: []results.Trial{
				{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true, LatencyMs: 300, Checks: []results.Check{{ID: "match", Kind: "exact", Weight: 1, Passed: true}}},
				{Trial: 2, Status: results.StatusPassed, Score: 1, Passed: true, LatencyMs: 320, Checks: []results.Check{{ID: "match", Kind: "exact", Weight: 1, Passed: true}}},
			}},
		results.Task{ID: "late-fee", Line: 40, Status: results.StatusFailed, Score: 0.5, Passed: false, PassAtK: true, TrialsPassed: 1,
			CostUsd: 0.004, LatencyMs: 500, FailedChecks: []string{"match"},
			Trials: []results.Trial{
				{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true, Checks: []results.Check{{ID: "match", Kind: "exact", Weight: 1, Passed: true}}},
				{Trial: 2, Status: results.StatusFailed, Score: 0, Checks: []results.Check{{ID: "match", Kind: "exact", Weight: 1, Reason: "mismatch"}}},
			}},
		results.Task{ID: "address", Line: 25, Status: results.StatusError, ErrorKind: results.ErrTimeout,
			Trials: []results.Trial{{Trial: 1, Status: results.StatusError, ErrorKind: results.ErrTimeout}, {Trial: 2, Status: results.StatusError, ErrorKind: results.ErrTimeout}}},
	)
	refundsSuite.Trials = 2
	refundsSuite.File = "evals/refunds.yaml"
	greeting := suite("acme.evals.greeting", "2.0.0", task("hello", 1, true))
	greeting.Tasks[0].Trials = []results.Trial{{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true}}
	greeting.Passed = true
	return &results.Run{Schema: results.Schema, RunID: "run-7", Tool: results.Tool{Name: "evalgate", Version: "1.0.0"},
		GitSHA: "abc123", Suites: []results.Suite{refundsSuite, greeting}}
}

func TestPromoteGolden(t *testing.T) {
	data, err := Promote(headRun())
	assert.NilError(t, err)
	golden.Assert(t, string(data), "promoted.golden")

	// It loads as a baseline and compares like the run it came from.
	path := filepath.Join(t.TempDir(), "baseline.json")
	assert.NilError(t, WritePromoted(path, headRun()))
	base, err := Load(context.Background(), path, "")
	assert.NilError(t, err)
	assert.Equal(t, base.RunID, "run-7")
	assert.Equal(t, base.Suites[0].ID, "acme.evals.greeting", "suites are sorted by id")
	assert.Equal(t, base.Suites[1].TaskCount, 3, "stats are filled in")
	assert.Equal(t, base.Suites[1].TotalCostUsd, 0.006, "costs are filled in")
	var passAtK []string
	for _, tk := range base.Suites[1].Tasks {
		passAtK = append(passAtK, fmt.Sprintf("%s %t %d", tk.ID, tk.PassAtK, tk.TrialsPassed))
	}
	assert.DeepEqual(t, passAtK, []string{"window true 2", "address false 0", "late-fee true 1"})
	reg := Compare(base, headRun(), Options{})
	assert.Equal(t, reg.NewFailures+reg.Fixed, 0)
	assert.Equal(t, reg.ScoreDelta, 0.0)
	assert.Check(t, is.Len(reg.Tasks, 0))

	// A run's trust summary stays in its baseline, on one line, without the
	// baseline it was compared with.
	withTrust := headRun()
	lvl := 4
	withTrust.Trust = &results.Trust{Score: 91.5, Level: 3, LevelName: "Autonomous", BaselineLevel: &lvl,
		Dimensions: results.TrustDimensions{ContractClarity: 18, Idempotency: 20, Observability: 17, ErrorContainment: 18, Governance: 18}}
	data, err = Promote(withTrust)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(data), `  "trust": {"score":91.5,"level":3,"levelName":"Autonomous","dimensions":{"contractClarity":18,"idempotency":20,"observability":17,"errorContainment":18,"governance":18}},`+"\n"))
	assert.NilError(t, WritePromoted(path, withTrust))
	base, err = Load(context.Background(), path, "")
	assert.NilError(t, err)
	assert.Equal(t, base.Trust.Level, 3)
	assert.Assert(t, base.Trust.BaselineLevel == nil)

	// and as results.json.
	r, err := results.Read(path)
	assert.NilError(t, err)
	assert.Equal(t, r.Suites[1].Tasks[0].ID, "window", "tasks are in file order")
	assert.Equal(t, r.Suites[1].Tasks[2].Trials[1].Score, 0.0)
}

func TestPromoteProblems(t *testing.T) {
	type testCase struct {
		name string
		run  func(r *results.Run)
		old  *results.Run
		want []string
	}
	run := func(t *testing.T, tc testCase) {
		r := headRun()
		r.Suites[0].Tasks[2].Status = results.StatusFailed // address: no error
		if tc.run != nil {
			tc.run(r)
		}
		var got []string
		for _, p := range PromoteProblems(r, tc.old) {
			got = append(got, p.String())
		}
		assert.DeepEqual(t, got, tc.want)
	}
	smaller := headRun()
	smaller.Suites[1].Tasks = smaller.Suites[1].Tasks[:1]
	bigger := headRun()
	for _, id := range []string{"a", "b", "c", "d"} {
		bigger.Suites[1].Tasks = append(bigger.Suites[1].Tasks, results.Task{ID: id})
	}
	for _, tc := range []testCase{
		{name: "a whole run"},
		{name: "a whole run replacing a smaller baseline", old: smaller},
		{name: "filters", run: func(r *results.Run) {
			r.Selection = &results.Selection{Tasks: []string{"window", "hello"}, Tags: []string{"smoke"}, Mode: "golden"}
			r.Shard = &results.Shard{Index: 2, Count: 3}
		}, want: []string{"it ran only some of the tasks (--task window,hello --tag smoke --mode golden --shard 2/3): promote a run of every task (for a sharded run, what evalgate merge wrote)"}},
		{name: "interrupted", run: func(r *results.Run) { r.Interrupted = true },
			want: []string{"it was interrupted, so it holds only the tasks that finished: promote a run that finished"}},
		{name: "errors", run: func(r *results.Run) {
			for i := range r.Suites {
				for j := range r.Suites[i].Tasks {
					r.Suites[i].Tasks[j].Status = results.StatusError
				}
			}
		}, want: []string{"4 tasks ended in an error (acme.evals.refunds/window, acme.evals.refunds/late-fee, acme.evals.refunds/address and 1 more), and an error's score of 0 says nothing about the agent: fix what stopped the agent and run again"}},
		{name: "fewer tasks than the baseline", old: bigger,
			want: []string{"it lacks 4 tasks of the baseline it would replace (acme.evals.greeting/a, acme.evals.greeting/b, acme.evals.greeting/c and 1 more), which would no longer be compared: promote a run of every task, or pass --force when they left the suites on purpose"}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestPromoteNeedsARunID(t *testing.T) {
	_, err := Promote(&results.Run{})
	assert.ErrorContains(t, err, "no run id")
}

const summaryJSON = `{
  "suiteId": "acme.evals.refunds",
  "suiteVersion": "1.0.0",
  "aggregateScore": 0.5,
  "passed": false,
  "taskCount": 2,
  "passedCount": 1,
  "totalCostUsd": 0.003,
  "tasks": [
    {"taskId": "a", "score": 1, "passed": true, "costUsd": 0.001, "latencyMs": 100},
    {"taskId": "b", "score": 0, "passed": false, "costUsd": 0.002, "latencyMs": 300}
  ]
}
`

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) string {
		p := filepath.Join(dir, rel)
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		assert.NilError(t, os.WriteFile(p, []byte(data), 0o644))
		return p
	}
	promoted, err := Promote(headRun())
	assert.NilError(t, err)
	write("out/results.json", string(promoted))
	write("promoted/baseline.json", string(promoted))
	write("summary.json", summaryJSON)
	write("sums/summaries/acme.evals.refunds.json", summaryJSON)
	write("sums/summaries/acme.evals.greeting.json", strings.NewReplacer("refunds", "greeting", `"b"`, `"c"`).Replace(summaryJSON))
	write("empty/readme.txt", "nothing here")
	write("bad.json", "{not json")
	write("other.json", `{"hello": 1}`)

	type testCase struct {
		name    string
		spec    string
		runID   string
		suites  int
		tasks   int
		wantErr string
	}
	run := func(t *testing.T, tc testCase) {
		r, err := Load(context.Background(), tc.spec, dir)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			return
		}
		assert.NilError(t, err)
		if tc.runID != "" {
			assert.Equal(t, r.RunID, tc.runID)
		}
		assert.Equal(t, len(r.Suites), tc.suites)
		assert.Equal(t, r.TaskCount, tc.tasks)
	}
	for _, tc := range []testCase{
		{name: "results.json", spec: filepath.Join(dir, "out/results.json"), runID: "run-7", suites: 2, tasks: 4},
		{name: "a folder holding results.json", spec: filepath.Join(dir, "out"), runID: "run-7", suites: 2, tasks: 4},
		{name: "a folder holding baseline.json", spec: filepath.Join(dir, "promoted"), runID: "run-7", suites: 2, tasks: 4},
		{name: "an EvalSummary", spec: filepath.Join(dir, "summary.json"), suites: 1, tasks: 2},
		{name: "a folder of summaries", spec: filepath.Join(dir, "sums"), suites: 2, tasks: 4},
		{name: "missing", spec: filepath.Join(dir, "nope.json"), wantErr: "no such file or directory"},
		{name: "empty folder", spec: filepath.Join(dir, "empty"), wantErr: "holds no results.json, baseline.json or summaries/*.json"},
		{name: "not JSON", spec: filepath.Join(dir, "bad.json"), wantErr: "not JSON"},
		{name: "unknown JSON", spec: filepath.Join(dir, "other.json"), wantErr: "neither a results file"},
		{name: "artifact", spec: "github-artifact:evalgate-baseline", wantErr: "need the GitHub Action"},
		{name: "bad git spec", spec: "git:main", wantErr: "expected git:<ref>:<path>"},
		{name: "none", spec: "", wantErr: "no baseline given"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}

	r, err := Load(context.Background(), filepath.Join(dir, "summary.json"), "")
	assert.NilError(t, err)
	assert.Assert(t, strings.HasPrefix(r.RunID, "summary-"), "a summary's run id comes from its content: %s", r.RunID)
	assert.Equal(t, r.Suites[0].Tasks[1].Status, results.StatusFailed)
	assert.Equal(t, r.Suites[0].Tasks[1].LatencyMs, int64(300))
	_, err = Load(context.Background(), "github-artifact:x", "")
	assert.Assert(t, errors.Is(err, ErrArtifactSpec))

	// A run read as results (report, diff, a history) is not called a
	// baseline in its errors.
	missing := filepath.Join(dir, "nope.json")
	_, err = LoadResults(context.Background(), missing, "")
	assert.Error(t, err, fmt.Sprintf("could not read results %q: no such file or directory", missing))
	_, err = LoadResults(context.Background(), filepath.Join(dir, "empty"), "")
	assert.ErrorContains(t, err, "could not read results ")
}

// TestLoadNumbersOutOfRange: a baseline whose numbers are out of range is
// refused, naming the file and the field: a score of 1e308 made the run's
// own figures infinite and its results.json unwritable (exit 3 and no
// outputs), and a negative cost or latency went into the comparison.
func TestLoadNumbersOutOfRange(t *testing.T) {
	promoted, err := Promote(headRun())
	assert.NilError(t, err)
	// The promoted baseline's first task is greeting's "hello".
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"huge score", `"score":1,"costUsd":0.01`, `"score":1e308,"costUsd":0.01`, "/suites/0/tasks/0/score: expected a number from 0 to 1, got 1e+308"},
		{"negative score", `"score":1,"costUsd":0.01`, `"score":-0.5,"costUsd":0.01`, "/suites/0/tasks/0/score: expected a number from 0 to 1, got -0.5"},
		{"negative cost", `"costUsd":0.01,`, `"costUsd":-1,`, "/suites/0/tasks/0/costUsd: expected a cost in US dollars from 0 to 1e9, got -1"},
		{"huge cost", `"costUsd":0.01,`, `"costUsd":1e308,`, "/suites/0/tasks/0/costUsd: expected a cost in US dollars from 0 to 1e9, got 1e+308"},
		{"negative latency", `"latencyMs":200,`, `"latencyMs":-5,`, "/suites/0/tasks/0/latencyMs: expected a latency in milliseconds from 0 to 1e12, got -5"},
		{"latency too large for JSON's integers", `"latencyMs":200,`, `"latencyMs":1e30,`, "suites.tasks.latencyMs: expected a whole number that fits in 64 bits, got number 1e30"},
		{"a number too large for float64", `"score":1,"costUsd":0.01`, `"score":1e999,"costUsd":0.01`, "suites.tasks.score: expected a number that fits in 64 bits, got number 1e999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := string(promoted)
			assert.Assert(t, strings.Contains(data, tc.from), "%s", data)
			path := filepath.Join(t.TempDir(), "baseline.json")
			assert.NilError(t, os.WriteFile(path, []byte(strings.Replace(data, tc.from, tc.to, 1)), 0o644))
			_, err := Load(context.Background(), path, "")
			assert.ErrorContains(t, err, fmt.Sprintf("could not read baseline %q: ", path))
			assert.ErrorContains(t, err, tc.want)
		})
	}

	t.Run("summary", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "summary.json")
		assert.NilError(t, os.WriteFile(path, []byte(strings.Replace(summaryJSON, `"costUsd": 0.002`, `"costUsd": -0.002`, 1)), 0o644))
		_, err := Load(context.Background(), path, "")
		assert.Error(t, err, fmt.Sprintf("could not read baseline %q: /tasks/1/costUsd: expected a cost in US dollars from 0 to 1e9, got -0.002", path))
	})
}

func TestLoadGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		icmd.RunCmd(icmd.Command("git", args...), icmd.Dir(dir),
			icmd.WithEnv(append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
				"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")...),
		).Assert(t, icmd.Success)
	}
	git("init", "-q", "-b", "main")
	assert.NilError(t, WritePromoted(filepath.Join(dir, ".evalgate", "baseline.json"), headRun()))
	git("add", ".")
	git("commit", "-q", "-m", "baseline")
	// The working copy moves on; git: reads the committed file.
	assert.NilError(t, os.WriteFile(filepath.Join(dir, ".evalgate", "baseline.json"), []byte("{}"), 0o644))

	type testCase struct {
		name    string
		spec    string
		wantErr string
	}
	run := func(t *testing.T, tc testCase) {
		r, err := Load(context.Background(), tc.spec, dir)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			return
		}
		assert.NilError(t, err)
		assert.Equal(t, r.RunID, "run-7")
	}
	for _, tc := range []testCase{
		{name: "committed on main", spec: "git:main:.evalgate/baseline.json"},
		{name: "HEAD", spec: "git:HEAD:.evalgate/baseline.json"},
		{name: "unknown ref", spec: "git:nope:.evalgate/baseline.json", wantErr: `could not read baseline "git:nope:.evalgate/baseline.json": git show:`},
		{name: "unknown path", spec: "git:main:missing.json", wantErr: "git show:"},
		{name: "revision", spec: "git:main~0:.evalgate/baseline.json"},
		// A spec from a pull request never reaches git as an option: git
		// show --output=FILE would write FILE.
		{name: "option as ref", spec: "git:--output=pwned:x", wantErr: `the ref "--output=pwned" starts with "-", which git would take for an option`},
		{name: "short option as ref", spec: "git:-opwned:x", wantErr: `starts with "-"`},
		{name: "space in ref", spec: "git:main --output=pwned:x", wantErr: `the ref "main --output=pwned" holds ' '`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
	written, err := filepath.Glob(filepath.Join(dir, "pwned*"))
	assert.NilError(t, err)
	assert.Equal(t, len(written), 0, "git wrote %v", written)
}

// TestLoadNotARegularFile: a baseline the pull request linked to /dev/zero
// or made a FIFO is refused at once rather than read forever.
func TestLoadNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "baseline.json")
	assert.NilError(t, os.Symlink("/dev/zero", zero))
	_, err := Load(context.Background(), zero, "")
	assert.ErrorContains(t, err, "not a regular file")

	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	_, err = Load(context.Background(), fifo, "")
	assert.ErrorContains(t, err, "not a regular file")
}
