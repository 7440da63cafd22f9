package results

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/jsonpointer"
)

// Position finds the value at the JSON pointer in the JSON document r
// holds, and returns the line and column (in bytes, from 1) it starts at;
// ok is false when the document has no such value. It reads r once, a
// byte at a time through a buffer, holding only the path to where it is:
// a problem found in a results file of a gigabyte can still be placed.
// It follows the document's structure without checking it, so it is
// meant for documents that were decoded once already.
func Position(r io.Reader, pointer string) (line, col int, ok bool) {
	want, err := jsonpointer.Tokens(pointer)
	if err != nil {
		return 0, 0, false
	}
	p := &positioner{r: bufio.NewReaderSize(r, 64<<10), line: 1, col: 1, want: want}
	return p.value(0)
}

// positioner walks a JSON document toward the value at want.
type positioner struct {
	r         *bufio.Reader
	line, col int // of the byte read next
	want      []string
	err       bool // the document ended or is not JSON
}

// next reads a byte; 0 at the end of the document or a read error.
func (p *positioner) next() byte {
	c, err := p.r.ReadByte()
	if err != nil {
		p.err = true
		return 0
	}
	if c == '\n' {
		p.line, p.col = p.line+1, 1
	} else {
		p.col++
	}
	return c
}

// skipSpace reads white space and returns the byte after it, unread.
func (p *positioner) skipSpace() byte {
	for {
		c, err := p.r.ReadByte()
		if err != nil {
			p.err = true
			return 0
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			if c == '\n' {
				p.line, p.col = p.line+1, 1
			} else {
				p.col++
			}
			continue
		}
		_ = p.r.UnreadByte()
		return c
	}
}

// value reads the value at depth (the first depth tokens of want match
// where it is), and returns where the wanted value starts when it is
// this one or inside it; false once this value was read past.
func (p *positioner) value(depth int) (int, int, bool) {
	c := p.skipSpace()
	if p.err {
		return 0, 0, false
	}
	if depth == len(p.want) {
		return p.line, p.col, true
	}
	switch c {
	case '{':
		p.next()
		for n := 0; p.more(n, '}'); n++ {
			key, ok := p.str()
			if !ok || p.skipSpace() != ':' {
				p.err = true
				return 0, 0, false
			}
			p.next()
			if key == p.want[depth] {
				return p.value(depth + 1)
			}
			p.skip()
		}
	case '[':
		p.next()
		index, err := strconv.Atoi(p.want[depth])
		if err != nil || index < 0 {
			return 0, 0, false
		}
		for n := 0; p.more(n, ']'); n++ {
			if n == index {
				return p.value(depth + 1)
			}
			p.skip()
		}
	}
	return 0, 0, false // a scalar has nothing inside it, and the rest was not found
}

// more reads up to the n-th member of an object or element of a list,
// whose closing bracket is end: past the comma before it, and the white
// space; false at the end, or where the document is not JSON.
func (p *positioner) more(n int, end byte) bool {
	c := p.skipSpace()
	if c == end || p.err {
		p.next()
		return false
	}
	if n > 0 {
		if c != ',' {
			p.err = true
			return false
		}
		p.next()
		p.skipSpace()
	}
	return !p.err
}

// skip reads one value whole.
func (p *positioner) skip() {
	depth := 0
	for !p.err {
		switch c := p.skipSpace(); c {
		case '"':
			p.str()
		case '{', '[':
			p.next()
			depth++
			continue
		case '}', ']':
			p.next()
			depth--
		case ',', ':':
			if depth == 0 {
				return
			}
			p.next()
			continue
		default:
			for !p.err && !strings.ContainsRune(" \t\r\n,:]}", rune(c)) {
				p.next()
				c, _ = p.peek()
			}
		}
		if depth <= 0 {
			return
		}
	}
}

// peek returns the next byte, unread.
func (p *positioner) peek() (byte, bool) {
	b, err := p.r.Peek(1)
	if err != nil {
		p.err = true
		return 0, false
	}
	return b[0], true
}

// str reads a string, whose quote is next, and returns its value: the
// escapes a key may hold are undone (\uXXXX only for what UTF-8 holds as
// one rune).
func (p *positioner) str() (string, bool) {
	if p.next() != '"' {
		return "", false
	}
	var b strings.Builder
	for {
		c := p.next()
		switch {
		case p.err:
			return "", false
		case c == '"':
			return b.String(), true
		case c == '\\':
			e := p.next()
			switch e {
			case 'u':
				var hex [4]byte
				for i := range hex {
					hex[i] = p.next()
				}
				r, err := strconv.ParseUint(string(hex[:]), 16, 32)
				if err != nil {
					return "", false
				}
				b.WriteRune(rune(r))
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
}
