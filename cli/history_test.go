package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/history"
	"github.com/evalgate/evalgate/internal/pgtest"
	"github.com/evalgate/evalgate/results"
)

// TestRunRecordsHistory runs a project five times with history.record
// on: each run reads the records of the runs before it. A task that
// flipped twice is known-flaky when it fails again, and does not count
// in regression.newFailuresNotFlaky; a task that never failed before is
// new, and fails the gate. The history commands read the same records.
func TestRunRecordsHistory(t *testing.T) {
	p := newRegrProject(t)
	cfg, err := os.ReadFile(p.config)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(p.config, append(cfg, []byte("history: {store: \"dir:hist\", record: true}\ngates: [\"regression.newFailuresNotFlaky == 0\"]\n")...), 0o644))

	runIDs := []string{}
	step := func(regressed string, wantCode int) *results.Run {
		t.Helper()
		p.set(t, "regressed", regressed)
		code, stdout, stderr := runEvalgate(t, nil, "run", "--quiet")
		assert.Equal(t, code, wantCode, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		assert.Check(t, !strings.Contains(stderr, "warning"), stderr)
		r := regrReadRun(t, filepath.Join(p.dir, "evalgate-out"))
		regrValidResults(t, filepath.Join(p.dir, "evalgate-out"))
		runIDs = append(runIDs, r.RunID)
		return r
	}
	labels := func(r *results.Run) map[string]string {
		out := map[string]string{}
		for _, s := range r.Suites {
			for _, task := range s.Tasks {
				if task.Flaky != "" {
					out[task.ID] = task.Flaky
				}
			}
		}
		return out
	}

	r := step("", ExitPass)
	assert.Equal(t, r.History.Runs, 0)
	r = step("invoice\n", ExitGateFail) // invoice never failed before: new
	assert.DeepEqual(t, labels(r), map[string]string{"invoice": results.FlakyNew})
	assert.Equal(t, r.History.Runs, 1)
	assert.Equal(t, r.History.NewFailuresNotFlaky, 1)
	step("", ExitPass)
	r = step("invoice\nrefund\n", ExitGateFail) // invoice flipped twice; refund is new
	assert.DeepEqual(t, labels(r), map[string]string{"invoice": results.FlakyKnown, "refund": results.FlakyNew})
	assert.Equal(t, r.History.NewFailures, 2)
	assert.Equal(t, r.History.NewFailuresNotFlaky, 1)
	assert.Equal(t, r.Gates[0].Values["regression.newFailuresNotFlaky"], float64(1))
	r = step("invoice\n", ExitPass) // only the known-flaky one fails: the gate holds
	assert.DeepEqual(t, labels(r), map[string]string{"invoice": results.FlakyKnown})
	assert.Equal(t, r.History.Runs, 4)
	assert.Equal(t, len(r.History.Suite("acme.test.evals.billing").Trend), 4)

	files, err := filepath.Glob(filepath.Join(p.dir, "hist", "*.json"))
	assert.NilError(t, err)
	assert.Equal(t, len(files), 5)

	code, stdout, stderr := runEvalgate(t, nil, "history", "list")
	assert.Equal(t, code, ExitPass, stderr)
	for _, id := range runIDs {
		assert.Check(t, is.Contains(stdout, id))
	}
	code, stdout, _ = runEvalgate(t, nil, "history", "flaky")
	assert.Equal(t, code, ExitPass)
	assert.Check(t, is.Regexp(`acme.test.evals.billing/invoice +5 +2 +3 +75.0% +known-flaky`, stdout))
	assert.Check(t, is.Regexp(`acme.test.evals.billing/refund +5 +4 +2 +50.0% +known-flaky`, stdout))
	code, stdout, _ = runEvalgate(t, nil, "history", "trend", "--suite", "acme.test.evals.billing")
	assert.Equal(t, code, ExitPass)
	// Scores 1, 5/6, 1, 4/6, 5/6.
	assert.Check(t, is.Contains(stdout, "acme.test.evals.billing  ▇▃▇▁▃ score 0.667..1.000, last 0.833  5 runs"))
	code, stdout, _ = runEvalgate(t, nil, "history", "trend", "--task", "invoice")
	assert.Equal(t, code, ExitPass)
	assert.Check(t, is.Contains(stdout, "acme.test.evals.billing/invoice  flipped 3 times in the last 5 runs"))
	code, _, stderr = runEvalgate(t, nil, "history", "trend", "--suite", "acme.test.evals.bill")
	assert.Equal(t, code, ExitInvalid)
	assert.Check(t, is.Contains(stderr, `no record holds suite "acme.test.evals.bill" (did you mean "acme.test.evals.billing"?)`))
	code, stdout, _ = runEvalgate(t, nil, "history", "show", runIDs[3])
	assert.Equal(t, code, ExitPass)
	rec, err := history.Decode([]byte(stdout))
	assert.NilError(t, err)
	assert.Equal(t, rec.Tasks["acme.test.evals.billing/refund"].Status, results.StatusFailed)
	code, stdout, _ = runEvalgate(t, nil, "history", "export", "--format", "csv")
	assert.Equal(t, code, ExitPass)
	assert.Equal(t, strings.Count(stdout, "\n"), 1+5*2) // a header, and a row per run and suite
	code, _, stderr = runEvalgate(t, nil, "history", "list", "--limit", "0")
	assert.Equal(t, code, ExitInvalid)
	assert.Check(t, is.Contains(stderr, "history list: --limit 0: expected a number of records, at least 1"))
	code, _, stderr = runEvalgate(t, nil, "history", "prune")
	assert.Equal(t, code, ExitInvalid)
	assert.Check(t, is.Contains(stderr, "history prune: expected --keep N, the number of newest records to keep (at least 1)"))
	code, stdout, _ = runEvalgate(t, nil, "history", "prune", "--keep", "3")
	assert.Equal(t, code, ExitPass)
	assert.Check(t, is.Contains(stdout, "removed 2 records from dir:hist"))
	code, _, stderr = runEvalgate(t, nil, "history", "migrate")
	assert.Equal(t, code, ExitInvalid)
	assert.Check(t, is.Contains(stderr, "dir:hist needs no migration"))

	// A pull request's run reads the history and records nothing.
	pr := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REF": "refs/pull/7/merge"}
	p.set(t, "regressed", "")
	code, _, stderr = runEvalgate(t, pr, "run", "--quiet", "--no-publish")
	assert.Equal(t, code, ExitPass, stderr)
	assert.Check(t, is.Contains(stderr, "a pull request's run only reads the history"))
	files, err = filepath.Glob(filepath.Join(p.dir, "hist", "*.json"))
	assert.NilError(t, err)
	assert.Equal(t, len(files), 3)
}

