package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/evalgate/evalgate/results"
)

// BenchmarkEventsScored measures the per-task event; it should report 0
// allocs/op.
func BenchmarkEventsScored(b *testing.B) {
	ev := NewEvents(discard{}, time.Now, func() string { return "0123456789abcdef0123456789abcdef" })
	s := refundsSuite()
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
	s := suite1k()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Summary(&s, "general"); err != nil {
			b.Fatal(err)
		}
	}
}

// suite1k is refundsSuite with 1,000 copies of its second task.
func suite1k() results.Suite {
	s := refundsSuite()
	template := s.Tasks[1]
	s.Tasks = make([]results.Task, 1000)
	for i := range s.Tasks {
		s.Tasks[i] = template
		s.Tasks[i].ID = fmt.Sprintf("task-%04d", i)
	}
	s.TaskCount = len(s.Tasks)
	return s
}
