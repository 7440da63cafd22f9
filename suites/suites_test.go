package suites

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/internal/jsonpointer"
)

// testFiles lists the suite files of a testdata folder.
func testFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.json", "*.yaml", "*.yml"} {
		m, err := filepath.Glob(filepath.Join("testdata", dir, pattern))
		assert.NilError(t, err)
		files = append(files, m...)
	}
	assert.Assert(t, len(files) > 0, "no files in testdata/%s", dir)
	return files
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	return data
}

// TestParseOK loads every file of testdata/ok and compares the decoded model
// with testdata/model/<file>.golden.
func TestParseOK(t *testing.T) {
	for _, path := range testFiles(t, "ok") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, err := Parse(path, readFile(t, path))
			assert.NilError(t, err)
			checkCompiled(t, s)
			golden.Assert(t, dumpSuite(t, s), filepath.Join("model", filepath.Base(path)+".golden"))
		})
	}
}

// checkCompiled asserts that everything that needs compiling was compiled,
// then clears the compiled forms so the model can be written as JSON.
func checkCompiled(t *testing.T, s *Suite) {
	t.Helper()
	check := func(c *Check) {
		if c == nil {
			return
		}
		if c.Kind == CheckExpr {
			p, _, err := c.ExprProgram()
			assert.NilError(t, err, "check %s of %s does not compile", c.ID, c.Pos)
			assert.Assert(t, p != nil, "check %s of %s has no program", c.ID, c.Pos)
		}
		c.Program = nil
	}
	for i := range s.Tools {
		tool := &s.Tools[i]
		assert.Equal(t, tool.InputSchema != nil, tool.Schema != nil, "tool %s: inputSchema", tool.Name)
		tool.Schema = nil
	}
	for _, ref := range s.Tasks {
		task := mustFull(t, s, ref)
		e := &task.Expected
		if m := e.Match; m != nil {
			switch m.Strategy {
			case StrategyRegex:
				assert.Assert(t, m.Regexp != nil, "task %s: regex not compiled", task.ID)
				assert.Equal(t, m.IgnoreCase, strings.HasPrefix(m.Regexp.String(), "(?i)"))
			case StrategyJSONSchema:
				assert.Assert(t, m.Schema != nil, "task %s: schema not compiled", task.ID)
			default:
				assert.Assert(t, m.Regexp == nil && m.Schema == nil)
			}
			m.Regexp, m.Schema = nil, nil
		}
		assert.Equal(t, e.OutputSchemaRaw != nil, e.OutputSchema != nil, "task %s: outputSchema", task.ID)
		e.OutputSchema = nil
		for _, c := range e.Assert {
			check(c)
		}
		for i := range e.Rubric {
			check(e.Rubric[i].Assert)
		}
	}
}

func dumpSuite(t *testing.T, s *Suite) string {
	t.Helper()
	// The model holds each task whole: Tasks, the suite's last field, is
	// written as the tasks Full gives.
	tasks := make([]*Task, len(s.Tasks))
	for i, ref := range s.Tasks {
		tasks[i] = mustFull(t, s, ref)
	}
	model := struct {
		*Suite
		Tasks []*Task
	}{s, tasks}
	//lint:ignore SA1026 checkCompiled has cleared the compiled programs and schemas
	out, err := json.MarshalIndent(model, "", "  ")
	assert.NilError(t, err)
	return string(out) + "\n"
}

// TestParseErrors parses every file of testdata/err and compares the
// rendered errors, one per line, with the .out file next to it.
func TestParseErrors(t *testing.T) {
	for _, path := range testFiles(t, "err") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			checkErrors(t, path, func(e *Error) {
				assert.Equal(t, e.Pos.File, path)
				assert.Assert(t, e.Pos.Line > 0 || e.Kind == ErrSyntax, "no position: %s", e)
			})
		})
	}
}

// checkErrors parses the broken suite at path, checks each error with
// each and the pointers, and compares the errors, one per line, with the
// .out file next to it.
func checkErrors(t *testing.T, path string, each func(e *Error)) {
	t.Helper()
	s, err := Parse(path, readFile(t, path))
	assert.Assert(t, s == nil)
	var errs Errors
	assert.Assert(t, errors.As(err, &errs), "got %v", err)
	for _, e := range errs {
		each(e)
		assert.Assert(t, e.Pointer == "" || jsonpointer.Valid(e.Pointer), "bad pointer: %s", e)
	}
	golden.Assert(t, err.Error()+"\n", strings.TrimPrefix(strings.TrimSuffix(path, filepath.Ext(path))+".out", "testdata/"))
}