// TestHistoryBadStore: a store that cannot be read warns and leaves the
// verdict as it is; a corrupt record is skipped, counted and named.
func TestHistoryBadStore(t *testing.T) {
	p := newRegrProject(t)
	assert.NilError(t, os.WriteFile(filepath.Join(p.dir, "not-a-folder"), []byte("x"), 0o644))
	code, _, stderr := runEvalgate(t, nil, "run", "--quiet", "--history-store", "dir:not-a-folder")
	assert.Equal(t, code, ExitPass, stderr)
	assert.Check(t, is.Contains(stderr, "evalgate: warning: history store unreachable: dir:not-a-folder"))
	assert.Check(t, is.Contains(stderr, "the run goes on without its history"))

	// evalgate trust reads the store the config names the same way.
	cfg, err := os.ReadFile(p.config)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(p.config, append(cfg, "history:\n  store: dir:not-a-folder\n"...), 0o644))
	code, _, stderr = runEvalgate(t, nil, "trust", "evalgate-out")
	assert.Check(t, code != ExitInvalid && code != ExitRunError, stderr)
	assert.Check(t, is.Contains(stderr, "evalgate: warning: history store unreachable: dir:not-a-folder"))
	assert.Check(t, is.Contains(stderr, "the scorecard goes on without the store's history"))
	assert.NilError(t, os.WriteFile(p.config, cfg, 0o644))

	assert.NilError(t, os.MkdirAll(filepath.Join(p.dir, "hist"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(p.dir, "hist", "20261101T090000Z-bad.json"), []byte("{\"schema\": \"evalgate-history/1\", \"runId\": "), 0o644))
	code, _, stderr = runEvalgate(t, nil, "run", "--quiet", "--history-store", "dir:hist", "--history-record")
	assert.Equal(t, code, ExitPass, stderr)
	assert.Check(t, is.Contains(stderr, "history: skipped 1 record in dir:hist: 20261101T090000Z-bad.json"))
	r := regrReadRun(t, filepath.Join(p.dir, "evalgate-out"))
	assert.Equal(t, r.History.Skipped, 1)

	code, _, stderr = runEvalgate(t, nil, "run", "--quiet", "--history-store", "s3://bucket")
	assert.Equal(t, code, ExitInvalid)
	assert.Check(t, is.Contains(stderr, "expected dir:PATH, git:BRANCH, postgres:"))
	assert.Check(t, !strings.Contains(stderr, "did you mean"), stderr)
	code, _, stderr = runEvalgate(t, nil, "run", "--quiet", "--history-store", "dri:hist")
	assert.Equal(t, code, ExitInvalid)
	assert.Check(t, is.Contains(stderr, "or a postgres:// URL; did you mean dir:?\n"))
}

// trustRecord is a record of agent at the level, each dimension at
// points.
func trustRecord(id, agent string, day int, level, points int) *history.Record {
	return &history.Record{
		Schema: history.Schema, RunID: id, StartedAt: time.Date(2026, 11, 1+day, 9, 0, 0, 0, time.UTC), Event: history.EventPush,
		EvalgateVersion: "v1.0.0", Agent: &history.Agent{ID: agent}, Suites: []history.Suite{}, Tasks: map[string]history.Task{}, Gates: []history.Gate{},
		Trust: &history.Trust{Score: 75, Level: level, Dimensions: results.TrustDimensions{ContractClarity: points, Idempotency: points,
			Observability: points, ErrorContainment: points, Governance: points}},
	}
}

