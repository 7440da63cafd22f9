package judges

import (
	"context"
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

func TestMatch(t *testing.T) {
	type testCase struct {
		name   string
		match  *suites.Match
		output string // the raw JSON output
		want   string // the reason; "" for a pass
	}
	m := func(strategy, value string, opts ...func(*suites.Match)) *suites.Match {
		return newMatch(t, strategy, value, opts...)
	}
	run := func(t *testing.T, tc testCase) {
		checks, schemaValid := Golden(goldenTask(tc.match), &Observation{Output: json.RawMessage(tc.output)})
		want := []results.Check{{ID: "match", Kind: tc.match.Strategy, Weight: 1, Passed: tc.want == "", Reason: tc.want}}
		assert.Check(t, is.DeepEqual(want, checks), "checks")
		assert.Check(t, schemaValid == nil, "schemaValid = %v for a task without outputSchema", schemaValid)
	}
	testCases := []testCase{
		{name: "exact strings equal", match: m("exact", `"Paris"`), output: `"Paris"`},
		{name: "exact strings differ in case", match: m("exact", `"Paris"`), output: `"paris"`, want: "mismatch"},
		{name: "exact strings are byte-equal, not trimmed", match: m("exact", `"Paris"`), output: `"Paris\n"`, want: "mismatch"},
		{name: "exact ignoreCase", match: m("exact", `"Paris"`, ignoreCase), output: `"pARIS"`},
		{name: "exact ignoreCase still compares the whole", match: m("exact", `"Paris"`, ignoreCase), output: `"Paris!"`, want: "mismatch"},
		{name: "exact objects via canonical JSON", match: m("exact", `{"a": 2, "b": [1, "x"]}`), output: `{"b":[1.0,"x"],"a":2}`},
		{name: "exact objects differ", match: m("exact", `{"a": 2}`), output: `{"a":3}`, want: "mismatch"},
		{name: "exact number 42 and 42.0", match: m("exact", `42`), output: `42.0`},
		{name: "exact string output is not the number", match: m("exact", `42`), output: `"42"`, want: "mismatch"},
		{name: "exact null", match: m("exact", `null`), output: `null`},
		{name: "exact ignoreCase on objects", match: m("exact", `{"city":"PARIS"}`, ignoreCase), output: `{"city":"paris"}`},
		{name: "contains substring", match: m("contains", `"refund"`), output: `"a refund is due"`},
		{name: "contains missing", match: m("contains", `"refund"`), output: `"no money back"`, want: "mismatch"},
		{name: "contains is case-sensitive", match: m("contains", `"refund"`), output: `"REFUND"`, want: "mismatch"},
		{name: "contains ignoreCase", match: m("contains", `"refund"`, ignoreCase), output: `"REFUND due"`},
		{name: "contains in canonical JSON of an object", match: m("contains", `"\"answer\":42"`), output: `{"answer": 42.0, "id": "t1"}`},
		{name: "contains a non-string value", match: m("contains", `42`), output: `[41, 42]`},
		{name: "json-match string output parsed, 42 vs 42.0", match: m("json-match", `{"answer": 42}`), output: `"{\"answer\": 42.0}"`},
		{name: "json-match object output", match: m("json-match", `{"a": [1, {"b": true}]}`), output: `{"a":[1.0,{"b":true}]}`},
		{name: "json-match extra key", match: m("json-match", `{"a": 1}`), output: `{"a":1,"b":2}`, want: "mismatch"},
		{name: "json-match null is not missing", match: m("json-match", `{}`), output: `{"a":null}`, want: "mismatch"},
		{name: "json-match missing is not null", match: m("json-match", `{"a": null}`), output: `{}`, want: "mismatch"},
		{name: "json-match null equals null", match: m("json-match", `{"a": null}`), output: `"{\"a\":null}"`},
		{name: "json-match string output that is not JSON", match: m("json-match", `{"a": 1}`), output: `"not json"`, want: "invalid-json"},
		{name: "json-match number vs string", match: m("json-match", `1`), output: `"\"1\""`, want: "mismatch"},
		{name: "json-subset extra keys allowed", match: m("json-subset", `{"a": {"b": 1}}`), output: `"{\"a\":{\"b\":1.0,\"c\":2},\"d\":3}"`},
		{name: "json-subset value differs", match: m("json-subset", `{"a": {"b": 1}}`), output: `{"a":{"b":2}}`, want: "mismatch"},
		{name: "json-subset null is not missing", match: m("json-subset", `{"a": null}`), output: `{"b":1}`, want: "mismatch"},
		{name: "json-subset invalid JSON string", match: m("json-subset", `{}`), output: `"{oops"`, want: "invalid-json"},
		{name: "regex matches", match: m("regex", `"^\\{\"id\":\"t1\",\"answer\":\\d+,"`), output: `"{\"id\":\"t1\",\"answer\":42,\"text\":\"x\"}"`},
		{name: "regex does not match", match: m("regex", `"^[0-9]+$"`), output: `"12a"`, want: "mismatch"},
		{name: "regex is case-sensitive", match: m("regex", `"^yes"`), output: `"Yes, sure"`, want: "mismatch"},
		{name: "regex ignoreCase", match: m("regex", `"^yes"`, ignoreCase), output: `"Yes, sure"`},
		{name: "regex on canonical JSON of an object", match: m("regex", `"\"n\":7[,}]"`), output: `{"n": 7.0}`},
		{name: "regex compiled when the task was built in code", match: &suites.Match{Strategy: "regex", Value: json.RawMessage(`"b+"`), IgnoreCase: true}, output: `"aBBc"`},
		{name: "json-schema valid", match: m("json-schema", `{"type":"object","required":["answer"],"properties":{"answer":{"type":"integer"}}}`), output: `{"answer": 42}`},
		{name: "json-schema valid string output parsed", match: m("json-schema", `{"type":"object","required":["answer"]}`), output: `"{\"answer\": 42}"`},
		{name: "json-schema invalid", match: m("json-schema", `{"type":"object","required":["answer"]}`), output: `{"answr": 42}`, want: "schema-invalid"},
		{name: "json-schema string output that is not JSON", match: m("json-schema", `{"type":"object"}`), output: `"hello"`, want: "invalid-json"},
		{name: "json-schema compiled when the task was built in code", match: &suites.Match{Strategy: "json-schema", Value: json.RawMessage(`{"type":"array","maxItems":1}`)}, output: `[1,2]`, want: "schema-invalid"},
		{name: "path into an object", match: m("exact", `42`, withPath("/answer")), output: `{"answer":42.0,"id":"t1"}`},
		{name: "path into a JSON string output", match: m("exact", `"t1"`, withPath("/id")), output: `"{\"answer\":42,\"id\":\"t1\"}"`},
		{name: "path into an array", match: m("json-match", `{"n": 2}`, withPath("/items/1")), output: `{"items":[{"n":1},{"n":2}]}`},
		{name: "path then contains", match: m("contains", `"sum"`, withPath("/text")), output: `{"text":"the sum is 3","other":"x"}`},
		{name: "path then json-subset", match: m("json-subset", `{"ok": true}`, withPath("/result")), output: `{"result":{"ok":true,"n":1}}`},
		{name: "path then regex", match: m("regex", `"^\\d+$"`, withPath("/n")), output: `{"n":12}`},
		{name: "path missing", match: m("exact", `42`, withPath("/answer")), output: `{"result":42}`, want: "path-missing"},
		{name: "path to a null is not missing", match: m("exact", `null`, withPath("/a")), output: `{"a":null}`},
		{name: "path in a string that is not JSON", match: m("exact", `42`, withPath("/answer")), output: `"forty-two"`, want: "invalid-json"},
		{name: "path with escaped tokens", match: m("exact", `1`, withPath("/a~1b/c~0d")), output: `{"a/b":{"c~d":1}}`},
		{name: "output that is not a JSON value", match: m("contains", `"x"`), output: `xyz`, want: "invalid-json"},
		{name: "empty output", match: m("exact", `""`), output: ``, want: "invalid-json"},
		{name: "unknown strategy", match: &suites.Match{Strategy: "fuzzy", Value: json.RawMessage(`"x"`)}, output: `"x"`, want: "unsupported"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestOutputSchema(t *testing.T) {
	type testCase struct {
		name   string
		kind   string
		output string
		want   string
	}
	schema := `{"type":"object","required":["answer"],"properties":{"answer":{"type":"number"}}}`
	run := func(t *testing.T, tc testCase) {
		task := goldenTask(newMatch(t, "contains", `"4"`))
		task.Expected.Kind = tc.kind
		task.Expected.OutputSchema = mustSchema(t, schema)
		task.Expected.OutputSchemaRaw = json.RawMessage(schema)
		checks, schemaValid := Golden(task, &Observation{Output: json.RawMessage(tc.output)})

		last := checks[len(checks)-1]
		want := results.Check{ID: "outputSchema", Kind: "outputSchema", Weight: 1, Passed: tc.want == "", Reason: tc.want}
		assert.Check(t, is.DeepEqual(want, last), "outputSchema check")
		assert.Check(t, schemaValid != nil && *schemaValid == (tc.want == ""), "schemaValid = %v, want %v", schemaValid, tc.want == "")
		wantChecks := 2
		if tc.kind == suites.KindRubric {
			wantChecks = 1
		}
		assert.Check(t, len(checks) == wantChecks, "got %d checks, want %d", len(checks), wantChecks)
	}
	testCases := []testCase{
		{name: "valid object", kind: "golden", output: `{"answer":4}`},
		{name: "valid object in a string", kind: "golden", output: `"{\"answer\":4}"`},
		{name: "invalid", kind: "golden", output: `{"answer":"4"}`, want: "schema-invalid"},
		{name: "string that is not JSON", kind: "golden", output: `"4"`, want: "schema-invalid"},
		{name: "text that is not JSON", kind: "golden", output: `"four"`, want: "invalid-json"},
		{name: "rubric task gets only the schema check", kind: "rubric", output: `{"answer":4}`},
		{name: "rubric task, invalid", kind: "rubric", output: `[]`, want: "schema-invalid"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestScore(t *testing.T) {
	type testCase struct {
		name   string
		checks []results.Check
		want   float64
	}
	run := func(t *testing.T, tc testCase) {
		got := Score(tc.checks)
		assert.Check(t, got == tc.want, "Score = %v, want %v", got, tc.want)
	}
	testCases := []testCase{
		{name: "no checks", want: 0},
		{name: "match passed", checks: []results.Check{{Weight: 1, Passed: true}}, want: 1},
		{name: "match failed", checks: []results.Check{{Weight: 1}}, want: 0},
		{name: "weighted", checks: []results.Check{{Weight: 1, Passed: true}, {Weight: 3}}, want: 0.25},
		{name: "fractional weights", checks: []results.Check{{Weight: 0.5, Passed: true}, {Weight: 0.5, Passed: true}, {Weight: 1}}, want: 0.5},
		{name: "zero weight counts nothing", checks: []results.Check{{Weight: 0}, {Weight: 2, Passed: true}}, want: 1},
		{name: "weights summing to zero", checks: []results.Check{{Weight: 0, Passed: true}}, want: 0},
		{name: "graded at the bottom", checks: []results.Check{gradedCheck(1, 0, 4, 0)}, want: 0},
		{name: "graded halfway", checks: []results.Check{gradedCheck(1, 0, 4, 2)}, want: 0.5},
		{name: "graded at the top", checks: []results.Check{gradedCheck(1, 0, 4, 4)}, want: 1},
		{name: "graded from 1 to 5", checks: []results.Check{gradedCheck(1, 1, 5, 4)}, want: 0.75},
		{name: "graded beside binary", checks: []results.Check{gradedCheck(0.5, 0, 4, 1), {Weight: 0.5, Passed: true}}, want: 0.625},
		{name: "graded with no level yet", checks: []results.Check{{Weight: 1, Scale: &results.Scale{Min: 0, Max: 4}}}, want: 0},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestGoldenAllChecks pins the order, ids, kinds and weights of every check
// of a task using each feature; the golden file is what results.json gets.
func TestGoldenAllChecks(t *testing.T) {
	schema := `{"type":"object","required":["answer"]}`
	task := goldenTask(newMatch(t, "json-match", `{"id":"t1","answer":42}`),
		&suites.Check{ID: "mentions-sum", Kind: "expr", Weight: 2, Program: compileExpr(t, `fromJSON(output).answer == 42`)},
		&suites.Check{ID: "looked-up", Kind: "toolCalled", Weight: 1, Tool: "calc:add", Args: json.RawMessage(`{"a":40}`)},
		&suites.Check{ID: "assert[2]", Kind: "toolNotCalled", Weight: 1, Tool: "web:search"},
		&suites.Check{ID: "assert[3]", Kind: "maxToolCalls", Weight: 0.5, MaxToolCalls: 0},
	)
	task.Expected.OutputSchema = mustSchema(t, schema)
	obs := &Observation{
		Input:  json.RawMessage(`"task t1: add 40 2"`),
		Output: json.RawMessage(`"{\"id\":\"t1\",\"answer\":42.0}"`),
		Trace:  []fixtures.Call{{Name: "calc:add", Args: json.RawMessage(`{"a":40,"b":2}`), Result: json.RawMessage(`42`)}},
	}
	checks, schemaValid := Golden(task, obs)
	out, err := json.MarshalIndent(map[string]any{"checks": checks, "schemaValid": schemaValid, "score": Score(checks)}, "", "  ")
	assert.NilError(t, err)
	golden.Assert(t, string(out)+"\n", "golden-all-checks.json")
}

func TestCriterionLeavesOutputAlone(t *testing.T) {
	out, err := jsonvalue.Decode([]byte(`{"answer":0.1,"items":[1.5]}`))
	assert.NilError(t, err)
	c := &suites.Check{ID: "x", Kind: "expr", Weight: 1, Program: compileExpr(t, `output.answer == 0.1 && output.items[0] == 1.5`)}
	x := NewExecutor(context.Background(), 0, nil)
	defer x.Close()
	got, err := x.Criterion(c, &Observation{Output: json.RawMessage(`{"answer":0.1,"items":[1.5]}`)}, out)
	assert.NilError(t, err)
	assert.Assert(t, got.Passed, "check failed: %+v", got)
	want, _ := jsonvalue.Decode([]byte(`{"answer":0.1,"items":[1.5]}`))
	assert.Check(t, is.DeepEqual(want, out), "Criterion changed out")
}

// gradedCheck is the check of a graded criterion of weight w at level on lo..hi.
func gradedCheck(w float64, lo, hi, level int) results.Check {
	return results.Check{Weight: w, Level: &level, Scale: &results.Scale{Min: lo, Max: hi}}
}
