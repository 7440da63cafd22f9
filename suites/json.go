package suites

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, so a hostile file
// cannot exhaust the stack of the reader, the validator or the decoder.
const maxDepth = 1000

// jsonReader builds the position-keeping tree from JSON (RFC 8259). It
// scans the structure itself, which keeps exact positions and number
// literals as written; strings with escapes or invalid UTF-8 are decoded
// by encoding/json, so every escape means what it means there.
type jsonReader struct {
	data []byte
	i    int // next byte to read
	file string
	errs Errors

	// The incremental position: offset off is at line:col.
	off, line, col int

	// onTask, when set, receives each item of the top-level "tasks" list as
	// soon as it is read, and the list keeps none of them.
	onTask  func(i int, v *value, start, end int)
	inTasks bool // reading the value of the top-level "tasks" member

	// values counts the values read of the task being read, or, outside
	// the tasks, of the rest of the suite; when streaming tasks, either
	// is an error past MaxTaskValues. inTask says which is counted.
	values int
	inTask bool
	// total counts every value read, against MaxSuiteValues.
	total int

	// The members and items read so far of the objects and lists being
	// read, innermost last: each is copied out once, at its exact size,
	// when its object or list ends.
	openFields []field
	openItems  []*value
}

// jsonSyntaxError stops the reader at the first syntax error.
type jsonSyntaxError struct {
	off int
	msg string
}

func (e *jsonSyntaxError) Error() string { return e.msg }

// parseJSON reads one JSON value. Duplicate keys are errors, as is anything
// after the value.
func parseJSON(file string, data []byte) (*value, Errors) {
	return parseJSONStream(file, data, nil)
}

// parseJSONStream is parseJSON handing each item of the top-level "tasks"
// list to onTask as it is read; the tree's list then holds no items.
func parseJSONStream(file string, data []byte, onTask func(i int, v *value, start, end int)) (*value, Errors) {
	return parseJSONFrom(file, data, 1, 1, onTask)
}

// parseJSONFrom is parseJSONStream for data that starts at line:col of the
// file (a task read back from it).
func parseJSONFrom(file string, data []byte, line, col int, onTask func(i int, v *value, start, end int)) (*value, Errors) {
	r := &jsonReader{data: data, file: file, line: line, col: col, onTask: onTask}
	root, err := r.value(0)
	if err == nil {
		r.space()
		if r.i < len(r.data) {
			err = &jsonSyntaxError{r.i, "unexpected data after the top-level JSON value"}
		}
	}
	if err != nil {
		e := err.(*jsonSyntaxError)
		if e.off < r.off { // before the last position computed: count again
			r.off, r.line, r.col = 0, 1, 1
		}
		line, col := r.pos(e.off)
		return nil, append(r.errs, &Error{Pos: Pos{File: file, Line: line, Col: col}, Message: e.msg, Kind: ErrSyntax})
	}
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	return root, nil
}

