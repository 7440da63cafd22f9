package promptfoo

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/suites"
)

// TestImportMappings imports a config that uses every mapping once and
// compares what it writes, file by file, with testdata/mappings.golden; the
// suite it writes must load.
func TestImportMappings(t *testing.T) {
	res, err := Import("testdata/mappings/promptfooconfig.yaml", Options{Out: "testdata/mappings"})
	assert.NilError(t, err)
	var names []string
	for name := range res.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		if strings.HasSuffix(name, ".cjs") || strings.HasSuffix(name, "checks/python.py") || strings.HasPrefix(name, "providers/") {
			continue // the runners, embedded as they are
		}
		b.WriteString("=== " + name + "\n")
		b.Write(res.Files[name])
	}
	golden.Assert(t, b.String(), "mappings.golden")

	out := t.TempDir()
	assert.NilError(t, os.CopyFS(out, os.DirFS("testdata/mappings")))
	writeFiles(t, out, res.Files)
	got := loadTasks(t, out, res)
	for k := range got {
		got[k] = ""
	}
	assert.DeepEqual(t, got, reportTasks(res))
}

// TestSheetKeptWhereItIs: a CSV sheet inside the output folder stays the
// source of its tests. Its suite reads it at every run and makes the tasks
// that copying its rows makes (the sheet outside the output folder), and a
// row added to the sheet is a task of the next load.
func TestSheetKeptWhereItIs(t *testing.T) {
	kept := t.TempDir()
	assert.NilError(t, os.CopyFS(kept, os.DirFS("testdata/mappings")))
	resKept, err := Import(filepath.Join(kept, "promptfooconfig.yaml"), Options{Out: kept})
	assert.NilError(t, err)
	assert.Check(t, resKept.Files["tests.suite.yaml"] != nil)
	writeFiles(t, kept, resKept.Files)

	copied := t.TempDir()
	resCopied, err := Import("testdata/mappings/promptfooconfig.yaml", Options{Out: copied})
	assert.NilError(t, err)
	assert.Check(t, resCopied.Files["tests.suite.yaml"] == nil)
	writeFiles(t, copied, resCopied.Files)
	assert.Check(t, slices.Contains(resCopied.Report.Mapped, Mapped{Location: "tests.csv", Type: "tests",
		To: "its rows, copied into evals/promptfoo.tests.jsonl: the sheet is outside the output folder, and the suite that reads it must sit beside it"}), "%+v", resCopied.Report.Mapped)

	// The same tests, prompt by prompt: the same input, bar and checks
	// (the program checks named from the sheet's folder).
	keptTasks, copiedTasks := loadTasks(t, kept, resKept), loadTasks(t, copied, resCopied)
	assert.Equal(t, len(keptTasks), len(copiedTasks))
	byTest := func(res *Result, tasks map[string]string) map[[2]int]string {
		m := map[[2]int]string{}
		for _, r := range res.Report.Tasks {
			m[[2]int{r.TestIdx, r.PromptIdx}] = tasks[r.SuiteID+" "+r.TaskID]
		}
		return m
	}
	want := byTest(resCopied, copiedTasks)
	for k, got := range byTest(resKept, keptTasks) {
		assert.Equal(t, strings.ReplaceAll(got, `"evals/checks/`, `"checks/`), want[k], "test %d, prompt %d", k[0], k[1])
	}

	// A row added to the sheet is three more tasks, one for each prompt.
	f, err := os.OpenFile(filepath.Join(kept, "tests.csv"), os.O_APPEND|os.O_WRONLY, 0)
	assert.NilError(t, err)
	_, err = f.WriteString("7,grade: is seven,,added,,\n")
	assert.NilError(t, err)
	assert.NilError(t, f.Close())
	loaded, err := suites.Load(filepath.Join(kept, "tests.suite.yaml"))
	assert.NilError(t, err)
	var added []*suites.Task
	for _, task := range loaded[0].Tasks {
		if strings.HasPrefix(task.ID, "tests-5-") {
			full, err := loaded[0].Full(task)
			assert.NilError(t, err)
			added = append(added, full)
		}
	}
	assert.Equal(t, len(added), 3)
	assert.Equal(t, added[0].Description, "added")
	assert.Equal(t, len(added[0].Expected.Rubric), 2, "the latency check and the grade: criterion")
}

