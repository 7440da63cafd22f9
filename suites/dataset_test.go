package suites

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/jsonpointer"
)

// TestDatasetErrors parses every suite of testdata/datasets, each with
// broken datasets, and compares the rendered errors with the .out file
// next to it: problems in a row are at the row's file:line:column, problems
// of a task a row makes at the template, naming the row.
func TestDatasetErrors(t *testing.T) {
	for _, path := range testFiles(t, "datasets") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			checkErrors(t, path, func(e *Error) {
				assert.Assert(t, e.Pos.Line > 0, "no position: %s", e)
				assert.Assert(t, !strings.Contains(e.Message, "/tasks/"), "a row's task is named by its place in the task list: %s", e)
			})
		})
	}
}

// TestDatasetTasksDecodeTheSame: past the compact threshold a task made
// from a row keeps only its place in the dataset file, and Full makes the
// task a suite that is not compact decodes (the CSV file starts with a
// byte order mark and has a cell over two lines).
func TestDatasetTasksDecodeTheSame(t *testing.T) {
	path := "testdata/ok/datasets.yaml"
	whole, err := Parse(path, readFile(t, path))
	assert.NilError(t, err)
	defer func(n int) { compactAbove = n }(compactAbove)
	compactAbove = 2
	loaded, err := Load(path)
	assert.NilError(t, err)
	checkCompact(t, whole, loaded[0])
}

// rowsSuite writes a suite of one dataset, the file name with rows, whose
// task template is task, in a new folder; it returns the suite's path.
func rowsSuite(t *testing.T, name, rows, task string) string {
	t.Helper()
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(rows), 0o644))
	path := filepath.Join(dir, "s.yaml")
	assert.NilError(t, os.WriteFile(path, []byte("suiteId: acme.evals.s\nversion: 1.0.0\nmodes: [golden]\ndatasets:\n  - file: "+name+"\n    task:\n"+task), 0o644))
	return path
}

// TestDatasetChangedDuringRun: a dataset file changed under a run is an
// error of the task, not another task.
func TestDatasetChangedDuringRun(t *testing.T) {
	suite := rowsSuite(t, "rows.jsonl", "{\"id\": \"a\", \"q\": \"1\"}\n{\"id\": \"b\", \"q\": \"2\"}\n", `
      taskId: "{row.id}"
      input: "{row.q}"
      expected: {kind: golden, match: {strategy: exact, value: "{row.q}"}}
`)
	data := filepath.Join(filepath.Dir(suite), "rows.jsonl")
	defer func(n int) { compactAbove = n }(compactAbove)
	compactAbove = 1
	s, err := Load(suite)
	assert.NilError(t, err)
	full, err := s[0].Full(s[0].Tasks[1])
	assert.NilError(t, err)
	assert.Equal(t, string(full.Input), `"2"`)
	assert.NilError(t, os.WriteFile(data, []byte("{\"id\": \"a\", \"q\": \"1\"}\n{\"id\": \"x\", \"q\": \"2\"}\n"), 0o644))
	_, err = s[0].Full(s[0].Tasks[1])
	assert.ErrorContains(t, err, "changed during the run")
}

// TestDatasetValues: a string that is exactly {row.NAME} takes the value
// with its JSON type; one that holds it among other text takes its text
// (a string as it is, other values as JSON); text that only looks like a
// placeholder stays.
func TestDatasetValues(t *testing.T) {
	suite := rowsSuite(t, "rows.jsonl", `{"id": 7, "obj": {"a": [1, 2.0]}, "s": "x\"y", "n": null, "b": true}`+"\n", `
      taskId: "t-{row.id}"
      input: {whole: "{row.obj}", text: "obj={row.obj} s={row.s} n={row.n} b={row.b}", kept: "{row.} {row.id {rowid} {row.x{row.id}}", list: ["{row.b}", "{row.n}"]}
      expected: {kind: golden, match: {strategy: exact, value: x}}
`)
	s, err := Load(suite)
	assert.NilError(t, err)
	task := mustFull(t, s[0], s[0].Tasks[0])
	assert.Equal(t, task.ID, "t-7")
	assert.Equal(t, string(task.Input), `{"whole":{"a":[1,2.0]},"text":"obj={\"a\":[1,2.0]} s=x\"y n=null b=true","kept":"{row.} {row.id {rowid} {row.x7}","list":[true,null]}`)
}

// TestDatasetMany: 5,000 rows make compact tasks, each made again from
// its row at its line.
func TestDatasetMany(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,q\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "%d,question %d\n", i, i)
	}
	suite := rowsSuite(t, "rows.csv", b.String(), `
      taskId: "t-{row.id}"
      input: "{row.q}"
      expected: {kind: golden, match: {strategy: contains, value: "{row.id}"}}
`)
	dir := filepath.Dir(suite)
	s, err := Load(suite)
	assert.NilError(t, err)
	assert.Equal(t, len(s[0].Tasks), 5000)
	last := s[0].Tasks[4999]
	assert.Assert(t, last.Compact())
	assert.Equal(t, last.Pos, Pos{File: filepath.Join(dir, "rows.csv"), Line: 5001, Col: 1})
	full, err := s[0].Full(last)
	assert.NilError(t, err)
	assert.Equal(t, string(full.Input), `"question 4999"`)
	assert.Equal(t, string(full.Expected.Match.Value), `"4999"`)
}

