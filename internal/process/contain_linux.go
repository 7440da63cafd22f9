package process

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sweepEvery is how often leftovers are looked for while processes end.
const sweepEvery = 100 * time.Millisecond

// Contain makes this process the keeper of everything it starts, until
// the returned release is called:
//   - it is not dumpable, so a process of the same user (an agent) cannot
//     read its environment or open its file descriptors under /proc;
//   - it is the subreaper of its descendants, so a process that left its
//     group and lost its parent becomes its child instead of init's;
//   - every sweepEvery, once a started process has ended, its leftovers
//     (descendants still running whose EVALGATE_PROCESS names a process
//     that has been waited for) are killed and reaped.
//
// The last release kills and reaps every leftover that is not in this
// process's own group, whatever its environment says. Children started by this package
// also get SIGKILL when this process dies (Pdeathsig), whatever kills it.
// Call Contain before the first process starts; calls may overlap, and
// the containment lasts until the last release. It is for Linux and does
// nothing elsewhere. A process running as root can still read
// another's /proc entries: the documentation says so.
func Contain() (release func()) {
	contain.Lock()
	defer contain.Unlock()
	if contain.users == 0 {
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return func() {}
		}
		contain.stop = make(chan struct{})
		contain.done = make(chan struct{})
		swept.Store(true)
		go sweeper(contain.stop, contain.done)
	}
	contain.users++
	var once sync.Once
	return func() { once.Do(releaseOne) }
}

// contain counts the callers of Contain that have not released yet: the
// sweeper runs while there is one (tests run several commands at once).
var contain struct {
	sync.Mutex
	users      int
	stop, done chan struct{}
}

// releaseOne ends one Contain; the last one stops the sweeper and kills
// and reaps every leftover.
func releaseOne() {
	contain.Lock()
	defer contain.Unlock()
	contain.users--
	if contain.users > 0 {
		return
	}
	close(contain.stop)
	<-contain.done
	for range 50 {
		if sweep(true) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sweeper sweeps every sweepEvery while processes have ended since the
// last sweep, until stop is closed.
func sweeper(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if !swept.Swap(true) && sweep(false) > 0 {
				swept.Store(false) // what was killed must be reaped
			}
		}
	}
}

// sweep kills the leftovers among this process's children and reaps those
// that have died, and returns how many children it found that were
// neither tracked nor in this process's own group. With all, every such
// child is a leftover.
func sweep(all bool) int {
	self := os.Getpid()
	ownGroup := syscall.Getpgrp()
	forkMu.Lock()
	kids := children(self)
	forkMu.Unlock()
	found := 0
	for _, k := range kids {
		if k.pgid == ownGroup { // started by other code (git), not by this package
			continue
		}
		mark, ours := readMark(k.pid, self)
		pidLive, markRunning := tracked(k.pid, mark)
		if pidLive {
			continue
		}
		found++
		switch {
		case k.state == 'Z':
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(k.pid, &ws, syscall.WNOHANG, nil)
		case all, ours && !markRunning:
			_ = syscall.Kill(k.pid, syscall.SIGKILL)
		}
	}
	return found
}

// child is one line of /proc/<pid>/stat.
type child struct {
	pid, pgid int
	state     byte
}

// children lists the processes whose parent is ppid.
func children(ppid int) []child {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var kids []child
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 3 || len(f[0]) != 1 {
			continue
		}
		if p, _ := strconv.Atoi(string(f[1])); p != ppid {
			continue
		}
		pgid, _ := strconv.Atoi(string(f[2]))
		kids = append(kids, child{pid: pid, pgid: pgid, state: f[0][0]})
	}
	return kids
}

// readMark reads EVALGATE_PROCESS from the environment of pid: the mark
// it names, and whether it names one of self's. A process whose
// environment cannot be read (it is gone, or made itself non-dumpable)
// or holds no mark of self's is not ours until the final sweep.
func readMark(pid, self int) (mark uint64, ours bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return 0, false
	}
	prefix := []byte(markVar + "=" + strconv.Itoa(self) + ".")
	for _, kv := range bytes.Split(env, []byte{0}) {
		if rest, ok := bytes.CutPrefix(kv, prefix); ok {
			m, err := strconv.ParseUint(string(rest), 10, 64)
			return m, err == nil
		}
	}
	return 0, false
}
