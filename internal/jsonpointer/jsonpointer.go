// Package jsonpointer is evalgate's one JSON Pointer (RFC 6901): the
// pointers its errors name a field by (/tasks/3/expected), the paths of a
// stateful fixture's patches, and the places a JSON Schema validator
// reports. Suites build pointers as they decode, jsonpatch follows them
// through a trial's world, results place them in a file: all through
// these few functions, so a key holding "/" or "~" is escaped the same
// way everywhere.
//
//	p := jsonpointer.Append(jsonpointer.AppendIndex("/tasks", 3), "a/b") // "/tasks/3/a~1b"
//	toks, _ := jsonpointer.Tokens(p)                                    // ["tasks" "3" "a/b"]
package jsonpointer

import (
	"errors"
	"strconv"
	"strings"
)

// Escape escapes text as one reference token: "~" as "~0" and "/" as
// "~1", so that it cannot reach outside its segment.
func Escape(text string) string {
	if !strings.ContainsAny(text, "~/") {
		return text
	}
	return strings.ReplaceAll(strings.ReplaceAll(text, "~", "~0"), "/", "~1")
}

// Unescape is the text of one escaped reference token: "~1" as "/", then
// "~0" as "~".
func Unescape(token string) string {
	if !strings.Contains(token, "~") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

// Append is the pointer to the member key of the value at ptr.
func Append(ptr, key string) string {
	return ptr + "/" + Escape(key)
}

// AppendIndex is the pointer to item i of the array at ptr.
func AppendIndex(ptr string, i int) string {
	return ptr + "/" + strconv.Itoa(i)
}

// Join is the pointer of the unescaped reference tokens; "" (the whole
// document) for none.
func Join(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(Escape(t))
	}
	return b.String()
}

// Valid reports whether ptr is a JSON pointer: empty, or "/"-separated
// tokens in which "~" is always followed by "0" or "1".
func Valid(ptr string) bool {
	return check(ptr) == nil
}

// Tokens splits a pointer into its unescaped reference tokens; nil for
// "", the whole document. An error says what makes ptr no pointer.
func Tokens(ptr string) ([]string, error) {
	if err := check(ptr); err != nil {
		return nil, err
	}
	if ptr == "" {
		return nil, nil
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		toks[i] = Unescape(t)
	}
	return toks, nil
}

var (
	errNoSlash = errors.New(`a JSON pointer starts with "/"`)
	errTilde   = errors.New(`"~" in a JSON pointer is followed by 0 or 1 ("~0" is "~", "~1" is "/")`)
)

func check(ptr string) error {
	if ptr == "" {
		return nil
	}
	if ptr[0] != '/' {
		return errNoSlash
	}
	for i := 0; i < len(ptr); i++ {
		if ptr[i] == '~' && (i+1 == len(ptr) || (ptr[i+1] != '0' && ptr[i+1] != '1')) {
			return errTilde
		}
	}
	return nil
}
