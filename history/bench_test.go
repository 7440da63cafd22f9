//go:build unix

package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bigRecord is the record of run i of a suite of n tasks, every tenth
// task failing, each with trials and an error kind now and then: some
// 110 KB for 1,000 tasks.
func bigRecord(i, n int) *Record {
	r := &Record{
		Schema: Schema, RunID: fmt.Sprintf("run-%04d", i), StartedAt: day0.Add(time.Duration(i) * time.Hour), DurationMs: 600_000,
		Event: EventPush, Ref: "refs/heads/main", Commit: fmt.Sprintf("%040x", i), EvalgateVersion: "v1.4.0", Repository: "acme/support-agent",
		Tasks: make(map[string]Task, n), Gates: []Gate{{Expr: "aggregateScore >= 0.9", Passed: true}},
	}
	passed := 0
	for k := range n {
		t := Task{Status: "passed", Trials: 3, PassedTrials: 3, LatencyMs: int64(800 + k%700), CostUsd: 0.0004}
		if (k+i)%10 == 0 {
			t.Status, t.PassedTrials = "failed", 1
		} else {
			passed++
		}
		if k%97 == 0 {
			t.Status, t.Errors = "error", map[string]int{"timeout": 1}
		}
		r.Tasks[fmt.Sprintf("acme.support.evals.large/task-%04d", k)] = t
	}
	r.Suites = []Suite{{SuiteID: "acme.support.evals.large", Version: "2.0.0", Score: float64(passed) / float64(n), TaskCount: n,
		PassedCount: passed, CostUsd: 0.4, P95LatencyMs: 1490}}
	return r
}

// peakHeap samples the heap while f runs and returns the most it held
// above what it held before, in bytes.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			mu.Lock()
			peak = max(peak, read())
			mu.Unlock()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	peak = max(peak, read())
	if peak < base {
		return 0
	}
	return peak - base
}

// BenchmarkReadWindow reads a window of 200 records of a 1,000-task
// suite, as a run does beside its agents, from a folder and from a
// branch; it reports the most heap the read held above what was live
// before it (peak-MiB).
func BenchmarkReadWindow(b *testing.B) {
	const runs, tasks = 200, 1000
	dir := b.TempDir()
	ctx := context.Background()
	dirStore, err := Open(ctx, "dir:h", Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	for i := range runs {
		r := bigRecord(i, tasks)
		data, err := Encode(r)
		if err != nil {
			b.Fatal(err)
		}
		if err := dirStore.Write(ctx, r, data); err != nil {
			b.Fatal(err)
		}
	}
	// The same files as one commit of a branch of a bare remote.
	remote, clones := gitRepos(b, 1)
	_ = remote
	work := clones[0]
	git(b, work, "checkout", "--quiet", "--orphan", "evalgate-history")
	git(b, work, "rm", "-r", "--quiet", "--cached", ".")
	entries, err := os.ReadDir(filepath.Join(dir, "h"))
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, "h", e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, e.Name()), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	git(b, work, "add", ".")
	git(b, work, "commit", "--quiet", "-m", "records")
	git(b, work, "push", "--quiet", "origin", "evalgate-history")
	git(b, work, "checkout", "--quiet", "-f", "main")
	gitStore, err := Open(ctx, "git:evalgate-history", Options{Dir: work})
	if err != nil {
		b.Fatal(err)
	}
	for _, sc := range []struct {
		name string
		st   Store
	}{{"dir", dirStore}, {"git", gitStore}} {
		b.Run(sc.name, func(b *testing.B) {
			var peak uint64
			cpu := cpuTime()
			for b.Loop() {
				peak = max(peak, peakHeap(func() {
					w, err := sc.st.Read(ctx, WindowQuery(runs, "", "", ""))
					if err != nil || len(w.Records) != runs || len(w.Skipped) != 0 {
						b.Fatalf("read %v records, skipped %v: %v", len(w.Records), w.Skipped, err)
					}
					FlakesOf(w.Records)
					TrustPast(w.Records)
				}))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			// The CPU the process spent a read (git's included for a git:
			// store): the wall time on a machine others share is longer.
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkWriteDir writes one record of a 1,000-task suite to a folder
// that holds 200 already.
func BenchmarkWriteDir(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	st, err := Open(ctx, "dir:h", Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 200 {
		r := bigRecord(i, 1000)
		data, _ := Encode(r)
		if err := st.Write(ctx, r, data); err != nil {
			b.Fatal(err)
		}
	}
	i := 200
	for b.Loop() {
		r := bigRecord(i, 1000)
		i++
		data, err := Encode(r)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Write(ctx, r, data); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the CPU time this process and its finished children have
// used.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