func TestLoad(t *testing.T) {
	type testCase struct {
		paths   []string
		suites  []string // path of each suite loaded
		wantErr string   // golden file with the errors, "" for none
	}
	run := func(t *testing.T, tc testCase) {
		suites, err := Load(tc.paths...)
		var got []string
		for _, s := range suites {
			got = append(got, s.Path)
		}
		assert.DeepEqual(t, got, tc.suites)
		if tc.wantErr == "" {
			assert.NilError(t, err)
			return
		}
		var errs Errors
		assert.Assert(t, errors.As(err, &errs), "got %v", err)
		golden.Assert(t, err.Error()+"\n", tc.wantErr)
	}
	testCases := map[string]testCase{
		"folder walked in name order, hidden skipped, clashes and broken files reported": {
			paths: []string{"testdata/load"},
			suites: []string{
				"testdata/load/a.yaml",
				"testdata/load/nested/b.json",
				"testdata/load/nested/c.yml",
			},
			wantErr: "load/folder.out",
		},
		"files given one by one, each read once": {
			paths:  []string{"testdata/load/nested/c.yml", "testdata/load/nested", "testdata/load/a.yaml"},
			suites: []string{"testdata/load/nested/c.yml", "testdata/load/nested/b.json", "testdata/load/a.yaml"},
		},
		"a hidden folder named directly is read": {
			paths:  []string{"testdata/load/.hidden"},
			suites: []string{"testdata/load/.hidden/hidden.yaml"},
		},
		"a file of another extension named directly is read": {
			paths:   []string{"testdata/load/notes.txt"},
			wantErr: "load/notes.out",
		},
		"missing path": {
			paths:   []string{"testdata/load/missing", "testdata/load/a.yaml"},
			suites:  []string{"testdata/load/a.yaml"},
			wantErr: "load/missing.out",
		},
		"nothing to load": {},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) { run(t, tc) })
	}
}

func TestExtensions(t *testing.T) {
	type testCase struct {
		file string
		want []string
	}
	run := func(t *testing.T, tc testCase) {
		rep, err := CheckOpenWOP(tc.file, readFile(t, tc.file))
		assert.NilError(t, err)
		var exts []string
		for _, e := range rep.Extensions {
			exts = append(exts, e.Pointer)
		}
		assert.DeepEqual(t, exts, tc.want)
		// Portable agrees: a file without extensions is portable.
		assert.Equal(t, len(Portable(tc.file, readFile(t, tc.file))) == 0, len(tc.want) == 0)
		// The export reports the same extensions.
		_, exported, err := ExportOpenWOP(tc.file, readFile(t, tc.file), false)
		assert.NilError(t, err)
		assert.DeepEqual(t, exported.Extensions, rep.Extensions)
	}
	testCases := []testCase{
		{file: "testdata/ok/portable.json"},
		{file: "testdata/ok/anchors.yml"},
		{file: "testdata/ok/extensions.json", want: []string{
			"/$schema",
			"/trials",
			"/tasks/0/passScore",
			"/tasks/0/timeoutMs",
			"/tasks/0/expected/match/path",
			"/tasks/0/expected/assert",
			"/tasks/0/fixtures/onUnmatched",
			"/tasks/0/fixtures/toolResponses/0/times",
			"/tasks/0/fixtures/toolResponses/0/delayMs",
			"/tasks/1/expected/match/path",
			"/tasks/1/expected/match/ignoreCase",
		}},
	}
	for _, tc := range testCases {
		t.Run(tc.file, func(t *testing.T) { run(t, tc) })
	}
}

