package exprmsg

import (
	"errors"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"gotest.tools/v3/assert"
)

// TestMessage words the errors of expressions as users write them: gates
// (over numbers a run yields) and a suite's assertions (over the output).
func TestMessage(t *testing.T) {
	gateEnv := map[string]any{"passRate": 0.5, "taskCount": 3}
	assertEnv := map[string]any{"output": map[string]any{}, "trace": []any{}}
	type testCase struct {
		src       string
		env       map[string]any
		want      string
		line, col int
	}
	run := func(t *testing.T, tc testCase) {
		_, err := expr.Compile(tc.src, expr.Env(tc.env), expr.AsBool())
		assert.Assert(t, err != nil, "%q compiled", tc.src)
		msg, line, col := Message(err, nil)
		assert.Equal(t, msg, tc.want)
		assert.Equal(t, line, tc.line)
		assert.Equal(t, col, tc.col)
	}
	testCases := map[string]testCase{
		"gate: = for ==":                 {src: "passRate = 1", env: gateEnv, want: `unexpected "="; did you mean "=="?`, line: 1, col: 10},
		"gate: a bracket too many":       {src: "(passRate > 0.5))", env: gateEnv, want: `unexpected ")"`, line: 1, col: 17},
		"gate: ends after &&":            {src: "passRate > 0.5 &&", env: gateEnv, want: "unexpected end of the expression", line: 1, col: 17},
		"gate: a lone &":                 {src: "passRate > 0.5 & true", env: gateEnv, want: `unexpected "&"`, line: 1, col: 16},
		"gate: on its second line":       {src: "passRate > 0.5 &&\n  taskCount = 3", env: gateEnv, want: `unexpected "="; did you mean "=="?`, line: 2, col: 13},
		"gate: a number":                 {src: "passRate > 0.5 1", env: gateEnv, want: `unexpected "1"`, line: 1, col: 16},
		"gate: mismatched types":         {src: `taskCount > "5"`, env: gateEnv, want: "invalid operation: > (mismatched types integer and string)", line: 1, col: 11},
		"gate: not true or false":        {src: "passRate * 2", env: gateEnv, want: "the expression must yield true or false, not a value of type number"},
		"assert: = for ==":               {src: `output.status = "ok"`, env: assertEnv, want: `unexpected "="; did you mean "=="?`, line: 1, col: 15},
		"assert: two strings":            {src: `output.status == "ok" "no"`, env: assertEnv, want: `unexpected string "no"`, line: 1, col: 23},
		"assert: a name after":           {src: `output.status == "ok" done`, env: assertEnv, want: `unexpected "done"`, line: 1, col: 23},
		"assert: ends after ==":          {src: "output ==", env: assertEnv, want: "unexpected end of the expression", line: 1, col: 9},
		"assert: a stray character":      {src: "len(trace) @ 2", env: assertEnv, want: `unexpected character '@' (not part of any operator)`, line: 1, col: 12},
		"assert: an object to a number":  {src: "output > 1", env: assertEnv, want: "invalid operation: > (mismatched types object and integer)", line: 1, col: 8},
		"assert: a name kept as written": {src: "int64 == 1", env: assertEnv, want: "unknown name int64", line: 1, col: 1},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) { run(t, tc) })
	}
}

// TestWithPlace puts the place after the problem and before a suggestion.
func TestWithPlace(t *testing.T) {
	_, err := expr.Compile("a = 1", expr.Env(map[string]any{"a": 1}))
	assert.Equal(t, WithPlace(err, nil), `unexpected "=" (1:3); did you mean "=="?`)
	assert.Equal(t, WithPlace(errors.New("no place"), nil), "no place")
}

// TestRename names the caller's own types before the common ones are.
func TestRename(t *testing.T) {
	type scope struct{ Score float64 }
	_, err := expr.Compile(`s > 1`, expr.Env(map[string]any{"s": scope{}}))
	assert.Assert(t, err != nil)
	msg, _, _ := Message(err, strings.NewReplacer("exprmsg.scope", "suite").Replace)
	assert.Equal(t, msg, "invalid operation: > (mismatched types suite and integer)")
}
