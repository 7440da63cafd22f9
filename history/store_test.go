package history

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/waittest"
)

func runIDs(w *Window) []string {
	var ids []string
	for _, r := range w.Records {
		ids = append(ids, r.RunID)
	}
	return ids
}

// TestStores writes, reads, rewrites and prunes records in each store:
// the window is the newest records of the default branch, oldest first;
// a pull request's record is not in it; writing a run twice keeps one
// record.
func TestStores(t *testing.T) {
	for _, sc := range stores(t) {
		t.Run(sc.name, func(t *testing.T) {
			ctx := waittest.Context(t)
			st := open(t, ctx, sc)
			w, err := st.Read(ctx, WindowQuery(0, "", "", ""))
			assert.NilError(t, err)
			assert.Equal(t, len(w.Records), 0, "a new store holds nothing")

			for _, r := range []*Record{
				rec("run-1", 0, EventPush, "p", "p"),
				rec("run-2", 1, EventPullRequest, "f", "p"),
				rec("run-3", 2, EventSchedule, "p", "f"),
				rec("run-4", 3, EventPush, "p", "p"),
			} {
				assert.NilError(t, st.Write(ctx, r, encode(t, r)))
			}
			again := rec("run-4", 3, EventPush, "f", "f") // the same run, written again
			assert.NilError(t, st.Write(ctx, again, encode(t, again)))

			w, err = st.Read(ctx, WindowQuery(0, "", "", ""))
			assert.NilError(t, err)
			assert.DeepEqual(t, runIDs(w), []string{"run-1", "run-3", "run-4"})
			assert.Equal(t, w.Records[2].Tasks["acme.support.evals.refunds/task-0"].Status, "passed", "the first write stays")
			assert.Equal(t, len(w.Skipped), 0)

			w, err = st.Read(ctx, WindowQuery(2, "", "", ""))
			assert.NilError(t, err)
			assert.DeepEqual(t, runIDs(w), []string{"run-3", "run-4"})

			w, err = st.Read(ctx, Query{Agent: AnyAgent, RunID: "run-2"})
			assert.NilError(t, err)
			assert.DeepEqual(t, runIDs(w), []string{"run-2"})

			removed, err := st.Prune(ctx, 2, "")
			assert.NilError(t, err)
			assert.Equal(t, removed, 2)
			w, err = st.Read(ctx, Query{Agent: AnyAgent})
			assert.NilError(t, err)
			assert.DeepEqual(t, runIDs(w), []string{"run-3", "run-4"})
		})
	}
}

// TestBadRecordsAreSkipped: every store is input. A corrupt record, one
// over 4 MiB, one with a number out of range, one of a newer schema and
// one whose name and run id differ are each skipped and named, and the
// good records are read.
func TestBadRecordsAreSkipped(t *testing.T) {
	good := rec("good", 5, EventPush, "p")
	goodData := func(t *testing.T) []byte { return encode(t, good) }
	for _, sc := range stores(t) {
		t.Run(sc.name, func(t *testing.T) {
			ctx := waittest.Context(t)
			st := open(t, ctx, sc)
			assert.NilError(t, st.Write(ctx, good, goodData(t)))
			type bad struct {
				runID string
				data  []byte
				want  string
			}
			huge := bytes.Replace(goodData(t), []byte(`"ref":`), []byte(`"pad":"`+strings.Repeat("x", MaxRecordBytes)+`","ref":`), 1)
			bads := []bad{
				{"future", bytes.Replace(goodData(t), []byte(Schema), []byte("evalgate-history/2"), 1), "written by a newer evalgate (schema evalgate-history/2"},
				{"huge", huge, "over the 4.0 MiB a record may hold"},
				{"nonfinite", bytes.Replace(goodData(t), []byte(`"durationMs":60000`), []byte(`"durationMs":1e400`), 1), "durationMs: expected a finite number in range, got number 1"},
				{"range", bytes.Replace(goodData(t), []byte(`"score":1`), []byte(`"score":7`), 1), "/suites/0/score: expected a number from 0 to 1, got 7"},
				{"status", bytes.Replace(goodData(t), []byte(`"status":"passed"`), []byte(`"status":"great"`), 1), `/status: expected one of passed, failed, error, got "great"`},
			}
			if sc.name != "postgres" { // jsonb holds only JSON
				bads = append(bads, bad{"corrupt", goodData(t)[:40], "invalid JSON"})
			}
			var wantNames []string
			for _, b := range bads {
				data := bytes.Replace(b.data, []byte(`"runId":"good"`), []byte(`"runId":"`+b.runID+`"`), 1)
				name := "20261101T090000Z-" + b.runID + ".json"
				sc.plant(t, name, b.runID, data)
				if sc.name == "postgres" {
					wantNames = append(wantNames, "run "+b.runID)
				} else {
					wantNames = append(wantNames, name)
				}
			}
			if sc.name != "postgres" {
				sc.plant(t, "20261101T090000Z-other.json", "", goodData(t))
				sc.plant(t, "notes.json", "", []byte("{}"))
				wantNames = append(wantNames, "20261101T090000Z-other.json", "notes.json")
			}
			w, err := st.Read(ctx, WindowQuery(0, "", "", ""))
			assert.NilError(t, err)
			assert.DeepEqual(t, runIDs(w), []string{"good"})
			var names []string
			for _, s := range w.Skipped {
				names = append(names, s.Name)
				for _, b := range bads {
					if strings.Contains(s.Name, "-"+b.runID+".json") || s.Name == "run "+b.runID {
						assert.Check(t, is.Contains(s.Reason, b.want), "%s", s.Name)
					}
				}
			}
			slices.Sort(names)
			slices.Sort(wantNames)
			assert.DeepEqual(t, names, wantNames)
			assert.Check(t, is.Contains(w.Warning(), "history: skipped "))
		})
	}
}

