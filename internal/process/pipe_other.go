//go:build !linux

package process

import "os"

// pipe is os.Pipe; on Linux the child's end is left out of the poller.
func pipe(bool) (r, w *os.File, err error) { return os.Pipe() }

// filledPipe returns the read end of a pipe that holds data and is closed
// for writing; data must fit in an empty pipe (smallInput), so the write
// never blocks.
func filledPipe(data []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	_, err = w.Write(data)
	w.Close()
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}
