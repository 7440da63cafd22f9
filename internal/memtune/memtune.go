// Package memtune sets the Go garbage collector for what evalgate does:
// a tighter target than Go's default for a run, and settings of their own
// while a suite file loads. The settings belong to the process, so only
// the command layer calls this package; the libraries (suites among them)
// set nothing process-wide.
package memtune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// RunGCPercent is the garbage collector's target for evalgate. The live
// heap of a run is small (the loaded suites and one result row per task)
// and nearly everything a trial allocates is garbage when it ends, so a
// tighter target than Go's default of 100 costs little CPU and keeps peak
// memory close to what is live (#6): 30 keeps a 100,000-task run under
// 200 MiB with room to spare (178 MiB measured; 190-201 at 40, depending
// on how the collector's pacing fell) for a few percent more CPU.
const RunGCPercent = 30

// Run applies RunGCPercent unless gogc, the GOGC of the environment, is
// set: the user's setting wins.
func Run(gogc string) {
	if gogc == "" {
		debug.SetGCPercent(RunGCPercent)
	}
}

// MCPGCPercent is the collector's target for a run that serves its agents'
// tools over MCP. The MCP SDK's JSON decoder allocates tens of kilobytes
// per message it reads, several messages a call, all garbage at once; at
// RunGCPercent the heap of a run is so small that the collector then runs
// every few calls, and a 1,000-task run took twice as long (bench/mcp.sh:
// 10-12 s against 5.6-5.9 s at 100, peak RSS 30 MiB against 32 MiB).
const MCPGCPercent = 100

// mcpHeadroom is the least the heap of a run serving MCP grows by between
// two collections. That garbage is the same whatever the run's size, while
// the live heap of a small run is a few MiB: at MCPGCPercent alone a
// 1,000-task run with one call a task collected 165 times, a little over
// a tenth of evalgate's CPU (live heap 4-5 MiB, bench/mcp.sh). With this
// floor the collector runs about a third as often there, for a peak RSS a
// few MiB higher; a run whose live heap is larger than the floor is paced
// at MCPGCPercent as before.
const mcpHeadroom = 16 << 20

// maxMCPGCPercent caps the target mcpHeadroom sets while the live heap is
// tiny.
const maxMCPGCPercent = 1000

// MCP applies MCPGCPercent, raised after each collection while the live
// heap is small so that the heap may grow by mcpHeadroom, unless gogc, the
// GOGC of the environment, is set: the user's setting wins. It returns what
// restores the target it found.
func MCP(gogc string) (restore func()) {
	return withHeadroom(gogc, MCPGCPercent, mcpHeadroom, maxMCPGCPercent)
}

// trialHeadroom is the least the heap grows by between two collections
// while a run's trials run (Trials). Nearly everything a trial allocates
// is garbage when it ends, and at RunGCPercent over the few MiB live in a
// small run the collector ran every 1.3 MB allocated: 40 times in a
// 1,000-task run, a seventh of evalgate's CPU. The peak memory of such a
// run comes while its suite loads and while its results are written
// (bench/README.md, "Targets"), which this headroom stays under; a run
// whose live heap is large is paced at RunGCPercent as before.
const trialHeadroom = 3 << 20

// maxTrialGCPercent caps the target trialHeadroom sets while the live
// heap is tiny.
const maxTrialGCPercent = 400

// Trials applies RunGCPercent, raised after each collection while the
// live heap is small so that the heap may grow by trialHeadroom, unless
// gogc, the GOGC of the environment, is set: the user's setting wins. It
// returns what restores the target it found.
func Trials(gogc string) (restore func()) {
	return withHeadroom(gogc, RunGCPercent, trialHeadroom, maxTrialGCPercent)
}

// withHeadroom applies percent, raised after each collection so that the
// heap may grow by room, up to maxPercent; see MCP. The first collection
// sets the first target from the heap it finds live.
func withHeadroom(gogc string, percent int, room uint64, maxPercent int) (restore func()) {
	if gogc != "" {
		return func() {}
	}
	t := &headroom{percent: percent, room: room, max: maxPercent}
	t.prev = debug.SetGCPercent(percent)
	t.arm()
	return t.stop
}

// headroom sets the collector's target after each collection, from the
// live heap, until it is stopped.
type headroom struct {
	mu      sync.Mutex
	stopped bool
	prev    int
	percent int    // the target at least
	room    uint64 // what the heap may grow by
	max     int    // the target at most
}

// collected is a sentinel whose cleanup runs once a collection has found
// it unreachable. It holds a pointer, and is large enough, not to share
// its memory with other objects, which would delay its cleanup.
type collected struct {
	_ *headroom
	_ [48]byte
}

func (t *headroom) arm() {
	runtime.AddCleanup(new(collected), (*headroom).collected, t)
}

func (t *headroom) collected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	debug.SetGCPercent(t.target(liveHeap()))
	t.arm()
}

func (t *headroom) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(t.prev)
	}
}

// target is the target under which a heap of live bytes may grow by
// room, at least percent and at most max.
func (t *headroom) target(live uint64) int {
	if live == 0 {
		return t.max
	}
	return int(min(uint64(t.max), max(uint64(t.percent), t.room*100/live)))
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// loadGCPercent is the garbage collector's target while a large suite
// loads. Loading makes much short-lived garbage (syntax trees, the
// validator's copies, expression checks) around a tree that is dropped at
// the end, and with Go's default target of 100% the heap doubles it: for a
// large suite that is the peak memory of the whole run (#6).
const loadGCPercent = 40

// A JSON suite file of at most smallSuite bytes loads with the collector
// held off until the memory in use has grown by loadHeadroom plus
// loadGrowth times the file's size (what its decoded tasks may keep). At
// Go's minimum heap size a tight target collects over and over while the
// heap is small: 25 times over a 1,000-task suite, which then took half as
// long again to load, all of it before the first agent starts (#6). The
// headroom is small so that the peak memory of a small run stays small.
const (
	smallSuite   = 1 << 20
	loadHeadroom = 8 << 20
	loadGrowth   = 2
)

// loading is held from Load to its restore: two loads setting and
// restoring the collector at once could leave it off.
var loading sync.Mutex

// Load sets the collector for loading a suite file of size bytes (JSON or
// YAML) and returns what restores it; it has the signature of a
// suites.ParseHook. Loads take turns: a second Load waits for the first
// one's restore. A process running with the collector off (GOGC=off) is
// left as it is.
func Load(path string, size int, json bool) (restore func()) {
	loading.Lock()
	prev := debug.SetGCPercent(-1)
	if prev < 0 {
		return loading.Unlock
	}
	if json && size <= smallSuite {
		limit := debug.SetMemoryLimit(-1) // reads it
		debug.SetMemoryLimit(min(limit, memoryInUse()+loadHeadroom+loadGrowth*int64(size)))
		return func() {
			debug.SetMemoryLimit(limit)
			debug.SetGCPercent(prev)
			loading.Unlock()
		}
	}
	debug.SetGCPercent(min(prev, loadGCPercent))
	return func() {
		debug.SetGCPercent(prev)
		loading.Unlock()
	}
}

// memoryInUse is the memory the Go runtime counts against its memory limit.
func memoryInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// Release collects garbage and returns the memory it frees to the
// operating system now, rather than as the runtime's scavenger gets to it.
// A merge calls it as each shard's tasks move into the merged list: the
// shard's list, tens of megabytes for a large shard, would otherwise count
// in the process's memory beside the merged list until the end (#6).
func Release() { debug.FreeOSMemory() }
