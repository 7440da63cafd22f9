package process

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The guard ends what evalgate started when evalgate dies without
// releasing its containment: SIGKILL, the out-of-memory killer, a crash.
// The parent-death signal reaches only evalgate's own children; the guard
// is what reaches their descendants (docs/security.md).
//
// The first containment starts it: evalgate's own binary again
// (/proc/self/exe, argv[0] guardName), in a process group of its own, its
// stdin the read end of a pipe whose only writer is evalgate (close-on-exec,
// so no child holds it). Evalgate writes one record per event: a process
// group it started ('g') and ended ('G'), an orphan it adopted ('o') and
// reaped ('O'), and at the last release 'q', on which the guard exits.
// End of file without 'q' means evalgate has died: the guard then stops
// (SIGSTOP), so nothing forks or exits under it, and kills (SIGKILL)
//   - every process of the groups it was told of,
//   - every orphan it was told of,
//   - every process whose environment holds evalgate's EVALGATE_PROCESS,
//   - every process evalgate was still the parent of,
//   - every descendant of those,
//
// and exits. Writes never block evalgate: a guard that stopped reading (or
// died) is taken for broken, told nothing more, and killed at the release.
const (
	guardName = "evalgate-guard"
	guardVar  = "EVALGATE_GUARD" // the pid of the evalgate it guards
	// guardRecord is the size of one record: an operation and a pid.
	guardRecord = 5
)

// guardState is evalgate's end of the guard.
type guardState struct {
	mu      sync.Mutex
	fd      int // the write end of the pipe; -1 when there is no guard
	broken  bool
	cmd     *exec.Cmd
	done    chan struct{} // closed once the guard has been reaped
	orphans map[int]bool  // orphans the guard was told of
	pid     atomic.Int64
}

var guard = &guardState{fd: -1}

func init() {
	if len(os.Args) == 1 && os.Args[0] == guardName {
		if owner, err := strconv.Atoi(os.Getenv(guardVar)); err == nil && owner > 1 {
			guardMain(owner, &rawStdin{})
			// Not os.Exit: nothing to flush, and a binary built with -race
			// would sleep a second at exit, which its release waits for.
			syscall.Exit(0)
		}
	}
}

// rawStdin is the guard's stdin, read without telling the runtime that
// the read may block. The guard runs in package initialisation, on the
// main thread, where a read through os.Stdin hands the thread's processor
// over to another thread when it blocks and takes it back when a record
// comes, and sets the runtime's monitor looking at it every 20 µs for a
// while after: most of the guard's CPU in a run that starts a process a
// millisecond. The guard has nothing else to run meanwhile.
//
// After a read that returned records, the next one waits guardBatch
// first, so that the records of a busy run are read a few at a time.
type rawStdin struct {
	got bool // the last read returned records
}

// guardBatch is how long the guard lets records gather in the pipe after
// reading some. A run writes two records an agent; a read that woke for
// each cost the guard a wakeup every record, a third as much CPU again
// as evalgate's own on a run of short agents, and evalgate the wakeup in
// its write. The records wait in the pipe in order, the end of file
// after them, so the guard still learns of every one before it acts on
// evalgate's death, at most this much later; the pipe holds thousands of
// records, far more than a run writes in this time.
const guardBatch = 5 * time.Millisecond

