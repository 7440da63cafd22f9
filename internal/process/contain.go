package process

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
)

// markVar is set in the environment of every process this package starts,
// to "<evalgate's pid>.<number>": descendants inherit it, so a process that
// left its group (setsid) and outlived its trial can still be told apart
// from another trial's and killed (see Contain).
const markVar = "EVALGATE_PROCESS"

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
	return strconv.Itoa(os.Getpid()) + "." + strconv.FormatUint(mark, 10)
}

// startTracked starts cmd and tracks it under mark until ended.
func startTracked(cmd *exec.Cmd, mark uint64) error {
	forkMu.RLock()
	defer forkMu.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	trackMu.Lock()
	live[cmd.Process.Pid] = mark
	running[mark] = true
	trackMu.Unlock()
	return nil
}

// ended stops tracking the process of mark, which has been waited for:
// whatever it left behind is now a leftover.
func ended(pid int, mark uint64) {
	trackMu.Lock()
	delete(live, pid)
	delete(running, mark)
	trackMu.Unlock()
	swept.Store(false)
}

// tracked reports whether pid is a process this package started and has
// not yet waited for, and whether mark belongs to one.
func tracked(pid int, mark uint64) (pidLive, markRunning bool) {
	trackMu.Lock()
	defer trackMu.Unlock()
	_, pidLive = live[pid]
	return pidLive, running[mark]
}
