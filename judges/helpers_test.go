package judges

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/expr-lang/expr/vm"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/meter"
	"github.com/evalgate/evalgate/suites"
)

// compileExpr compiles an assertion the way the suite loader does.
func compileExpr(t testing.TB, src string) *vm.Program {
	t.Helper()
	p, err := suites.CompileExpr(src)
	assert.NilError(t, err, "could not compile %q", src)
	return p
}

func mustSchema(t testing.TB, src string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(src)))
	assert.NilError(t, err, "could not parse schema")
	c := jsonschema.NewCompiler()
	assert.NilError(t, c.AddResource("test.json", doc))
	s, err := c.Compile("test.json")
	assert.NilError(t, err, "could not compile schema")
	return s
}

// newMatch builds a compiled match the way the suite loader does.
func newMatch(t testing.TB, strategy, value string, opts ...func(*suites.Match)) *suites.Match {
	t.Helper()
	m := &suites.Match{Strategy: strategy, Value: json.RawMessage(value)}
	for _, o := range opts {
		o(m)
	}
	switch strategy {
	case suites.StrategyRegex:
		var src string
		assert.NilError(t, json.Unmarshal(m.Value, &src))
		if m.IgnoreCase {
			src = "(?i)" + src
		}
		m.Regexp = meter.MustCompile(src)
	case suites.StrategyJSONSchema:
		m.Schema = mustSchema(t, value)
	}
	return m
}

func ignoreCase(m *suites.Match) { m.IgnoreCase = true }

func withPath(p string) func(*suites.Match) {
	return func(m *suites.Match) { m.Path = p }
}

func goldenTask(m *suites.Match, checks ...*suites.Check) *suites.Task {
	return &suites.Task{ID: "t", Input: json.RawMessage(`null`),
		Expected: suites.Expected{Kind: suites.KindGolden, Match: m, Assert: checks}}
}
