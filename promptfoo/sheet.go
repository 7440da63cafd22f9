package promptfoo

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/suites"
)

// A sheet is a CSV file of tests the config names (tests: file://x.csv).
// The import keeps it where it is: its suite, written beside it, reads its
// rows at every run through a dataset with a promptfoo member (Sheet), so
// a row added to the sheet is a task of the next run (docs/suites.md).

// sheetSuite is the suite of a sheet kept where it is.
type sheetSuite struct {
	name    string // the sheet as the config names it
	path    string // the suite file, relative to the output folder, with slashes
	suiteID string
	prefix  string // of its task ids: prefix-LINE
	config  string // the config's folder, relative to the suite's folder
	checks  string // the program checks' folder, relative to the suite's folder
}

// sheets decides which CSV sheets of tests keep their rows where they are:
// those inside the output folder (a suite's dataset is a file inside the
// suite's folder) whose rows make one test each. The rows of the others
// are copied into the suite's JSON Lines dataset, and the report says why.
func (im *importer) sheets(prompts []prompt, tests []test) map[string]*sheetSuite {
	out := map[string]*sheetSuite{}
	decided := map[string]bool{}
	absOut, err := filepath.Abs(im.out)
	if err != nil {
		return out
	}
	// Why no sheet can keep its rows, whichever it is; "" when one can.
	why := im.promptsSafe(prompts)
	for _, v := range im.base.vars {
		if _, ok := v.([]any); ok {
			why = "defaultTest has list vars, which make several tests of each row"
		}
	}
	if im.base.promptsFiltered || im.base.providersFilt {
		why = "defaultTest filters the prompts or providers its tests run with"
	}
	for _, t := range tests {
		if t.sheet == "" || decided[t.sheet] {
			continue
		}
		decided[t.sheet] = true
		copied := func(why string) {
			im.mapped(t.sheet, "tests", "its rows, copied into "+rowsFile+": "+why)
		}
		if why != "" {
			copied(why)
			continue
		}
		abs, err := filepath.Abs(filepath.Join(im.dir, t.sheet))
		if filepath.IsAbs(t.sheet) {
			abs, err = t.sheet, nil
		}
		rel, rerr := filepath.Rel(absOut, abs)
		if err != nil || rerr != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			copied("the sheet is outside the output folder, and the suite that reads it must sit beside it")
			continue
		}
		rel = filepath.ToSlash(rel)
		base := slug(strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
		dir := filepath.Dir(abs)
		sh := &sheetSuite{
			name:    t.sheet,
			path:    path.Join(path.Dir(rel), base+".suite.yaml"),
			suiteID: im.suiteID + "-" + base,
			prefix:  base,
			config:  relSlash(dir, im.dir),
			checks:  relSlash(dir, filepath.Join(absOut, "evals", checksDir)),
		}
		im.mapped(t.sheet, "tests", "a dataset of "+sh.path+", which reads the sheet where it is at every run")
		out[t.sheet] = sh
	}
	return out
}

// promptsSafe says why a sheet's suite may not render one of prompts as
// its rows load; "" when it may render them all.
func (im *importer) promptsSafe(prompts []prompt) string {
	for p, pr := range prompts {
		if why := templateSafe(pr.raw); why != "" {
			return fmt.Sprintf("prompts[%d] is left as written: %s", p, why)
		}
	}
	return ""
}

// templateSafe says why a template is not in the subset the import and a
// sheet's suite render; "" when it is.
func templateSafe(s string) string {
	if doc, ok := parseOrdered(s); ok {
		var why string
		walkStrings(doc, func(t string) {
			if why == "" {
				why = templateSafe(t)
			}
		})
		return why
	}
	if partialTags(s) || !strings.Contains(s, "{{") && !strings.Contains(s, "{%") && !strings.Contains(s, "{#") {
		return ""
	}
	if _, err := compileTemplate(s); err != nil {
		return err.Error()
	}
	return ""
}

func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case orderedObject:
		for _, e := range x.vals {
			walkStrings(e, f)
		}
	}
}

