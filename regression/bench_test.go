package regression

import (
	"fmt"
	"testing"

	"github.com/evalgate/evalgate/results"
)

// BenchmarkCompare100k compares a 100,000-task run in which every tenth
// task lost half a point: the bootstrap dominates.
func BenchmarkCompare100k(b *testing.B) {
	base := &results.Run{RunID: "b", Suites: []results.Suite{suite(refunds, "1.0.0")}}
	head := &results.Run{RunID: "h", Suites: []results.Suite{suite(refunds, "1.0.0")}}
	for i := range 100_000 {
		id := fmt.Sprintf("t%06d", i)
		base.Suites[0].Tasks = append(base.Suites[0].Tasks, task(id, 1, true))
		score := 1.0
		if i%10 == 0 {
			score = 0.5
		}
		head.Suites[0].Tasks = append(head.Suites[0].Tasks, task(id, score, score == 1))
	}
	b.ResetTimer()
	for b.Loop() {
		Compare(base, head, Options{})
	}
}