// TestGitWritersRace: three clones write a record to the same branch at
// the same moment, round after round; every record arrives, each write
// converging within MaxPushRetries retries of its rejected push, and no
// working tree changes.
func TestGitWritersRace(t *testing.T) {
	_, clones := gitRepos(t, 3)
	ctx := waittest.Context(t)
	const rounds = 4
	sts := make([]Store, len(clones))
	for i, dir := range clones {
		st, err := Open(ctx, "git:evalgate-history", Options{Dir: dir})
		assert.NilError(t, err)
		sts[i] = st
	}
	most := 0
	for round := range rounds {
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, len(clones))
		for i, st := range sts {
			r := rec(fmt.Sprintf("writer%d-round%d", i, round), float64(round), EventPush, "p")
			data := encode(t, r)
			wg.Go(func() {
				<-start
				errs[i] = st.Write(ctx, r, data)
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			assert.NilError(t, err)
			n := sts[i].(*gitStore).retries
			assert.Check(t, n <= MaxPushRetries)
			most = max(most, n)
		}
	}
	t.Logf("the most retries one write took: %d", most)
	w, err := sts[0].Read(ctx, Query{Agent: AnyAgent})
	assert.NilError(t, err)
	assert.Equal(t, len(w.Records), rounds*len(clones), "records: %v", runIDs(w))
	for _, dir := range clones {
		assert.Equal(t, git(t, dir, "status", "--porcelain"), "", "the working tree is as it was")
		assert.Equal(t, git(t, dir, "branch", "--show-current"), "main")
	}
}

// TestUnreachable: a store that cannot be reached is ErrUnreachable, and
// says so without a password.
func TestUnreachable(t *testing.T) {
	dir := t.TempDir()
	ctx := waittest.Context(t)
	for _, tc := range []struct {
		name, url string
		opts      Options
		want      string
	}{
		{"git without its remote", "git:evalgate-history", Options{Dir: dir, Remote: "nowhere"}, "git fetch"},
		{"postgres on a closed port", "postgres://evalgate:s3cret-pass@127.0.0.1:1/db?sslmode=disable&connect_timeout=5", Options{}, "127.0.0.1"},
		{"postgres from the environment", "postgres:", Options{Getenv: func(string) string {
			return "host=127.0.0.1 port=1 user=evalgate password=s3cret-pass connect_timeout=5 sslmode=disable"
		}}, "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Open(ctx, tc.url, tc.opts)
			if err == nil {
				_, err = st.Read(ctx, WindowQuery(0, "", "", ""))
			}
			assert.Assert(t, errors.Is(err, ErrUnreachable), "%v", err)
			assert.Check(t, is.Contains(err.Error(), tc.want))
			assert.Check(t, !strings.Contains(err.Error(), "s3cret-pass"), "%v", err)
		})
	}
}

// TestGitReadsTheCopyFetchedBefore: a git: store whose remote cannot be
// reached reads the branch as it was fetched before (the Action's fetch
// step holds the token, its run step none), and says so; a write never
// builds on that copy.
func TestGitReadsTheCopyFetchedBefore(t *testing.T) {
	remote, clones := gitRepos(t, 1)
	ctx := waittest.Context(t)
	st, err := Open(ctx, "git:evalgate-history", Options{Dir: clones[0]})
	assert.NilError(t, err)
	r := rec("run-1", 0, EventPush, "p")
	assert.NilError(t, st.Write(ctx, r, encode(t, r)))

	git(t, clones[0], "remote", "set-url", "origin", remote+".gone")
	w, err := st.Read(ctx, WindowQuery(0, "", "", ""))
	assert.NilError(t, err)
	assert.DeepEqual(t, runIDs(w), []string{"run-1"})
	assert.Check(t, is.Contains(w.Warning(), "history: could not fetch git:evalgate-history"))
	assert.Check(t, is.Contains(w.Warning(), "read the copy fetched before"))

	r2 := rec("run-2", 1, EventPush, "p")
	err = st.Write(ctx, r2, encode(t, r2))
	assert.Assert(t, errors.Is(err, ErrUnreachable), "%v", err)
}
