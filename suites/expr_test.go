package suites

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"weak"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/vm"
	"gotest.tools/v3/assert"
	"gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/waittest"
)

// TestSharedExprs checks that an expression several checks use is compiled
// once, when the first of them asks, and shared, and that one used once is
// left to compile when its trial runs.
func TestSharedExprs(t *testing.T) {
	src := `suiteId: acme.exprs.evals.shared
version: 1.0.0
modes: [golden, rubric]
tasks:
  - taskId: a
    input: x
    expected: {kind: golden, assert: [{expr: toolCalls == 0}, {expr: 'output == "a"'}]}
  - taskId: b
    input: x
    expected: {kind: golden, assert: [{expr: toolCalls == 0}, {expr: 'output == "b"'}]}
  - taskId: c
    input: x
    expected:
      kind: rubric
      rubric: [{criterion: short, weight: 1, assert: {expr: toolCalls == 0}}]
`
	s, err := Parse("shared.yaml", []byte(src))
	assert.NilError(t, err)
	uses := []*Check{mustFull(t, s, s.Tasks[0]).Expected.Assert[0], mustFull(t, s, s.Tasks[1]).Expected.Assert[0], mustFull(t, s, s.Tasks[2]).Expected.Rubric[0].Assert}
	assert.Assert(t, uses[0].shared != nil && uses[0].shared.c.Value() == nil, "a shared expression waits for its first trial")
	// Trials ask at once (run with -race).
	programs := make([]*vm.Program, 12)
	var wg sync.WaitGroup
	for i := range programs {
		wg.Go(func() {
			p, _, err := uses[i%len(uses)].ExprProgram()
			assert.Check(t, err)
			programs[i] = p
		})
	}
	wg.Wait()
	for _, p := range programs {
		assert.Assert(t, p != nil && p == programs[0], "every use gets the one compilation")
	}
	for _, ref := range s.Tasks[:2] {
		task := mustFull(t, s, ref)
		c := task.Expected.Assert[1]
		assert.Assert(t, c.Program == nil, "task %s: an expression used once waits for its trial", task.ID)
		p, literals, err := c.ExprProgram()
		assert.NilError(t, err)
		got, err := expr.Run(p, map[string]any{ExprOutput: task.ID, ExprLiterals: literals})
		assert.NilError(t, err)
		assert.Equal(t, got, true)
	}
}

// TestSharedExprReleased checks that a shared expression's program is not
// kept once no trial holds it, and is compiled again for the next.
func TestSharedExprReleased(t *testing.T) {
	e := &sharedExpr{src: `output == "a"`}
	var held weak.Pointer[vm.Program]
	func() { // two trials at once
		p, _, err := e.program()
		assert.NilError(t, err)
		again, _, err := e.program()
		assert.NilError(t, err)
		assert.Assert(t, again == p, "a program a trial holds is shared")
		held = weak.Make(p)
	}()
	waittest.Until(t, "the collector releases the unheld program", func() bool {
		runtime.GC()
		return e.c.Value() == nil && held.Value() == nil
	})
	p, literals, err := e.program()
	assert.NilError(t, err)
	got, err := expr.Run(p, map[string]any{ExprOutput: "a", ExprLiterals: literals})
	assert.NilError(t, err)
	assert.Equal(t, got, true)
}

// TestBadExprEveryUse checks that an expression that does not compile is
// reported at each of its uses, though checked once.
func TestBadExprEveryUse(t *testing.T) {
	src := `{"suiteId": "acme.exprs.evals.bad", "version": "1.0.0", "modes": ["golden"], "tasks": [
{"taskId": "a", "input": 1, "expected": {"kind": "golden", "assert": [{"expr": "outputs == 1"}]}},
{"taskId": "b", "input": 1, "expected": {"kind": "golden", "assert": [{"expr": "outputs == 1"}]}}]}`
	_, err := Parse("bad.json", []byte(src))
	assert.ErrorContains(t, err, "unknown name outputs")
	assert.Equal(t, strings.Count(err.Error(), "unknown name outputs"), 2, err.Error())
}

// TestExprProgramConcurrent compiles from many goroutines at once, as
// trials do (run with -race).
func TestExprProgramConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &Check{Kind: CheckExpr, Expr: fmt.Sprintf(`output matches "^t%d$" && fromJSON("[1]")[0] == 1`, i)}
			p, literals, err := c.ExprProgram()
			if err != nil {
				t.Error(err)
				return
			}
			got, err := expr.Run(p, map[string]any{ExprOutput: fmt.Sprintf("t%d", i), ExprLiterals: literals})
			assert.Check(t, err == nil && got == true, "got %v, %v", got, err)
		}()
	}
	wg.Wait()
}