// space skips whitespace.
func (r *jsonReader) space() {
	for r.i < len(r.data) {
		switch r.data[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// unexpected describes what was found at the reader's offset.
func (r *jsonReader) unexpected(want string) error {
	if r.i >= len(r.data) {
		return &jsonSyntaxError{r.i, "unexpected end of JSON input; expected " + want}
	}
	c, _ := utf8.DecodeRune(r.data[r.i:])
	return &jsonSyntaxError{r.i, fmt.Sprintf("expected %s, got %q", want, c)}
}

func (r *jsonReader) value(depth int) (*value, error) {
	r.space()
	if r.i >= len(r.data) {
		return nil, r.unexpected("a value")
	}
	r.values++
	r.total++
	if r.onTask != nil && (r.values > taskValueBudget || r.total > suiteValueBudget) {
		return nil, r.tooMany()
	}
	line, col := r.pos(r.i)
	v := &value{line: line, col: col}
	switch c := r.data[r.i]; {
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return nil, &jsonSyntaxError{r.i, fmt.Sprintf("values are nested more than %d levels deep", maxDepth)}
		}
		r.i++
		if c == '[' {
			v.kind = kindArray
			return v, r.items(v, depth)
		}
		v.kind = kindObject
		return v, r.members(v, depth)
	case c == '"':
		s, err := r.string()
		v.kind, v.lit = kindString, s
		return v, err
	case c == '-' || (c >= '0' && c <= '9'):
		start := r.i
		for r.i < len(r.data) && strings.IndexByte("+-.eE0123456789", r.data[r.i]) >= 0 {
			r.i++
		}
		lit := string(r.data[start:r.i])
		if !isJSONNumber(lit) {
			return nil, &jsonSyntaxError{start, fmt.Sprintf("%s is not a valid number", lit)}
		}
		v.kind, v.lit = kindNumber, lit
		return v, nil
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if strings.HasPrefix(string(r.data[r.i:min(len(r.data), r.i+5)]), lit) {
				r.i += len(lit)
				if lit == "null" {
					v.kind = kindNull
				} else {
					v.kind, v.lit = kindBool, lit
				}
				return v, nil
			}
		}
		return nil, r.unexpected("a value")
	}
}

// tooMany reports a suite over MaxTaskValues or MaxSuiteValues.
func (r *jsonReader) tooMany() error {
	msg := fmt.Sprintf("the suite holds more than %d JSON values, the limit for a suite file", suiteValueBudget)
	switch {
	case r.total <= suiteValueBudget && r.inTask:
		msg = fmt.Sprintf("the task holds more than %d JSON values, the limit for a task, which is held whole while it is checked", taskValueBudget)
	case r.total <= suiteValueBudget:
		msg = fmt.Sprintf("the suite holds more than %d JSON values outside its tasks, the limit for what is held whole while the suite is read", taskValueBudget)
	}
	return &jsonSyntaxError{r.i, msg}
}

func (r *jsonReader) items(v *value, depth int) error {
	r.space()
	if r.i < len(r.data) && r.data[r.i] == ']' {
		r.i++
		return nil
	}
	stream := r.inTasks && depth == 1 && r.onTask != nil
	r.inTasks = false
	base := len(r.openItems)
	for i := 0; ; i++ {
		r.space()
		start := r.i
		outside := r.values
		if stream {
			r.values, r.inTask = 0, true
		}
		it, err := r.value(depth + 1)
		if err != nil {
			return err
		}
		if stream {
			r.values, r.inTask = outside, false
			r.onTask(i, it, start, r.i)
		} else {
			r.openItems = append(r.openItems, it)
		}
		r.space()
		if r.i < len(r.data) {
			switch r.data[r.i] {
			case ',':
				r.i++
				continue
			case ']':
				r.i++
				v.items = closeOpen(&r.openItems, base)
				return nil
			}
		}
		return r.unexpected(`"," or "]" after a list item`)
	}
}

// members reads the members of an object up to its closing brace.
func (r *jsonReader) members(v *value, depth int) error {
	r.space()
	if r.i < len(r.data) && r.data[r.i] == '}' {
		r.i++
		return nil
	}
	var seen map[string]int // by key, for large objects
	base := len(r.openFields)
	for {
		r.space()
		if r.i >= len(r.data) || r.data[r.i] != '"' {
			return r.unexpected("a key (a string in double quotes)")
		}
		kl, kc := r.pos(r.i)
		key, err := r.string()
		if err != nil {
			return err
		}
		r.space()
		if r.i >= len(r.data) || r.data[r.i] != ':' {
			return r.unexpected(`":" after a key`)
		}
		r.i++
		r.inTasks = depth == 0 && key == "tasks"
		val, err := r.value(depth + 1)
		r.inTasks = false
		if err != nil {
			return err
		}
		if prev := findKey(r.openFields[base:], &seen, key); prev != nil {
			r.errs = append(r.errs, &Error{
				Pos:     Pos{File: r.file, Line: kl, Col: kc},
				Message: fmt.Sprintf("duplicate key %q; first defined at line %d", key, prev.keyLine),
				Kind:    ErrSyntax,
			})
		} else {
			r.openFields = append(r.openFields, field{key: key, keyLine: kl, keyCol: kc, val: val})
		}
		r.space()
		if r.i < len(r.data) {
			switch r.data[r.i] {
			case ',':
				r.i++
				continue
			case '}':
				r.i++
				v.fields = closeOpen(&r.openFields, base)
				return nil
			}
		}
		return r.unexpected(`"," or "}" after an object member`)
	}
}

// string reads a string token starting at its opening quote.
func (r *jsonReader) string() (string, error) {
	start := r.i
	r.i++
	plain := true
	for r.i < len(r.data) {
		c := r.data[r.i]
		switch {
		case c == '"':
			r.i++
			body := r.data[start+1 : r.i-1]
			if plain {
				return string(body), nil
			}
			return unescape(body), nil
		case c == '\\':
			plain = false
			if r.i+1 < len(r.data) && strings.IndexByte(`"\/bfnrtu`, r.data[r.i+1]) < 0 {
				return "", &jsonSyntaxError{r.i, fmt.Sprintf(`invalid escape \%c in a string`, r.data[r.i+1])}
			}
			if r.i+1 < len(r.data) && r.data[r.i+1] == 'u' {
				if _, ok := hex4(r.data[r.i+2:]); !ok {
					end := r.i + 2
					for end < len(r.data) && end < r.i+6 && isHex(r.data[end]) {
						end++
					}
					return "", &jsonSyntaxError{r.i, fmt.Sprintf(`invalid escape %s in a string; \u takes four hexadecimal digits`, r.data[r.i:end])}
				}
			}
			r.i += 2
		case c < 0x20:
			return "", &jsonSyntaxError{r.i, "control character in a string; write it as an escape such as \\n"}
		case c >= utf8.RuneSelf:
			rn, size := utf8.DecodeRune(r.data[r.i:])
			if rn == utf8.RuneError && size == 1 {
				plain = false // encoding/json replaces invalid UTF-8
			}
			r.i += size
		default:
			r.i++
		}
	}
	return "", &jsonSyntaxError{len(r.data), "unexpected end of JSON input in a string"}
}

// closeOpen pops what the stack *open holds past base, the members or
// items of the object or list just read, and returns a copy of exactly
// their size; nil when there are none.
func closeOpen[T any](open *[]T, base int) []T {
	s := *open
	if len(s) == base {
		return nil
	}
	out := slices.Clone(s[base:])
	clear(s[base:])
	*open = s[:base]
	return out
}

// unescape decodes the body of a string token that the reader has checked,
// as encoding/json does: escapes, UTF-16 surrogate pairs, and U+FFFD for
// a lone surrogate and for each byte that is not UTF-8.
func unescape(body []byte) string {
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			e := body[i+1]
			i += 2
			if e != 'u' {
				out = append(out, escapeByte[e])
				continue
			}
			r, _ := hex4(body[i:])
			i += 4
			if utf16.IsSurrogate(r) {
				if len(body) >= i+6 && body[i] == '\\' && body[i+1] == 'u' {
					r2, _ := hex4(body[i+2:])
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, body[i:i+size]...)
			}
			i += size
		}
	}
	return string(out)
}