// relSlash is target relative to dir, with slashes; target made absolute
// when it cannot be relative.
func relSlash(dir, target string) string {
	absDir, err1 := filepath.Abs(dir)
	abs, err2 := filepath.Abs(target)
	rel, err3 := filepath.Rel(absDir, abs)
	if err1 != nil || err2 != nil || err3 != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// sheetTaskID is the id of the task of the test at line of a sheet with
// the p-th of n prompts; line is a number, or the template's {row.line}.
func sheetTaskID(prefix, line string, p, n int) string {
	id := prefix + "-" + line
	if n > 1 {
		id += fmt.Sprintf("-p%d", p)
	}
	return id
}

// suite is the sheet's suite file: a dataset of the sheet for each prompt.
func (sh *sheetSuite) suite(prompts []prompt, allowed []int, defaultTest any, messages bool, suiteID string) []byte {
	js := func(v any) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // "<" stays "<" in a YAML file a person reads
		enc.Encode(v)
		return strings.TrimSuffix(b.String(), "\n")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Imported from a promptfoo config by evalgate import promptfoo: each row of\n# %s is a test, read where it is at every run (see import-report.json).\n", path.Base(sh.name))
	fmt.Fprintf(&b, "suiteId: %s\nversion: 1.0.0\nmodes: [golden, rubric]\ndatasets:\n", suiteID)
	for _, p := range allowed {
		text := prompts[p].raw
		id := sheetTaskID(sh.prefix, "{row.line}", p, len(prompts))
		fmt.Fprintf(&b, "  - file: %s\n    promptfoo:\n      prompt: %s\n", js(path.Base(sh.name)), js(text))
		if d, ok := defaultTest.(map[string]any); ok {
			// What a test takes from it; the import reported the rest.
			kept := map[string]any{}
			for _, k := range []string{"vars", "assert", "threshold", "options"} {
				if v, ok := d[k]; ok {
					kept[k] = v
				}
			}
			fmt.Fprintf(&b, "      defaultTest: %s\n", js(kept))
		}
		if messages {
			b.WriteString("      messages: true\n")
		}
		fmt.Fprintf(&b, "      config: %s\n      checks: %s\n", js(sh.config), js(sh.checks))
		fmt.Fprintf(&b, "    task:\n      taskId: %s\n      description: \"{row.description}\"\n      input: \"{row.input}\"\n      passScore: \"{row.passScore}\"\n      expected: \"{row.expected}\"\n", js(id))
	}
	return []byte(b.String())
}

// Sheet reads the rows of a promptfoo CSV sheet of tests as the import
// maps them, for a suite's dataset that has a promptfoo member: each row
// is a test with defaultTest merged in, the prompt rendered with its vars
// and its __expected cells mapped to checks. Row gives the dataset row the
// task template reads: line, description, input, passScore, expected,
// vars and code. A Sheet may be used by several goroutines.
type Sheet struct {
	mu     sync.Mutex
	im     *importer
	name   string
	prompt prompt
	// messages is set when a chat prompt is the agent's list of messages.
	messages bool
}

// NewSheet reads a dataset's promptfoo member: prompt (a text or chat
// messages), defaultTest (as promptfoo writes it), config (the folder of
// the promptfoo config, which file:// references are relative to) and
// checks (the folder of the import's program checks), both relative to
// dir, the suite's folder. name is the sheet's file, as errors show it.
func NewSheet(settings map[string]any, dir, name string) (*Sheet, error) {
	for k := range settings {
		switch k {
		case "prompt", "defaultTest", "config", "checks", "messages":
		default:
			return nil, fmt.Errorf("unknown key %q; expected prompt, defaultTest, messages, config and checks", k)
		}
	}
	cfgDir := dir
	if c, ok := settings["config"].(string); ok && c != "" {
		cfgDir = filepath.Join(dir, filepath.FromSlash(c))
	}
	im := newImporter(cfgDir)
	im.quiet = true
	im.fixedSteps = sheetSteps
	// A row's vars make one test, in the sheet's column order: the order
	// of keys, kept for the tests list vars make, is not needed, and a
	// sheet of many rows must not grow a table of it.
	im.order = nil
	if c, ok := settings["checks"].(string); ok && c != "" {
		im.checks = c
	}
	s := &Sheet{im: im, name: name}
	s.messages, _ = settings["messages"].(bool)
	switch p := settings["prompt"].(type) {
	case string:
		s.prompt.raw = p
	case []any:
		// A list of chat messages, as an earlier import wrote it.
		for _, m := range p {
			if _, ok := m.(map[string]any); !ok {
				return nil, errors.New("prompt: expected a text or a list of chat messages, each an object with role and content")
			}
		}
		s.prompt.raw = compactJSON(p)
	default:
		return nil, errors.New("prompt: expected the prompt, a text or a list of chat messages")
	}
	if why := templateSafe(s.prompt.raw); why != "" {
		return nil, fmt.Errorf("prompt: %s; a sheet's prompt may use only the template subset the import renders (docs/migrating-from-promptfoo.md), so that rows load in time linear in their size", why)
	}
	if d := settings["defaultTest"]; d != nil {
		if _, ok := d.(map[string]any); !ok {
			return nil, errors.New("defaultTest: expected an object with vars, assert, threshold and options, as promptfoo writes it")
		}
		im.base = im.defaults(d)
		for k, v := range im.base.vars {
			if _, ok := v.([]any); ok {
				return nil, fmt.Errorf("defaultTest: the var %q is a list, which would make several tests of each row; write these tests in a JSON Lines dataset", k)
			}
		}
	}
	return s, nil
}

// Row maps the cells of the row at line (header names the columns). The
// error is a row whose prompt does not render within its budget (the
// limit for a task made from a row).
func (s *Sheet) Row(header, cells []string, line int) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.im.withDefaults(s.im.base, s.im.csvTest(s.name, header, cells, line, func(int) int { return 0 }))[0]
	expected, code := s.im.expected(t)
	row, err := s.im.row(t, s.prompt, expected, code, s.messages)
	if err != nil {
		return nil, fmt.Errorf("the prompt could not be written with this row's vars: %w", err)
	}
	row["line"] = line
	return row, nil
}

func init() {
	suites.RegisterRows("promptfoo", func(settings map[string]any, dir, file string) (suites.RowReader, error) {
		return NewSheet(settings, dir, file)
	})
}