// TestExportOpenWOP exports every ok file: the result is strictly
// portable and loads in evalgate, every task is kept or reported as
// unscoreable, and the report lists what happened to each extension.
func TestExportOpenWOP(t *testing.T) {
	for _, path := range testFiles(t, "ok") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data := readFile(t, path)
			out, rep, err := ExportOpenWOP(path, data, false)
			assert.NilError(t, err)
			orig, err := Parse(path, data)
			assert.NilError(t, err)

			assert.Equal(t, len(Portable("export.json", out)), 0, "export is not portable:\n%v", Portable("export.json", out))
			exported, err := Parse("export.json", out)
			assert.NilError(t, err, "an export loads in evalgate too")
			left := map[string]bool{}
			for _, u := range rep.Unscoreable {
				left[u.TaskID] = true
			}
			var want []string
			for _, task := range orig.Tasks {
				if !left[task.ID] {
					want = append(want, task.ID)
				}
			}
			var got []string
			for _, task := range exported.Tasks {
				got = append(got, task.ID)
			}
			assert.DeepEqual(t, got, want)
			checked, err := CheckOpenWOP(path, data)
			assert.NilError(t, err)
			assert.DeepEqual(t, checked, rep)

			// --keep-unscoreable keeps every task, and the file says so.
			kept, keptRep, err := ExportOpenWOP(path, data, true)
			assert.NilError(t, err)
			assert.DeepEqual(t, keptRep, rep)
			var doc map[string]any
			assert.NilError(t, json.Unmarshal(kept, &doc))
			assert.Equal(t, doc["suiteId"], orig.ID)
			assert.Equal(t, len(doc["tasks"].([]any)), len(orig.Tasks))
			assert.Equal(t, len(Portable("kept.json", kept)), len(rep.Unscoreable))

			name := filepath.Join("export", filepath.Base(path))
			golden.Assert(t, string(out), name+".json")
			golden.Assert(t, rep.Errors().Error()+"\n", name+".report")
		})
	}
}

func TestExportOpenWOPInvalid(t *testing.T) {
	path := "testdata/err/semantic-kind.yaml"
	out, rep, err := ExportOpenWOP(path, readFile(t, path), false)
	assert.Assert(t, out == nil && rep == nil)
	var errs Errors
	assert.Assert(t, errors.As(err, &errs))
	assert.Assert(t, len(errs) > 0)
}

func TestPortable(t *testing.T) {
	type testCase struct {
		file   string
		golden string // "" when the file is portable
	}
	run := func(t *testing.T, tc testCase) {
		errs := Portable(tc.file, readFile(t, tc.file))
		if tc.golden == "" {
			assert.Equal(t, len(errs), 0, "%v", errs)
			return
		}
		golden.Assert(t, errs.Error()+"\n", tc.golden)
	}
	testCases := []testCase{
		{file: "testdata/ok/portable.json"},
		{file: "testdata/ok/golden-all.yaml", golden: "portable/golden-all.out"},
		{file: "testdata/ok/rubric-adversarial.yaml", golden: "portable/rubric-adversarial.out"},
		{file: "testdata/err/json-syntax.json", golden: "portable/json-syntax.out"},
	}
	for _, tc := range testCases {
		t.Run(tc.file, func(t *testing.T) { run(t, tc) })
	}
}

