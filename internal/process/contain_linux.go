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

// sweepEvery is how often the sweeper looks at this process's children
// while processes run or have ended since its last look.
const sweepEvery = 100 * time.Millisecond

// contain counts the containments not yet released: the Linux containment
// (not dumpable, subreaper, sweeper, guard) lasts while there is one.
var contain struct {
	sync.Mutex
	users      int
	active     bool // subreaper, sweeper and guard are on
	stop, done chan struct{}
}

// containStart is Contain's start on Linux:
//   - this process is not dumpable, so a process of the same user (an
//     agent) cannot read its environment or open its file descriptors
//     under /proc (a process running as root still can: the
//     documentation says so);
//   - it is the subreaper of its descendants, so a process that left its
//     group and lost its parent becomes its child instead of init's;
//   - every sweepEvery, while processes run or once one has ended, its
//     children are looked at: leftovers (children it did not start)
//     whose EVALGATE_PROCESS names a process that has been waited for are
//     killed and reaped, and the others are told to the guard;
//   - the guard (guard_linux.go) ends every descendant it knows of if this
//     process dies before the last release.
//
// Children started by this package also get SIGKILL when this process
// dies (Pdeathsig), whatever kills it.
func containStart() {
	contain.Lock()
	defer contain.Unlock()
	contain.users++
	if contain.users > 1 {
		return
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return
	}
	contain.active = true
	contain.stop = make(chan struct{})
	contain.done = make(chan struct{})
	swept.Store(true)
	startGuard()
	go sweeper(contain.stop, contain.done)
}

// containEnd is the end of one containment, after its processes have
// been ended; the last one stops the sweeper, kills and reaps every
// leftover that is not in this process's own group, whatever its
// environment says (the final sweep), and then lets the guard go.
func containEnd() {
	contain.Lock()
	defer contain.Unlock()
	contain.users--
	if contain.users > 0 || !contain.active {
		return
	}
	contain.active = false
	close(contain.stop)
	<-contain.done
	for range 50 {
		if sweep(true) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopGuard()
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
}

// sweeper sweeps every sweepEvery while processes run or have ended since
// the last sweep, until stop is closed.
func sweeper(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if !swept.Swap(true) || liveCount() > 0 {
				if sweep(false) > 0 {
					swept.Store(false) // what was killed must be reaped
				}
			}
		}
	}
}

// sweep looks at this process's children that it did not start and that
// are not in its own group (those are started by other code: a test's
// helpers), and returns how many it found: it reaps those that have died,
// tells the guard of the others, and kills those whose EVALGATE_PROCESS
// names a process that has been waited for, or, with all, every one.
func sweep(all bool) int {
	self := os.Getpid()
	ownGroup := syscall.Getpgrp()
	guard := guardPid()
	forkMu.Lock()
	kids := children(self)
	forkMu.Unlock()
	found := 0
	for _, k := range kids {
		if k.pgid == ownGroup || k.pid == guard || isLive(k.pid) {
			continue
		}
		found++
		if k.state == 'Z' {
			var ws syscall.WaitStatus
			if pid, _ := syscall.Wait4(k.pid, &ws, syscall.WNOHANG, nil); pid == k.pid {
				guardOrphan(k.pid, false)
			}
			continue
		}
		guardOrphan(k.pid, true)
		if mark, ours := readMark(k.pid, self); all || ours && !isRunning(mark) {
			_ = syscall.Kill(k.pid, syscall.SIGKILL)
		}
	}
	return found
}

// child is one line of /proc/<pid>/stat.
type child struct {
	pid, ppid, pgid int
	state           byte
}

// children lists the processes whose parent is self, this process: from
// the kernel's list of each of its threads' children, so that the cost
// grows with evalgate's own descendants, not with the host's processes;
// from every process on the host where the kernel keeps no such list
// (built without CONFIG_PROC_CHILDREN).
func children(self int) []child {
	if !hasChildrenLists() {
		return hostChildren(self)
	}
	return ownChildren(self)
}

// hasChildrenLists reports whether /proc/<pid>/task/<tid>/children exists.
var hasChildrenLists = sync.OnceValue(func() bool {
	pid := strconv.Itoa(os.Getpid())
	_, err := os.Stat("/proc/" + pid + "/task/" + pid + "/children")
	return err == nil
})

// ownChildren lists self's children from its threads' children lists: a
// process's parent is the thread that started it, and an orphan's the
// thread the kernel chose among the subreaper's.
func ownChildren(self int) []child {
	task := "/proc/" + strconv.Itoa(self) + "/task/"
	dir, err := os.Open(task)
	if err != nil {
		return nil
	}
	tids, _ := dir.Readdirnames(-1)
	dir.Close()
	var kids []child
	for _, tid := range tids {
		list, err := os.ReadFile(task + tid + "/children")
		if err != nil {
			continue // the thread has exited
		}
		for _, f := range bytes.Fields(list) {
			pid, err := strconv.Atoi(string(f))
			if err != nil {
				continue
			}
			if c, ok := readStat(pid); ok && c.ppid == self {
				kids = append(kids, c)
			}
		}
	}
	return kids
}

// hostChildren lists self's children by reading every process's stat.
func hostChildren(self int) []child {
	var kids []child
	for _, c := range hostProcesses() {
		if c.ppid == self {
			kids = append(kids, c)
		}
	}
	return kids
}

// hostProcesses reads the stat of every process on the host.
func hostProcesses() []child {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	procs := make([]child, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if c, ok := readStat(pid); ok {
			procs = append(procs, c)
		}
	}
	return procs
}

// readStat reads /proc/<pid>/stat; false when the process is gone.
func readStat(pid int) (child, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return child{}, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return child{}, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return child{}, false
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	pgid, _ := strconv.Atoi(string(f[2]))
	return child{pid: pid, ppid: ppid, pgid: pgid, state: f[0][0]}, true
}

// readMark reads EVALGATE_PROCESS from the environment of pid: the mark
// it names, and whether it names one of owner's, a pid of evalgate. A
// process whose environment cannot be read (it is gone, or made itself
// non-dumpable) or holds no mark of owner's is not ours until the final
// sweep.
func readMark(pid, owner int) (mark uint64, ours bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return 0, false
	}
	prefix := []byte(markVar + "=" + strconv.Itoa(owner) + ".")
	for _, kv := range bytes.Split(env, []byte{0}) {
		if rest, ok := bytes.CutPrefix(kv, prefix); ok {
			m, err := strconv.ParseUint(string(rest), 10, 64)
			return m, err == nil
		}
	}
	return 0, false
}
