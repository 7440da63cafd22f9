// Package exprmsg words expr-lang's errors for the people who wrote the
// expression: a suite's assertions and evalgate.yaml's gates. expr-lang
// describes a token by its lexer's name for it (Operator("="), Bracket(")"),
// EOF) and a type by Go's name for it (float64, map[string]interface {});
// a user wrote "=" and thinks in JSON's words, so this says those.
package exprmsg

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/expr-lang/expr/file"
)

// Message returns err's message in one line, in the user's words, and
// where in the expression it is: line and column from 1, both 0 when expr
// gave no position. rename, when not nil, names the caller's own Go types
// (the structs its environment is made of) before the common ones are.
func Message(err error, rename func(string) string) (msg string, line, col int) {
	msg = err.Error()
	var fe *file.Error
	if errors.As(err, &fe) {
		msg = fe.Message
		if fe.Snippet != "" {
			line, col = fe.Line, fe.Column+1
		}
	}
	msg, _, _ = strings.Cut(msg, "\n")
	if rename != nil {
		msg = rename(msg)
	}
	return words(msg), line, col
}

// words rewrites one line of expr's.
func words(msg string) string {
	if got, ok := strings.CutPrefix(msg, "expected bool, but got "); ok {
		return "the expression must yield true or false, not a value of type " + typeWord(got)
	}
	if at := token().FindStringSubmatchIndex(msg); at != nil {
		kind, text := msg[at[2]:at[3]], ""
		if at[4] >= 0 {
			text = msg[at[4]:at[5]]
		}
		return msg[:at[0]] + tokenWords(kind, text) + msg[at[1]:]
	}
	if m := character().FindStringSubmatch(msg); m != nil {
		return "unexpected character " + m[1] + " (not part of any operator)"
	}
	// A name the user wrote may be a type word ("int"): leave it as written.
	if strings.HasPrefix(msg, "unknown name ") || strings.Contains(msg, " has no field ") || strings.Contains(msg, " has no method ") {
		return msg
	}
	return goTypes().ReplaceAllStringFunc(msg, typeWord)
}

// token finds the description of a token in a syntax error: its kind and,
// but for the end of the expression, its text as a Go string literal.
var token = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`unexpected token (EOF|[A-Z][a-z]+)(?:\(("(?:[^"\\]|\\.)*")\))?`)
})

// character finds the lexer's report of a character no token starts with.
var character = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unrecognized character: U\+[0-9A-F]+ ('.*')$`) })

// tokenWords says what the user wrote where expr met a token it did not
// expect, and for a lone "=" the comparison it almost certainly meant.
func tokenWords(kind, literal string) string {
	if kind == "EOF" {
		return "unexpected end of the expression"
	}
	text, err := strconv.Unquote(literal)
	if err != nil {
		text = literal
	}
	switch {
	case kind == "String":
		return "unexpected string " + strconv.Quote(text)
	case kind == "Operator" && text == "=":
		return `unexpected "="; did you mean "=="?`
	}
	return "unexpected " + strconv.Quote(text)
}

// goTypes finds the Go type names expr puts in its messages.
var goTypes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`func\([^)]*\)(?: \([^)]*\)| [\w.{}\[\]*]+)?|map\[string\]interface \{\}|\[\]interface \{\}|interface \{\}|\b(?:float64|int64|int|bool)\b`)
})

// typeWord names a type of expr's in JSON's words.
func typeWord(t string) string {
	switch {
	case strings.HasPrefix(t, "func("):
		return "function"
	case t == "map[string]interface {}":
		return "object"
	case t == "[]interface {}":
		return "list"
	case t == "interface {}":
		return "any"
	case t == "float64":
		return "number"
	case t == "int" || t == "int64":
		return "integer"
	case t == "bool":
		return "boolean"
	}
	return t
}

// WithPlace is Message with the place in the expression after it, as
// "(line:column)", the way expr writes it; nothing when it has none.
func WithPlace(err error, rename func(string) string) string {
	msg, line, col := Message(err, rename)
	if line == 0 {
		return msg
	}
	// The place goes with the problem, before a suggestion of what to write.
	problem, hint, found := strings.Cut(msg, "; did you mean ")
	place := " (" + strconv.Itoa(line) + ":" + strconv.Itoa(col) + ")"
	if found {
		return problem + place + "; did you mean " + hint
	}
	return problem + place
}
