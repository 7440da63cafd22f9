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

// TestSheetSafe: a sheet's suite renders only prompts linear in their
// vars; loops, calls, arithmetic and filters with arguments are refused.
func TestSheetSafe(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		safe bool
	}{
		{"Answer: {{ question }}", true},
		{"{{- q.a.b -}} {{ q['k'] }} {{ q[0] }} {# note #}", true},
		{"{{ question | upper | trim }} {{ name | default('you') }} {{ n | length }}", true},
		{"{% if formal %}Dear customer,{% elif tone == 'warm' and not (x in y) %}Hi{% else %}Hey{% endif %} {{ q }}", true},
		{"{% if x is defined %}{{ x }}{% endif %}", true},
		{"plain text, no tags", true},
		{"{% for i in items %}{{ i }}{% endfor %}", false},
		{"{{ range(1000000000) }}", false},
		{"{% if range(1000000000) %}x{% endif %}", false},
		{"{{ q * 100000 }}", false},
		{"{{ q ~ q }}", false},
		{"{{ q | center(1000000000) }}", false},
		{"{{ q | join('abcdefgh') }}", false},
		{"{{ q | replace('', 'xxxx') }}", false},
		{"{% set x = q %}", false},
		{"{% macro m() %}{% endmacro %}", false},
		{"{% else if %}", false},
		{strings.Repeat("a", MaxSheetPrompt+1), false},
	} {
		why := sheetSafe(tc.tmpl)
		assert.Check(t, (why == "") == tc.safe, "%q: %q", tc.tmpl, why)
	}
}

// TestSheetUnsafePrompt: a prompt with a loop has its sheet's rows copied
// at the import; a sheet's suite written by hand with one, or a row whose
// prompt would be too long, is an error at its line.
func TestSheetUnsafePrompt(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "tests.csv"), []byte("q,__expected\nhi,hi\n"), 0o644))
	cfg := filepath.Join(dir, "promptfooconfig.yaml")
	assert.NilError(t, os.WriteFile(cfg, []byte("prompts: ['{% for c in q %}{{ c }}{% endfor %}']\nproviders: [echo]\ntests: file://tests.csv\n"), 0o644))
	res, err := Import(cfg, Options{Out: dir})
	assert.NilError(t, err)
	assert.Check(t, res.Files["tests.suite.yaml"] == nil)
	assert.Check(t, slices.ContainsFunc(res.Report.Mapped, func(m Mapped) bool {
		return m.Location == "tests.csv" && strings.Contains(m.To, "copied into evals/promptfoo.tests.jsonl: prompts[0] is rendered once at the import, not as the suite loads: {% for c in q %} is not an if")
	}), "%+v", res.Report.Mapped)

	suite := func(prompt string) string {
		return "suiteId: a.evals.b\nversion: 1.0.0\nmodes: [golden]\ndatasets:\n  - file: tests.csv\n    promptfoo: {prompt: " + prompt + "}\n    task: {taskId: \"t-{row.line}\", input: \"{row.input}\", expected: \"{row.expected}\"}\n"
	}
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(suite(`"{% for c in q %}{{ c }}{% endfor %}"`)), 0o644))
	_, err = suites.Load(filepath.Join(dir, "s.yaml"))
	assert.ErrorContains(t, err, "s.yaml:6:16: /datasets/0/promptfoo: promptfoo: prompt: {% for c in q %} is not an if; a sheet's prompt may use only")

	// 20,000 {{ q }} of a 300-byte cell could be 6 MB (36 MB escaped).
	big := "q,__expected\n" + strings.Repeat("x", 300) + ",x\n"
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "tests.csv"), []byte(big), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(suite(`"`+strings.Repeat("{{q}}", 3000)+`"`)), 0o644))
	_, err = suites.Load(filepath.Join(dir, "s.yaml"))
	assert.ErrorContains(t, err, "tests.csv:2:1: the prompt written with this row's vars could be over 4194304 bytes")
}

// FuzzSheetSafe: a prompt sheetSafe lets a sheet's suite render renders
// with a row's vars within renderBound, the bound Row checks.
func FuzzSheetSafe(f *testing.F) {
	for _, s := range []string{
		"Answer: {{ question }}",
		"{% if formal %}Dear {{ name | default('you') }},{% else %}Hi{% endif %}",
		"{{ q | upper | escape }}{{ q.a }}{{ q['b'] }}",
		"{% if a == 'x' and not (b in c) %}{{ 'lit' }}{% endif %}",
		"{{ 12345 | abs }} {{ q | length }} {{ q | first }}",
	} {
		f.Add(s)
	}
	vars := map[string]any{"q": "<a&b>", "question": "what?", "name": "n", "a": "x", "b": "y", "c": "yz", "formal": "1"}
	f.Fuzz(func(t *testing.T, s string) {
		if sheetSafe(s) != "" {
			return
		}
		out, ok := renderText(s, vars)
		if ok && len(out) > renderBound(s, 5) {
			t.Fatalf("%q rendered %d bytes, over the bound %d", s, len(out), renderBound(s, 5))
		}
	})
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
