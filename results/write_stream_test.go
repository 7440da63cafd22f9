package results_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// TestStreamResultsSameBytes checks that results.json written task by task
// is byte for byte the document encoded whole.
func TestStreamResultsSameBytes(t *testing.T) {
	type testCase struct {
		name string
		run  *results.Run
	}
	run := func(t *testing.T, tc testCase) {
		want, err := results.EncodeWhole(tc.run)
		assert.NilError(t, err)
		path := filepath.Join(t.TempDir(), "out", "results.json")
		assert.NilError(t, results.Write(path, tc.run))
		got, err := os.ReadFile(path)
		assert.NilError(t, err)
		assert.Equal(t, string(got), string(want))
	}
	noSuites := resultstest.Full()
	noSuites.Suites = nil
	noTasks := resultstest.Full()
	noTasks.Suites = append([]results.Suite(nil), noTasks.Suites...)
	noTasks.Suites[0].Tasks = nil
	many := resultstest.Full()
	s := resultstest.Refunds()
	for i := range 3 {
		c := s
		c.ID = fmt.Sprintf("acme.support.evals.copy-%d", i)
		many.Suites = append(many.Suites, c)
	}
	for _, tc := range []testCase{
		{name: "full", run: resultstest.Full()},
		{name: "no suites", run: noSuites},
		{name: "a suite without tasks", run: noTasks},
		{name: "several suites", run: many},
		{name: "tasks in several batches", run: run1k()},
		{name: "empty", run: &results.Run{}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// BenchmarkWriteResults1k writes results.json for a 1,000-task suite.
func BenchmarkWriteResults1k(b *testing.B) {
	r := run1k()
	path := filepath.Join(b.TempDir(), "results.json")
	b.ReportAllocs()
	for b.Loop() {
		if err := results.Write(path, r); err != nil {
			b.Fatal(err)
		}
	}
}

// run1k is a run of one suite of 1,000 tasks.
func run1k() *results.Run {
	r := resultstest.Full()
	r.Suites = []results.Suite{resultstest.Suite1k()}
	return r
}