// TestValues checks that values are kept as written: number literals,
// escapes, and YAML scalars turned into JSON.
func TestValues(t *testing.T) {
	type testCase struct {
		file string
		data string
		want string // the first task's input, compact JSON
	}
	run := func(t *testing.T, tc testCase) {
		s, err := Parse(tc.file, []byte(tc.data))
		assert.NilError(t, err)
		assert.Equal(t, string(mustFull(t, s, s.Tasks[0]).Input), tc.want)
	}
	const jsonSuite = `{"suiteId": "a.evals.b", "version": "1.0.0", "modes": ["golden"], "tasks": [{"taskId": "t", "expected": {"kind": "golden", "match": {"strategy": "exact", "value": 1}}, "input": %s}]}`
	const yamlSuite = "suiteId: a.evals.b\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: t\n    expected: {kind: golden, match: {strategy: exact, value: 1}}\n    input: %s\n"
	testCases := map[string]testCase{
		"json numbers as written": {
			file: "s.json",
			data: strings.Replace(jsonSuite, "%s", `[42.0, 1.0e2, -0.5E-3, 0, 123456789012345678901234567890]`, 1),
			want: `[42.0,1.0e2,-0.5E-3,0,123456789012345678901234567890]`,
		},
		"json escapes": {
			file: "s.json",
			data: strings.Replace(jsonSuite, "%s", `"tab\t quote\" slash\/ back\\ e\u00e9 smile\ud83d\ude00 nul\u0000 <&> \u2028"`, 1),
			want: `"tab\t quote\" slash/ back\\ eé smile😀 nul\u0000 <&> \u2028"`,
		},
		"json key order kept": {
			file: "s.json",
			data: strings.Replace(jsonSuite, "%s", `{"z": 1, "a": {"y": null, "b": false}}`, 1),
			want: `{"z":1,"a":{"y":null,"b":false}}`,
		},
		"yaml numbers": {
			file: "s.yaml",
			data: strings.Replace(yamlSuite, "%s", `[42.0, 0x1F, +7, 1_000, 1e3, -0.25, 0o17, 12345678901234567890123]`, 1),
			want: `[42.0,31,7,1000,1e3,-0.25,15,12345678901234567890123]`,
		},
		"yaml scalars": {
			file: "s.yaml",
			data: strings.Replace(yamlSuite, "%s", `{a: yes, b: true, c: ~, d: null, e: "42", f: 2024-01-02, g: 'it''s', h: "\u00e9\t"}`, 1),
			want: `{"a":"yes","b":true,"c":null,"d":null,"e":"42","f":"2024-01-02","g":"it's","h":"é\t"}`,
		},
		"yaml block text": {
			file: "s.yaml",
			data: strings.Replace(yamlSuite, "%s", "|\n      line one\n      line two", 1),
			want: `"line one\nline two\n"`,
		},
		"null input": {
			file: "s.yaml",
			data: strings.Replace(yamlSuite, "%s", "", 1),
			want: `null`,
		},
		"unknown extension sniffed as json": {
			file: "suite.txt",
			data: strings.Replace(jsonSuite, "%s", `"x"`, 1),
			want: `"x"`,
		},
		"byte order mark": {
			file: "s.json",
			data: "\ufeff" + strings.Replace(jsonSuite, "%s", `true`, 1),
			want: `true`,
		},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) { run(t, tc) })
	}
}

func TestCompileExpr(t *testing.T) {
	type testCase struct {
		src     string
		env     map[string]any
		want    bool
		wantErr string
	}
	env := map[string]any{
		ExprOutput: map[string]any{"status": "approved", "amount": 12.5},
		ExprInput:  "refund A-17",
		ExprTrace: []any{
			map[string]any{"name": "crm:lookup", "args": map[string]any{"orderId": "A-17"}, "result": nil, "isError": false},
		},
		ExprLatencyMs: 120.0,
		ExprCostUsd:   0.002,
		ExprToolCalls: 1,
	}
	run := func(t *testing.T, tc testCase) {
		p, err := CompileExpr(tc.src)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			return
		}
		assert.NilError(t, err)
		got, err := expr.Run(p, tc.env)
		assert.NilError(t, err)
		assert.Equal(t, got, tc.want)
	}
	testCases := map[string]testCase{
		"field of the output": {src: `output.status == "approved" && output.amount > 10`, env: env, want: true},
		"input string":        {src: `input contains "A-17"`, env: env, want: true},
		"trace":               {src: `any(trace, .name == "crm:lookup" && .args.orderId == "A-17" && !.isError)`, env: env, want: true},
		"numbers":             {src: `latencyMs < 100 || costUsd > 0.01 || toolCalls > 1`, env: env, want: false},
		"builtins":            {src: `len(trace) == toolCalls && fromJSON("[1,2]")[1] == 2 && "abc" matches "^a"`, env: env, want: true},
		"string output":       {src: `output startsWith "Hello"`, env: map[string]any{ExprOutput: "Hello there"}, want: true},
		"unknown variable":    {src: `outputs == 1`, wantErr: "unknown name outputs"},
		"not a boolean":       {src: `1 + 1`, wantErr: "expected bool"},
		"syntax":              {src: `output ==`, wantErr: "unexpected token"},
		"same source, cached": {src: `output.status == "approved" && output.amount > 10`, env: env, want: true},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) { run(t, tc) })
	}
}

