package promptfoo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/suites"
)

// TestSheetPromptSubset: a config whose prompt is outside the template
// subset has its sheet's rows copied at the import; a sheet's suite
// written by hand with one is an error at its line, and so is a row whose
// prompt goes over its budget.
func TestSheetPromptSubset(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "tests.csv"), []byte("q,__expected\nhi,hi\n"), 0o644))
	cfg := filepath.Join(dir, "promptfooconfig.yaml")
	assert.NilError(t, os.WriteFile(cfg, []byte("prompts: ['{% for i in range(3) %}{{ q }}{% endfor %}']\nproviders: [echo]\ntests: file://tests.csv\n"), 0o644))
	res, err := Import(cfg, Options{Out: dir})
	assert.NilError(t, err)
	assert.Check(t, res.Files["tests.suite.yaml"] == nil)
	assert.Check(t, slices.ContainsFunc(res.Report.Mapped, func(m Mapped) bool {
		return m.Location == "tests.csv" && strings.Contains(m.To, "copied into evals/promptfoo.tests.jsonl: prompts[0] is left as written:") && strings.Contains(m.To, "a call is not rendered here")
	}), "%+v", res.Report.Mapped)

	suite := func(prompt string) string {
		return "suiteId: a.evals.b\nversion: 1.0.0\nmodes: [golden]\ndatasets:\n  - file: tests.csv\n    promptfoo: {prompt: " + prompt + "}\n    task: {taskId: \"t-{row.line}\", input: \"{row.input}\", expected: \"{row.expected}\"}\n"
	}
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(suite(`"{% include 'x.txt' %}"`)), 0o644))
	_, err = suites.Load(filepath.Join(dir, "s.yaml"))
	assert.ErrorContains(t, err, "s.yaml:6:16: /datasets/0/promptfoo: promptfoo: prompt: {% include 'x.txt' %}: the tag \"include\" is not rendered here")

	// Three loops nested over a 300-byte cell: 27 million steps, far over
	// what a row of that size is given.
	big := "q,__expected\n" + strings.Repeat("x", 300) + ",x\n"
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "tests.csv"), []byte(big), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(suite(`"{% for a in q %}{% for b in q %}{% for c in q %}.{% endfor %}{% endfor %}{% endfor %}"`)), 0o644))
	_, err = suites.Load(filepath.Join(dir, "s.yaml"))
	assert.ErrorContains(t, err, "tests.csv:2:1: the prompt could not be written with this row's vars: the template would take more than its budget")

	// One loop over the cell is within it.
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(suite(`"{% for c in q %}{{ c | upper }}{% endfor %}"`)), 0o644))
	loaded, err := suites.Load(filepath.Join(dir, "s.yaml"))
	assert.NilError(t, err)
	full, err := loaded[0].Full(loaded[0].Tasks[0])
	assert.NilError(t, err)
	assert.Equal(t, string(full.Input), `"`+strings.Repeat("X", 300)+`"`)
}

// TestSheetTaskIDs: the ids the report gives a sheet's tasks are those its
// suite makes, whatever the sheet's name ("-0" in it included).
func TestSheetTaskIDs(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "case-0.csv"), []byte("q,__expected\nhi,hi\nyo,yo\n"), 0o644))
	cfg := filepath.Join(dir, "promptfooconfig.yaml")
	assert.NilError(t, os.WriteFile(cfg, []byte("prompts: ['say {{ q }}', '{{ q }}']\nproviders: [echo]\ntests: file://case-0.csv\n"), 0o644))
	res, err := Import(cfg, Options{Out: dir})
	assert.NilError(t, err)
	writeFiles(t, dir, res.Files)
	got := loadTasks(t, dir, res)
	for k := range got {
		got[k] = ""
	}
	assert.DeepEqual(t, got, reportTasks(res))
	assert.Check(t, slices.ContainsFunc(res.Report.Tasks, func(r TaskRef) bool { return r.TaskID == "case-0-3-p1" }), "%+v", res.Report.Tasks)
}
