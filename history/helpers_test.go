package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/pgtest"
	"github.com/evalgate/evalgate/internal/waittest"
)

// day0 is when the runs of the tests start.
var day0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// rec is a record of a run started day days after day0, of the given
// event, whose tasks (of suite acme.support.evals.refunds) have the
// statuses given in order: "p" passed, "f" failed, "t" a timeout, "x" a
// crash.
func rec(id string, day float64, event string, statuses ...string) *Record {
	r := &Record{
		Schema: Schema, RunID: id, StartedAt: day0.Add(time.Duration(day * 24 * float64(time.Hour))), DurationMs: 60_000,
		Event: event, Ref: "refs/heads/main", EvalgateVersion: "v1.0.0", Tasks: map[string]Task{}, Gates: []Gate{{Expr: "passRate >= 0.5", Passed: true}},
	}
	passed := 0
	for i, s := range statuses {
		t := Task{Status: "passed", Trials: 2, PassedTrials: 2, LatencyMs: 100 * int64(i+1), CostUsd: 0.001}
		switch s {
		case "f":
			t.Status, t.PassedTrials = "failed", 0
		case "t":
			t.Status, t.PassedTrials, t.Errors = "error", 1, map[string]int{"timeout": 1}
		case "x":
			t.Status, t.PassedTrials, t.Errors = "error", 0, map[string]int{"agent-exit": 2}
		default:
			passed++
		}
		r.Tasks[fmt.Sprintf("acme.support.evals.refunds/task-%d", i)] = t
	}
	score := 0.0
	if len(statuses) > 0 {
		score = float64(passed) / float64(len(statuses))
	}
	r.Suites = []Suite{{SuiteID: "acme.support.evals.refunds", Version: "1.0.0", Score: score, Passed: passed == len(statuses),
		TaskCount: len(statuses), PassedCount: passed, CostUsd: 0.001 * float64(len(statuses)), P95LatencyMs: 100 * int64(len(statuses))}}
	return r
}

func encode(t *testing.T, r *Record) []byte {
	t.Helper()
	data, err := Encode(r)
	assert.NilError(t, err)
	return data
}

// git runs git in dir for a test.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	assert.NilError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// gitRepos makes a bare remote on disk and n clones of it, each a work
// tree with the remote as origin and one commit on main.
func gitRepos(t testing.TB, n int) (remote string, clones []string) {
	t.Helper()
	root := t.TempDir()
	remote = filepath.Join(root, "remote.git")
	git(t, root, "init", "--quiet", "--bare", "--initial-branch=main", remote)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("clone%d", i))
		git(t, root, "init", "--quiet", "--initial-branch=main", dir)
		git(t, dir, "remote", "add", "origin", remote)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("agent\n"), 0o644))
		git(t, dir, "add", "README.md")
		git(t, dir, "commit", "--quiet", "-m", "start")
		clones = append(clones, dir)
	}
	return remote, clones
}

// storeCase is one kind of store under test: its URL and options, and
// how to put a file of bytes into it as a record that evalgate did not
// write (a corrupt one, one of a newer schema).
type storeCase struct {
	name  string
	url   string
	opts  Options
	plant func(t *testing.T, name, runID string, data []byte)
}

// stores are the three stores, each empty: a folder, a branch of a bare
// remote on disk, and a database of the test's PostgreSQL server (skipped
// without one, as pgtest says).
func stores(t *testing.T) []storeCase {
	t.Helper()
	dir := t.TempDir()
	_, clones := gitRepos(t, 2)
	cases := []storeCase{
		{name: "dir", url: "dir:history", opts: Options{Dir: dir}, plant: func(t *testing.T, name, _ string, data []byte) {
			assert.NilError(t, os.MkdirAll(filepath.Join(dir, "history"), 0o755))
			assert.NilError(t, os.WriteFile(filepath.Join(dir, "history", name), data, 0o644))
		}},
		{name: "git", url: "git:evalgate-history", opts: Options{Dir: clones[0]}, plant: func(t *testing.T, name, _ string, data []byte) {
			// Another clone commits the file as a person would: a checkout
			// of the branch, a commit, a push.
			other := clones[1]
			git(t, other, "fetch", "--quiet", "origin")
			if git(t, other, "ls-remote", "origin", "refs/heads/evalgate-history") == "" {
				git(t, other, "checkout", "--quiet", "--orphan", "evalgate-history")
				git(t, other, "rm", "-r", "--quiet", "--cached", ".")
			} else {
				git(t, other, "checkout", "--quiet", "-B", "evalgate-history", "origin/evalgate-history")
			}
			assert.NilError(t, os.WriteFile(filepath.Join(other, name), data, 0o644))
			git(t, other, "add", name)
			git(t, other, "commit", "--quiet", "-m", "plant "+name)
			git(t, other, "push", "--quiet", "origin", "evalgate-history")
			git(t, other, "checkout", "--quiet", "-f", "main")
		}},
	}
	if pg := postgresServer(t); pg != nil {
		dsn := pg.Database(t)
		ctx := waittest.Context(t)
		st, err := Open(ctx, dsn, Options{})
		assert.NilError(t, err)
		_, err = Migrate(ctx, st)
		assert.NilError(t, err)
		assert.NilError(t, st.Close())
		cases = append(cases, storeCase{name: "postgres", url: dsn, plant: func(t *testing.T, _, runID string, data []byte) {
			st, err := Open(ctx, dsn, Options{})
			assert.NilError(t, err)
			defer st.Close()
			_, err = st.(*pgStore).conn.Exec(ctx, `INSERT INTO evalgate_history_runs (run_id, started_at, event, record) VALUES ($1, now(), 'push', $2::jsonb)`, runID, string(data))
			assert.NilError(t, err)
		}})
	}
	return cases
}

// postgresServer is the test binary's PostgreSQL server, or nil in a
// subtest that skipped because there is none.
func postgresServer(t *testing.T) (s *pgtest.Server) {
	t.Helper()
	t.Run("postgres server", func(t *testing.T) { s = pgtest.Shared(t) })
	return s
}

func open(t *testing.T, ctx context.Context, sc storeCase) Store {
	t.Helper()
	st, err := Open(ctx, sc.url, sc.opts)
	assert.NilError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}