// TestSheetSettings: a promptfoo dataset entry with bad settings, or on
// a file that is not a CSV sheet, is an error at its line.
func TestSheetSettings(t *testing.T) {
	for _, tc := range []struct{ entry, file, want string }{
		{`{prompt: 3}`, "t.csv", "promptfoo: prompt: expected the prompt, a text or a list of chat messages"},
		{`{prompt: hi, extra: 1}`, "t.csv", `promptfoo: unknown key "extra"; expected prompt, defaultTest, messages, config and checks`},
		{`{prompt: hi, defaultTest: {vars: {x: [1, 2]}}}`, "t.csv", `promptfoo: defaultTest: the var "x" is a list`},
		{`{prompt: hi}`, "t.jsonl", `promptfoo: expected the entry's file to be a .csv sheet, got "t.jsonl"`},
	} {
		dir := t.TempDir()
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "t.csv"), []byte("q,__expected\nhi,hi\n"), 0o644))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte(`{"q":"hi"}`+"\n"), 0o644))
		suite := "suiteId: a.evals.b\nversion: 1.0.0\nmodes: [golden]\ndatasets:\n  - file: " + tc.file + "\n    promptfoo: " + tc.entry + "\n    task: {taskId: \"t-{row.line}\", input: \"{row.input}\", expected: \"{row.expected}\"}\n"
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(suite), 0o644))
		_, err := suites.Load(filepath.Join(dir, "s.yaml"))
		assert.ErrorContains(t, err, "s.yaml:6:")
		assert.ErrorContains(t, err, tc.want)
	}
}

// writeFiles writes an import's files into dir.
func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		assert.NilError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
}

// loadTasks loads the suites the first project file of an import written
// into dir lists, and returns each task, as "suite task", with its input,
// bar and expectation as JSON.
func loadTasks(t *testing.T, dir string, res *Result) map[string]string {
	t.Helper()
	project := res.Files["evalgate.yaml"]
	m := regexp.MustCompile(`suites: \[(.*)\]`).FindSubmatch(project)
	assert.Assert(t, m != nil, "%s", project)
	var paths []string
	for _, p := range strings.Split(string(m[1]), ", ") {
		paths = append(paths, filepath.Join(dir, p))
	}
	loaded, err := suites.Load(paths...)
	assert.NilError(t, err)
	out := map[string]string{}
	for _, s := range loaded {
		for _, task := range s.Tasks {
			full, err := s.Full(task)
			assert.NilError(t, err)
			// The row the program checks read, but for its id or line.
			var row map[string]any
			assert.NilError(t, json.Unmarshal(full.Vars, &row))
			delete(row, "id")
			delete(row, "line")
			b, err := json.Marshal([]any{full.Input, s.PassBar(full.PassScore), full.Expected, row})
			assert.NilError(t, err)
			// Where a check is written, and the folder it runs in, are
			// the suite file's.
			var v any
			assert.NilError(t, json.Unmarshal(b, &v))
			b, err = json.Marshal(withoutKeys(v, "Pos", "Dir"))
			assert.NilError(t, err)
			out[s.ID+" "+task.ID] = string(b)
		}
	}
	return out
}

// withoutKeys is v without the object members named keys, at any depth.
func withoutKeys(v any, keys ...string) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range keys {
			delete(x, k)
		}
		for k, e := range x {
			x[k] = withoutKeys(e, keys...)
		}
	case []any:
		for i, e := range x {
			x[i] = withoutKeys(e, keys...)
		}
	}
	return v
}

// reportTasks is the tasks an import's report lists for the first
// project file (evalgate.yaml), as loadTasks names them, with the JSON of
// what they hold left out.
func reportTasks(res *Result) map[string]string {
	out := map[string]string{}
	for _, r := range res.Report.Tasks {
		if r.Project == "evalgate.yaml" {
			out[r.SuiteID+" "+r.TaskID] = ""
		}
	}
	return out
}

// TestImportRefusesOtherFiles: a file that is not a promptfoo config is
// ErrNotPromptfoo, whatever else it is.
func TestImportRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"suite.yaml":  "suiteId: acme.evals.x\nversion: 1.0.0\nmodes: [golden]\ntasks: []\n",
		"compose.yml": "services:\n  web:\n    image: nginx\n",
		"list.yaml":   "- a\n- b\n",
		"broken.yaml": "prompts: [\n",
		"empty.yaml":  "",
	} {
		p := filepath.Join(dir, name)
		assert.NilError(t, os.WriteFile(p, []byte(content), 0o644))
		_, err := Import(p, Options{})
		assert.Assert(t, errors.Is(err, ErrNotPromptfoo), "%s: %v", name, err)
	}
}

