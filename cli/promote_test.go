package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
)

// deskSuite has three tasks, one tagged smoke.
const deskSuite = `suiteId: acme.test.evals.desk
version: 1.0.0
modes: [golden]
tasks:
  - taskId: greet
    input: greet
    tags: [smoke]
    expected: {kind: golden, match: {strategy: exact, value: ok}}
  - taskId: lookup
    input: lookup
    expected: {kind: golden, match: {strategy: exact, value: ok}}
  - taskId: close
    input: close
    expected: {kind: golden, match: {strategy: exact, value: ok}}
`

// deskAgent answers ok, and exits 3 on the tasks listed in the file
// "broken" beside it: an agent-exit error.
const deskAgent = `input=$(cat)
if [ -f broken ] && grep -qx "$input" broken; then exit 3; fi
echo ok
`

// TestPromoteRefusesPartialRuns: baseline promote refuses, with exit 2 and
// the reason, a run that would make a baseline of fewer tasks or of errors;
// --force promotes it anyway, and it never touches the baseline when it
// refuses. Merged shards are a whole run.
func TestPromoteRefusesPartialRuns(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evalgate.yaml":   "suites: [evals/]\nagent:\n  plain: [sh, agent.sh]\n",
		"evals/desk.yaml": deskSuite,
		"agent.sh":        deskAgent,
	})
	t.Chdir(dir)
	runOK := func(t *testing.T, args ...string) {
		t.Helper()
		r := runCLI(t, "", nil, append([]string{"run"}, args...)...)
		assert.Equal(t, r.code, ExitPass, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	runOK(t, "--out", "full")
	r := runCLI(t, "", nil, "baseline", "promote", "full")
	assert.Equal(t, r.code, ExitPass, r.stderr)
	assert.Equal(t, r.stdout, "evalgate: baseline .evalgate/baseline.json written from run "+regrReadRun(t, "full").RunID+" (1 suite, 3 tasks)\n")
	baseline, err := os.ReadFile(".evalgate/baseline.json")
	assert.NilError(t, err)

	type testCase struct {
		name       string
		prepare    func(t *testing.T) string // writes a run, returns its folder
		wantStderr []string
	}
	refuse := func(t *testing.T, tc testCase) {
		out := tc.prepare(t)
		r := runCLI(t, "", nil, "baseline", "promote", out)
		assert.Equal(t, r.code, ExitInvalid, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Check(t, is.Contains(r.stderr, "evalgate: will not promote run "+regrReadRun(t, out).RunID+" to .evalgate/baseline.json:\n"))
		for _, want := range tc.wantStderr {
			assert.Check(t, is.Contains(r.stderr, "\n  - "+want+"\n"))
		}
		assert.Check(t, strings.HasSuffix(r.stderr, "\na baseline is the bar every later run is compared with; pass --force to promote this run anyway\n"), r.stderr)
		assert.Equal(t, r.stdout, "")
		now, err := os.ReadFile(".evalgate/baseline.json")
		assert.NilError(t, err)
		assert.Equal(t, string(now), string(baseline), "a refusal changed the baseline")

		// --force promotes it, saying what it overrode.
		forced := filepath.Join(t.TempDir(), "baseline.json")
		assert.NilError(t, os.WriteFile(forced, baseline, 0o644))
		r = runCLI(t, "", nil, "baseline", "promote", "--force", out, "--out", forced)
		assert.Equal(t, r.code, ExitPass, r.stderr)
		for _, want := range tc.wantStderr {
			what, _, _ := strings.Cut(want, ": ")
			assert.Check(t, is.Contains(r.stderr, "evalgate: warning: promoted with --force although "+what+"\n"))
		}
		promoted, err := results.Read(forced)
		assert.NilError(t, err)
		assert.Equal(t, promoted.RunID, regrReadRun(t, out).RunID)
	}
	filtered := func(args ...string) func(t *testing.T) string {
		return func(t *testing.T) string {
			out := filepath.Join(t.TempDir(), "out")
			runOK(t, append([]string{"--out", out}, args...)...)
			regrValidResults(t, out)
			return out
		}
	}
	const some = "it ran only some of the tasks (%s): promote a run of every task (for a sharded run, what evalgate merge wrote)"
	for _, tc := range []testCase{
		{name: "--task", prepare: filtered("--task", "greet,close"), wantStderr: []string{strings.Replace(some, "%s", "--task greet,close", 1)}},
		{name: "--tag", prepare: filtered("--tag", "smoke"), wantStderr: []string{strings.Replace(some, "%s", "--tag smoke", 1)}},
		{name: "--mode", prepare: filtered("--mode", "golden"), wantStderr: []string{strings.Replace(some, "%s", "--mode golden", 1)}},
		{name: "--shard", prepare: filtered("--shard", "1/2"), wantStderr: []string{strings.Replace(some, "%s", "--shard 1/2", 1)}},
		{name: "several filters", prepare: filtered("--task", "greet", "--tag", "smoke", "--shard", "2/2"),
			wantStderr: []string{strings.Replace(some, "%s", "--task greet --tag smoke --shard 2/2", 1)}},
		{
			name: "an errored task",
			prepare: func(t *testing.T) string {
				writeFiles(t, dir, map[string]string{"broken": "lookup\n"})
				defer os.Remove(filepath.Join(dir, "broken"))
				out := filepath.Join(t.TempDir(), "out")
				r := runCLI(t, "", nil, "run", "--out", out)
				assert.Equal(t, r.code, ExitGateFail, r.stderr)
				return out
			},
			wantStderr: []string{"1 task ended in an error (acme.test.evals.desk/lookup), and an error's score of 0 says nothing about the agent: fix what stopped the agent and run again"},
		},
		{
			name: "an interrupted run",
			prepare: func(t *testing.T) string {
				out := filepath.Join(t.TempDir(), "out")
				runOK(t, "--out", out)
				run := regrReadRun(t, out)
				run.Interrupted = true
				data, err := json.Marshal(run)
				assert.NilError(t, err)
				assert.NilError(t, os.WriteFile(filepath.Join(out, "results.json"), data, 0o644))
				return out
			},
			wantStderr: []string{"it was interrupted, so it holds only the tasks that finished: promote a run that finished"},
		},
		{
			name: "fewer tasks than the baseline",
			prepare: func(t *testing.T) string {
				smaller := strings.Replace(deskSuite, "  - taskId: close\n    input: close\n    expected: {kind: golden, match: {strategy: exact, value: ok}}\n", "", 1)
				writeFiles(t, dir, map[string]string{"evals/desk.yaml": smaller})
				defer writeFiles(t, dir, map[string]string{"evals/desk.yaml": deskSuite})
				out := filepath.Join(t.TempDir(), "out")
				runOK(t, "--out", out)
				return out
			},
			wantStderr: []string{"it lacks 1 task of the baseline it would replace (acme.test.evals.desk/close), which would no longer be compared: promote a run of every task, or pass --force when they left the suites on purpose"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { refuse(t, tc) })
	}

	t.Run("merged shards are a whole run", func(t *testing.T) {
		tmp := t.TempDir()
		shards := []string{filepath.Join(tmp, "1"), filepath.Join(tmp, "2")}
		runOK(t, "--out", shards[0], "--shard", "1/2")
		runOK(t, "--out", shards[1], "--shard", "2/2")
		merged := filepath.Join(tmp, "merged")
		r := runCLI(t, "", nil, "merge", "--out", merged, shards[0], shards[1])
		assert.Equal(t, r.code, ExitPass, r.stderr)
		r = runCLI(t, "", nil, "baseline", "promote", merged, "--out", filepath.Join(tmp, "baseline.json"))
		assert.Equal(t, r.code, ExitPass, r.stderr)
		assert.Equal(t, r.stderr, "")
	})

	t.Run("merged shards of a filtered run", func(t *testing.T) {
		tmp := t.TempDir()
		shards := []string{filepath.Join(tmp, "1"), filepath.Join(tmp, "2")}
		runOK(t, "--out", shards[0], "--shard", "1/2", "--mode", "golden")
		runOK(t, "--out", shards[1], "--shard", "2/2", "--mode", "golden")
		merged := filepath.Join(tmp, "merged")
		r := runCLI(t, "", nil, "merge", "--out", merged, shards[0], shards[1])
		assert.Equal(t, r.code, ExitPass, r.stderr)
		assert.DeepEqual(t, regrReadRun(t, merged).Selection, &results.Selection{Mode: "golden"})
		r = runCLI(t, "", nil, "baseline", "promote", merged, "--out", filepath.Join(tmp, "baseline.json"))
		assert.Equal(t, r.code, ExitInvalid)
		assert.Check(t, is.Contains(r.stderr, "it ran only some of the tasks (--mode golden)"))

		// Shards of different runs do not merge.
		other := filepath.Join(tmp, "other")
		runOK(t, "--out", other, "--shard", "2/2")
		r = runCLI(t, "", nil, "merge", "--out", filepath.Join(tmp, "m2"), shards[0], other)
		assert.Equal(t, r.code, ExitRunError)
		assert.Check(t, is.Contains(r.stderr, "it ran without --task, --tag or --mode, another shard with --mode golden; merge the shards of one run"))
	})

	t.Run("a file at --out that is not a baseline", func(t *testing.T) {
		notes := filepath.Join(t.TempDir(), "notes.json")
		assert.NilError(t, os.WriteFile(notes, []byte("my notes\n"), 0o644))
		r := runCLI(t, "", nil, "baseline", "promote", "full", "--out", notes)
		assert.Equal(t, r.code, ExitInvalid)
		assert.Check(t, is.Contains(r.stderr, "is there and is not a baseline evalgate can read"))
		data, err := os.ReadFile(notes)
		assert.NilError(t, err)
		assert.Equal(t, string(data), "my notes\n")
	})
}
