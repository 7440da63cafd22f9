package memtune

import (
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/waittest"
)

// TestLoad checks the collector's settings while a file loads, and that
// they come back after it.
func TestLoad(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const noLimit = math.MaxInt64
	for _, tc := range []struct {
		name      string
		gogc      int
		size      int
		json      bool
		wantGOGC  int
		wantLimit bool // a memory limit is set
	}{
		{"small JSON", 40, 500_000, true, -1, true},
		{"large JSON", 40, 50 << 20, true, 40, false},
		{"large JSON, loose target", 100, 50 << 20, true, loadGCPercent, false},
		{"large JSON, tighter target", 20, 50 << 20, true, 20, false},
		{"small YAML", 100, 500_000, false, loadGCPercent, false},
		{"collector off", -1, 500_000, true, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(tc.gogc)
			debug.SetMemoryLimit(noLimit)
			restore := Load("suite", tc.size, tc.json)
			gogc := debug.SetGCPercent(-1)
			debug.SetGCPercent(gogc)
			limit := debug.SetMemoryLimit(-1)
			inUse := memoryInUse()
			restore()
			assert.Equal(t, gogc, tc.wantGOGC, "GOGC while loading")
			assert.Equal(t, limit != noLimit, tc.wantLimit, "memory limit while loading = %d", limit)
			if tc.wantLimit {
				assert.Assert(t, limit >= inUse, "memory limit %d is below the memory in use %d", limit, inUse)
			}
			assert.Equal(t, debug.SetGCPercent(tc.gogc), tc.gogc, "GOGC after loading")
			assert.Equal(t, debug.SetMemoryLimit(-1), int64(noLimit), "memory limit after loading")
		})
	}
}

// TestLoadsTakeTurns: a load waits while another file is loading, so two
// loads never set and restore the collector's settings at once (a load of
// a large file restoring GOGC=100 before a small one restores the 40% it
// read would leave the process at 40%).
func TestLoadsTakeTurns(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	restore := Load("first", 10<<20, true) // another load is parsing a file
	done := make(chan struct{})
	go func() {
		Load("second", 500_000, true)()
		close(done)
	}()
	// The second load goes as far as it can: it returns, or it waits for
	// the first, in a goroutine blocked in Load.
	waittest.Until(t, "the second load to wait or return", func() bool {
		select {
		case <-done:
			return true
		default:
			return waitingIn("memtune.Load(")
		}
	})
	select {
	case <-done:
		t.Fatal("a load set the collector while another load held it")
	default:
	}
	restore()
	waittest.Receive(t, "the second load to return", done)
	assert.Equal(t, debug.SetGCPercent(100), 100, "GOGC after both loads")
}

// waitingIn reports whether a goroutine is blocked on a mutex in a
// function whose frame's text starts with fn.
func waitingIn(fn string) bool {
	buf := make([]byte, 1<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "sync.(*Mutex).Lock") && strings.Contains(g, fn) {
			return true
		}
	}
	return false
}

func TestRun(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Run("")
	assert.Equal(t, debug.SetGCPercent(100), RunGCPercent, "GOGC with none set")
	Run("off")
	assert.Equal(t, debug.SetGCPercent(100), 100, "GOGC when the environment sets it")
}

func TestMCP(t *testing.T) { testHeadroom(t, MCP, MCPGCPercent) }

func TestTrials(t *testing.T) { testHeadroom(t, Trials, RunGCPercent) }

// testHeadroom checks a target raised after each collection while the
// heap is small (MCP, Trials): apply sets percent at first.
func testHeadroom(t *testing.T, apply func(gogc string) func(), percent int) {
	defer debug.SetGCPercent(debug.SetGCPercent(RunGCPercent))
	restore := apply("")
	assert.Equal(t, debug.SetGCPercent(percent), percent, "GOGC with none set")
	// A collection of this test's small heap raises the target.
	waittest.Until(t, "a collection of a small heap to raise the target", func() bool {
		gogc := debug.SetGCPercent(-1)
		debug.SetGCPercent(gogc)
		if gogc > percent {
			return true
		}
		runtime.GC()
		return false
	})
	restore()
	assert.Equal(t, debug.SetGCPercent(RunGCPercent), RunGCPercent, "GOGC once restored")
	// A collection after the restore changes nothing: the cleanup it runs,
	// called here rather than waited for, finds the headroom stopped.
	h := &headroom{prev: RunGCPercent}
	h.stop()
	h.collected()
	assert.Equal(t, debug.SetGCPercent(RunGCPercent), RunGCPercent, "GOGC after a collection once restored")
	restore = apply("50")
	assert.Equal(t, debug.SetGCPercent(RunGCPercent), RunGCPercent, "GOGC when the environment sets it")
	restore()
	assert.Equal(t, debug.SetGCPercent(RunGCPercent), RunGCPercent, "GOGC when the environment sets it, restored")
}

func TestHeadroomTarget(t *testing.T) {
	mcp := &headroom{percent: MCPGCPercent, room: mcpHeadroom, max: maxMCPGCPercent}
	trials := &headroom{percent: RunGCPercent, room: trialHeadroom, max: maxTrialGCPercent}
	for _, tc := range []struct {
		h    *headroom
		live uint64
		want int
	}{
		{mcp, 0, maxMCPGCPercent},
		{mcp, 1 << 20, maxMCPGCPercent},
		{mcp, 4 << 20, 400},
		{mcp, mcpHeadroom, MCPGCPercent},
		{mcp, 64 << 20, MCPGCPercent},
		{trials, 0, maxTrialGCPercent},
		{trials, 512 << 10, maxTrialGCPercent},
		{trials, trialHeadroom, 100},
		{trials, 4 * trialHeadroom, RunGCPercent}, // it would grow by a quarter
		{trials, 64 << 20, RunGCPercent},
	} {
		assert.Equal(t, tc.h.target(tc.live), tc.want, "live heap %d", tc.live)
	}
}
