package suites

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// limitSuite is a one-task JSON suite whose expectation is the JSON text
// expected; the task starts on line 2.
func limitSuite(expected string) []byte {
	return []byte(`{"suiteId": "acme.limits.evals.x", "version": "1.0.0", "modes": ["golden"], "tasks": [
{"taskId": "t", "input": "hi", "expected": {"kind": "golden", ` + expected + `}}]}`)
}

// assertWith is an expectation with the single assertion expr.
func assertWith(expr string) string {
	q, _ := json.Marshal(expr)
	return `"assert": [{"expr": ` + string(q) + `}]`
}

// matchWith is an expectation matching the regular expression pattern.
func matchWith(pattern string) string {
	q, _ := json.Marshal(pattern)
	return `"match": {"strategy": "regex", "value": ` + string(q) + `}`
}

// TestLimits checks that expressions and regular expressions over the
// limits are refused, at their value, with the limit in the message, and
// that those at the limits load. The hostile ones are refused before they
// are parsed: a million nested brackets once overflowed the stack of
// expr-lang's parser (a fatal error), and 300,000 took 24 s.
func TestLimits(t *testing.T) {
	nest := func(n int, open, inner, close string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	long := "(" + strings.Repeat("true && ", MaxExprBytes/8) + "true)"
	cases := []struct {
		name     string
		expected string
		want     string // "" when the suite loads
		pointer  string
	}{
		{"expr nested a million deep", assertWith(nest(1_000_000, "(", "true", ")")),
			"expected an expression of at most 4096 bytes, got 2000004 bytes; split it into several checks", "/tasks/0/expected/assert/0/expr"},
		{"expr nested too deep", assertWith(nest(MaxExprNesting+1, "(", "true", ")")),
			"expected brackets nested at most 64 levels deep in an expression; the '(' at byte 65 opens level 65", "/tasks/0/expected/assert/0/expr"},
		{"expr nested lists too deep", assertWith("len(" + nest(MaxExprNesting, "[", "1", "]") + ") == 1"),
			"expected brackets nested at most 64 levels deep in an expression; the '[' at byte 68 opens level 65", "/tasks/0/expected/assert/0/expr"},
		{"expr too long", assertWith(long),
			fmt.Sprintf("expected an expression of at most 4096 bytes, got %d bytes; split it into several checks", len(long)), "/tasks/0/expected/assert/0/expr"},
		{"expr at the nesting limit", assertWith(nest(MaxExprNesting, "(", "true", ")")), "", ""},
		{"expr brackets in strings and comments", assertWith(`output != "` + strings.Repeat("(", 100) + `" && output != '` + strings.Repeat("[", 100) +
			"' && output != `" + strings.Repeat("{", 100) + "` /* " + strings.Repeat("(", 100) + " */"), "", ""},
		{"expr pattern too long", assertWith(`output matches "` + strings.Repeat("a", MaxRegexBytes+1) + `"`),
			"the pattern of matches: expected a regular expression of at most 1024 bytes, got 1025 bytes", "/tasks/0/expected/assert/0/expr"},
		{"expr pattern nested too deep", assertWith(`output matches "` + nest(MaxRegexNesting+1, "(", "a", ")") + `"`),
			"the pattern of matches: expected groups nested at most 64 levels deep in a regular expression; the ( at byte 65 opens level 65", "/tasks/0/expected/assert/0/expr"},
		{"regex too long", matchWith(strings.Repeat("[a-z]{1000}", 1000)),
			"expected a regular expression of at most 1024 bytes, got 11000 bytes", "/tasks/0/expected/match/value"},
		{"regex nested too deep", matchWith(nest(MaxRegexNesting+1, "(?:", "a", ")*")),
			"expected groups nested at most 64 levels deep in a regular expression; the ( at byte 193 opens level 65", "/tasks/0/expected/match/value"},
		{"regex too large", matchWith("[a-z]{500}[a-z]{500}[a-z]{1}"),
			"expected a regular expression that compiles to at most 1000 instructions, got about 1001; counted repetitions such as x{100} count each copy", "/tasks/0/expected/match/value"},
		{"regex too large ignoring case", `"match": {"strategy": "regex", "value": "[a-z]{500}[a-z]{500}x", "ignoreCase": true}`,
			"expected a regular expression that compiles to at most 1000 instructions, got about 1001; counted repetitions such as x{100} count each copy", "/tasks/0/expected/match/value"},
		{"expr pattern too large", assertWith(`output matches "a{500}a{500}b"`),
			"the pattern of matches: expected a regular expression that compiles to at most 1000 instructions, got about 1001; counted repetitions such as x{100} count each copy", "/tasks/0/expected/assert/0/expr"},
		{"schema pattern too long", `"match": {"strategy": "json-schema", "value": {"type": "string", "pattern": "` + strings.Repeat("a", MaxRegexBytes+1) + `"}}`,
			"not a valid JSON Schema: expected a regular expression of at most 1024 bytes, got 1025 bytes", "/tasks/0/expected/match/value/pattern"},
		{"schema pattern too large", `"match": {"strategy": "json-schema", "value": {"properties": {"a": {"pattern": "[a-z]{500}[a-z]{500}[a-z]"}}}}`,
			"not a valid JSON Schema: expected a regular expression that compiles to at most 1000 instructions, got about 1001; counted repetitions such as x{100} count each copy", "/tasks/0/expected/match/value/properties/a/pattern"},
		{"schema pattern property too large", `"match": {"strategy": "json-schema", "value": {"patternProperties": {"[a-z]{500}[a-z]{500}[a-z]": {}}}}`,
			`not a valid JSON Schema: key "[a-z]{500}[a-z]{500}[a-z]": expected a regular expression that compiles to at most 1000 instructions, got about 1001; counted repetitions such as x{100} count each copy`, "/tasks/0/expected/match/value"},
		{"regex at the size limit", matchWith("[a-z]{500}[a-z]{500}"), "", ""},
		{"regex at the limits", matchWith(nest(MaxRegexNesting, "(?:", "a", ")") + strings.Repeat("b", MaxRegexBytes-4*MaxRegexNesting-1)), "", ""},
		{"regex literal parentheses", matchWith(strings.Repeat(`\(`, 100) + strings.Repeat(`[(]`, 100) + `\Q` + strings.Repeat("(", 100) + `\E`), "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("limits.json", limitSuite(c.expected))
			if c.want == "" {
				assert.NilError(t, err)
				return
			}
			var errs Errors
			assert.Assert(t, errors.As(err, &errs), "%v", err)
			assert.Equal(t, len(errs), 1, "%v", err)
			e := errs[0]
			assert.Equal(t, e.Message, c.want)
			assert.Equal(t, e.Pointer, c.pointer)
			assert.Equal(t, e.Kind, ErrSemantic)
			assert.Equal(t, e.Pos.File, "limits.json")
			assert.Equal(t, e.Pos.Line, 2)
		})
	}
}

