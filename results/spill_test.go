package results_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// passed is the trials a merge spills: those of passed tasks.
func passed(t *results.Task) bool { return t.Status == results.StatusPassed }

// restorer is the restore that gives lean's tasks, in file order, the
// trials spans says were spilled.
func restorer(spill *results.Spill, lean *results.Run, spans [][]results.Span) results.Restore {
	si, k := 0, 0
	return func(_ *results.Task, buf []byte) ([]byte, error) {
		for k == len(lean.Suites[si].Tasks) {
			si, k = si+1, 0
		}
		k++
		if spans[si] == nil || spans[si][k-1].Len == 0 {
			return buf, nil
		}
		return spill.Append(buf, spans[si][k-1])
	}
}

// TestReadSpillingWritesTheSameBytes checks that a results file read with
// its passed tasks' trials spilled, then written with them restored, is
// the file Read and Write give, and that only well-formed trials left.
func TestReadSpillingWritesTheSameBytes(t *testing.T) {
	type testCase struct {
		name string
		run  *results.Run
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.json")
		assert.NilError(t, results.Write(in, tc.run))
		whole, err := results.Read(in)
		assert.NilError(t, err)

		spill, err := results.NewSpill(dir)
		assert.NilError(t, err)
		defer spill.Close()
		lean, spans, err := results.ReadSpilling(in, passed, spill)
		assert.NilError(t, err)
		left := 0
		for i := range lean.Suites {
			for k, task := range lean.Suites[i].Tasks {
				if spans[i] != nil && spans[i][k].Len > 0 {
					left++
					assert.Assert(t, task.Trials == nil)
					assert.Equal(t, whole.Suites[i].Tasks[k].Status, results.StatusPassed)
				}
			}
		}
		assert.Assert(t, left > 0, "no trials were spilled")

		out := filepath.Join(dir, "out.json")
		assert.NilError(t, results.WriteRestoring(out, lean, restorer(spill, lean, spans)))
		got, err := os.ReadFile(out)
		assert.NilError(t, err)
		want, err := os.ReadFile(in)
		assert.NilError(t, err)
		assert.Equal(t, string(got), string(want))
	}
	big := resultstest.Full()
	big.Suites = append(big.Suites, resultstest.Suite1k())
	// Passed tasks whose spilled trials alone are more than the writer's
	// batch, between failed ones: batches end at such a task.
	manyTrials := resultstest.Full()
	s := resultstest.Suite1k()
	s.Tasks = s.Tasks[:7]
	for i := range s.Tasks {
		if i%2 == 0 {
			passedTask := resultstest.Refunds().Tasks[0]
			passedTask.ID = s.Tasks[i].ID
			passedTask.Trials = make([]results.Trial, 1500)
			for j := range passedTask.Trials {
				passedTask.Trials[j] = resultstest.Refunds().Tasks[0].Trials[0]
				passedTask.Trials[j].Trial = j + 1
			}
			s.Tasks[i] = passedTask
		}
	}
	s.TaskCount = len(s.Tasks)
	manyTrials.Suites = append(manyTrials.Suites, s)
	for _, tc := range []testCase{
		{name: "full", run: resultstest.Full()},
		{name: "1,000 tasks more", run: big},
		{name: "trials over a batch", run: manyTrials},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestReadSpillingIsRead checks that files of another shape than Write's,
// and broken ones, read as Read reads them, errors included.
func TestReadSpillingIsRead(t *testing.T) {
	type testCase struct {
		name string
		edit func(s string) string
		lean bool // read one task at a time, not left to Read
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		path := filepath.Join(dir, "results.json")
		assert.NilError(t, results.Write(path, resultstest.Full()))
		data, err := os.ReadFile(path)
		assert.NilError(t, err)
		edited := tc.edit(string(data))
		assert.Assert(t, tc.name == "as written" || edited != string(data), "the edit changed nothing")
		assert.NilError(t, os.WriteFile(path, []byte(edited), 0o644))

		want, wantErr := results.Read(path)
		spill, err := results.NewSpill(dir)
		assert.NilError(t, err)
		defer spill.Close()
		_, spans, spilledErr := results.ReadSpilling(path, passed, spill)
		assert.Equal(t, spans != nil, tc.lean, "read one task at a time")
		got, _, gotErr := results.ReadSpilling(path, func(*results.Task) bool { return false }, spill)
		if wantErr != nil {
			assert.Error(t, spilledErr, wantErr.Error())
			assert.Error(t, gotErr, wantErr.Error())
			return
		}
		assert.NilError(t, spilledErr)
		assert.NilError(t, gotErr)
		checkSame(t, want, got, "(-Read +ReadSpilling)")
	}
	for _, tc := range []testCase{
		{name: "as written", edit: func(s string) string { return s }, lean: true},
		{name: "a task longer than a first look ahead", edit: func(s string) string {
			long := `"failedChecks": ["x"` + strings.Repeat(`, "x"`, 40_000) + `], "toolCalls": 0`
			return strings.Replace(s, `"toolCalls": 0`, long, 1)
		}, lean: true},
		{name: "a value longer than a read", edit: func(s string) string {
			return strings.Replace(s, `"runId"`, `"extra": "`+strings.Repeat(`\"x`, 200_000)+`", "runId"`, 1)
		}, lean: true},
		{name: "keys in other cases", edit: func(s string) string { return strings.Replace(s, `"suites"`, `"Suites"`, 1) }},
		{name: "tasks in other cases", edit: func(s string) string { return strings.Replace(s, `"tasks"`, `"TASKS"`, 1) }, lean: true},
		{name: "suites null", edit: func(s string) string { return s[:strings.Index(s, `"suites"`)] + `"suites": null}` }},
		{name: "a second suites", edit: func(s string) string { return strings.Replace(s, `"gates"`, `"suites": [], "gates"`, 1) }},
		{name: "compact", edit: func(s string) string { return strings.Join(strings.Fields(s), "") }, lean: true},
		{name: "not JSON", edit: func(s string) string { return s[:len(s)/2] }},
		{name: "a string for a number", edit: func(s string) string { return strings.Replace(s, `"latencyMs": `, `"latencyMs": "x", "_": `, 3) }},
		{name: "a score out of range", edit: func(s string) string { return strings.Replace(s, `"score": 1`, `"score": 7`, 1) }},
		{name: "a trial's score out of range", edit: func(s string) string {
			return strings.Replace(s, `"trial": 1,
              "status": "passed",
              "score": 1`, `"trial": 1,
              "status": "passed",
              "score": 7`, 1)
		}},
		{name: "a fraction for a whole number", edit: func(s string) string { return strings.Replace(s, `"toolCalls": 0`, `"toolCalls": 0.5`, 2) }},
		{name: "no comma between tasks", edit: func(s string) string { return strings.Replace(s, "},\n        {", "}\n        {", 1) }},
		{name: "a trailing comma", edit: func(s string) string { return strings.Replace(s, "}\n      ]", "},\n      ]", 1) }},
		{name: "a task's key in another case", edit: func(s string) string { return strings.Replace(s, `"passScore": 1,`, `"PassScore": 0.5,`, 3) }},
		{name: "an unknown key", edit: func(s string) string {
			return strings.Replace(s, `"passScore": 1,`, `"extra": {"a": [1, "]"]}, "passScore": 1,`, 3)
		}},
		{name: "escapes", edit: func(s string) string {
			return strings.Replace(s, `"kind": "golden"`, `"kind": "gol\u0064en\n\u00e9"`, 3)
		}, lean: true},
		{name: "a number cut short", edit: func(s string) string { return strings.Replace(s, `"toolCalls": 0`, `"toolCalls": -`, 1) }},
		{name: "something after", edit: func(s string) string { return s + "{}" }},
		{name: "a list", edit: func(s string) string { return "[" + s + "]" }},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestReadSpillingCopiesOnlyWhatWriteWrites checks when the spilled trials
// are the file's own bytes: only once the first tasks' trials are found to
// be what Write writes, and never for a task with a string encoding/json
// reads. What is written back is always the same results.
func TestReadSpillingCopiesOnlyWhatWriteWrites(t *testing.T) {
	type testCase struct {
		name string
		edit func(s string) string
		// canonical: what is written back is what Write writes for the
		// file (else only the same results)
		canonical bool
	}
	// late is the file from the 100th task on.
	late := func(s string, edit func(string) string) string {
		i := 0
		for range 100 {
			i += strings.Index(s[i:], `"taskId"`) + 1
		}
		return s[:i] + edit(s[i:])
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.json")
		r := resultstest.Full()
		s := resultstest.Suite1k()
		for i := range s.Tasks { // passed, so that their trials are spilled
			id := s.Tasks[i].ID
			s.Tasks[i] = resultstest.Full().Suites[0].Tasks[0]
			s.Tasks[i].ID = id
		}
		r.Suites = []results.Suite{s}
		assert.NilError(t, results.Write(in, r))
		data, err := os.ReadFile(in)
		assert.NilError(t, err)
		edited := tc.edit(string(data))
		assert.Assert(t, edited != string(data), "the edit changed nothing")
		assert.NilError(t, os.WriteFile(in, []byte(edited), 0o644))
		whole, err := results.Read(in)
		assert.NilError(t, err)

		spill, err := results.NewSpill(dir)
		assert.NilError(t, err)
		defer spill.Close()
		lean, spans, err := results.ReadSpilling(in, passed, spill)
		assert.NilError(t, err)
		assert.Assert(t, spans != nil, "read one task at a time")
		out := filepath.Join(dir, "out.json")
		assert.NilError(t, results.WriteRestoring(out, lean, restorer(spill, lean, spans)))
		got, err := results.Read(out)
		assert.NilError(t, err)
		checkSame(t, whole, got, "(-read whole +written back)")
		if tc.canonical {
			want := filepath.Join(dir, "want.json")
			assert.NilError(t, results.Write(want, whole))
			wantData, err := os.ReadFile(want)
			assert.NilError(t, err)
			gotData, err := os.ReadFile(out)
			assert.NilError(t, err)
			assert.Equal(t, string(gotData), string(wantData))
		}
	}
	for _, tc := range []testCase{
		{name: "another layout", edit: func(s string) string { return strings.ReplaceAll(s, "\n          ", "\n\t") }, canonical: true},
		{name: "numbers written otherwise", edit: func(s string) string { return strings.ReplaceAll(s, `"weight": 1,`, `"weight": 1.0,`) }, canonical: true},
		{name: "escapes after the first tasks", edit: func(s string) string {
			return late(s, func(s string) string { return strings.ReplaceAll(s, `"id": "match"`, `"id": "m\u0061tch"`) })
		}, canonical: true},
		{name: "another layout after the first tasks", edit: func(s string) string {
			return late(s, func(s string) string { return strings.ReplaceAll(s, `"weight": 1,`, `"weight": 1.0,`) })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestRemoveStaleSpills: the spill files a killed process left in a
// folder are removed, links to them too, and nothing else is.
func TestRemoveStaleSpills(t *testing.T) {
	dir := t.TempDir()
	stale, err := results.NewSpill(dir)
	assert.NilError(t, err)
	outside := filepath.Join(t.TempDir(), "kept.json")
	assert.NilError(t, os.WriteFile(outside, []byte("{}"), 0o644))
	assert.NilError(t, os.Symlink(outside, filepath.Join(dir, ".trials-link.json")))
	for _, name := range []string{"results.json", ".trials-notes.txt"} {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
	}

	assert.NilError(t, results.RemoveStaleSpills(dir))
	entries, err := os.ReadDir(dir)
	assert.NilError(t, err)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	assert.DeepEqual(t, left, []string{".trials-notes.txt", "results.json"})
	_, err = os.Stat(outside)
	assert.NilError(t, err, "the link's target was removed")
	stale.Close() // its file is gone already
}

// checkSame fails the test when got differs from want, with cmp's diff.
// reflect.DeepEqual looks first: cmp's diff of a thousand equal tasks is
// most of these tests' time.
func checkSame(t *testing.T, want, got *results.Run, what string) {
	t.Helper()
	if reflect.DeepEqual(want, got) {
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s:\n%s", what, diff)
	}
}
