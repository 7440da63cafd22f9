package limits

import (
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser/lexer"
	"gotest.tools/v3/assert"
)

// TestExprLimitScan checks how the scan of an expression counts brackets.
func TestExprLimitScan(t *testing.T) {
	deep := strings.Repeat("(", ExprNesting+1)
	cases := []struct {
		src  string
		over bool
	}{
		{deep, true},
		{`"` + deep + `"`, false},
		{`"\"` + deep + `"`, false},
		{`'\'` + deep + `'`, false},
		{"`" + deep + "`", false},
		{"`a``" + deep + "`", false},
		{"`a`" + deep, true},
		{`"a` + "\n" + deep, true}, // a string ends at a newline
		{"// " + deep + "\ntrue", false},
		{"// x\n" + deep, true},
		{"/* " + deep + " */", false},
		{"/* x */" + deep, true},
		{"1 / 2 / " + deep, true},
		{strings.Repeat("())", 100) + strings.Repeat("(", ExprNesting), false}, // closing more than open does not go below zero
		{strings.Repeat("{[(", ExprNesting/3) + "[[", true},
	}
	for _, c := range cases {
		err := Expr(c.src, "checks")
		assert.Check(t, (err != nil) == c.over, "%q: %v", c.src, err)
	}
}

// TestRegexLimitScan checks how the scan of a regular expression counts
// groups.
func TestRegexLimitScan(t *testing.T) {
	deep := strings.Repeat("(", RegexNesting+1)
	cases := []struct {
		src  string
		over bool
	}{
		{deep, true},
		{strings.Repeat(`\(`, 100), false},
		{`\Q` + deep + `\E`, false},
		{`\Q` + deep, false},
		{`\Qx\E` + deep, true},
		{"[" + deep + "]", false},
		{"[]" + deep + "]", false},
		{"[^]" + deep + "]", false},
		{"[[:alpha:]" + deep + "]", false},
		{`[\]` + deep + "]", false},
		{"[a]" + deep, true},
		{"[[:alpha:]]" + deep, true},
	}
	for _, c := range cases {
		err := Regex(c.src)
		_, over := err.(*Error)
		assert.Check(t, over == c.over && (over || err == nil), "%q: %v", c.src, err)
	}
}

// FuzzExpr checks the scan of an expression against expr-lang's own
// lexer: an expression the scan accepts never has brackets nested deeper
// than ExprNesting in the tokens expr-lang parses, so strings and
// comments skipped by the scan are exactly the lexer's.
func FuzzExpr(f *testing.F) {
	for _, s := range []string{
		`output contains "(("`, "`a``((`", `'\'' + "(" `, "/* ( */ (x)", "// (\n(x)", `"a` + "\n" + `((`,
		`all(trace, {.name matches "^(crm):"})`, `b"(("`, `1 / (2 / 3)`, `x /* unclosed`, `"\"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if Expr(src, "checks") != nil {
			return
		}
		tokens, err := lexer.Lex(file.NewSource(src))
		if err != nil {
			return
		}
		depth := 0
		for _, tok := range tokens {
			if tok.Kind != lexer.Bracket {
				continue
			}
			switch tok.Value {
			case "(", "[", "{":
				depth++
				assert.Assert(t, depth <= ExprNesting, "%q passes the scan but nests %d deep", src, depth)
			default:
				depth = max(0, depth-1)
			}
		}
	})
}

// FuzzRegex checks the caps on a regular expression against what regexp
// makes of a pattern they accept: a program of at most RegexSize
// instructions (and the two every program has), and groups nested at
// most RegexNesting deep.
func FuzzRegex(f *testing.F) {
	for _, s := range []string{
		`[a-z]{500}[a-z]{500}`, `(a|b|c)*`, `.{0,499}`, `(?i)hello`, `\Q((\E`, `[(]`, `[]()]`, `[^]()]`,
		`[[:alpha:]()]`, `(a{10}){10}`, `x{2,5}?`, `(?:ab){0,300}`, `((a))`, `[\]()]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		err := Regex(pattern)
		re, perr := syntax.Parse(pattern, syntax.Perl)
		if _, over := err.(*Error); !over {
			assert.Equal(t, err == nil, perr == nil, "%q: Regex says %v, syntax.Parse %v", pattern, err, perr)
		}
		if err != nil {
			return
		}
		// The loader does not compile the pattern of a compact task,
		// ignoreCase or not: (?i) before it must not change that it parses.
		_, err = syntax.Parse("(?i)"+pattern, syntax.Perl)
		assert.NilError(t, err, "%q parses, (?i) before it does not", pattern)
		prog, err := syntax.Compile(re.Simplify())
		assert.NilError(t, err)
		assert.Assert(t, len(prog.Inst) <= RegexSize+2, "%q passes the caps but compiles to %d instructions", pattern, len(prog.Inst))
		assert.Assert(t, captureDepth(re) <= RegexNesting, "%q passes the caps but nests groups %d deep", pattern, captureDepth(re))
	})
}

// captureDepth is how deeply capturing groups nest in re.
func captureDepth(re *syntax.Regexp) int {
	d := 0
	for _, sub := range re.Sub {
		d = max(d, captureDepth(sub))
	}
	if re.Op == syntax.OpCapture {
		d++
	}
	return d
}
