package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"
)

var roots = []string{"Task", "Trial"}

// TestGeneratedIsCurrent fails when results/codec_gen.go is not what
// codecgen writes from the structs of package results: a field was added,
// removed or changed without `go generate ./results`.
func TestGeneratedIsCurrent(t *testing.T) {
	want, err := generate("../..", roots)
	assert.NilError(t, err)
	got, err := os.ReadFile(filepath.Join("../..", Out))
	assert.NilError(t, err)
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); diff != "" {
		t.Fatalf("results/%s is stale: run `go generate ./results` (-generated +committed):\n%s", Out, diff)
	}
}

// TestAddingAFieldIsOneEdit adds a field to Trial in a copy of package
// results, as a contributor would, and checks that generating is all it
// takes for the field to be read and written.
func TestAddingAFieldIsOneEdit(t *testing.T) {
	dir := t.TempDir()
	files, err := filepath.Glob("../../*.go")
	assert.NilError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		assert.NilError(t, err)
		if filepath.Base(f) == "results.go" {
			const trial = "type Trial struct {\n"
			assert.Assert(t, strings.Contains(string(data), trial))
			data = []byte(strings.Replace(string(data), trial, trial+"\tAddedByTest *int `json:\"addedByTest,omitempty\"`\n", 1))
		}
		assert.NilError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644))
	}
	src, err := generate(dir, roots)
	assert.NilError(t, err)
	for _, want := range []string{
		"case \"addedByTest\":\n\t\t\tif r.once(&seen, 0) {\n\t\t\t\tv.AddedByTest = new(int)\n\t\t\t\t*v.AddedByTest = int(r.int())\n",
		"\tw.open('{')\n\tif v.AddedByTest != nil {\n\t\tw.key(\"addedByTest\")\n\t\tw.int(int64(*v.AddedByTest))\n\t}\n",
	} {
		assert.Assert(t, strings.Contains(string(src), want), "the new field is not read or written as expected:\n%s", src)
	}
}

// TestRefuses checks that a field codecgen cannot read and write as
// encoding/json does is an error naming it, not code that differs.
func TestRefuses(t *testing.T) {
	type testCase struct {
		name  string
		field string // a field of Task
		want  string // "" when it generates
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		src := fmt.Sprintf(`package results

type Task struct {
	ID     string  `+"`json:\"taskId\"`"+`
	%s
	Trials []Trial `+"`json:\"trials\"`"+`
}

type Trial struct {
	Checks []Check `+"`json:\"checks\"`"+`
}

type Check struct {
	ID    string `+"`json:\"id\"`"+`
	Scale *Scale `+"`json:\"scale,omitempty\"`"+`
}

type Scale struct{ Min, Max int }

type Stats struct{ N int }

type Kind string
`, tc.field)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "results.go"), []byte(src), 0o644))
		_, err := generate(dir, roots)
		if tc.want == "" {
			assert.NilError(t, err)
			return
		}
		assert.ErrorContains(t, err, tc.want)
	}
	for _, tc := range []testCase{
		{name: "the kinds it knows", field: "A *bool `json:\"a,omitempty\"`; B []string; C Stats; D []Stats `json:\",omitempty\"`; E int64; F float64; g map[string]int; H int `json:\"-\"`"},
		{name: "a map", field: "Values map[string]any `json:\"values,omitempty\"`", want: "results.go:5: Task.Values: the type map[string]any is not one codecgen reads and writes"},
		{name: "an unsigned number", field: "N uint32", want: "Task.N: the type uint32 is not one"},
		{name: "another package's type", field: "At time.Time", want: "Task.At: the type time.Time is not one"},
		{name: "a named string", field: "K Kind", want: "Task.K: the type Kind is not one"},
		{name: "a list of lists", field: "L [][]string", want: "Task.L: the type [][]string is not one"},
		{name: "a pointer to a list", field: "L *[]string", want: "Task.L: the type *[]string is not one"},
		{name: "a number as a string", field: "N int `json:\"n,string\"`", want: `Task.N: the tag option "string" is not supported`},
		{name: "omitzero", field: "N int `json:\"n,omitzero\"`", want: `Task.N: the tag option "omitzero" is not supported`},
		{name: "an embedded struct", field: "Stats", want: "Task embeds Stats: embedded fields are not supported"},
		{name: "a name to escape", field: "N int `json:\"a'b\"`", want: `Task.N: the JSON name "a'b" is not one codecgen writes`},
		{name: "a name twice", field: "N int `json:\"taskId\"`", want: `Task.N: a second field named "taskId" in JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}

	t.Run("a hook's field gone", func(t *testing.T) {
		dir := t.TempDir()
		src := "package results\n\ntype Task struct{ ID string }\n\ntype Trial struct{ Checks []Check }\n\ntype Check struct{ ID string }\n"
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "results.go"), []byte(src), 0o644))
		_, err := generate(dir, roots)
		assert.ErrorContains(t, err, "the hook of Task.Trials names no field of a struct codecgen writes")
	})
}