// BenchmarkCompileExpr compiles one distinct assertion of the bench
// workload per iteration: the load-time check plus the compile at the
// trial, what a task with its own expression costs.
func BenchmarkCompileExpr(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := &Check{Kind: CheckExpr, Expr: fmt.Sprintf(`output matches "^\\{\"id\":\"t%d\",\"answer\":\\d+,"`, i)}
		if err := checkExpr(c.Expr); err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.ExprProgram(); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// shapeOutputs are outputs of every JSON type an expression compiled by
// its shape is run on.
var shapeOutputs = []any{"hello", "The sum", `{"id":"t0","answer":629,"text":"x"}`, 629.0, nil, true,
	map[string]any{"answer": 629.0}, []any{1.0, 2.0}, []any{map[string]any{"name": "x"}}}

// assertShapeAsExpr checks that src compiled by its shape (ExprProgram)
// fails when it fails compiled as it is (CompileExpr), and otherwise
// decides as it does on shapeOutputs.
func assertShapeAsExpr(t *testing.T, src string) {
	t.Helper()
	want, wantErr := CompileExpr(src)
	c := &Check{Kind: CheckExpr, Expr: src}
	got, literals, gotErr := c.ExprProgram()
	if !assert.Check(t, (gotErr == nil) == (wantErr == nil), "%s: %v against %v", src, gotErr, wantErr) || wantErr != nil {
		return
	}
	for _, out := range shapeOutputs {
		env := map[string]any{ExprOutput: out, ExprToolCalls: 0, ExprLatencyMs: 12.0, ExprCostUsd: 0.0}
		wantV, wantErr := expr.Run(want, env)
		env[ExprLiterals] = literals
		gotV, gotErr := expr.Run(got, env)
		assert.Check(t, cmp.DeepEqual(gotV, wantV), "%s on %v", src, out)
		assert.Check(t, (gotErr == nil) == (wantErr == nil), "%s on %v: %v against %v", src, out, gotErr, wantErr)
	}
}

// FuzzExprShapes checks that an expression found by its tokens' shape
// (shapeTokens) gets the program and literals its parse would give it,
// and, where it compiles as it is, decides as it does (a shape may
// compile where its expression does not, `""` or `2%0>0`: the loader or
// the run reports those either way). The shapes found persist from one
// input to the next, so inputs of a shape seen before take the way of the
// tokens.
func FuzzExprShapes(f *testing.F) {
	for _, src := range []string{
		`output contains "\"answer\":629"`,
		`output matches "^\\{\"id\":\"t0\",\"answer\":\\d+,"`,
		`fromJSON(output).answer == 629`,
		`fromJSON(output)["answer"] == 629.0 || output in ["a", "b"]`,
		`{"answer": 1}.answer == 1 && output[1:2] == "e"`,
		`len(output) > 0x10 and output startsWith "T" or output matches "("`,
	} {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if exprLimit(src) != nil {
			return
		}
		got, literals, gotErr := compileShape(src)
		want, wantLiterals, wantErr := parseShape(src, shapeTokens{}, false)
		if !assert.Check(t, (gotErr == nil) == (wantErr == nil), "%s: %v against %v", src, gotErr, wantErr) || wantErr != nil {
			return
		}
		assert.Check(t, cmp.Equal(len(literals), len(wantLiterals)), "%s: literals %v against %v", src, literals, wantLiterals)
		for _, out := range shapeOutputs {
			env := map[string]any{ExprOutput: out, ExprToolCalls: 0, ExprLatencyMs: 12.0, ExprCostUsd: 0.0, ExprLiterals: literals}
			gotV, gotErr := expr.Run(got, env)
			env[ExprLiterals] = wantLiterals
			wantV, wantErr := expr.Run(want, env)
			assert.Check(t, cmp.DeepEqual(gotV, wantV), "%s on %v", src, out)
			assert.Check(t, (gotErr == nil) == (wantErr == nil), "%s on %v: %v against %v", src, out, gotErr, wantErr)
		}
		if _, err := CompileExpr(src); err == nil {
			assertShapeAsExpr(t, src)
		}
	})
}

