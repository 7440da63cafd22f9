package meter

import (
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"

	"github.com/evalgate/evalgate/internal/limits"
)

// Regexp is a regular expression within the caps: Compile made it.
// It is safe for concurrent use.
type Regexp struct {
	re    *regexp.Regexp
	insts int // of its compiled program
}

// fixedInsts are the instructions every compiled program has besides
// the pattern's own: the failure at its start and the match at its end.
const fixedInsts = 2

// Compile compiles a regular expression (Go's RE2 syntax, as
// regexp.Compile) within the caps of internal/limits: its text
// (limits.RegexBytes, limits.RegexNesting), then the program it compiles
// to, which may hold limits.RegexSize instructions besides the two every
// program has. A pattern over a cap is a *limits.Error; one that does not
// parse is regexp's error.
func Compile(pattern string) (*Regexp, error) {
	tree, err := limits.ParseRegex(pattern)
	if err != nil {
		return nil, err
	}
	// regexp.Compile parses the pattern again: the number of instructions
	// is not something a *regexp.Regexp tells, and it is what a match
	// costs. It is counted rather than compiled a second time.
	insts, err := progSize(tree.Simplify())
	if err != nil {
		return nil, err
	}
	if n := insts - fixedInsts; n > limits.RegexSize {
		return nil, &limits.Error{Message: fmt.Sprintf("expected a regular expression that compiles to at most %d instructions, got %d; counted repetitions such as x{100} count each copy", limits.RegexSize, n)}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return &Regexp{re: re, insts: insts}, nil
}

// progSize is the number of instructions syntax.Compile makes of re, a
// simplified tree, counted as its compiler emits them without building
// them; a tree with an operator the count does not know is compiled.
func progSize(re *syntax.Regexp) (int, error) {
	if f, ok := fragOf(re); ok {
		return fixedInsts + f.insts, nil
	}
	prog, err := syntax.Compile(re)
	if err != nil {
		return 0, err
	}
	return len(prog.Inst), nil
}

// fragSize is what regexp/syntax's compiler knows of a fragment while it
// compiles: a fragment that cannot match (fail) has no instruction of
// its own to start from, so what it is joined to decides.
type fragSize struct {
	insts    int  // instructions emitted for it, those of a failed part included
	fail     bool // it never matches
	nullable bool // it can match the empty string
}

// fragOf counts re's fragment as the compiler builds it (its compile,
// cat, alt, star, plus and quest); false for an operator it does not
// know.
func fragOf(re *syntax.Regexp) (fragSize, bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return fragSize{fail: true}, true
	case syntax.OpEmptyMatch:
		return fragSize{insts: 1, nullable: true}, true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return fragSize{insts: 1, nullable: true}, true
		}
		return fragSize{insts: len(re.Rune)}, true
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return fragSize{insts: 1}, true
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return fragSize{insts: 1, nullable: true}, true
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		sub, ok := fragOf(re.Sub[0])
		if !ok {
			return sub, false
		}
		switch re.Op {
		case syntax.OpCapture: // its two marks around it
			return fragSize{insts: sub.insts + 2, fail: sub.fail, nullable: !sub.fail && sub.nullable}, true
		case syntax.OpStar: // a loop; (sub+)? when sub can match the empty string
			if sub.nullable {
				return fragSize{insts: sub.insts + 2, nullable: true}, true
			}
			return fragSize{insts: sub.insts + 1, nullable: true}, true
		case syntax.OpPlus:
			return fragSize{insts: sub.insts + 1, fail: sub.fail, nullable: sub.nullable}, true
		}
		return fragSize{insts: sub.insts + 1, nullable: true}, true // OpQuest
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return fragSize{insts: 1, nullable: true}, true
		}
		f := fragSize{nullable: true}
		for _, s := range re.Sub {
			sub, ok := fragOf(s)
			if !ok {
				return sub, false
			}
			f.insts += sub.insts
			f.fail = f.fail || sub.fail
			f.nullable = f.nullable && sub.nullable
		}
		f.nullable = f.nullable && !f.fail
		return f, true
	case syntax.OpAlternate:
		f := fragSize{fail: true}
		for _, s := range re.Sub {
			sub, ok := fragOf(s)
			if !ok {
				return sub, false
			}
			switch {
			case f.fail:
				sub.insts += f.insts
				f = sub
			case sub.fail:
				f.insts += sub.insts
			default: // one instruction chooses between them
				f.insts += sub.insts + 1
				f.nullable = f.nullable || sub.nullable
			}
		}
		return f, true
	}
	return fragSize{}, false
}

// MustCompile is Compile for a pattern known to be within the caps; it
// panics on any other.
func MustCompile(pattern string) *Regexp {
	re, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return re
}

// String is the pattern.
func (r *Regexp) String() string { return r.re.String() }

// Insts is the number of instructions of the compiled program.
func (r *Regexp) Insts() int { return r.insts }

// MatchString reports whether text holds a match of r, without a meter:
// like Match on a nil *Meter, it runs to the end, and a match over the
// cost budget does not run and reports false. It is what a JSON Schema's
// pattern uses (jsonschema.Regexp).
func (r *Regexp) MatchString(text string) bool {
	ok, _ := (*Meter)(nil).Match(r, text)
	return ok
}

// directCost is the cost up to which a match runs on the text directly,
// which regexp does fastest (it skips ahead to a literal prefix, and
// backtracks on small inputs) but cannot be stopped: a few milliseconds.
// Costlier matches read the text through a reader that stops them.
const directCost = 1 << 22

// stopEvery is how many runes a stoppable match reads between two looks
// at its meter: at most a thousand instructions a rune, a few
// milliseconds.
const stopEvery = 256

// Cost is what matching r against a text of n bytes may take: the
// instructions of its program times the positions of the text.
func (r *Regexp) Cost(n int) int64 { return int64(r.insts) * int64(n+1) }

// Match reports whether text holds a match of re. A match whose cost is
// over limits.RegexCost does not run: the error is a *limits.Error that
// says so. A match under way ends soon after the meter's context does,
// with the context's error.
func (m *Meter) Match(re *Regexp, text string) (bool, error) {
	if err := m.Err(); err != nil {
		return false, err
	}
	cost := re.Cost(len(text))
	switch {
	case cost > limits.RegexCost:
		return false, &limits.Error{Message: fmt.Sprintf("expected a regular expression and a text that take at most %d steps to match (instructions of the compiled pattern times bytes of the text), got %d instructions and %d bytes; match a smaller part of the text, or with a smaller pattern", limits.RegexCost, re.insts, len(text))}
	case m == nil || cost <= directCost:
		return re.re.MatchString(text), nil
	}
	r := &stopReader{text: text, done: m.ctx.Done()}
	ok := re.re.MatchReader(r)
	if r.stopped {
		return false, m.ctx.Err()
	}
	return ok, nil
}

// stopReader reads a text rune by rune, as regexp reads a string, and
// ends it early once done is closed.
type stopReader struct {
	text    string
	at      int
	left    int // runes until the next look at done
	done    <-chan struct{}
	stopped bool
}

func (r *stopReader) ReadRune() (rune, int, error) {
	if r.left--; r.left <= 0 {
		r.left = stopEvery
		select {
		case <-r.done:
			r.stopped = true
		default:
		}
	}
	if r.stopped || r.at >= len(r.text) {
		return 0, 0, io.EOF
	}
	if c := r.text[r.at]; c < utf8.RuneSelf {
		r.at++
		return rune(c), 1, nil
	}
	c, size := utf8.DecodeRuneInString(r.text[r.at:])
	r.at += size
	return c, size, nil
}
