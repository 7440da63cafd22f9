package suites

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/expr-lang/expr"
	"gotest.tools/v3/assert"
)

// TestSharedExprs checks that an expression several checks use is compiled
// once at load and shared, and that one used once is left to compile when
// its trial runs.
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
	shared := s.Tasks[0].Expected.Assert[0].Program
	assert.Assert(t, shared != nil, "a shared expression is compiled at load")
	assert.Equal(t, s.Tasks[1].Expected.Assert[0].Program, shared)
	assert.Equal(t, s.Tasks[2].Expected.Rubric[0].Assert.Program, shared)
	for _, task := range s.Tasks[:2] {
		c := task.Expected.Assert[1]
		assert.Assert(t, c.Program == nil, "task %s: an expression used once waits for its trial", task.ID)
		p, err := c.ExprProgram()
		assert.NilError(t, err)
		got, err := expr.Run(p, map[string]any{ExprOutput: task.ID})
		assert.NilError(t, err)
		assert.Equal(t, got, true)
	}
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
			if err != nil || got != true {
				t.Errorf("got %v, %v", got, err)
			}
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
