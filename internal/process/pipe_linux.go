package process

import (
	"os"
	"syscall"
)

// pipe is os.Pipe with the end the child gets (the read end when
// childReads, else the write end) left out of the runtime's poller:
// it is passed to the child at its start and then closed, never read or
// written here, and os.Pipe registered both ends with the poller and
// took them out again at the close, a third of what making a pipe cost.
// The other end is in the poller, as os.Pipe makes it.
func pipe(childReads bool) (r, w *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	ours := p[0]
	if childReads {
		ours = p[1]
	}
	if err := syscall.SetNonblock(ours, true); err != nil { // os.NewFile then polls it
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, nil, os.NewSyscallError("setnonblock", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// filledPipe returns the read end of a pipe that holds data and is closed
// for writing; data must fit in an empty pipe (smallInput), so the write
// never blocks. Neither end is in the runtime's poller (see pipe).
func filledPipe(data []byte) (*os.File, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, os.NewSyscallError("pipe2", err)
	}
	for len(data) > 0 {
		n, err := syscall.Write(p[1], data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(p[0])
			syscall.Close(p[1])
			return nil, os.NewSyscallError("write", err)
		}
		data = data[n:]
	}
	syscall.Close(p[1])
	return os.NewFile(uintptr(p[0]), "|0"), nil
}