// TestRunners runs the JavaScript and Python runners the way program
// checks do, with promptfoo's calling convention and its edge cases: a
// JavaScript assertion returning a string fails, a Python one returning
// None fails, a number passes at its threshold.
func TestRunners(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"javascript.cjs", "python.py"} {
		data, err := runners.ReadFile("runners/" + name)
		assert.NilError(t, err)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	for _, tc := range []struct {
		interp, file, code string
		args               []string
		want               string
	}{
		{"node", "a.inline.js", "output.includes(context.vars.word)", nil, `{"pass":true}`},
		{"node", "b.inline.js", "if (output.length > 3) {\n  return 0.7;\n}\nreturn 0;", []string{"0.5"}, `{"pass":true,"score":0.7}`},
		{"node", "c.inline.js", "0.3", []string{"0.5"}, `{"pass":false,"score":0.3}`},
		{"node", "d.inline.js", "'a string'", nil, `{"pass":false,"reason":"the assertion returned string, not a boolean, a number or a grading result"}`},
		{"node", "e.inline.js", "({pass: true, score: 0.9, reason: 'ok'})", nil, `{"pass":true,"score":0.9,"reason":"ok"}`},
		{"node", "f.js", "module.exports = async (output) => output.startsWith('hello');", nil, `{"pass":true}`},
		{"node", "g.inline.js", "null.x", nil, `{"pass":false,"reason":"the assertion threw: Cannot read properties of null (reading 'x')"}`},
		{"python3", "a.inline.py", "context['vars']['word'] in output", nil, `{"pass": true}`},
		{"python3", "b.inline.py", "if len(output) > 3:\n    return 0.7\nreturn 0", []string{"0.5"}, `{"pass": true, "score": 0.7}`},
		{"python3", "c.inline.py", "None", nil, `{"pass": false, "reason": "the assertion returned NoneType, not a bool, a number or a grading result"}`},
		{"python3", "d.py", "def get_assert(output, context):\n    return {'pass': False, 'score': 0, 'reason': 'no'}\n", nil, `{"pass": false, "score": 0.0, "reason": "no"}`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if _, err := exec.LookPath(tc.interp); err != nil {
				t.Skip(tc.interp + " is not installed")
			}
			runner, lang := "javascript.cjs", "javascript"
			if tc.interp == "python3" {
				runner, lang = "python.py", "python"
			}
			// Inline code comes in the row, with another assertion's before it.
			row := map[string]any{"id": "t", "vars": map[string]any{"word": "world"}, "code": map[string]any{lang: []string{"false", tc.code}}}
			args := []string{runner, "--inline", "1"}
			if !strings.Contains(tc.file, ".inline.") {
				assert.NilError(t, os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.code), 0o644))
				args = []string{runner, tc.file}
			}
			line, err := json.Marshal(map[string]any{"input": "q", "output": "hello world", "trace": []any{}, "vars": row})
			assert.NilError(t, err)
			req := string(line) + "\n"
			cmd := exec.Command(tc.interp, append(args, tc.args...)...)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(req + req)
			out, err := cmd.Output()
			assert.NilError(t, err)
			assert.Equal(t, string(out), tc.want+"\n"+tc.want+"\n")
		})
	}
}

// TestImportExecRunsInConfigFolder: promptfoo runs an exec: command in the
// config's folder, so the agent changes into it from the output folder.
func TestImportExecRunsInConfigFolder(t *testing.T) {
	root := t.TempDir()
	cfgDir := filepath.Join(root, "it's here")
	assert.NilError(t, os.MkdirAll(cfgDir, 0o755))
	cfg := filepath.Join(cfgDir, "promptfooconfig.yaml")
	assert.NilError(t, os.WriteFile(cfg, []byte("prompts: [hi]\nproviders: ['exec: python3 reply.py']\ntests: [{assert: [{type: contains, value: hi}]}]\n"), 0o644))

	res, err := Import(cfg, Options{Out: filepath.Join(root, "out")})
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(res.Files["evalgate.yaml"]), `plain: [/bin/sh, -c, "cd '../it'\\''s here' && exec python3 reply.py \"$(cat)\""]`), string(res.Files["evalgate.yaml"]))

	res, err = Import(cfg, Options{Out: cfgDir})
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(res.Files["evalgate.yaml"]), `plain: [/bin/sh, -c, "exec python3 reply.py \"$(cat)\""]`), string(res.Files["evalgate.yaml"]))
}