func TestErrorString(t *testing.T) {
	type testCase struct {
		err  *Error
		want string
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, tc.err.Error(), tc.want)
	}
	testCases := map[string]testCase{
		"with pointer": {
			err:  &Error{Pos: Pos{File: "a.yaml", Line: 3, Col: 7}, Pointer: "/tasks/0", Message: "missing required key \"input\"", Kind: ErrSchema},
			want: `a.yaml:3:7: /tasks/0: missing required key "input" [schema]`,
		},
		"without pointer": {
			err:  &Error{Pos: Pos{File: "a.json", Line: 1, Col: 1}, Message: "unexpected end of JSON input", Kind: ErrSyntax},
			want: `a.json:1:1: unexpected end of JSON input [syntax]`,
		},
		"file only": {
			err:  &Error{Pos: Pos{File: "gone.yaml"}, Message: "could not read suite: no such file or directory", Kind: ErrIO},
			want: `gone.yaml: could not read suite: no such file or directory [io]`,
		},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) { run(t, tc) })
	}
}

func TestErrorsSorted(t *testing.T) {
	errs := Errors{
		{Pos: Pos{File: "b.yaml", Line: 1, Col: 1}, Message: "x", Kind: ErrSchema},
		{Pos: Pos{File: "a.yaml", Line: 10, Col: 1}, Message: "y", Kind: ErrSchema},
		{Pos: Pos{File: "a.yaml", Line: 2, Col: 5}, Message: "z", Kind: ErrSchema},
		{Pos: Pos{File: "a.yaml", Line: 2, Col: 5}, Message: "z", Kind: ErrSchema},
		{Pos: Pos{File: "a.yaml", Line: 2, Col: 3}, Message: "w", Kind: ErrSchema},
	}
	got := errs.Sort()
	var lines []string
	for _, e := range got {
		lines = append(lines, e.Error())
	}
	assert.DeepEqual(t, lines, []string{
		"a.yaml:2:3: w [schema]",
		"a.yaml:2:5: z [schema]",
		"a.yaml:10:1: y [schema]",
		"b.yaml:1:1: x [schema]",
	})
	assert.NilError(t, Errors(nil).Err())
}

// TestSchemas checks that both embedded schemas compile, that the strict
// one describes a subset of the superset, and that every portable file is
// valid against both.
func TestSchemas(t *testing.T) {
	for _, s := range []*schemaSet{suiteSchema, openwopSchema} {
		_, _, err := s.compiled()
		assert.NilError(t, err, s.url)
	}
	var super, strict map[string]any
	assert.NilError(t, json.Unmarshal(SchemaJSON(), &super))
	assert.NilError(t, json.Unmarshal(OpenWOPSchemaJSON(), &strict))
	assert.Equal(t, super["$schema"], "https://json-schema.org/draft/2020-12/schema")

	// Every property the strict schema names exists in the superset.
	superDoc, _ := parseJSON("suite.schema.json", SchemaJSON())
	strictDoc, _ := parseJSON("openwop-suite.schema.json", OpenWOPSchemaJSON())
	for _, def := range []string{"task", "expected", "match", "criterion", "fixtures"} {
		sp := superDoc.get("$defs").get(def).get("properties")
		for _, f := range strictDoc.get("$defs").get(def).get("properties").fields {
			assert.Assert(t, sp.get(f.key) != nil, "superset lacks %s.%s", def, f.key)
		}
	}
	for _, f := range strictDoc.get("properties").fields {
		assert.Assert(t, superDoc.get("properties").get(f.key) != nil, "superset lacks %s", f.key)
	}

	path := "testdata/ok/portable.json"
	root, errs := parseTree(path, readFile(t, path))
	assert.Assert(t, errs == nil)
	assert.Equal(t, len(suiteSchema.validate(path, root)), 0)
	assert.Equal(t, len(openwopSchema.validate(path, root)), 0)
}

func TestJSONNumber(t *testing.T) {
	valid := []string{"0", "-0", "1", "42.0", "1e3", "1E+3", "-0.5e-3", "123456789012345678901234567890"}
	invalid := []string{"", "-", "01", "1.", ".5", "+1", "1e", "0x1F", "NaN", "1_000"}
	for _, s := range valid {
		assert.Assert(t, isJSONNumber(s), s)
	}
	for _, s := range invalid {
		assert.Assert(t, !isJSONNumber(s), s)
	}
	assert.Assert(t, cmp.Equal(must(jsonNumber(".5")), "0.5"))
}

