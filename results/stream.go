package results

import (
	"errors"
	"io"
)

// stream reads a JSON document a value at a time for ReadSpilling, holding
// in memory only the value being read (a task, some 2 KB) and what is
// buffered after it. It finds where values end, not whether they are
// valid: the value's reader says that. What it cannot follow is errShape.
type stream struct {
	r    io.Reader
	buf  []byte
	pos  int   // buf[pos:] is not read yet
	base int64 // where buf starts in the file
	eof  bool
}

// offset is where the next byte not read is in the file.
func (s *stream) offset() int64 { return s.base + int64(s.pos) }

// streamChunk is how much a read asks for.
const streamChunk = 256 << 10

// fill reads more of the file after buf; false at the end of the file.
// When little room is left, what was read is dropped first, moving
// buf[pos:] to the front, and the buffer grows if that is not enough: a
// move a read would be quadratic for a reader that returns a few bytes
// at a time.
func (s *stream) fill() (bool, error) {
	if s.eof {
		return false, nil
	}
	if cap(s.buf)-len(s.buf) < streamChunk/2 {
		n := copy(s.buf, s.buf[s.pos:])
		s.base += int64(s.pos)
		s.buf, s.pos = s.buf[:n], 0
		if cap(s.buf)-n < streamChunk/2 {
			grown := make([]byte, n, max(2*cap(s.buf), streamChunk))
			copy(grown, s.buf)
			s.buf = grown
		}
	}
	n := len(s.buf)
	m, err := s.r.Read(s.buf[n:cap(s.buf)])
	s.buf = s.buf[:n+m]
	switch {
	case errors.Is(err, io.EOF):
		s.eof = true
		return m > 0, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// peek returns the next byte that is not white space, and leaves it
// unread; 0 at the end of the file.
func (s *stream) peek() (byte, error) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\n', '\t', '\r':
				s.pos++
			default:
				return c, nil
			}
		}
		if more, err := s.fill(); err != nil || !more {
			return 0, err
		}
	}
}

// delim reads c, which must be next.
func (s *stream) delim(c byte) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return errShape
	}
	s.pos++
	return nil
}

// more reports whether the open object or list has an nth member or item
// (from 0), reading the comma before it; when not, it reads the closing c.
func (s *stream) more(n int, c byte) (bool, error) {
	got, err := s.peek()
	switch {
	case err != nil:
		return false, err
	case got == c:
		s.pos++
		return false, nil
	case n == 0:
		return true, nil
	case got != ',':
		return false, errShape
	}
	s.pos++
	return true, nil
}

// value reads the next value and returns its bytes, which are good until
// the next call.
func (s *stream) value() ([]byte, error) {
	if _, err := s.peek(); err != nil {
		return nil, err
	}
	i := s.pos // where the scan is
	depth, inString := 0, false
	for {
		for ; i < len(s.buf); i++ {
			c := s.buf[i]
			if inString {
				switch c {
				case '\\':
					if i+1 == len(s.buf) {
						goto more // the escaped byte is not read yet
					}
					i++
				case '"':
					inString = false
					if depth == 0 {
						return s.take(i + 1), nil
					}
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth == 0 { // ends a scalar that is a member's value
					return s.take(i), nil
				}
				if depth--; depth == 0 {
					return s.take(i + 1), nil
				}
			case ' ', '\n', '\t', '\r', ',', ':':
				if depth == 0 {
					return s.take(i), nil
				}
			}
		}
	more:
		off := i - s.pos
		more, err := s.fill()
		if err != nil {
			return nil, err
		}
		if !more {
			if depth == 0 && !inString && off > 0 {
				return s.take(len(s.buf)), nil // a scalar at the end
			}
			return nil, errShape
		}
		i = s.pos + off
	}
}

// decode calls read to decode the next value from the bytes ahead,
// which start with it and may go on after it, and reads as many bytes as
// read says it took: finding the value's end first would be a second
// pass over every byte. A value the bytes ahead end in the middle of
// (read says errCut) is tried again with twice as much ahead, up to the
// whole rest of the file; any other error is returned at once, so that a
// file ReadSpilling leaves to Read is not first held whole here.
func (s *stream) decode(read func(ahead []byte) (int, error)) error {
	if _, err := s.peek(); err != nil {
		return err
	}
	for want := streamAhead; ; want *= 2 {
		for !s.eof && len(s.buf)-s.pos < want {
			if _, err := s.fill(); err != nil {
				return err
			}
		}
		n, err := read(s.buf[s.pos:])
		if err == nil {
			s.pos += n
			return nil
		}
		if s.eof || !errors.Is(err, errCut) {
			return err
		}
	}
}

// streamAhead is how much decode gives read to begin with: more than a
// task of results.json nearly always takes.
const streamAhead = 64 << 10

// take reads buf[pos:end] and returns it.
func (s *stream) take(end int) []byte {
	v := s.buf[s.pos:end]
	s.pos = end
	return v
}