// escapeByte is what each one-letter escape stands for.
var escapeByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads the four hexadecimal digits of a \u escape.
func hex4(p []byte) (rune, bool) {
	if len(p) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p[:4] {
		if !isHex(c) {
			return 0, false
		}
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// findKey returns the member with key in fields, switching to a map once the
// object grows so a wide object stays linear. The caller appends the new
// field after a miss; seen indexes fields by key.
func findKey(fields []field, seen *map[string]int, key string) *field {
	const small = 16
	if len(fields) < small {
		for i := range fields {
			if fields[i].key == key {
				return &fields[i]
			}
		}
		return nil
	}
	if *seen == nil {
		*seen = make(map[string]int, 2*small)
	}
	m := *seen
	for i := len(m); i < len(fields); i++ { // index the fields added since the last call
		m[fields[i].key] = i
	}
	if i, ok := m[key]; ok {
		return &fields[i]
	}
	return nil
}

// pos converts a byte offset to a line and a column counted in characters.
// Offsets must not decrease between calls.
func (r *jsonReader) pos(off int) (line, col int) {
	if off > len(r.data) {
		off = len(r.data)
	}
	for ; r.off < off; r.off++ {
		c := r.data[r.off]
		switch {
		case c == '\n':
			r.line++
			r.col = 1
		case c&0xC0 != 0x80: // not a UTF-8 continuation byte
			r.col++
		}
	}
	return r.line, r.col
}
