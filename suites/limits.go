package suites

import (
	"fmt"
	"regexp/syntax"
	"strings"
)

// Limits on what a suite file may hold, so that a hostile or mistaken file
// is refused quickly instead of taking minutes, gigabytes or the process
// (docs/suites.md, "Limits"). Each is checked on the raw text, before the
// library that would parse it sees it.
const (
	// MaxSuiteBytes bounds a suite file. The 100,000-task suite of
	// bench/scale.sh is 52 MB of JSON, read a task at a time.
	MaxSuiteBytes = 64 << 20
	// MaxYAMLBytes bounds a YAML suite file, which is parsed whole: the
	// YAML parser takes up to 150 bytes of memory, and a microsecond, for
	// each byte of the file.
	MaxYAMLBytes = 4 << 20
	// MaxExprBytes bounds the text of an assert expression. expr-lang's
	// parser and checker take time and stack that grow with the text; a
	// few kilobytes is far more than any assertion needs.
	MaxExprBytes = 4 << 10
	// MaxExprNesting bounds how deeply (), [] and {} nest in an expression:
	// expr-lang parses nested brackets by recursion, and a million of them
	// overflow the goroutine stack, a fatal error no recover catches.
	MaxExprNesting = 64
	// MaxRegexBytes bounds a regular expression (match strategy regex, the
	// literal pattern of `matches`): the time to match grows with the size
	// of the compiled pattern times the length of the output.
	MaxRegexBytes = 1 << 10
	// MaxRegexNesting bounds how deeply groups nest in a regular expression.
	MaxRegexNesting = 64
	// MaxRegexSize bounds the size of the program a regular expression
	// compiles to, in instructions, where x{n} counts as n copies of x: a
	// kilobyte of counted repetitions compiles to a hundred thousand
	// instructions, megabytes of memory, and matches a megabyte of output
	// in over a minute.
	MaxRegexSize = 1000
)

// limitError is a value over one of the limits. Its message says what the
// limit is; it is reported as it is, not as a failure to compile.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// exprLimit checks an expression's text against MaxExprBytes and
// MaxExprNesting. It scans the text as expr-lang's lexer does: brackets
// inside string literals and comments do not count.
func exprLimit(src string) error {
	if len(src) > MaxExprBytes {
		return &limitError{fmt.Sprintf("expected an expression of at most %d bytes, got %d bytes; split it into several checks", MaxExprBytes, len(src))}
	}
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '(', '[', '{':
			if depth++; depth > MaxExprNesting {
				return &limitError{fmt.Sprintf("expected brackets nested at most %d levels deep in an expression; the %q at byte %d opens level %d", MaxExprNesting, c, i+1, depth)}
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

// regexLimit checks a regular expression against MaxRegexBytes and
// MaxRegexNesting, on its text, then against MaxRegexSize, on its parse
// tree. Groups are counted as regexp/syntax reads them: an escaped
// parenthesis, one inside a character class and text between \Q and \E
// are literal. A pattern that does not parse passes: compiling it reports
// why.
func regexLimit(pattern string) error {
	if err := regexTextLimit(pattern); err != nil {
		return err
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	if n := regexSize(re); n > MaxRegexSize {
		return &limitError{fmt.Sprintf("expected a regular expression that compiles to at most %d instructions, got about %d; counted repetitions such as x{100} count each copy", MaxRegexSize, n)}
	}
	return nil
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

// regexTextLimit checks the text of a regular expression against
// MaxRegexBytes and MaxRegexNesting.
func regexTextLimit(pattern string) error {
	if len(pattern) > MaxRegexBytes {
		return &limitError{fmt.Sprintf("expected a regular expression of at most %d bytes, got %d bytes", MaxRegexBytes, len(pattern))}
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
			if depth++; depth > MaxRegexNesting {
				return &limitError{fmt.Sprintf("expected groups nested at most %d levels deep in a regular expression; the ( at byte %d opens level %d", MaxRegexNesting, i+1, depth)}
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
