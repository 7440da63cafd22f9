package report

import (
	"fmt"
	"slices"
)

// shards writes, for a run merged from shards, how long the shards took
// and how far apart they finished: the slowest shard holds the build, so
// the spread is what balancing (--balance) is for.
func (c *card) shards() {
	sh := c.run.Shards
	if len(sh) == 0 {
		return
	}
	wall := make([]int64, len(sh))
	var planned []int64
	for i, s := range sh {
		wall[i] = s.WallMs
		if s.PlannedMs > 0 {
			planned = append(planned, s.PlannedMs)
		}
	}
	how := "tasks assigned by hash"
	if len(planned) == len(sh) {
		how = "balanced by past latency"
	}
	fmt.Fprintf(&c.b, "\n> [!NOTE]\n> Merged from %d shards (%s): wall time %s.", len(sh), how, spread(wall))
	if len(planned) == len(sh) {
		fmt.Fprintf(&c.b, " Planned from past latencies: %s.", spread(planned))
	}
	c.b.WriteString("\n")
}

// spread writes the range of durations and its width: "1m2s to 1m10s
// (spread 8.0s)", or one figure when all are equal.
func spread(ms []int64) string {
	lo, hi := slices.Min(ms), slices.Max(ms)
	if lo == hi {
		return formatMs(lo) + " each"
	}
	return fmt.Sprintf("%s to %s (spread %s)", formatMs(lo), formatMs(hi), formatMs(hi-lo))
}
