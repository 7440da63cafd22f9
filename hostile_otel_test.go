package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
)

// hostileOtelCases are agents that send their trial's OpenTelemetry
// receiver what it must bound: a span flood, bodies over the cap, spans
// to an ended trial's endpoint, token counts out of range, content in
// attributes named in odd case, forged names and a deep parent chain
// (docs/security.md). Each is counted, never printed, never fatal.
func hostileOtelCases() []hostileCase {
	const otel = "  otel: true\nconcurrency: 1\n"
	return []hostileCase{
		{
			name: "an agent that floods its OTLP endpoint with 25,000 spans", agent: "otel.sh", suite: "otel.yaml", config: otel,
			env:      map[string]string{"HOSTILE_OTEL": "flood"},
			wantExit: 0, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				for _, tr := range otelTrials(t, dir) {
					assert.Check(t, is.Equal(tr.Spans.Count, 10_000))
					assert.Check(t, is.Equal(tr.Spans.Dropped, int64(15_000)))
					assert.Check(t, is.Len(tr.Spans.List, 256))
				}
			},
		},
		{
			name: "an agent that sends OTLP bodies over 4 MiB, one a gzip bomb", agent: "otel.sh", suite: "otel.yaml", config: otel,
			env:      map[string]string{"HOSTILE_OTEL": "big"},
			wantExit: 0, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				for _, tr := range otelTrials(t, dir) {
					assert.Check(t, is.Equal(tr.Spans.Count, 0))
					assert.Check(t, is.Equal(tr.Spans.Refused, int64(2)))
				}
			},
		},
		{
			name: "an agent that sends spans to the endpoint of the trial before", agent: "otel.sh", suite: "otel.yaml", config: otel,
			env:      map[string]string{"HOSTILE_OTEL": "reuse"},
			wantExit: 0, outputs: true, // the agent answers "ok" only when the old endpoint was 404
		},
		{
			name: "OTLP spans with odd token counts, content, forged names and a deep parent chain", agent: "otel.sh", suite: "otel.yaml", config: otel,
			env:      map[string]string{"HOSTILE_OTEL": "odd"},
			args:     []string{"--transcripts"},
			wantExit: 0, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				for _, tr := range otelTrials(t, dir) {
					assert.Check(t, is.Equal(tr.Spans.Count, 5003))
					assert.Check(t, is.Equal(tr.Spans.Invalid, int64(4)))
					assert.Check(t, is.Equal(tr.Tokens, results.Tokens{}))
					assert.Check(t, is.Equal(tr.AgentCostUsd, 0.0))
				}
				err := filepath.WalkDir(filepath.Join(dir, "evalgate-out"), func(path string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					b, err := os.ReadFile(path)
					assert.Check(t, !strings.Contains(string(b), "SECRET-CONTENT-hostile-otel"), "%s holds a span's content", path)
					return err
				})
				assert.NilError(t, err)
			},
		},
	}
}

// otelTrials are the trials of a hostile OTel case's results.json.
func otelTrials(t *testing.T, dir string) []results.Trial {
	t.Helper()
	var run results.Run
	assert.NilError(t, json.Unmarshal([]byte(readOut(t, dir, "results.json")), &run))
	var trials []results.Trial
	for _, task := range run.Suites[0].Tasks {
		assert.Assert(t, task.Trials[0].Spans != nil, "no spans recorded")
		trials = append(trials, task.Trials[0])
	}
	assert.Check(t, is.Len(trials, 2))
	return trials
}