func (r *rawStdin) Read(p []byte) (int, error) {
	if r.got {
		ts := unix.NsecToTimespec(int64(guardBatch))
		_, _, _ = unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
	for {
		n, _, errno := unix.RawSyscall(unix.SYS_READ, 0, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
		switch {
		case errno == unix.EINTR:
			continue
		case errno != 0:
			return 0, errno
		case n == 0:
			return 0, io.EOF
		}
		r.got = true
		return int(n), nil
	}
}

// startGuard starts the guard and tells it of the processes running.
// Without a guard (the binary cannot be run again), the parent-death
// signal alone holds.
func startGuard() {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return
	}
	r := os.NewFile(uintptr(p[0]), "guard")
	if err := unix.SetNonblock(p[1], true); err != nil {
		r.Close()
		unix.Close(p[1])
		return
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{guardName}
	cmd.Env = []string{guardVar + "=" + strconv.Itoa(os.Getpid())}
	cmd.Dir = "/"
	cmd.Stdin = r
	// A group of its own: a signal to evalgate's group (Ctrl-C) is not
	// the guard's. No parent-death signal: it must outlive evalgate.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := cmd.Start()
	r.Close()
	if err != nil {
		unix.Close(p[1])
		return
	}
	pid := cmd.Process.Pid
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		guard.pid.CompareAndSwap(int64(pid), 0)
		close(done)
	}()
	trackMu.Lock()
	defer trackMu.Unlock()
	guard.mu.Lock()
	defer guard.mu.Unlock()
	guard.fd, guard.broken, guard.cmd, guard.done = p[1], false, cmd, done
	guard.orphans = map[int]bool{}
	guard.pid.Store(int64(pid))
	for pid := range live {
		guard.send('g', pid)
	}
}

// stopGuard lets the guard go without ending anything; one that cannot be
// told so is killed. Nothing waits for it to exit, so that a short run
// does not wait for the guard's own start: it is reaped when it has read
// the word, and killed if it has not exited a second later (someone
// stopped it; killed, it ends nothing).
func stopGuard() {
	guard.mu.Lock()
	fd, cmd, done := guard.fd, guard.cmd, guard.done
	if fd < 0 {
		guard.mu.Unlock()
		return
	}
	guard.send('q', 0)
	broken := guard.broken
	guard.fd, guard.cmd, guard.done, guard.orphans = -1, nil, nil, nil
	guard.mu.Unlock()
	if broken {
		_ = cmd.Process.Kill()
	}
	unix.Close(fd)
	t := time.AfterFunc(time.Second, func() { _ = cmd.Process.Kill() })
	go func() {
		<-done
		t.Stop()
	}()
}

// guardPid is the pid of the guard, from its start until it has been
// reaped; 0 when there is none.
func guardPid() int { return int(guard.pid.Load()) }

// guardGroup tells the guard of a process group started or ended; trackMu
// is held, so that the guard learns of groups in the order they come and
// go.
func guardGroup(pid int, started bool) {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if started {
		guard.send('g', pid)
	} else {
		guard.send('G', pid)
	}
}

// guardOrphan tells the guard, once, of an orphan adopted or reaped.
func guardOrphan(pid int, adopted bool) {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if guard.fd < 0 || guard.orphans[pid] == adopted {
		return
	}
	if adopted {
		guard.orphans[pid] = true
		guard.send('o', pid)
	} else {
		delete(guard.orphans, pid)
		guard.send('O', pid)
	}
}

// send writes one record without blocking; g.mu is held.
func (g *guardState) send(op byte, pid int) {
	if g.fd < 0 || g.broken {
		return
	}
	var rec [guardRecord]byte
	rec[0] = op
	binary.LittleEndian.PutUint32(rec[1:], uint32(pid))
	if n, err := unix.Write(g.fd, rec[:]); err != nil || n != len(rec) {
		g.broken = true // full (the guard stopped reading) or gone
	}
}

// guardMain is the guard: it reads owner's records from in until 'q' or
// the end of file, and on the end of file ends everything owner started.
func guardMain(owner int, in io.Reader) {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	groups, orphans := map[int]bool{}, map[int]bool{}
	r := bufio.NewReader(in)
	var rec [guardRecord]byte
	for {
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			break
		}
		pid := int(binary.LittleEndian.Uint32(rec[1:]))
		switch rec[0] {
		case 'g':
			groups[pid] = true
		case 'G':
			delete(groups, pid)
		case 'o':
			orphans[pid] = true
		case 'O':
			delete(orphans, pid)
		case 'q':
			return
		}
	}
	endAll(owner, groups, orphans)
}

// endAll stops, then kills, every process of groups, every one of
// orphans, every one marked as owner's or whose parent is owner, and every
// descendant of those. Stopped first, a process can neither fork a child
// the scan would miss nor exit and have its children adopted out of
// reach; the scan is repeated until it finds no new process and every one
// found has stopped.
func endAll(owner int, groups, orphans map[int]bool) {
	for g := range groups {
		_ = unix.Kill(-g, unix.SIGSTOP)
	}
	for pid := range orphans {
		_ = unix.Kill(pid, unix.SIGSTOP)
	}
	self := os.Getpid()
	doomed := map[int]bool{}
	marked := map[int]bool{} // read once per process
	for range 200 {
		procs := hostProcesses()
		found := false
		for grew := true; grew; {
			grew = false
			for _, p := range procs {
				if doomed[p.pid] || p.pid == self {
					continue
				}
				m, seen := marked[p.pid]
				if !seen && !groups[p.pgid] && !orphans[p.pid] && !doomed[p.ppid] && p.ppid != owner {
					_, m = readMark(p.pid, owner)
					marked[p.pid] = m
				}
				if m || groups[p.pgid] || orphans[p.pid] || doomed[p.ppid] || p.ppid == owner {
					doomed[p.pid] = true
					_ = unix.Kill(p.pid, unix.SIGSTOP)
					grew, found = true, true
				}
			}
		}
		if found {
			continue
		}
		running := false
		for _, p := range procs {
			if doomed[p.pid] && p.state != 'T' && p.state != 't' && p.state != 'Z' && p.state != 'X' {
				running = true
			}
		}
		if !running {
			break
		}
		time.Sleep(time.Millisecond) // a stop is on its way
	}
	for g := range groups {
		_ = unix.Kill(-g, unix.SIGKILL)
	}
	for pid := range doomed {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
}
