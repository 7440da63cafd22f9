package meter

import (
	"context"
	"errors"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/limits"
)

// TestCompile: the caps apply to a pattern's text and to the program it
// compiles to, whoever wrote it.
func TestCompile(t *testing.T) {
	cases := []struct {
		pattern string
		insts   int    // when it compiles
		capped  string // the message of the cap it is over
		bad     bool   // it does not parse
	}{
		{pattern: "[a-z]{998}Q", insts: 1001},
		{pattern: "[a-z]{500}[a-z]{500}", insts: 1002},
		{pattern: "^ok$", insts: 6},
		{pattern: strings.Repeat("[a-z]{999}", 50) + "Q", capped: "at most 1000 instructions"},
		{pattern: strings.Repeat("a", 1025), capped: "at most 1024 bytes"},
		{pattern: strings.Repeat("(", 65) + strings.Repeat(")", 65), capped: "nested at most 64 levels"},
		{pattern: "(unclosed", bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.pattern[:min(20, len(tc.pattern))], func(t *testing.T) {
			re, err := Compile(tc.pattern)
			var le *limits.Error
			switch {
			case tc.capped != "":
				assert.Assert(t, errors.As(err, &le), "%v", err)
				assert.Check(t, is.Contains(le.Message, tc.capped))
			case tc.bad:
				assert.Assert(t, err != nil && !errors.As(err, &le), "%v", err)
			default:
				assert.NilError(t, err)
				assert.Check(t, is.Equal(re.Insts(), tc.insts))
			}
		})
	}
}

// TestMatchCost: a match over the cost budget is refused before it runs;
// one within it gives regexp's answer, read directly or through the
// reader that stops it.
func TestMatchCost(t *testing.T) {
	m := New(context.Background())
	cases := []struct {
		pattern, text string
		want          bool
		over          bool
	}{
		{pattern: "[a-z]{998}Q", text: strings.Repeat("a", 1<<20), over: true},
		{pattern: "[a-z]{98}Q", text: strings.Repeat("a", 100) + "Q", want: true},
		{pattern: "^a+$", text: strings.Repeat("a", 1<<16), want: true},           // read directly
		{pattern: "^a|[a-z]{990}Q", text: strings.Repeat("a", 1<<13), want: true}, // costlier: read through the reader
		{pattern: "^a|[a-z]{90}Q", text: "b" + strings.Repeat("a", 99), want: false},
		{pattern: "(?i)CAFÉ$", text: "café", want: true},
		{pattern: "x", text: "\xff\xfex", want: true},
	}
	for _, tc := range cases {
		re := MustCompile(tc.pattern)
		got, err := m.Match(re, tc.text)
		if tc.over {
			var le *limits.Error
			assert.Check(t, errors.As(err, &le), "%s: %v", tc.pattern, err)
			continue
		}
		assert.NilError(t, err)
		assert.Check(t, is.Equal(got, tc.want), tc.pattern)
		assert.Check(t, is.Equal(got, re.re.MatchString(tc.text)), "%s: regexp differs", tc.pattern)
	}
	assert.Check(t, MustCompile("^a|[a-z]{990}Q").Cost(1<<13) > directCost, "the reader is not tried")
}

// TestMatchStops: a costly match ends with its meter's context instead of
// running to the end (seconds, for this one), and nothing goes on.
func TestMatchStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := New(ctx)
	re := MustCompile("[a-z]{199}Q")
	text := strings.Repeat("a", 1<<20)
	assert.Assert(t, re.Cost(len(text)) <= limits.RegexCost)
	done := make(chan error, 1)
	go func() {
		_, err := m.Match(re, text)
		done <- err
	}()
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)

	// A meter whose context has ended refuses at once.
	_, err := m.Match(MustCompile("a"), "a")
	assert.ErrorIs(t, err, context.Canceled)
}

// compile compiles src as suites compiles an assertion, patched.
func compile(t *testing.T, src string) *vm.Program {
	t.Helper()
	c := conf.CreateNew()
	expr.Env(types.Map{"output": types.Any, "input": types.Any, Var: types.Any})(c)
	expr.AsBool()(c)
	Declare(c)
	c.Check()
	tree, err := checker.ParseCheck(src, c)
	assert.NilError(t, err)
	Patch(&tree.Node)
	_, err = checker.Check(tree, c)
	assert.NilError(t, err)
	p, err := compiler.Compile(tree, c)
	assert.NilError(t, err)
	return p
}

