package suites

import (
	"fmt"
	"io"
)

// csvBudget reads a CSV file for encoding/csv and fails, at the record's
// line, as soon as one record is over MaxRowBytes or MaxRowCells:
// encoding/csv holds a whole record, and a few bytes of the file (a
// comma) cost it some forty of memory, so a 32 MB line of commas took a
// gigabyte. It follows the quoting as encoding/csv does (a quote opens a
// field only at its start, "" inside one is a quote) to know where a
// record ends; in a file encoding/csv refuses, it may count differently,
// but encoding/csv reports that file first, from the bytes before.
type csvBudget struct {
	r     io.Reader
	file  string // as errors name it
	state csvState
	line  int   // of the byte read next, from 1
	start int   // the line the current record starts at
	bytes int64 // of the current record so far
	cells int   // of the current record so far
}

// csvState is where a byte falls in a record.
type csvState int

const (
	csvFieldStart csvState = iota // at the start of a field
	csvUnquoted                   // in a field that did not start with a quote
	csvQuoted                     // in a quoted field
	csvQuote                      // just after a quote in a quoted field: its end, or the first of ""
)

func newCSVBudget(r io.Reader, file string) *csvBudget {
	return &csvBudget{r: r, file: file, line: 1, start: 1, cells: 1}
}

// Read reads the next bytes, and fails once a record is over the budget,
// having given only the bytes of the records before it. The bytes of a
// record are counted at the bytes that matter to the quoting (a comma, a
// quote, a line break) and at the end of each read, so a record is
// refused at most one read's worth of bytes after its limit.
func (b *csvBudget) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	p = p[:n]
	counted := 0 // p[:counted] is in b.bytes
	record := 0  // where the record being read starts in p (0: before it)
	for i, c := range p {
		if csvPlain[c] {
			if b.state != csvQuoted {
				b.state = csvUnquoted
			}
			continue
		}
		b.bytes += int64(i + 1 - counted)
		counted = i + 1
		if b.bytes > MaxRowBytes {
			return record, b.over(fmt.Sprintf("the row is over %d bytes, the limit for a row", MaxRowBytes))
		}
		if e := b.next(c); e != nil {
			return record, e
		}
		if b.bytes == 0 {
			record = i + 1
		}
	}
	if b.bytes += int64(len(p) - counted); b.bytes > MaxRowBytes {
		return record, b.over(fmt.Sprintf("the row is over %d bytes, the limit for a row", MaxRowBytes))
	}
	return n, err
}

// csvPlain holds the bytes that do not matter to a record's quoting,
// cells or lines.
var csvPlain = func() (plain [256]bool) {
	for c := range plain {
		plain[c] = true
	}
	for _, c := range []byte{',', '"', '\n', '\r'} {
		plain[c] = false
	}
	return plain
}()

// next takes one byte that is not csvPlain, and returns the problem of a
// record it puts over the budget. A record ends with b.bytes 0.
func (b *csvBudget) next(c byte) *Error {
	if c == '\n' {
		b.line++
	}
	switch b.state {
	case csvQuoted:
		if c == '"' {
			b.state = csvQuote
		}
		return nil
	case csvQuote:
		switch c {
		case '"':
			b.state = csvQuoted
			return nil
		case '\r':
			return nil
		case ',', '\n':
		default:
			b.state = csvUnquoted // encoding/csv refuses this
			return nil
		}
	case csvFieldStart:
		if c == '"' {
			b.state = csvQuoted
			return nil
		}
	}
	switch c {
	case ',':
		b.state = csvFieldStart
		if b.cells++; b.cells > MaxRowCells {
			return b.over(fmt.Sprintf("the row has more than %d cells, the limit for a row", MaxRowCells))
		}
	case '\n':
		b.state, b.start, b.bytes, b.cells = csvFieldStart, b.line, 0, 1
	default:
		b.state = csvUnquoted
	}
	return nil
}

func (b *csvBudget) over(msg string) *Error {
	return &Error{Pos: Pos{File: b.file, Line: b.start, Col: 1}, Message: msg, Kind: ErrSyntax}
}
