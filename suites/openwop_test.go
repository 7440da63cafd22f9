package suites

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestOpenWOPEdgeSuites keeps the list in docs/suites.md true: each file of
// testdata/openwop is a valid openwop v1 suite by the strict schema, and
// evalgate refuses or loads it as the list says, row for row.
func TestOpenWOPEdgeSuites(t *testing.T) {
	docData, err := os.ReadFile("../docs/suites.md")
	assert.NilError(t, err)
	_, section, ok := strings.Cut(string(docData), "\n## openwop suites evalgate refuses\n")
	assert.Assert(t, ok, "docs/suites.md lost its section on the openwop suites evalgate refuses")
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| openwop-valid suite ") {
			rows = append(rows, line)
		}
	}

	type testCase struct {
		paths   []string // under testdata/openwop
		doc     string   // the first cell of its row in docs/suites.md
		wantErr string   // "" when evalgate loads it
		check   func(t *testing.T, s []*Suite)
	}
	run := func(t *testing.T, tc testCase) {
		var files []string
		for _, p := range tc.paths {
			files = append(files, filepath.Join("testdata", "openwop", p))
		}
		for _, f := range files {
			assert.NilError(t, strictOpenWOP(t, f), "%s is not a valid openwop suite, so it does not belong here", f)
		}
		var row string
		for _, r := range rows {
			if strings.HasPrefix(r, "| "+tc.doc+" |") {
				row = r
			}
		}
		assert.Assert(t, row != "", "docs/suites.md has no row for %q", tc.doc)

		got, err := Load(files...)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			assert.Check(t, is.Contains(row, "| refused:"))
			return
		}
		assert.NilError(t, err)
		assert.Check(t, is.Contains(row, "| loads"))
		if tc.check != nil {
			tc.check(t, got)
		}
	}
	testCases := []testCase{
		{paths: []string{"duplicate-task-ids.json"}, doc: "two tasks with the same `taskId`", wantErr: `duplicate task id "greet"`},
		{paths: []string{"same-suite-id/a.json", "same-suite-id/b.json"}, doc: "one `suiteId` in two files loaded together",
			wantErr: `suite id "acme.edge.evals.same-suite-id" is already defined`},
		{paths: []string{"golden-without-match.json"}, doc: "`kind: golden` without `match`", wantErr: `kind "golden" needs "match"`},
		{paths: []string{"golden-with-rubric.json"}, doc: "`kind: golden` with a `rubric`", wantErr: `kind "golden" is scored by match and assert, not by a rubric`},
		{paths: []string{"rubric-without-criteria.json"}, doc: "`kind: rubric` without `rubric`", wantErr: `kind "rubric" needs "rubric"`},
		{paths: []string{"rubric-with-match.json"}, doc: "`kind: rubric` with a `match`", wantErr: `"match" belongs to kind "golden"`},
		{paths: []string{"rubric-zero-weights.json"}, doc: "a rubric whose weights are all 0", wantErr: "the criterion weights add up to 0"},
		{paths: []string{"duplicate-keys.json"}, doc: "a key twice in one JSON object", wantErr: `duplicate key "version"`},
		{paths: []string{"deep-input.json"}, doc: "values nested more than 1,000 levels deep", wantErr: "nested more than 1000 levels deep"},
		{paths: []string{"modes-without-task-kinds.json"}, doc: "`modes` that name no task's `kind`",
			check: func(t *testing.T, s []*Suite) { assert.DeepEqual(t, s[0].Modes, []string{"adversarial", "regression"}) }},
		{paths: []string{"live-shadow-with-fixtures.json"}, doc: "`modes: [live-shadow]` with fixtures"},
		{paths: []string{"loose-fixtures.json"}, doc: "a `toolResponses` entry without `response`; `memorySeed` objects of any shape",
			check: func(t *testing.T, s []*Suite) {
				fx := mustFull(t, s[0], s[0].Tasks[0]).Fixtures
				assert.Equal(t, len(fx.ToolResponses), 2)
				assert.Equal(t, len(fx.MemorySeed), 2)
			}},
		{paths: []string{"odd-numbers.json"}, doc: "numbers beyond float64, an integer written `1.5e3`, bars of 0, some rubric weights 0",
			check: func(t *testing.T, s []*Suite) {
				th := s[0].Thresholds
				assert.Assert(t, th.MaxP95LatencyMs != nil && *th.MaxP95LatencyMs == 1500, "maxP95LatencyMs is read, not ignored")
				assert.Assert(t, th.PassScore != nil && *th.PassScore == 0)
				assert.Assert(t, th.MaxCostUsd != nil && *th.MaxCostUsd == 0)
				assert.Equal(t, string(mustFull(t, s[0], s[0].Tasks[0]).Input), "1e400", "kept as written")
			}},
		{paths: []string{"everything-optional.yaml"}, doc: "every optional field, empty `thresholds` and `fixtures`, `taskId: \"0\"`, an empty `input`"},
	}
	assert.Equal(t, len(rows), len(testCases), "docs/suites.md lists %d suites, this test %d", len(rows), len(testCases))
	covered := map[string]bool{}
	for _, tc := range testCases {
		for _, p := range tc.paths {
			covered[p] = true
		}
		t.Run(tc.doc, func(t *testing.T) { run(t, tc) })
	}
	err = filepath.WalkDir(filepath.Join("testdata", "openwop"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(filepath.Join("testdata", "openwop"), path)
			assert.Check(t, covered[filepath.ToSlash(rel)], "%s is in no case", path)
		}
		return err
	})
	assert.NilError(t, err)
}

