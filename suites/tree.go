package suites

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/evalgate/evalgate/jsonvalue"
)

// valueKind is the JSON type of a value in the position-keeping tree that
// both the JSON and the YAML readers build.
type valueKind uint8

const (
	kindNull valueKind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// kindNames are the JSON type names used in messages.
var kindNames = [...]string{
	kindNull:   "null",
	kindBool:   "boolean",
	kindNumber: "number",
	kindString: "string",
	kindArray:  "array",
	kindObject: "object",
}

func (k valueKind) String() string { return kindNames[k] }

// value is one JSON value with the position it was written at. Numbers keep
// the literal as written (a valid JSON number), so 42.0 stays 42.0.
type value struct {
	kind   valueKind
	lit    string // string content; number literal; "true"/"false"
	items  []*value
	fields []field
	line   int
	col    int
}

// field is one object member.
type field struct {
	key     string
	keyLine int
	keyCol  int
	val     *value
}

// moveTo places v and everything in it at line:col: a value made rather
// than read, such as a row a RowReader made, is reported where it came
// from.
func (v *value) moveTo(line, col int) {
	v.line, v.col = line, col
	for _, it := range v.items {
		it.moveTo(line, col)
	}
	for i := range v.fields {
		v.fields[i].keyLine, v.fields[i].keyCol = line, col
		v.fields[i].val.moveTo(line, col)
	}
}

// get returns the member named key, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kindObject {
		return nil
	}
	for i := range v.fields {
		if v.fields[i].key == key {
			return v.fields[i].val
		}
	}
	return nil
}

// count returns the number of values in v, itself included, counting no
// further than limit.
func (v *value) count(limit int) int {
	n := 1
	for _, it := range v.items {
		if n >= limit {
			return n
		}
		n += it.count(limit - n)
	}
	for _, f := range v.fields {
		if n >= limit {
			return n
		}
		n += f.val.count(limit - n)
	}
	return n
}

// getField returns the member named key with its key position, or nil.
func (v *value) getField(key string) *field {
	if v == nil || v.kind != kindObject {
		return nil
	}
	for i := range v.fields {
		if v.fields[i].key == key {
			return &v.fields[i]
		}
	}
	return nil
}

// lookup follows the reference tokens of a JSON pointer. It returns the
// deepest value reached, so an error about a missing member can still point
// at its parent.
func (v *value) lookup(tokens []string) *value {
	cur := v
	for _, tok := range tokens {
		var next *value
		switch cur.kind {
		case kindObject:
			next = cur.get(tok)
		case kindArray:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(cur.items) {
				next = cur.items[i]
			}
		}
		if next == nil {
			return cur
		}
		cur = next
	}
	return cur
}

// toAny converts the tree to the form the JSON Schema validator expects:
// map[string]any, []any, json.Number, string, bool and nil.
func (v *value) toAny() any {
	switch v.kind {
	case kindBool:
		return v.lit == "true"
	case kindNumber:
		return json.Number(v.lit)
	case kindString:
		return v.lit
	case kindArray:
		a := make([]any, len(v.items))
		for i, it := range v.items {
			a[i] = it.toAny()
		}
		return a
	case kindObject:
		m := make(map[string]any, len(v.fields))
		for _, f := range v.fields {
			m[f.key] = f.val.toAny()
		}
		return m
	}
	return nil
}

// compact renders the value as compact JSON, keys in document order and
// number literals as written.
func (v *value) compact() json.RawMessage {
	var b bytes.Buffer
	v.write(&b, "", "")
	// A copy of the exact size: the buffer's spare capacity would stay
	// allocated as long as the value is kept.
	return bytes.Clone(b.Bytes())
}

// write renders the value as JSON. With a non-empty indent each member and
// item goes on its own line, like json.MarshalIndent.
func (v *value) write(b *bytes.Buffer, prefix, indent string) {
	switch v.kind {
	case kindNull:
		b.WriteString("null")
	case kindBool, kindNumber:
		b.WriteString(v.lit)
	case kindString:
		writeJSONString(b, v.lit)
	case kindArray:
		if len(v.items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		inner := prefix + indent
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, inner, indent)
			it.write(b, inner, indent)
		}
		newline(b, prefix, indent)
		b.WriteByte(']')
	case kindObject:
		if len(v.fields) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		inner := prefix + indent
		for i, f := range v.fields {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, inner, indent)
			writeJSONString(b, f.key)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			f.val.write(b, inner, indent)
		}
		newline(b, prefix, indent)
		b.WriteByte('}')
	}
}

func newline(b *bytes.Buffer, prefix, indent string) {
	if indent == "" {
		return
	}
	b.WriteByte('\n')
	b.WriteString(prefix)
}

// isJSONNumber reports whether s is a number literal as JSON writes it.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i == len(s) {
		return false
	}
	switch {
	case s[i] == '0':
		i++
	case s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(s)
}

// writeJSONString writes s as a JSON string.
func writeJSONString(b *bytes.Buffer, s string) {
	b.Write(jsonvalue.AppendString(b.AvailableBuffer(), s))
}