func must(s string, ok bool) string {
	if !ok {
		return "!"
	}
	return s
}

// TestJSONSyntax checks the JSON reader's errors and their positions.
func TestJSONSyntax(t *testing.T) {
	type testCase struct {
		data string
		want string
	}
	run := func(t *testing.T, tc testCase) {
		_, errs := parseJSON("f.json", []byte(tc.data))
		assert.Equal(t, errs.Error(), tc.want)
	}
	testCases := map[string]testCase{
		"missing colon":      {data: `{"a" 1}`, want: `f.json:1:6: expected ":" after a key, got '1' [syntax]`},
		"missing comma":      {data: "{\"a\": 1\n \"b\": 2}", want: `f.json:2:2: expected "," or "}" after an object member, got '"' [syntax]`},
		"trailing comma":     {data: `[1, 2,]`, want: `f.json:1:7: expected a value, got ']' [syntax]`},
		"unquoted key":       {data: `{a: 1}`, want: `f.json:1:2: expected a key (a string in double quotes), got 'a' [syntax]`},
		"bad literal":        {data: `[tru]`, want: `f.json:1:2: expected a value, got 't' [syntax]`},
		"bad number":         {data: `[01]`, want: `f.json:1:2: 01 is not a valid number [syntax]`},
		"bad fraction":       {data: `[1.]`, want: `f.json:1:2: 1. is not a valid number [syntax]`},
		"bad escape":         {data: `["a\x"]`, want: `f.json:1:4: invalid escape \x in a string [syntax]`},
		"bad unicode escape": {data: `["\u12"]`, want: `f.json:1:3: invalid escape \u12 in a string; \u takes four hexadecimal digits [syntax]`},
		"control character":  {data: "[\"a\tb\"]", want: `f.json:1:4: control character in a string; write it as an escape such as \n [syntax]`},
		"unterminated":       {data: `{"a": "b`, want: `f.json:1:9: unexpected end of JSON input in a string [syntax]`},
		"empty":              {data: ``, want: `f.json:1:1: unexpected end of JSON input; expected a value [syntax]`},
		"truncated object":   {data: "{\n  \"a\": 1,", want: `f.json:2:10: unexpected end of JSON input; expected a key (a string in double quotes) [syntax]`},
		"trailing data":      {data: `{} {}`, want: `f.json:1:4: unexpected data after the top-level JSON value [syntax]`},
		"columns in characters": {
			data: `{"é€😀": x}`,
			want: `f.json:1:9: expected a value, got 'x' [syntax]`,
		},
		"duplicates then syntax": {
			data: "{\"a\": 1, \"a\": 2,\n \"b\" 3}",
			want: "f.json:1:10: duplicate key \"a\"; first defined at line 1 [syntax]\nf.json:2:6: expected \":\" after a key, got '3' [syntax]",
		},
		"too deep": {
			data: strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
			want: fmt.Sprintf("f.json:1:%d: values are nested more than %d levels deep [syntax]", maxDepth+1, maxDepth),
		},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) { run(t, tc) })
	}
}

