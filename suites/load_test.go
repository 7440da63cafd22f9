package suites

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"
)

// TestLoadGC checks the collector's settings while a file loads, and that
// they come back after it.
func TestLoadGC(t *testing.T) {
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
			restore := loadGC(tc.size, tc.json)
			gogc := debug.SetGCPercent(-1)
			debug.SetGCPercent(gogc)
			limit := debug.SetMemoryLimit(-1)
			restore()
			if gogc != tc.wantGOGC {
				t.Errorf("GOGC while loading = %d, want %d", gogc, tc.wantGOGC)
			}
			if tc.wantLimit != (limit != noLimit) {
				t.Errorf("memory limit while loading = %d", limit)
			}
			if tc.wantLimit && limit < memoryInUse() {
				t.Errorf("memory limit %d is below the memory in use", limit)
			}
			if g := debug.SetGCPercent(tc.gogc); g != tc.gogc {
				t.Errorf("GOGC after loading = %d, want %d back", g, tc.gogc)
			}
			if l := debug.SetMemoryLimit(-1); l != noLimit {
				t.Errorf("memory limit after loading = %d, want none", l)
			}
		})
	}
}

// TestLoadsTakeTurns: a load waits while another file is being parsed,
// so two loads never set and restore the collector's settings at once (a
// load of a large file restoring GOGC=100 before a small one restores the
// 40% it read would leave the process at 40%).
func TestLoadsTakeTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.json")
	if err := os.WriteFile(path, benchWorkload(5), 0o644); err != nil {
		t.Fatal(err)
	}
	loading.Lock() // another load is parsing a file
	done := make(chan error, 1)
	go func() {
		_, err := Load(path)
		done <- err
	}()
	select {
	case <-done:
		t.Fatal("Load parsed a file while another load held the collector")
	case <-time.After(100 * time.Millisecond):
	}
	loading.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
