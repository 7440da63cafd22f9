package process

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// boundedBuffer keeps the first max bytes written to it and drops the rest.
type boundedBuffer struct {
	max     int
	buf     []byte
	dropped int64
}

// Write keeps what fits and never fails, so the process is never blocked
// or killed for writing to stderr.
func (b *boundedBuffer) Write(data []byte) (int, error) {
	room := b.max - len(b.buf)
	n := min(max(room, 0), len(data))
	b.buf = append(b.buf, data[:n]...)
	b.dropped += int64(len(data) - n)
	return len(data), nil
}

// readScratch holds the buffers ReadFrom reads into. Most processes write
// nothing to stderr: a buffer of their own, made before the first read,
// was 4 KiB allocated per process for nothing.
var readScratch = sync.Pool{New: func() any { return new([4096]byte) }}

// ReadFrom reads r to its end, keeping what fits: readStderr reads the
// child's stderr with it.
func (b *boundedBuffer) ReadFrom(r io.Reader) (int64, error) {
	scratch := readScratch.Get().(*[4096]byte)
	defer readScratch.Put(scratch)
	var total int64
	for {
		n, err := r.Read(scratch[:])
		total += int64(n)
		b.Write(scratch[:n])
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// bytes returns a copy of what was kept, nil when nothing was.
func (b *boundedBuffer) bytes() []byte {
	if len(b.buf) == 0 {
		return nil
	}
	return bytes.Clone(b.buf)
}

// lineReader splits stdout into lines under a cap per line and one in all.
type lineReader struct {
	br       *bufio.Reader
	maxLine  int
	maxTotal int64
	total    int64 // bytes read
	lines    int   // lines returned
	buf      []byte
}

func newLineReader(r io.Reader, size, maxLine int, maxTotal int64) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, size), maxLine: maxLine, maxTotal: maxTotal}
}

// readLine is Process.ReadLine.
func (l *lineReader) readLine() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.total += int64(len(chunk))
		if l.total > l.maxTotal {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrOutputTooLarge, l.maxTotal)
		}
		if len(l.buf)+len(chunk) > l.maxLine+1 { // +1: the newline
			return nil, l.tooLong()
		}
		l.buf = append(l.buf, chunk...)
		switch {
		case err == nil:
			l.lines++
			return bytes.TrimSuffix(l.buf[:len(l.buf)-1], []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(l.buf) > 0:
			if len(l.buf) > l.maxLine {
				return nil, l.tooLong()
			}
			l.lines++
			return bytes.TrimSuffix(l.buf, []byte("\r")), nil
		default:
			return nil, err
		}
	}
}

func (l *lineReader) tooLong() error {
	return fmt.Errorf("%w: line %d is longer than %d bytes", ErrLineTooLong, l.lines+1, l.maxLine)
}