// TestLimitsEveryUse checks that an expression over the limits is
// reported at each of its uses, in a task list long enough to be kept
// compact, and that CompileExpr refuses it too.
func TestLimitsEveryUse(t *testing.T) {
	deep := strings.Repeat("(", 100) + "true" + strings.Repeat(")", 100)
	q, _ := json.Marshal(deep)
	var sb strings.Builder
	sb.WriteString(`{"suiteId": "acme.limits.evals.x", "version": "1.0.0", "modes": ["golden"], "tasks": [`)
	n := compactAbove + 10
	for i := range n {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"taskId": "t%d", "input": "hi", "expected": {"kind": "golden", "assert": [{"expr": %s}]}}`, i, q)
	}
	sb.WriteString("]}")
	_, err := Parse("limits.json", []byte(sb.String()))
	assert.ErrorContains(t, err, "expected brackets nested at most 64 levels deep")
	assert.Equal(t, strings.Count(err.Error(), "expected brackets nested"), n)

	_, err = CompileExpr(deep)
	assert.ErrorContains(t, err, "expected brackets nested at most 64 levels deep")
}

// TestCompactRegex checks that the regular expressions of compact tasks,
// parsed but not compiled when the suite loads, are still reported when
// invalid, and compiled when the task is decoded for its trial.
func TestCompactRegex(t *testing.T) {
	build := func(last string) []byte {
		var sb strings.Builder
		sb.WriteString(`{"suiteId": "acme.limits.evals.x", "version": "1.0.0", "modes": ["golden"], "tasks": [`)
		n := compactAbove + 10
		for i := range n {
			if i > 0 {
				sb.WriteString(",\n")
			}
			p := fmt.Sprintf(`^t%d$`, i)
			if i == n-1 {
				p = last
			}
			fmt.Fprintf(&sb, `{"taskId": "t%d", "input": "hi", "expected": {"kind": "golden", %s}}`, i, matchWith(p))
		}
		sb.WriteString("]}")
		return []byte(sb.String())
	}
	_, err := Parse("compact.json", build("(unclosed"))
	assert.Error(t, err, "compact.json:2010:107: /tasks/2009/expected/match/value: not a valid regular expression: missing closing ): `(unclosed` [semantic]")

	s, err := Parse("compact.json", build("^last$"))
	assert.NilError(t, err)
	last := s.Tasks[len(s.Tasks)-1]
	assert.Assert(t, last.Compact())
	full, err := s.Full(last)
	assert.NilError(t, err)
	re := full.Expected.Match.Regexp
	assert.Assert(t, re != nil && re.MatchString("last"))
}

// TestAliasBudget checks that the values YAML aliases expand to have a
// fixed budget, whatever the size of the document: padding a bomb with
// values once raised its budget with them.
func TestAliasBudget(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("pad: [" + strings.Repeat("0,", 200_000) + "0]\n")
	sb.WriteString("a: &a [" + strings.Repeat("0,", 999) + "0]\n")
	sb.WriteString("b: [" + strings.Repeat("*a,", 1299) + "*a]\n")
	_, err := Parse("bomb.yaml", []byte(sb.String()))
	var errs Errors
	assert.Assert(t, errors.As(err, &errs), "%v", err)
	assert.Equal(t, len(errs), 1, "%v", err)
	assert.Equal(t, errs[0].Error(), "bomb.yaml:3:3002: expanding this alias takes the values built through aliases past 1000000, the limit for a suite [syntax]")

	// Merges count the keys they copy.
	sb.Reset()
	sb.WriteString("a: &a {")
	for i := range 1000 {
		fmt.Fprintf(&sb, "k%d: 0, ", i)
	}
	sb.WriteString("z: 0}\nb: [")
	for i := range 600 {
		fmt.Fprintf(&sb, "{<<: *a, n: %d}, ", i)
	}
	sb.WriteString("{}]\n")
	_, err = Parse("merge.yaml", []byte(sb.String()))
	assert.ErrorContains(t, err, "merge.yaml:2:")
	assert.ErrorContains(t, err, "past 1000000, the limit for a suite [syntax]")
}

// TestExprNodeBudget checks that the expressions of a suite together are
// bounded, and that the one that goes past the bound is reported, the
// same whichever goroutine checked what.
func TestExprNodeBudget(t *testing.T) {
	defer func(prev int) { exprNodeBudget = prev }(exprNodeBudget)
	exprNodeBudget = 1000
	src := func(i int) string { return fmt.Sprintf("%s(%d == %d)", strings.Repeat("!", 50), i, i) }
	n, err := checkExprNodes(src(0))
	assert.NilError(t, err)
	over := exprNodeBudget / n // the index of the task whose expression goes past
	var sb strings.Builder
	sb.WriteString(`{"suiteId": "acme.limits.evals.x", "version": "1.0.0", "modes": ["golden"], "tasks": [`)
	for i := range 40 {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"taskId": "t%d", "input": "hi", "expected": {"kind": "golden", "assert": [{"expr": %q}]}}`, i, src(i))
	}
	sb.WriteString("]}")
	for range 5 {
		_, err = Parse("budget.json", []byte(sb.String()))
		var errs Errors
		assert.Assert(t, errors.As(err, &errs), "%v", err)
		assert.Equal(t, len(errs), 1, "%v", err)
		assert.Equal(t, errs[0].Pointer, fmt.Sprintf("/tasks/%d/expected/assert/0/expr", over))
		assert.Equal(t, errs[0].Message, "the expressions of the suite hold more than 1000 operators, names and values in all, the limit for a suite, and this one goes past it")
	}
}

// TestValueBudgets checks the bounds on the JSON values of a task, of the
// rest of a suite, and of a whole file, which keep a JSON suite of the
// largest size a few hundred megabytes and a few seconds to load.
func TestValueBudgets(t *testing.T) {
	defer func(task, suite int) { taskValueBudget, suiteValueBudget = task, suite }(taskValueBudget, suiteValueBudget)
	taskValueBudget, suiteValueBudget = 100, 300
	list := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]" }
	suite := func(tags string, inputs ...string) string {
		var tasks []string
		for i, in := range inputs {
			tasks = append(tasks, fmt.Sprintf(`{"taskId": "t%d", "input": %s, "expected": {"kind": "golden", "match": {"strategy": "exact", "value": "4"}}}`, i, in))
		}
		return `{"suiteId": "acme.limits.evals.x", "version": "1.0.0", "modes": ["golden"], "tags": ` + tags + `, "tasks": [` + "\n" + strings.Join(tasks, ",\n") + "]}"
	}
	cases := []struct {
		name, src, want string
	}{
		{"tasks within the limits", suite("[]", list(91), list(91), list(80)), ""},
		{"a task over", suite("[]", list(90), list(100)),
			"limits.json:3:222: the task holds more than 100 JSON values, the limit for a task, which is held whole while it is checked [syntax]"},
		{"the rest of the suite over", suite(list(100), list(1)),
			"limits.json:1:274: the suite holds more than 100 JSON values outside its tasks, the limit for what is held whole while the suite is read [syntax]"},
		{"the file over", suite("[]", list(91), list(91), list(91), list(91)),
			"limits.json:4:233: the suite holds more than 300 JSON values, the limit for a suite file [syntax]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("limits.json", []byte(c.src))
			if c.want == "" {
				assert.NilError(t, err)
				return
			}
			assert.Error(t, err, c.want)
		})
	}
}

// TestLargeTaskValidatedInPlace checks that a task too large to queue for
// the checkers is validated in place, its problems reported all the same.
func TestLargeTaskValidatedInPlace(t *testing.T) {
	big, _ := json.Marshal(strings.Repeat("x", inlineAbove))
	src := `{"suiteId": "acme.limits.evals.x", "version": "1.0.0", "modes": ["golden"], "tasks": [
{"taskId": "t0", "input": "hi", "expected": {"kind": "golden", "match": {"strategy": "exact", "value": "4"}}},
{"taskId": "t1", "input": ` + string(big) + `, "expected": {"kind": "gold", "match": {"strategy": "exact", "value": "4"}}}]}`
	_, err := Parse("big.json", []byte(src))
	assert.ErrorContains(t, err, `/tasks/1/expected/kind: expected one of "golden", "rubric", got "gold" [schema]`)
}

// TestSchemaBudgets checks the bounds on the JSON Schemas written in a
// suite: one schema's values, and the values of all the distinct ones.
// One schema of 330,000 properties took the schema compiler over five
// minutes; 460,000 small ones, 13 s.
func TestSchemaBudgets(t *testing.T) {
	defer func(one, all int) { schemaValueBudget, suiteSchemaBudget = one, all }(schemaValueBudget, suiteSchemaBudget)
	schemaValueBudget, suiteSchemaBudget = 20, 50
	props := func(prefix string, n int) string { // a schema of n+2 values
		var ps []string
		for i := range n {
			ps = append(ps, fmt.Sprintf(`"%s%d": {}`, prefix, i))
		}
		return `{"properties": {` + strings.Join(ps, ", ") + `}}`
	}
	suite := func(schemas ...string) []byte {
		var sb strings.Builder
		sb.WriteString(`{"suiteId": "acme.limits.evals.x", "version": "1.0.0", "modes": ["golden"], "tasks": [`)
		for i, s := range schemas {
			if i > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, "\n"+`{"taskId": "t%d", "input": "hi", "expected": {"kind": "golden", "match": {"strategy": "json-schema", "value": %s}}}`, i, s)
		}
		sb.WriteString("]}")
		return []byte(sb.String())
	}
	cases := []struct {
		name    string
		schemas []string
		want    string
	}{
		{"within the limits", []string{props("a", 18), props("b", 18)}, ""},
		{"the same schema counts once", []string{props("a", 18), props("a", 18), props("a", 18), props("a", 18)}, ""},
		{"one schema over", []string{props("a", 19)},
			"limits.json:2:110: /tasks/0/expected/match/value: expected a JSON Schema of at most 20 JSON values, got 21 [semantic]"},
		{"the schemas over", []string{props("a", 18), props("b", 18), props("c", 18), props("d", 18)},
			"limits.json:4:110: /tasks/2/expected/match/value: the JSON Schemas of the suite hold more than 50 JSON values in all, the limit for a suite, and this one goes past it (each distinct schema counts once) [semantic]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("limits.json", suite(c.schemas...))
			if c.want == "" {
				assert.NilError(t, err)
				for _, ref := range s.Tasks {
					assert.Assert(t, mustFull(t, s, ref).Expected.Match.Schema != nil)
				}
				return
			}
			assert.Error(t, err, c.want)
		})
	}
}
