//go:build !unix

package inputfile

// openNoWait is nothing where the system has no non-blocking open: the
// check before opening is then what keeps a named pipe from being opened.
const openNoWait = 0
