package suites

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

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
	assert.Assert(t, uses[0].shared != nil && uses[0].shared.p.Value() == nil, "a shared expression waits for its first trial")
	// Trials ask at once (run with -race).
	programs := make([]*vm.Program, 12)
	var wg sync.WaitGroup
	for i := range programs {
		wg.Go(func() {
			p, err := uses[i%len(uses)].ExprProgram()
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
		p, err := c.ExprProgram()
		assert.NilError(t, err)
		got, err := expr.Run(p, map[string]any{ExprOutput: task.ID})
		assert.NilError(t, err)
		assert.Equal(t, got, true)
	}
}

// TestSharedExprReleased checks that a shared expression's program is not
// kept once no trial holds it, and is compiled again for the next.
func TestSharedExprReleased(t *testing.T) {
	e := &sharedExpr{src: `output == "a"`}
	func() { // two trials at once
		p, err := e.program()
		assert.NilError(t, err)
		again, err := e.program()
		assert.NilError(t, err)
		assert.Assert(t, again == p, "a program a trial holds is shared")
	}()
	waittest.Until(t, "the collector releases the unheld program", func() bool {
		runtime.GC()
		return e.p.Value() == nil
	})
	p, err := e.program()
	assert.NilError(t, err)
	got, err := expr.Run(p, map[string]any{ExprOutput: "a"})
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
			p, err := c.ExprProgram()
			if err != nil {
				t.Error(err)
				return
			}
			got, err := expr.Run(p, map[string]any{ExprOutput: fmt.Sprintf("t%d", i)})
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
		if _, err := c.ExprProgram(); err != nil {
			b.Fatal(err)
		}
		i++
	}
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