// TestTrustPreflight answers from the agent's newest record, in each
// store: 0 at or above the level, 1 below it or without a record, 2 for
// bad input, 3 when the store cannot be reached; no password is printed.
func TestTrustPreflight(t *testing.T) {
	ctx := t.Context()
	write := func(t *testing.T, url string, o history.Options) {
		st, err := history.Open(ctx, url, o)
		assert.NilError(t, err)
		defer st.Close()
		if _, err := history.Migrate(ctx, st); err != nil {
			_, usage := errors.AsType[*history.UsageError](err) // only a postgres: store has tables
			assert.Assert(t, usage, err)
		}
		for _, r := range []*history.Record{trustRecord("old", "acme.refunds", 0, 4, 20), trustRecord("new", "acme.refunds", 1, 3, 16), trustRecord("other", "acme.search", 2, 1, 5)} {
			data, err := history.Encode(r)
			assert.NilError(t, err)
			assert.NilError(t, st.Write(ctx, r, data))
		}
	}
	type store struct {
		name string
		url  func(t *testing.T) (string, map[string]string)
	}
	stores := []store{
		{"dir", func(t *testing.T) (string, map[string]string) {
			dir := t.TempDir()
			t.Chdir(dir)
			write(t, "dir:h", history.Options{Dir: dir})
			return "dir:h", nil
		}},
		{"git", func(t *testing.T) (string, map[string]string) {
			dir := t.TempDir()
			remote := filepath.Join(t.TempDir(), "remote.git")
			git(t, dir, "init", "--bare", "--quiet", remote)
			work := filepath.Join(dir, "work")
			git(t, dir, "init", "--quiet", work)
			git(t, work, "remote", "add", "origin", remote)
			write(t, "git:evalgate-history", history.Options{Dir: work})
			reader := filepath.Join(dir, "reader")
			git(t, dir, "clone", "--quiet", remote, reader)
			t.Chdir(reader)
			return "git:evalgate-history", nil
		}},
		{"postgres", func(t *testing.T) (string, map[string]string) {
			dsn := pgtest.Shared(t).Database(t)
			t.Chdir(t.TempDir())
			write(t, dsn, history.Options{})
			return "postgres:", map[string]string{history.DSNVar: dsn}
		}},
	}
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			url, env := s.url(t)
			for _, tc := range []struct {
				args     []string
				wantCode int
				want     string
			}{
				{[]string{"--agent", "acme.refunds", "--level", "TL3"}, ExitPass, `trust preflight: yes: agent "acme.refunds" is at TL3 (score 75.0) in run new`},
				{[]string{"--agent", "acme.refunds", "--level", "tl2"}, ExitPass, "yes"},
				{[]string{"--agent", "acme.refunds", "--level", "TL4"}, ExitGateFail, "run new is at TL3 Autonomous (score 75.0), below TL4 Trusted"},
				{[]string{"--agent", "acme.search", "--level", "TL3"}, ExitGateFail, "Contract Clarity has 5 points; TL3 needs 15 or more"},
				{[]string{"--agent", "acme.nobody", "--level", "TL1"}, ExitGateFail, `holds no record of agent "acme.nobody"`},
				{[]string{"--agent", "acme.refunds", "--level", "TL5"}, ExitInvalid, `--level "TL5": expected a trust level, TL0 to TL4`},
				{[]string{"--level", "TL1"}, ExitInvalid, "expected --agent ID"},
			} {
				code, stdout, stderr := runEvalgate(t, env, append([]string{"trust", "preflight", "--store", url}, tc.args...)...)
				assert.Equal(t, code, tc.wantCode, "%v\nstdout:\n%s\nstderr:\n%s", tc.args, stdout, stderr)
				assert.Check(t, is.Contains(stdout+stderr, tc.want), tc.args)
			}
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		t.Chdir(t.TempDir())
		code, stdout, stderr := runEvalgate(t, nil, "trust", "preflight", "--agent", "a", "--level", "TL3", "--store", "postgres://evalgate:s3cret-pw@127.0.0.1:1/history?connect_timeout=5")
		assert.Equal(t, code, ExitRunError, stderr)
		assert.Check(t, is.Contains(stderr, "history store unreachable"))
		assert.Check(t, !strings.Contains(stdout+stderr, "s3cret-pw"), stderr)
		code, _, stderr = runEvalgate(t, map[string]string{history.DSNVar: "postgres://evalgate:s3cret-pw@127.0.0.1:1/history"}, "history", "list", "--store", "postgres:")
		assert.Equal(t, code, ExitRunError, stderr)
		assert.Check(t, !strings.Contains(stderr, "s3cret-pw"), stderr)
		assert.NilError(t, os.WriteFile("file", nil, 0o644))
		code, _, _ = runEvalgate(t, nil, "trust", "preflight", "--agent", "a", "--level", "TL3", "--store", "dir:file")
		assert.Equal(t, code, ExitRunError)
	})
}
