package cli

import "runtime/debug"

// runGCPercent is the garbage collector's target for evalgate. The live
// heap of a run is small (the loaded suites and one result row per task)
// and nearly everything a trial allocates is garbage when it ends, so a
// tighter target than Go's default of 100 costs little CPU and keeps peak
// memory close to what is live (#6): 30 keeps a 100,000-task run under
// 200 MiB with room to spare (178 MiB measured; 190-201 at 40, depending
// on how the collector's pacing fell) for a few percent more CPU. GOGC in
// the environment wins.
const runGCPercent = 30

// tuneGC applies runGCPercent unless the environment sets GOGC.
func (c *Command) tuneGC() {
	if c.Getenv("GOGC") == "" {
		debug.SetGCPercent(runGCPercent)
	}
}