// strictOpenWOP validates a file against the strict openwop schema. JSON is
// read by the validator's own reader (a repeated key: the last one counts;
// any depth), YAML through the loader's tree, which only converts it.
func strictOpenWOP(t *testing.T, path string) error {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	var inst any
	if filepath.Ext(path) == ".json" {
		inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(data))
		assert.NilError(t, err)
	} else {
		root, errs := parseTree(path, data)
		assert.Assert(t, errs == nil, "%v", errs)
		inst = root.toAny()
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(OpenWOPSchemaJSON()))
	assert.NilError(t, err)
	c := jsonschema.NewCompiler()
	assert.NilError(t, c.AddResource("openwop.json", doc))
	sch, err := c.Compile("openwop.json")
	assert.NilError(t, err)
	return sch.Validate(inst)
}

// TestOpenWOPReportWords pins the words of a report that `export` and
// `validate --openwop` print: the summary, and the notes in the file's
// order whatever the report's.
func TestOpenWOPReportWords(t *testing.T) {
	rep := &OpenWOPReport{
		Tasks: 3,
		Extensions: []Extension{
			{Pos: Pos{File: "s.yaml", Line: 9, Col: 5}, Pointer: "/tasks/1/assert", Action: ExtDropped, Message: "dropped"},
			{Pos: Pos{File: "s.yaml", Line: 2, Col: 3}, Pointer: "/tasks/0/golden/match", Action: ExtDroppedMatch, Message: "match dropped"},
		},
		Unscoreable: []UnscoreableTask{{Pos: Pos{File: "s.yaml", Line: 4, Col: 3}, Pointer: "/tasks/0", TaskID: "t0"}},
	}
	type testCase struct {
		keep bool
		want []string
	}
	for _, tc := range []testCase{
		{keep: false, want: []string{
			"s.yaml:2:3: /tasks/0/golden/match: match dropped",
			`s.yaml:4:3: /tasks/0: task "t0" is scored only by evalgate extensions; no openwop runner can score it without them; left out (--keep-unscoreable keeps it, without scoring)`,
			"s.yaml:9:5: /tasks/1/assert: dropped",
		}},
		{keep: true, want: []string{
			"s.yaml:2:3: /tasks/0/golden/match: match dropped",
			`s.yaml:4:3: /tasks/0: task "t0" is scored only by evalgate extensions; no openwop runner can score it without them; kept without scoring`,
			"s.yaml:9:5: /tasks/1/assert: dropped",
		}},
	} {
		assert.DeepEqual(t, rep.Notes(tc.keep), tc.want)
	}
	assert.Equal(t, rep.Summary(), "2 evalgate extensions (export --openwop: 1 dropped, 1 dropped with the match they change); 1 of 3 tasks are scored only by them")
	assert.Equal(t, (&OpenWOPReport{Tasks: 1}).Summary(), "no evalgate extensions")
}
