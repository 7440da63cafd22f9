package process

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Every child evalgate starts goes through one lifecycle (docs/security.md,
// "One process lifecycle"): Start is the only way a process starts, and it
//   - makes the process the leader of a process group of its own;
//   - marks it, and everything it starts, with EVALGATE_PROCESS;
//   - tracks it as a live descendant, and tells the guard its group;
//   - puts it in the containment of its context (Contain), whose release
//     ends it (stdin closed, EndGrace, the group killed) before the final
//     sweep, whether or not the code that started it ended it.
//
// A new kind of child needs nothing of its own to be held by this: it
// calls Start with the context it was given.

// markVar is set in the environment of every process this package starts,
// to "<evalgate's pid>.<number>": descendants inherit it, so a process that
// left its group (setsid) and outlived its trial can still be told apart
// from another trial's and killed.
const markVar = "EVALGATE_PROCESS"

// EndGrace is how long the release of a containment gives each process
// still running to exit once its stdin is closed, before its group is
// killed.
const EndGrace = time.Second

var (
	// forkMu is held for reading while a process starts and for writing
	// while the sweeper lists this process's children, so that a child
	// just forked is never taken for a leftover before it is tracked.
	forkMu sync.RWMutex

	trackMu sync.Mutex
	live    = map[int]uint64{}  // pid to mark, of processes started and not yet waited for
	running = map[uint64]bool{} // marks of those processes

	markSeq atomic.Uint64
	// swept is false once a process has ended since the last sweep.
	swept atomic.Bool
)

func nextMark() uint64 { return markSeq.Add(1) }

func markValue(mark uint64) string {
	return markPrefix() + strconv.FormatUint(mark, 10)
}

// markPrefix is "<evalgate's pid>.", which a process that starts children
// without forking itself keeps for life.
var markPrefix = sync.OnceValue(func() string { return strconv.Itoa(os.Getpid()) + "." })

// startTracked starts a process with start and tracks it under mark
// until ended.
func startTracked(mark uint64, start func() (*os.Process, error)) (*os.Process, error) {
	forkMu.RLock()
	defer forkMu.RUnlock()
	started, err := start()
	if err != nil {
		return nil, err
	}
	pid := started.Pid
	trackMu.Lock()
	live[pid] = mark
	running[mark] = true
	guardGroup(pid, true)
	trackMu.Unlock()
	return started, nil
}

// ended stops tracking p, which has been waited for: whatever it left
// behind is now a leftover.
func ended(p *Process) {
	pid := p.proc.Pid
	trackMu.Lock()
	delete(live, pid)
	delete(running, p.mark)
	guardGroup(pid, false)
	trackMu.Unlock()
	swept.Store(false)
	if p.scope != nil {
		p.scope.remove(p)
	}
}

// isLive reports whether pid is a process this package started and has
// not yet waited for.
func isLive(pid int) bool {
	trackMu.Lock()
	defer trackMu.Unlock()
	_, ok := live[pid]
	return ok
}

// isRunning reports whether mark belongs to a process this package started
// and has not yet waited for.
func isRunning(mark uint64) bool {
	trackMu.Lock()
	defer trackMu.Unlock()
	return running[mark]
}

// liveCount counts the processes started and not yet waited for.
func liveCount() int {
	trackMu.Lock()
	defer trackMu.Unlock()
	return len(live)
}

// scope is one containment's processes: those started under its context.
type scope struct {
	mu     sync.Mutex
	procs  map[*Process]struct{}
	closed bool
}

type scopeKey struct{}

// scopeOf returns the containment of ctx, nil when there is none.
func scopeOf(ctx context.Context) *scope {
	sc, _ := ctx.Value(scopeKey{}).(*scope)
	return sc
}

// errEnded is a process started under a containment already released.
var errEnded = errors.New("the containment of this process has been released")

// add puts p in the scope; false when the scope has ended.
func (sc *scope) add(p *Process) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		return false
	}
	sc.procs[p] = struct{}{}
	return true
}

func (sc *scope) remove(p *Process) {
	sc.mu.Lock()
	delete(sc.procs, p)
	sc.mu.Unlock()
}

// end closes the scope to new processes and ends those still running, all
// at once: stdin closed, EndGrace to exit, then the group killed.
func (sc *scope) end() {
	sc.mu.Lock()
	sc.closed = true
	procs := sc.procs
	sc.procs = nil
	sc.mu.Unlock()
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() { p.Wait(EndGrace) })
	}
	wg.Wait()
}

// Contain makes this process the keeper of every process started under
// the returned context, until release is called:
//   - release ends each of those still running (stdin closed, EndGrace
//     to exit, then its process group killed), whoever started it, and
//     then lets no new one start;
//   - on Linux (contain_linux.go) this process is not dumpable, is the
//     subreaper of its descendants, sweeps the leftovers of ended
//     processes while it runs, and keeps a guard process that ends every
//     descendant if it dies without release (SIGKILL included); the last
//     release, after ending the processes, kills every leftover: the final
//     sweep comes after every process has been ended.
//
// Calls may overlap (tests run several commands at once); the Linux
// containment lasts until the last release. The returned context ends at
// release.
func Contain(ctx context.Context) (context.Context, func()) {
	sc := &scope{procs: map[*Process]struct{}{}}
	ctx, cancel := context.WithCancel(context.WithValue(ctx, scopeKey{}, sc))
	containStart()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			sc.end()
			cancel()
			containEnd()
		})
	}
}