// BenchmarkExprProgram compiles the three assertions of a task of the
// bench workload per iteration, as its trial does: each task's literals
// differ, the shapes are the same, and a program is held (by the trials
// running at once) while the next is asked for.
func BenchmarkExprProgram(b *testing.B) {
	b.ReportAllocs()
	i := 0
	var held [3]*vm.Program
	for b.Loop() {
		for k, src := range [...]string{
			fmt.Sprintf(`output contains "\"answer\":%d"`, i),
			fmt.Sprintf(`output matches "^\\{\"id\":\"t%d\",\"answer\":\\d+,"`, i),
			fmt.Sprintf(`fromJSON(output).answer == %d`, i),
		} {
			p, _, err := (&Check{Kind: CheckExpr, Expr: src}).ExprProgram()
			if err != nil {
				b.Fatal(err)
			}
			held[k] = p
		}
		i++
	}
	runtime.KeepAlive(held)
}

// exprCheckCases are expressions whose check must end as expr's own does:
// literal patterns valid and not, with and without other problems before
// or after them, and patterns that are not literals.
var exprCheckCases = []string{
	`output matches "^a+$"`,
	`output matches "[" `,
	`output matches "(?P<x>a)" && output matches "a{2,1}"`,
	`outputs matches "["`,
	`output matches "[" && outputs == 1`,
	`outputs == 1 || output matches "["`,
	`1 matches "^a$"`,
	`1 matches "["`,
	`output matches input`,
	`output matches ("a" + "[")`,
	`not (output matches "\\d+")`,
	`all(trace, {.name matches "^crm:"})`,
	`all(trace, {.name matches "(crm"})`,
	`any(trace, {# matches "x"}) matches "y"`,
	`output matches "` + strings.Repeat("a{1000}", 10) + `"`,
	`len(output matches "a")`,
	`output contains "x"`,
}

// TestCheckExprAsExpr: checkExpr accepts exactly what expr's checker
// accepts, and rejects the rest with its message, save what is over
// evalgate's limits (TestLimits), which expr never sees.
func TestCheckExprAsExpr(t *testing.T) {
	for _, src := range exprCheckCases {
		assertCheckAsExpr(t, src)
	}
}

func assertCheckAsExpr(t *testing.T, src string) {
	t.Helper()
	got := checkExpr(src)
	var le *limitError
	if errors.As(got, &le) {
		return
	}
	cfg := exprConfigs.Get().(*conf.Config)
	_, want := checker.ParseCheck(src, cfg)
	exprConfigs.Put(cfg)
	assert.Check(t, (got == nil) == (want == nil) && !(got != nil && got.Error() != want.Error()), "checkExpr(%q) = %v, expr's checker says %v", src, got, want)
}

// FuzzCheckExpr compares checkExpr with expr's own check.
func FuzzCheckExpr(f *testing.F) {
	for _, src := range exprCheckCases {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		assertCheckAsExpr(t, src)
	})
}

// TestCompileExprAsExpr: CompileExpr, which parses the literal patterns of
// its expression rather than letting expr's checker compile them, builds
// the program expr's own check builds, and fails with its message.
func TestCompileExprAsExpr(t *testing.T) {
	cases := append(slices.Clone(exprCheckCases),
		`output matches "^\\{\"id\":\"t1\",\"answer\":\\d+," && fromJSON(output).answer == 1`,
		`any(trace, {.name matches "^crm:" && .args.id matches "^[0-9]+$"})`,
	)
	for _, src := range cases {
		got, gotErr := CompileExpr(src)
		want, wantErr := compileAsExpr(src)
		if wantErr != nil {
			assert.Check(t, gotErr != nil && gotErr.Error() == wantErr.Error(), "CompileExpr(%q): got %v, want %v", src, gotErr, wantErr)
			continue
		}
		if !assert.Check(t, gotErr, "CompileExpr(%q)", src) {
			continue
		}
		assert.Check(t, cmp.Equal(programText(got), programText(want)), "CompileExpr(%q)", src)
	}
}

// programText is a program's code and the type of each of its constants:
// a literal pattern is a compiled *meter.Regexp, not a string compiled at
// each match.
func programText(p *vm.Program) string {
	var b strings.Builder
	b.WriteString(p.Disassemble())
	for _, c := range p.Constants {
		fmt.Fprintf(&b, "%T\n", c)
	}
	return b.String()
}

// compileAsExpr is CompileExpr with expr's own check of the tree.
func compileAsExpr(src string) (*vm.Program, error) {
	cfg := exprConfigs.Get().(*conf.Config)
	defer exprConfigs.Put(cfg)
	tree, err := checker.ParseCheck(src, cfg)
	if err != nil {
		return nil, err
	}
	if err := metered(tree, cfg); err != nil {
		return nil, err
	}
	if err := optimizer.Optimize(&tree.Node, cfg); err != nil {
		return nil, err
	}
	return compiler.Compile(tree, cfg)
}

