package suites

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoad10k loads a suite of 10,000 tasks shaped like the shared
// bench workload: a string input, an exact match and three expr asserts.
func BenchmarkLoad10k(b *testing.B) {
	for _, ext := range []string{"json", "yaml"} {
		b.Run(ext, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "bench."+ext)
			data := benchSuite(10_000, ext == "json")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				suites, err := Load(path)
				if err != nil {
					b.Fatal(err)
				}
				if len(suites[0].Tasks) != 10_000 {
					b.Fatalf("loaded %d tasks", len(suites[0].Tasks))
				}
			}
		})
	}
}

func benchSuite(n int, asJSON bool) []byte {
	var sb strings.Builder
	if asJSON {
		sb.WriteString(`{"suiteId": "bench.load.evals.tenk", "version": "1.0.0", "modes": ["golden"], "tasks": [`)
		for i := range n {
			if i > 0 {
				sb.WriteString(",\n")
			}
			fmt.Fprintf(&sb, `{"taskId": "task-%d", "input": "What is %d + %d?", "expected": {"kind": "golden", "match": {"strategy": "exact", "value": "%d"}, "assert": [{"expr": "len(output) < 100"}, {"expr": "toolCalls == 0"}, {"expr": "output matches \"^[0-9]+$\""}]}}`, i, i, i, 2*i)
		}
		sb.WriteString("]}\n")
		return []byte(sb.String())
	}
	sb.WriteString("suiteId: bench.load.evals.tenk\nversion: 1.0.0\nmodes: [golden]\ntasks:\n")
	for i := range n {
		fmt.Fprintf(&sb, "  - taskId: task-%d\n    input: What is %d + %d?\n    expected:\n      kind: golden\n      match: {strategy: exact, value: \"%d\"}\n      assert:\n        - expr: len(output) < 100\n        - expr: toolCalls == 0\n        - expr: 'output matches \"^[0-9]+$\"'\n", i, i, i, 2*i)
	}
	return []byte(sb.String())
}