// TestContainsJSONRunner: contains-json finds a JSON object as promptfoo
// does: anywhere in the output, an unclosed one at the end closed, a bare
// array not counted.
func TestContainsJSONRunner(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	for _, name := range []string{"javascript.cjs", "contains-json.cjs"} {
		data, err := runners.ReadFile("runners/" + name)
		assert.NilError(t, err)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	cases := []struct {
		output string
		want   bool
	}{
		{`Here it is: {"a": 1} and more`, true},
		{`no JSON at all`, false},
		{`{}`, true},
		{`{"a": {"b": [1, 2]}`, true},
		{`{not json} then {"ok": true}`, true},
		{`{"a": }`, false},
		{`[1, 2, 3]`, false},
		{`{"a": "}"`, false},
	}
	var req strings.Builder
	var want strings.Builder
	for _, c := range cases {
		line, err := json.Marshal(map[string]any{"input": "q", "output": c.output, "trace": []any{}, "vars": map[string]any{}})
		assert.NilError(t, err)
		req.Write(line)
		req.WriteString("\n")
		want.WriteString(`{"pass":` + map[bool]string{true: "true", false: "false"}[c.want] + "}\n")
	}
	cmd := exec.Command("node", "javascript.cjs", "contains-json.cjs")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(req.String())
	out, err := cmd.Output()
	assert.NilError(t, err)
	assert.Equal(t, string(out), want.String())

	// With a schema: one of the objects found must validate.
	res, err := Import(writeConfig(t, `prompts: [hi]
providers: [echo]
tests:
  - assert:
      - type: contains-json
        value: {type: object, required: [n], properties: {n: {type: integer, minimum: 2}, tags: {type: array, items: {enum: [a, b]}}}, additionalProperties: false}
`), Options{})
	assert.NilError(t, err)
	var module []byte
	for name, data := range res.Files {
		if strings.HasPrefix(name, "evals/checks/contains-json-") {
			module = data
		}
	}
	assert.Assert(t, module != nil, "%v", res.Report.Unsupported)
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "contains-json-1.cjs"), module, 0o644))
	req.Reset()
	want.Reset()
	for _, c := range []struct {
		output string
		want   bool
	}{
		{`{"n": 1} then {"n": 3, "tags": ["a"]}`, true},
		{`{"n": 1}`, false},
		{`{"n": 2.5}`, false},
		{`{"n": 2, "tags": ["c"]}`, false},
		{`{"n": 2, "other": 1}`, false},
		{`{"m": 2}`, false},
	} {
		line, err := json.Marshal(map[string]any{"input": "q", "output": c.output, "trace": []any{}, "vars": map[string]any{}})
		assert.NilError(t, err)
		req.Write(line)
		req.WriteString("\n")
		want.WriteString(`{"pass":` + map[bool]string{true: "true", false: "false"}[c.want] + "}\n")
	}
	cmd = exec.Command("node", "javascript.cjs", "contains-json-1.cjs")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(req.String())
	out, err = cmd.Output()
	assert.NilError(t, err)
	assert.Equal(t, string(out), want.String())
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "promptfooconfig.yaml")
	assert.NilError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// TestImportNamesTheNearest: a misspelt test key or assertion type is
// reported with the one it is likely a misspelling of.
func TestImportNamesTheNearest(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "promptfooconfig.yaml")
	assert.NilError(t, os.WriteFile(config, []byte(`prompts: ["Answer: {{question}}"]
providers: [echo]
tests:
  - vars: {question: hi}
    asert: [{type: contains, value: hi}]
  - vars: {question: yo}
    assert: [{type: contians, value: yo}]
`), 0o644))
	res, err := Import(config, Options{Out: dir})
	assert.NilError(t, err)
	assert.DeepEqual(t, res.Report.Unsupported, []Unsupported{
		{Location: "tests[0].asert", Type: "asert", Reason: `evalgate has no counterpart for this test setting; did you mean "assert"?`},
	})
	var reasons []string
	for _, m := range res.Report.Mapped {
		if m.Location == "tests[1].assert[0]" {
			reasons = append(reasons, m.To)
		}
	}
	assert.DeepEqual(t, reasons, []string{`a check that fails ({"expr": "false"}): promptfoo does not know this assertion type and fails the test; did you mean "contains"?`})
}

// TestImportMissingConfig: a config that is not there, or not a file, is
// named with the reason in words, never a system call's.
func TestImportMissingConfig(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "promptfooconfig.yaml")
	_, err := Import(missing, Options{})
	assert.Error(t, err, "could not read "+missing+": no such file or directory")
	_, err = Import(dir, Options{})
	assert.Error(t, err, "could not read "+dir+": expected a promptfoo config (a regular file), found a folder; name a promptfoo config file, such as promptfooconfig.yaml")
}
