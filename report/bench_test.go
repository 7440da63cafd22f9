package report

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// BenchmarkEventsScored measures the per-task event; it should report 0
// allocs/op.
func BenchmarkEventsScored(b *testing.B) {
	ev := NewEvents(discard{}, time.Now, func() string { return "0123456789abcdef0123456789abcdef" })
	s := resultstest.Refunds()
	if err := ev.Started(&s, s.Modes, b.N, ""); err != nil {
		b.Fatal(err)
	}
	task := &s.Tasks[1]
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := ev.Scored(s.RunID, task); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSummary1k renders and validates the summary of a 1,000-task suite.
func BenchmarkSummary1k(b *testing.B) {
	s := resultstest.Suite1k()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Summary(&s, "general"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteJUnit1k writes junit.xml for 1,000 tasks: its allocations
// must not hold the document whole.
func BenchmarkWriteJUnit1k(b *testing.B) {
	r := resultstest.Full()
	r.Suites = []results.Suite{resultstest.Suite1k()}
	path := filepath.Join(b.TempDir(), "junit.xml")
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteJUnitFile(path, r); err != nil {
			b.Fatal(err)
		}
	}
}
