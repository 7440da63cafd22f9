package report

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
)

func TestScorecardShards(t *testing.T) {
	type testCase struct {
		name   string
		shards []results.ShardRun
		want   string
	}
	run := func(t *testing.T, tc testCase) {
		r := &results.Run{Passed: true, Shards: tc.shards}
		got := Scorecard(r, ScorecardOptions{})
		if tc.want == "" {
			assert.Check(t, !strings.Contains(got, "Merged from"), got)
			return
		}
		assert.Check(t, is.Contains(got, tc.want))
	}
	for _, tc := range []testCase{
		{name: "not merged", shards: nil},
		{
			name:   "hashed shards: the wall-time spread",
			shards: []results.ShardRun{{Index: 1, WallMs: 62_000}, {Index: 2, WallMs: 70_000}},
			want:   "> Merged from 2 shards (tasks assigned by hash): wall time 1m2s to 1m10s (spread 8.0s).\n",
		},
		{
			name:   "balanced shards: the plan beside it",
			shards: []results.ShardRun{{Index: 1, PlannedMs: 30_000, WallMs: 31_000}, {Index: 2, PlannedMs: 30_000, WallMs: 33_500}},
			want:   "> Merged from 2 shards (balanced by past latency): wall time 31.0s to 33.5s (spread 2.5s). Planned from past latencies: 30.0s each.\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
