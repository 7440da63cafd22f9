package report

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"

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
		want, err := encodeIndented(normalizeRun(tc.run))
		assert.NilError(t, err)
		path := filepath.Join(t.TempDir(), "out", "results.json")
		assert.NilError(t, WriteResults(path, tc.run))
		got, err := os.ReadFile(path)
		assert.NilError(t, err)
		assert.Equal(t, string(got), string(want))
	}
	noSuites := fullRun()
	noSuites.Suites = nil
	noTasks := fullRun()
	noTasks.Suites = append([]results.Suite(nil), noTasks.Suites...)
	noTasks.Suites[0].Tasks = nil
	many := fullRun()
	s := refundsSuite()
	for i := range 3 {
		c := s
		c.ID = fmt.Sprintf("acme.support.evals.copy-%d", i)
		many.Suites = append(many.Suites, c)
	}
	for _, tc := range []testCase{
		{name: "full", run: fullRun()},
		{name: "no suites", run: noSuites},
		{name: "a suite without tasks", run: noTasks},
		{name: "several suites", run: many},
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
		if err := WriteResults(path, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteJUnit1k writes junit.xml for 1,000 tasks: its allocations
// must not hold the document whole.
func BenchmarkWriteJUnit1k(b *testing.B) {
	r := run1k()
	path := filepath.Join(b.TempDir(), "junit.xml")
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteJUnitFile(path, r); err != nil {
			b.Fatal(err)
		}
	}
}

// run1k is a run of one suite of 1,000 tasks.
func run1k() *results.Run {
	r := fullRun()
	r.Suites = []results.Suite{suite1k()}
	return r
}