// TestExprShapes checks that an expression compiled by its shape, its
// literals read from ExprLiterals, decides as the expression compiled as
// it is, on outputs of every JSON type, and that expressions differing
// only in their literals share one program.
func TestExprShapes(t *testing.T) {
	exprs := []string{
		`output contains "\"answer\":629"`,
		`output matches "^\\{\"id\":\"t0\",\"answer\":\\d+,"`,
		`output matches "^[a-z]+$" || output startsWith "T"`,
		`fromJSON(output).answer == 629`,
		`fromJSON(output)["answer"] == 629.0`,
		`fromJSON(output).answer > 600 and fromJSON(output).answer < 700`,
		`len(output) > 3 && len(output) <= 40`,
		`upper(output) == "HELLO"`,
		`repeat("ab", 2) == "abab"`,
		`split("a,b,c", ",")[1] == "b"`,
		`join(["a", "b"], "-") == "a-b"`,
		`output in ["a", "b", "hello"]`,
		`"answer" in {"answer": 1}`,
		`{"answer": 629}.answer == 629`,
		`output.answer == 629`,
		`output?.answer ?? 5 == 5`,
		`output[0] == 1 || output[1:2] == [2]`,
		`all(output, # > 0) && any(output, # == 2)`,
		`filter(output, .name == "x") != []`,
		`map(1..3, # * 2) == [2, 4, 6]`,
		`10 % 3 == 1 and 2 ** 3 == 8 and 7 / 2 == 3.5 and -1 < 0`,
		`abs(-2.5) == 2.5 && max(1, 2, 3) == 3 && round(2.4) == 2`,
		`trim("  x ") == "x" && hasPrefix("abc", "a")`,
		`let n = 3; n + 1 == 4 && "x" + "y" == "xy"`,
		`output == nil ? true : output != "nope"`,
		`toolCalls == 0 && latencyMs < 1000.5 && costUsd <= 0.01`,
		`1 / 0 > 0`,
		`int("12") + 1 == 13 && float("1.5") == 1.5 && string(12) == "12"`,
		`indexOf(output, "l") == 2`,
		`output matches "("`,
		`output matches "a{1001}"`,
		`output in 1..700 || fromJSON(output).answer in 600..700`,
		`output not in ["x"] && output != "x"`,
		`trace.spans == nil || len(trace.llmCalls) > 2`,
		// The tokens' shapes of expressions above, with other literals:
		// compiled without a parse (shapeTokens) where one was before.
		`output contains "\"answer\":1508"`,
		`output matches "^\\{\"id\":\"t1\",\"answer\":\\d+,"`,
		`output matches "["`,
		`output contains "\q"`,
		`output contains 'unterminated`,
		`fromJSON(output).answer == 0x275`,
		`fromJSON(output).answer == 6_29`,
		`fromJSON(output).answer == 629.0`,
		`fromJSON(output).answer == 1e3`,
		`fromJSON(output).answer == 99999999999999999999`,
		`fromJSON(output)["answer"] == 1e999`,
		`fromJSON(output)["text"] == 629.0`,
		`fromJSON(output)["answer"] == 6.29e2`,
		`{"answer": 1}.answer == 1`,
		`{"answer": 1}.other == 1`,
		`"text" in {"answer": 1}`,
		`output in ["x", "b", "hello"]`,
		`split("a,b,c", "b")[0] == "a,"`,
		`output[1] == 1 || output[0:1] == [2]`,
		`output matches "^[a-z]+$" || output startsWith "h"`,
		`output matches "a{1001}" || output startsWith "h"`,
	}
	for i := range 2 * len(exprs) {
		assertShapeAsExpr(t, exprs[i%len(exprs)])
	}
	a, _, err := (&Check{Kind: CheckExpr, Expr: `fromJSON(output).answer == 629 && output contains "t0"`}).ExprProgram()
	assert.NilError(t, err)
	b, literals, err := (&Check{Kind: CheckExpr, Expr: `fromJSON(output).answer == 1508 && output contains "t1"`}).ExprProgram()
	assert.NilError(t, err)
	assert.Assert(t, a == b, "one program for one shape")
	assert.DeepEqual(t, literals, []any{1508, "t1"})
	toks, ok := lexShape(`fromJSON(output).answer == 3 && output contains "t2"`)
	assert.Assert(t, ok)
	p, literals, ok := toks.lookup()
	assert.Assert(t, ok && p == a, "found by its tokens, without a parse")
	assert.DeepEqual(t, literals, []any{3, "t2"})
	runtime.KeepAlive(a)
}