// FuzzDataset checks that no dataset file makes the loader panic, that
// every problem is placed, and that a suite that loads makes each task
// again from its row the same.
func FuzzDataset(f *testing.F) {
	for _, file := range []string{"ok/data/questions.csv", "ok/data/orders.jsonl", "ok/data/rubric.json", "datasets/data/rows.csv", "datasets/data/rows.jsonl", "datasets/data/rows.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(strings.Count(file, ".json")+strings.Count(file, ".jsonl")))
	}
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		dir := t.TempDir()
		name := [...]string{"rows.csv", "rows.json", "rows.jsonl"}[format%3]
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
		src := []byte(`suiteId: acme.evals.fuzz
version: 1.0.0
modes: [golden]
datasets:
  - file: ` + name + `
    task:
      taskId: "t-{row.id}"
      input: {q: "{row.question}", all: "{row.id}/{row.answer}"}
      expected: {kind: golden, match: {strategy: contains, value: "{row.answer}"}}
`)
		path := filepath.Join(dir, "s.yaml")
		assert.NilError(t, os.WriteFile(path, src, 0o644))
		defer func(n int) { compactAbove = n }(compactAbove)
		compactAbove = 1
		s, err := Parse(path, src)
		if err == nil {
			for _, task := range s.Tasks {
				full, err := s.Full(task)
				assert.NilError(t, err)
				assert.Equal(t, full.ID, task.ID)
			}
			return
		}
		var errs Errors
		assert.Assert(t, errors.As(err, &errs) && len(errs) != 0, "error is not a list of errors: %v", err)
		for _, e := range errs {
			assert.Assert(t, e.Message != "" && e.Pos.Line > 0 && jsonpointer.Valid(e.Pointer), "malformed error: %#v", e)
			for _, h := range goTypeHints {
				if strings.Contains(e.Message, h) {
					assert.Assert(t, strings.Contains(string(data), h), "message leaks %q: %v", h, e)
				}
			}
		}
	})
}

// TestCSVRowBudget: a CSV record over MaxRowBytes or MaxRowCells is an
// error at the line the record starts, found from the bytes up to the
// limit: a 32 MB line of commas once took encoding/csv a gigabyte and
// fifteen seconds. Quoted cells count as encoding/csv reads them: commas
// and line breaks inside quotes are part of the cell, and a record that
// spans lines starts at its first.
func TestCSVRowBudget(t *testing.T) {
	type testCase struct {
		name, rows string
		want       string // the error; "" when the suite loads
		wantLine   int
	}
	task := `
      taskId: "t-{row.id}"
      input: "{row.q}"
      expected: {kind: golden, match: {strategy: exact, value: x}}
`
	commas := func(n int) string { return strings.Repeat(",", n) }
	run := func(t *testing.T, tc testCase) {
		suite := rowsSuite(t, "rows.csv", tc.rows, task)
		_, err := Load(suite)
		if tc.want == "" {
			assert.NilError(t, err)
			return
		}
		errs, ok := errors.AsType[Errors](err)
		assert.Assert(t, ok, "%v", err)
		assert.Equal(t, len(errs), 1, "%v", err)
		assert.Equal(t, errs[0].Message, tc.want)
		assert.Equal(t, errs[0].Pos, Pos{File: filepath.Join(filepath.Dir(suite), "rows.csv"), Line: tc.wantLine, Col: 1})
	}
	for _, tc := range []testCase{
		{name: "a header of 32 million empty cells", rows: "id,q" + commas(32_000_000) + "\n1,a\n",
			want: "the row has more than 10000 cells, the limit for a row", wantLine: 1},
		{name: "a row of too many cells", rows: "id,q\n1,a\n2,b" + commas(MaxRowCells) + "\n",
			want: "the row has more than 10000 cells, the limit for a row", wantLine: 3},
		{name: "a row over the bytes", rows: "id,q\n1,a\n2," + strings.Repeat("b", MaxRowBytes) + "\n",
			want: "the row is over 1048576 bytes, the limit for a row", wantLine: 3},
		{name: "a quoted cell over several lines, over the bytes", rows: "id,q\n1,\"a\n" + strings.Repeat("b\n", MaxRowBytes/2) + "\"\n",
			want: "the row is over 1048576 bytes, the limit for a row", wantLine: 2},
		{name: "commas and quotes inside a quoted cell are one cell", rows: "id,q\n1,\"" + commas(MaxRowCells) + `""` + commas(10) + "\"\n"},
		{name: "many rows, each within the limits", rows: "id,q\n" + manyRows(2000, strings.Repeat("b", 1000))},
		{name: "records at the cell limit", rows: "id,q" + columns(MaxRowCells-2) + "\n1,a" + commas(MaxRowCells-2) + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// manyRows is n CSV rows "i,cell", i counting from 0.
func manyRows(n int, cell string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,%s\n", i, cell)
	}
	return b.String()
}

// columns is n more column names of a header: ",c0,c1,...".
func columns(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, ",c%d", i)
	}
	return b.String()
}
