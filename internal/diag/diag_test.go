package diag

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestError(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  Error
		want string
	}{
		{"everything", Error{Pos{"evals/a.yaml", 14, 7}, "/tasks/3/expected", "expected one of golden, rubric", "schema"},
			"evals/a.yaml:14:7: /tasks/3/expected: expected one of golden, rubric [schema]"},
		{"no pointer", Error{Pos{"evals/a.yaml", 1, 1}, "", "invalid YAML", "syntax"}, "evals/a.yaml:1:1: invalid YAML [syntax]"},
		{"no kind", Error{Pos{"evalgate.yaml", 3, 5}, "", "unknown key", ""}, "evalgate.yaml:3:5: unknown key"},
		{"no column", Error{Pos{"labels.jsonl", 4, 0}, "", "human: expected true, false or 0..1", ""}, "labels.jsonl:4: human: expected true, false or 0..1"},
		{"no line", Error{Pos{"evals/b.json", 0, 0}, "", "could not read suite", "io"}, "evals/b.json: could not read suite [io]"},
		{"hostile parts escaped", Error{Pos{"x\n::error::f.yaml", 3, 1}, "/k\n::error::forged", "unknown key: \x1b[31m\a", "schema"},
			`x\n::error::f.yaml:3:1: /k\n::error::forged: unknown key: \x1b[31m\x07 [schema]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.err.Error(), tc.want)
		})
	}
}

func TestErrorsSortAndErr(t *testing.T) {
	assert.NilError(t, Errors(nil).Err())
	es := Errors{
		{Pos: Pos{"b.yaml", 1, 1}, Message: "z"},
		{Pos: Pos{"a.yaml", 9, 1}, Message: "y"},
		{Pos: Pos{"a.yaml", 2, 5}, Pointer: "/b", Message: "x"},
		{Pos: Pos{"a.yaml", 2, 5}, Pointer: "/a", Message: "x"},
		{Pos: Pos{"b.yaml", 1, 1}, Message: "z"},
	}
	assert.Equal(t, es.Err().Error(), "a.yaml:2:5: /a: x\na.yaml:2:5: /b: x\na.yaml:9:1: y\nb.yaml:1:1: z")
}