// TestPatch: a patched expression means what it meant, and spends through
// its meter: a pattern it computes is capped like a literal one, and its
// loops and matches stop with the meter's context.
func TestPatch(t *testing.T) {
	run := func(src string, m *Meter, output any) (any, error) {
		return vm.Run(compile(t, src), map[string]any{"output": output, "input": "b+", Var: m})
	}
	m := New(context.Background())
	for _, tc := range []struct {
		src    string
		output any
		want   bool
	}{
		{`output matches "^a+$"`, "aaa", true},
		{`output matches input`, "abbb", true},
		{`output not matches input`, "abbb", false},
		{`not (output matches "c")`, "ab", true},
		{`output matches "x"`, nil, false},
		{`output matches ("^" + input)`, "bbb", true},
		{`all(["a", "aa"], {# matches "^a+$"})`, nil, true},
		{`len(filter(["a", "b"], {# matches input})) == 1`, nil, true},
		{`map([1, 2], {# * 2}) | sum() == 6`, nil, true},
	} {
		got, err := run(tc.src, m, tc.output)
		assert.NilError(t, err, tc.src)
		assert.Check(t, is.Equal(got, tc.want), tc.src)
		// Without a meter it still runs, within the caps.
		got, err = run(tc.src, nil, tc.output)
		assert.NilError(t, err, tc.src)
		assert.Check(t, is.Equal(got, tc.want), tc.src)
	}

	var le *limits.Error
	_, err := run(`output matches repeat("[a-z]{999}", 50) + "Q"`, m, "a")
	assert.Check(t, errors.As(err, &le), "%v", err)
	assert.Check(t, is.Contains(le.Message, "the pattern of a matches: expected a regular expression that compiles to at most 1000 instructions"))

	_, err = run(`output matches "[a-z]{998}Q"`, m, strings.Repeat("a", 1<<20))
	assert.Check(t, errors.As(err, &le), "%v", err)
	assert.Check(t, is.Contains(le.Message, "a matches: expected a regular expression and a text that take at most"))

	// A loop of a million steps stops at its first look at an ended meter.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = run(`all(1..999999, {output contains "b" == false})`, New(ctx), strings.Repeat("a", 1<<20))
	assert.Check(t, Stopped(err), "%v", err)
}

// progSizeCases are patterns of every operator a simplified tree holds,
// nested, nullable and not, and ones that can never match.
var progSizeCases = []string{
	``, `a`, `abc`, `(?i)k`, `[a-z]`, `.`, `(?s).`, `^`, `$`, `(?m)^a$`, `\A\z`, `\b`, `\B`,
	`(a)`, `(?:a)`, `a*`, `a+`, `a?`, `a*?`, `a+?`, `a??`, `(a*)*`, `(a*)+`, `(a?)*`,
	`(a|)*`, `(|a)+`, `(?:)*`, `()*`, `(\b)*`, `a|b|c`, `a|`, `|a`, `(a|b)*c`,
	`x{0}`, `x{0,0}y`, `x{2,5}`, `(ab){3,}`, `(a*){2}`, `[^\x00-\x{10FFFF}]`,
	`[^\x00-\x{10FFFF}]*`, `[^\x00-\x{10FFFF}]+`, `a[^\x00-\x{10FFFF}]b`,
	`([^\x00-\x{10FFFF}])`, `[^\x00-\x{10FFFF}]|a`, `a|[^\x00-\x{10FFFF}]|b`,
	`([^\x00-\x{10FFFF}]|[^\x00-\x{10FFFF}])c`, `(?:[^\x00-\x{10FFFF}]a)*`,
	`^\{"id":"t0","answer":\d+,`, `(?i)hello\s+world!?`, `(\w+)@(\w+)\.com`,
	`((a|b)*|c+)?d{2,3}`, `(?U)a*b+`, `[[:alpha:]]{1,3}\d*`,
}

// TestProgSize: the count of a pattern's instructions is the length of
// the program regexp/syntax compiles it to.
func TestProgSize(t *testing.T) {
	for _, p := range progSizeCases {
		checkProgSize(t, p)
	}
}

func checkProgSize(t *testing.T, pattern string) {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return
	}
	simple := re.Simplify()
	_, counted := fragOf(simple)
	assert.Check(t, counted, "%q is counted", pattern)
	prog, err := syntax.Compile(simple)
	assert.NilError(t, err)
	got, err := progSize(simple)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(got, len(prog.Inst)), "%q", pattern)
}

func FuzzProgSize(f *testing.F) {
	for _, p := range progSizeCases {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		if len(pattern) > 200 {
			return
		}
		checkProgSize(t, pattern)
	})
}