// TestYAMLSyntax checks the YAML reader's errors and their lines.
func TestYAMLSyntax(t *testing.T) {
	type testCase struct {
		data string
		want string
	}
	run := func(t *testing.T, tc testCase) {
		_, errs := parseYAML("f.yaml", []byte(tc.data))
		assert.Equal(t, errs.Error(), tc.want)
	}
	testCases := map[string]testCase{
		"unclosed flow list (parser)": {data: "a: 1\nb: [x\nc: 2\n", want: `f.yaml:3:1: did not find expected ',' or ']' (in the list that starts at line 2) [syntax]`},
		"bad indentation (parser)":    {data: "a: 1\nb:\n  c: 1\n d: 2\n", want: `f.yaml:4:1: did not find expected key (in the mapping that starts at line 1) [syntax]`},
		"list in a mapping (parser)":  {data: "a: 1\n- b\n", want: `f.yaml:2:1: did not find expected key (in the mapping that starts at line 1) [syntax]`},
		"problem far from its list (parser)": {data: "a:\n  - b: 1\n    c: 2\n\n  - d: 3\n # a comment\n   e: 4\n",
			want: `f.yaml:7:1: did not find expected '-' indicator (in the list that starts at line 2) [syntax]`},
		"problem far from its list, CRLF": {data: "a:\r\n  - b: 1\r\n    c: 2\r\n\r\n  - d: 3\r\n   e: 4\r\n",
			want: `f.yaml:6:1: did not find expected '-' indicator (in the list that starts at line 2) [syntax]`},
		"problem after a byte order mark": {data: "\xEF\xBB\xBFa: [1,\n  2\nb: 3\n",
			want: `f.yaml:3:1: did not find expected ',' or ']' (in the list that starts at line 1) [syntax]`},
		"problem in the second document": {data: "a: 1\n---\nb: [1\nc: 2\n",
			want: `f.yaml:4:1: did not find expected ',' or ']' (in the list that starts at line 3) [syntax]`},
		"tab indentation (scanner)": {data: "a: 1\n\tb: 2\n", want: `f.yaml:2:1: found a tab character that violates indentation (in the value that starts at line 1) [syntax]`},
		"unterminated string (scanner)": {data: "a: \"x\nb: 2\nc: 3\n",
			want: `f.yaml:3:1: found unexpected end of stream (in the quoted string that starts at line 1) [syntax]`},
		"bad escape (scanner)":          {data: "a: \"x\n  y \\q\"\n", want: `f.yaml:2:1: found unknown escape character (in the quoted string that starts at line 1) [syntax]`},
		"key without a colon (scanner)": {data: "a: 1\nb\n", want: `f.yaml:2:1: could not find expected ':' [syntax]`},
		"bad UTF-8 (reader)":            {data: "a: 1\nb: \xff\n", want: `f.yaml:2:1: invalid leading UTF-8 octet [syntax]`},
		"control character (reader)":    {data: "a: 1\n\nb: \x01\n", want: `f.yaml:3:1: control characters are not allowed [syntax]`},
		"bad character (scanner)":       {data: "a: 1\nb: @x\n", want: `f.yaml:2:1: found character that cannot start any token [syntax]`},
		"nested mapping on one line":    {data: "a: 1\nb: c: d\n", want: `f.yaml:2:1: mapping values are not allowed in this context [syntax]`},
		"error on the first line":       {data: "@", want: `f.yaml:1:1: found character that cannot start any token [syntax]`},
		"alias to itself":               {data: "a: &a [1, *a]\n", want: `f.yaml:1:11: alias "a" refers to a value that contains it [syntax]`},
		"unknown anchor":                {data: "a: &nopeish 1\nb: [*nopeish, *nope]\n", want: `f.yaml:2:1: unknown anchor 'nope' referenced [syntax]`},
		"complex key":                   {data: "? [a, b]\n: 1\n", want: `f.yaml:1:3: a key must be a string, not a list or a mapping [syntax]`},
		"merge of a scalar":             {data: "a:\n  <<: 1\n  b: 2\n", want: `f.yaml:2:7: a merge key (<<) needs a mapping or a list of mappings [syntax]`},
		"NaN":                           {data: "a: .nan\n", want: `f.yaml:1:4: .nan is not a number JSON can hold [syntax]`},
		"tagged list":                   {data: "a: !!omap [{b: 1}]\n", want: `f.yaml:1:4: lists tagged !!omap are not JSON; expected a plain list [syntax]`},
		"duplicate keys after a merge":  {data: "x: &x {a: 1}\ny:\n  <<: *x\n  a: 2\n  a: 3\n", want: `f.yaml:5:3: duplicate key "a"; first defined at line 4 [syntax]`},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) { run(t, tc) })
	}
}

// TestYAMLMerge checks that explicit keys win over merged ones, and earlier
// merge sources over later ones.
func TestYAMLMerge(t *testing.T) {
	doc := "a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nc:\n  <<: [*a, *b]\n  x: 0\n"
	root, errs := parseYAML("f.yaml", []byte(doc))
	assert.Assert(t, errs == nil, "%v", errs)
	assert.Equal(t, string(root.get("c").compact()), `{"x":0,"y":1,"z":2}`)
}
