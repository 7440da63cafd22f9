// Package jsonvalue compares and addresses JSON values the way evalgate's
// contracts define it: numbers compare by value (1 == 1.0), object key order
// and whitespace never matter, null is not the same as a missing key, and a
// subset is an object whose keys all appear, recursively, in the other value.
//
// Values are decoded with json.Number so that large integers and decimals
// keep their exact text until they are compared.
//
// MarshalFile is the other way: the bytes of a JSON file as evalgate writes
// its outputs.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/evalgate/evalgate/internal/jsonpointer"
)

// Decode parses one JSON value, keeping numbers as json.Number. It
// decodes as json.Decoder with UseNumber does, and fails as it does, with
// its errors; a valid value is read without its buffers (agent outputs
// are decoded several times a trial).
func Decode(data []byte) (any, error) {
	if json.Valid(data) {
		v, _ := decodeValid(data, 0)
		return v, nil
	}
	return decodeWithDecoder(data)
}

// decodeWithDecoder is Decode through json.Decoder with UseNumber: what
// Decode does with invalid input, for its errors, and the reference
// FuzzDecode holds Decode to.
func decodeWithDecoder(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// decodeValid decodes the value at data[i:], which json.Valid found
// valid, and returns it with the index past it.
func decodeValid(data []byte, i int) (any, int) {
	i = skipSpace(data, i)
	switch data[i] {
	case '{':
		m := map[string]any{}
		i = skipSpace(data, i+1)
		if data[i] == '}' {
			return m, i + 1
		}
		for {
			var k string
			k, i = decodeString(data, skipSpace(data, i))
			i = skipSpace(data, i) + 1 // the colon
			m[k], i = decodeValid(data, i)
			i = skipSpace(data, i)
			if data[i] == '}' {
				return m, i + 1
			}
			i++ // the comma
		}
	case '[':
		a := []any{}
		i = skipSpace(data, i+1)
		if data[i] == ']' {
			return a, i + 1
		}
		for {
			var v any
			v, i = decodeValid(data, i)
			a = append(a, v)
			i = skipSpace(data, i)
			if data[i] == ']' {
				return a, i + 1
			}
			i++ // the comma
		}
	case '"':
		return decodeString(data, i)
	case 't':
		return true, i + 4
	case 'f':
		return false, i + 5
	case 'n':
		return nil, i + 4
	}
	j := i + 1
	for j < len(data) && strings.IndexByte("0123456789+-.eE", data[j]) >= 0 {
		j++
	}
	return json.Number(data[i:j]), j
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// decodeString decodes the valid JSON string at data[i:] as
// encoding/json does: a bad UTF-8 byte, or a lone surrogate, becomes
// U+FFFD.
func decodeString(data []byte, i int) (string, int) {
	j := i + 1
	for data[j] != '"' && data[j] != '\\' && data[j] < utf8.RuneSelf {
		j++
	}
	if data[j] == '"' {
		return string(data[i+1 : j]), j + 1
	}
	end := j // the closing quote
	for data[end] != '"' {
		if data[end] == '\\' {
			end++
		}
		end++
	}
	var b strings.Builder
	b.Grow(end - i - 1) // the decoded string, unless bad bytes widen it
	b.Write(data[i+1 : j])
	for {
		switch c := data[j]; {
		case c == '"':
			return b.String(), j + 1
		case c == '\\':
			switch e := data[j+1]; e {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r := hex4(data[j+2 : j+6])
				j += 6
				if utf16.IsSurrogate(r) {
					if data[j] == '\\' && data[j+1] == 'u' {
						if dec := utf16.DecodeRune(r, hex4(data[j+2:j+6])); dec != utf8.RuneError {
							b.WriteRune(dec)
							j += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b.WriteRune(r)
				continue
			default: // " \ /
				b.WriteByte(e)
			}
			j += 2
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			j++
		default:
			r, size := utf8.DecodeRune(data[j:])
			j += size
			b.WriteRune(r)
		}
	}
}

// hex4 is the value of four hexadecimal digits.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Equal reports whether a and b are the same JSON value. Numbers compare by
// value, so 42 equals 42.0 and 4.2e1.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	default:
		xn, ok1 := number(a)
		yn, ok2 := number(b)
		return ok1 && ok2 && xn.Cmp(yn) == 0
	}
}

// Subset reports whether sub is contained in v: objects by key, recursively
// (v may have more keys); arrays element by element with the same length;
// everything else by Equal.
func Subset(sub, v any) bool {
	switch x := sub.(type) {
	case map[string]any:
		y, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Subset(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := v.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Subset(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return Equal(sub, v)
	}
}

// number returns a numeric JSON value as an exact rational.
func number(v any) (*big.Rat, bool) {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = string(n)
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(n) == nil {
			return nil, false
		}
		return r, true
	case int:
		return new(big.Rat).SetInt64(int64(n)), true
	case int64:
		return new(big.Rat).SetInt64(n), true
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// Canonical renders v as compact JSON with object keys sorted and numbers in
// their shortest exact form (42.0 becomes 42), so that two equal values
// render to the same bytes.
func Canonical(v any) []byte {
	var b bytes.Buffer
	writeCanonical(&b, v)
	return b.Bytes()
}

func writeCanonical(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case string:
		writeString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		r, ok := number(v)
		if !ok {
			fmt.Fprintf(b, "%q", fmt.Sprint(v))
			return
		}
		b.WriteString(formatRat(r))
	}
}

func writeString(b *bytes.Buffer, s string) {
	b.Write(AppendString(b.AvailableBuffer(), s))
}

const hexDigit = "0123456789abcdef"

// AppendString appends s to b as a JSON string, escaping what JSON
// requires and nothing more (no HTML escaping, unlike encoding/json), so
// text checks see "<" as "<". Invalid UTF-8 becomes U+FFFD,
// as encoding/json does.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 end lines in JavaScript; escape them as
		// encoding/json does.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigit[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// formatRat prints an exact decimal: integers without a fraction, others in
// the shortest float64 form.
func formatRat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Text renders a JSON value as the text the string strategies look at: a
// string as itself, anything else as canonical JSON.
func Text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return string(Canonical(v))
}

// Pointer resolves an RFC 6901 JSON pointer in v. The empty pointer is v
// itself. It reports false when a step does not exist.
func Pointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = jsonpointer.Unescape(tok)
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// Plain converts json.Number values to float64 throughout v, for code (such
// as expression evaluation) that expects Go's ordinary JSON types.
func Plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = Plain(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = Plain(e)
		}
		return x
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return string(x)
		}
		return f
	default:
		return v
	}
}

// MarshalFile encodes v as evalgate writes its JSON files: indented by two
// spaces, with <, > and & as they are (not \u003c: the files are not
// HTML), and one final newline.
func MarshalFile(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// CutEmptyList finds the last member `"key": []` in data, JSON that
// json.Marshal or an Encoder wrote, and returns the text before its [] and
// after it, so that a list encoded empty can be written in its place an
// item at a time; found is false when there is no such member.
func CutEmptyList(data []byte, key string) (before, after []byte, found bool) {
	member := append(AppendString(nil, key), ": []"...)
	i := bytes.LastIndex(data, member)
	if i < 0 {
		return nil, nil, false
	}
	end := i + len(member)
	return data[:end-2], data[end:], true
}

// Depth is how deeply arrays and objects nest in the JSON text data: 0 for
// a scalar, 1 for [1] or {}, 2 for [[1]]. It reads the bytes once, without
// decoding, so it can guard a decoder (and everything that walks a value
// recursively) against text nested thousands of levels deep. Text that is
// not JSON gets the depth of its brackets outside strings.
func Depth(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			depth++
			deepest = max(deepest, depth)
		case b == ']' || b == '}':
			depth--
		}
	}
	return deepest
}

// AppendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21,
// e-07 written e-7. f must be finite: encoding/json refuses NaN and the
// infinities, and each caller decides what they become.
func AppendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// AppendEncoded appends s as encoding/json writes a string, with its HTML
// escaping (<, > and & as \u003c...) when escapeHTML, as an Encoder with
// SetEscapeHTML(false) when not. Unlike AppendString it matches
// encoding/json byte for byte: printable ASCII that needs no escape, nearly
// every string of evalgate's outputs, is written as it is, and anything
// else is left to encoding/json itself, whose escapes (\b, control
// characters, invalid UTF-8, U+2028) are the ones to match.
func AppendEncoded(b []byte, s string, escapeHTML bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf || escapeHTML && (c == '<' || c == '>' || c == '&') {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(escapeHTML)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// Size is the length of v as compact JSON, about: strings count their
// bytes and quotes (not their escapes), numbers their text (8 for a
// number that is not a json.Number). It stops
// counting once past limit, so a result over limit says only that v is
// larger than limit, and the count costs no more than limit bytes'
// worth of v.
func Size(v any, limit int64) int64 {
	var n int64
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			n += 1 + max(1, int64(len(x))) // braces and commas
			for k, e := range x {
				if n += int64(len(k)) + 3; n > limit || !walk(e) {
					return false
				}
			}
		case []any:
			n += 1 + max(1, int64(len(x)))
			for _, e := range x {
				if !walk(e) {
					return false
				}
			}
		case string:
			n += int64(len(x)) + 2
		case json.Number:
			n += int64(len(x))
		case bool:
			n += 4
			if !x {
				n++
			}
		case nil:
			n += 4
		default:
			n += 8
		}
		return n <= limit
	}
	walk(v)
	return n
}
