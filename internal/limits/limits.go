// Package limits holds the caps on the expressions and regular
// expressions evalgate reads from its input files (suites, evalgate.yaml),
// checked on their text before expr-lang or regexp parses them: a value
// over a cap is an error that names it, found in microseconds, instead of
// minutes, gigabytes or a stack overflow no recover catches.
package limits

import (
	"fmt"
	"regexp/syntax"
	"strings"
)

// The caps; docs/suites.md ("Limits") says why each is what it is.
const (
	// ExprBytes bounds the text of an expression. expr-lang's parser and
	// checker take time and stack that grow with the text; a few
	// kilobytes is far more than any assertion or gate needs.
	ExprBytes = 4 << 10
	// ExprNesting bounds how deeply (), [] and {} nest in an expression:
	// expr-lang parses nested brackets by recursion, and half a million
	// of them overflow the goroutine stack, a fatal error.
	ExprNesting = 64
	// RegexBytes bounds a regular expression: the time to match grows
	// with the size of the compiled pattern times the length of the text.
	RegexBytes = 1 << 10
	// RegexNesting bounds how deeply groups nest in a regular expression.
	RegexNesting = 64
	// RegexSize bounds the size of the program a regular expression
	// compiles to, in instructions, where x{n} counts as n copies of x: a
	// kilobyte of counted repetitions compiles to a hundred thousand
	// instructions, megabytes of memory, and matches a megabyte of text
	// in over a minute.
	RegexSize = 1000
	// RegexCost bounds one match of a regular expression against a text:
	// the instructions of its compiled program times the bytes of the
	// text, the most steps matching can take. A 1,000-instruction program
	// steps through a megabyte in 10 to 40 seconds on a busy machine; this
	// is a few seconds' worth, and a 20-instruction pattern over 13 MB.
	RegexCost = 1 << 28
)

// Error is a value over one of the caps; Message says which.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

// Expr checks an expression's text against ExprBytes and ExprNesting;
// parts names what a long one can be split into ("checks"). It scans the text as expr-lang's lexer does: brackets
// inside string literals and comments do not count.
func Expr(src, parts string) error {
	if len(src) > ExprBytes {
		return &Error{fmt.Sprintf("expected an expression of at most %d bytes, got %d bytes; split it into several %s", ExprBytes, len(src), parts)}
	}
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '(', '[', '{':
			if depth++; depth > ExprNesting {
				return &Error{fmt.Sprintf("expected brackets nested at most %d levels deep in an expression; the %q at byte %d opens level %d", ExprNesting, c, i+1, depth)}
			}
		case ')', ']', '}':
			depth = max(0, depth-1)
		case '"', '\'':
			// A string ends at its quote, or at a newline (a lexer error).
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '`':
			// A raw string ends at a backtick not doubled.
			for i++; i < len(src); i++ {
				if src[i] == '`' {
					if i+1 < len(src) && src[i+1] == '`' {
						i++
						continue
					}
					break
				}
			}
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				for i < len(src) && src[i] != '\n' {
					i++
				}
			} else if i+1 < len(src) && src[i+1] == '*' {
				i += 2
				for i+1 < len(src) && (src[i] != '*' || src[i+1] != '/') {
					i++
				}
				i++
			}
		}
	}
	return nil
}

// Regex checks a regular expression against RegexBytes and
// RegexNesting, on its text, then against RegexSize, on its parse
// tree. Groups are counted as regexp/syntax reads them: an escaped
// parenthesis, one inside a character class and text between \Q and \E
// are literal. A pattern over a cap is an *Error; one that does not parse
// is regexp/syntax's error (regexp.Compile fails exactly when it does);
// nil means the pattern compiles within the caps.
func Regex(pattern string) error {
	_, err := ParseRegex(pattern)
	return err
}

// ParseRegex is Regex that also returns the parse tree of a pattern within
// the caps (regexp/syntax's, with the flags regexp.Compile parses with),
// for a caller that compiles it.
func ParseRegex(pattern string) (*syntax.Regexp, error) {
	if err := regexText(pattern); err != nil {
		return nil, err
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if n := regexSize(re); n > RegexSize {
		return nil, &Error{fmt.Sprintf("expected a regular expression that compiles to at most %d instructions, got about %d; counted repetitions such as x{100} count each copy", RegexSize, n)}
	}
	return re, nil
}

// regexSize is the number of instructions re compiles to, at most, as
// regexp/syntax counts it against its own (far larger) limit.
func regexSize(re *syntax.Regexp) int64 {
	var size int64
	switch re.Op {
	case syntax.OpLiteral:
		size = int64(len(re.Rune))
	case syntax.OpCapture, syntax.OpStar:
		size = 2 + regexSize(re.Sub[0])
	case syntax.OpPlus, syntax.OpQuest:
		size = 1 + regexSize(re.Sub[0])
	case syntax.OpConcat, syntax.OpAlternate:
		for _, sub := range re.Sub {
			size += regexSize(sub)
		}
		if re.Op == syntax.OpAlternate {
			size += int64(len(re.Sub)) - 1
		}
	case syntax.OpRepeat:
		sub := regexSize(re.Sub[0])
		switch {
		case re.Max == -1 && re.Min == 0:
			size = 2 + sub
		case re.Max == -1:
			size = 1 + int64(re.Min)*sub
		default:
			size = int64(re.Max)*sub + int64(re.Max-re.Min)
		}
	}
	return max(1, size)
}

// regexText checks the text of a regular expression against
// RegexBytes and RegexNesting.
func regexText(pattern string) error {
	if len(pattern) > RegexBytes {
		return &Error{fmt.Sprintf("expected a regular expression of at most %d bytes, got %d bytes", RegexBytes, len(pattern))}
	}
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			if i+1 < len(pattern) && pattern[i+1] == 'Q' {
				end := indexFrom(pattern, `\E`, i+2)
				if end < 0 {
					return nil // quoted to the end
				}
				i = end + 1
				continue
			}
			i++
		case '[':
			i = classEnd(pattern, i)
		case '(':
			if depth++; depth > RegexNesting {
				return &Error{fmt.Sprintf("expected groups nested at most %d levels deep in a regular expression; the ( at byte %d opens level %d", RegexNesting, i+1, depth)}
			}
		case ')':
			depth = max(0, depth-1)
		}
	}
	return nil
}

// classEnd returns the offset of the ] that closes the character class
// opening at pattern[open], or the last offset when none does.
func classEnd(pattern string, open int) int {
	i := open + 1
	if i < len(pattern) && pattern[i] == '^' {
		i++
	}
	if i < len(pattern) && pattern[i] == ']' {
		i++ // a ] first in the class is literal
	}
	for ; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[':
			if i+1 < len(pattern) && pattern[i+1] == ':' { // [:alpha:]
				if end := indexFrom(pattern, ":]", i+2); end >= 0 {
					i = end + 1
				}
			}
		case ']':
			return i
		}
	}
	return len(pattern) - 1
}

// indexFrom is strings.Index of sub in s from offset from, as an offset
// in s; -1 when absent.
func indexFrom(s, sub string, from int) int {
	if i := strings.Index(s[min(from, len(s)):], sub); i >= 0 {
		return from + i
	}
	return -1
}
