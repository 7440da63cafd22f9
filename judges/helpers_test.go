package judges

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/expr-lang/expr/vm"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evalgate/evalgate/suites"
)

// compileExpr compiles an assertion the way the suite loader does.
func compileExpr(t testing.TB, src string) *vm.Program {
	t.Helper()
	p, err := suites.CompileExpr(src)
	if err != nil {
		t.Fatalf("could not compile %q: %v", src, err)
	}
	return p
}

func mustSchema(t testing.TB, src string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(src)))
	if err != nil {
		t.Fatalf("could not parse schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("test.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("test.json")
	if err != nil {
		t.Fatalf("could not compile schema: %v", err)
	}
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
		if err := json.Unmarshal(m.Value, &src); err != nil {
			t.Fatal(err)
		}
		if m.IgnoreCase {
			src = "(?i)" + src
		}
		m.Regexp = regexp.MustCompile(src)
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
