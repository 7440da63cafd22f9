package suites

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/memtune"
)

// benchWorkload is a suite of the side-by-side bench workload (bench/gen):
// every task has its own input, exact match and three expressions, so
// nothing is shared between tasks.
func benchWorkload(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"suiteId": "bench.evalgate.evals.exec-` + fmt.Sprint(n) + `", "version": "1.0.0", "modes": ["golden"], "tasks": [`)
	for i := range n {
		a, b := (i*7919)%1000, (i*104729)%1000
		s := a + b
		out := fmt.Sprintf(`{"id":"t%d","answer":%d,"text":"The sum of %d and %d is %d"}`, i, s, a, b, s)
		q := func(v string) string { j, _ := json.Marshal(v); return string(j) }
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"taskId": "t%d", "input": %s, "expected": {"kind": "golden", "match": {"strategy": "exact", "value": %s}, "assert": [{"expr": %s}, {"expr": %s}, {"expr": %s}]}}`,
			i, q(fmt.Sprintf("task t%d: add %d %d", i, a, b)), q(out),
			q(`output contains `+q(fmt.Sprintf(`"answer":%d`, s))),
			q(`output matches `+q(fmt.Sprintf(`^\{"id":"t%d","answer":\d+,`, i))),
			q(fmt.Sprintf(`fromJSON(output).answer == %d`, s)))
	}
	sb.WriteString("]}\n")
	return []byte(sb.String())
}

// BenchmarkLoadBench1k loads a 1,000-task suite of the bench workload, as
// `evalgate run` does (with the collector set by internal/memtune): what
// stands between the command and its first agent.
func BenchmarkLoadBench1k(b *testing.B) { benchmarkLoad(b, memtune.Load) }

// BenchmarkLoadBench1kUntuned is the same load with the collector as the
// process has it: what a program using this package gets.
func BenchmarkLoadBench1kUntuned(b *testing.B) { benchmarkLoad(b, nil) }

func benchmarkLoad(b *testing.B, hook ParseHook) {
	path := filepath.Join(b.TempDir(), "bench.json")
	data := benchWorkload(1000)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := Load(path); err != nil { // the embedded schema compiles once per process
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := LoadWith(hook, path)
		if err != nil {
			b.Fatal(err)
		}
		if len(s[0].Tasks) != 1000 {
			b.Fatalf("loaded %d tasks", len(s[0].Tasks))
		}
	}
}
