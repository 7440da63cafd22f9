package promptfoo

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/spelling"
)

// test is one promptfoo test after defaultTest is merged in.
type test struct {
	loc   string // where its assertions are: "tests[3]", "data.csv:4"
	index int    // its place among the tests promptfoo runs (testIdx)
	// raw is its place among the tests the config writes (scenario tests
	// after the others), which its task ids use.
	raw int
	// sheet and line are the CSV file (as the config names it) and the
	// line a test read from a CSV starts at.
	sheet       string
	line        int
	description string
	vars        map[string]any
	asserts     []assertion
	threshold   *float64
	options     map[string]any
	// prompts and providers are its filters (the prompts and providers
	// it runs with); set when it has them.
	prompts, providers             []string
	promptsFiltered, providersFilt bool
	// variant numbers, from 1, the tests one test's list vars make; 0
	// when it makes one.
	variant int
}

// assertion is one promptfoo assertion with its location.
type assertion struct {
	loc string
	raw map[string]any
	// set holds the assertions of an assert-set.
	set []assertion
}

// testOptions are the options of a test (or defaultTest) the import
// knows; the value says what becomes of each.
var testOptions = map[string]string{
	"transform":              "run before the test's checks, by the program-check runner of JavaScript assertions (evals/checks/javascript.cjs)",
	"postprocess":            "run before the test's checks, as transform",
	"prefix":                 "written before each prompt",
	"suffix":                 "written after each prompt",
	"disableVarExpansion":    "list vars kept as lists: one test",
	"disableDefaultAsserts":  "the test's own assertions only",
	"runSerially":            "nothing: the order tests run in does not change a verdict",
	"disableConversationVar": "nothing: evalgate has no _conversation var to leave out",
}

// defaultTestSetting reads defaultTest: its mapping, or the YAML or JSON
// file it names.
func (im *importer) defaultTestSetting(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	data, name, err := im.readRef(s)
	if err != nil {
		im.unsupported("defaultTest", "defaultTest", "could not read "+name+": "+err.Error())
		return nil
	}
	doc, err := im.decodeYAML(data)
	if err != nil {
		im.unsupported("defaultTest", "defaultTest", name+" is not YAML or JSON: "+err.Error())
		return nil
	}
	im.mapped("defaultTest", "defaultTest", "read from "+name)
	return doc
}

// tests reads the tests, from the config and the files it names, and the
// scenarios' tests after them, each with defaultTest merged in and its
// list vars expanded, in promptfoo's order.
func (im *importer) tests(v, def, scenarios any) []test {
	im.base = im.defaults(def)
	var raw []test
	switch x := v.(type) {
	case string:
		raw = im.testFile(x, "tests")
	case map[string]any:
		if p, ok := x["path"].(string); ok {
			raw = im.testFile(p, "tests.path")
		} else {
			im.unsupported("tests", "tests", "expected a list of tests or a file:// reference")
		}
	default:
		for i, t := range asList(v) {
			loc := fmt.Sprintf("tests[%d]", i)
			switch y := t.(type) {
			case string:
				raw = append(raw, im.testFile(y, loc)...)
			case map[string]any:
				if p, ok := y["path"].(string); ok {
					raw = append(raw, im.testFile(p, loc)...)
					continue
				}
				raw = append(raw, im.test(y, loc))
			default:
				im.unsupported(loc, "test", "expected a test or a file:// reference")
			}
		}
	}
	raw = append(raw, im.scenarios(scenarios)...)
	if len(raw) == 0 && scenarios == nil {
		raw = append(raw, test{loc: "defaultTest"})
	}
	var out []test
	for i, t := range raw {
		t.raw = i
		for _, e := range im.withDefaults(im.base, t) {
			e.index = len(out)
			out = append(out, e)
		}
	}
	return out
}

// scenarios reads promptfoo's scenarios: each entry of a scenario's
// config crossed with each of its tests.
func (im *importer) scenarios(v any) []test {
	var out []test
	for i, s := range asList(v) {
		loc := fmt.Sprintf("scenarios[%d]", i)
		sm, ok := s.(map[string]any)
		if !ok {
			im.unsupported(loc, "scenario", "expected an object with config and tests")
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(sm)) {
			if k != "config" && k != "tests" && k != "description" {
				im.unsupported(loc+"."+k, k, "evalgate has no counterpart for this scenario setting")
			}
		}
		tests, ok := sm["tests"].([]any)
		if !ok {
			// promptfoo's schema requires tests; it runs none of a
			// scenario without them.
			im.mapped(loc, "scenario", "nothing: promptfoo runs no test of a scenario without tests")
			continue
		}
		for j, c := range asList(sm["config"]) {
			cm, ok := c.(map[string]any)
			if !ok {
				im.unsupported(fmt.Sprintf("%s.config[%d]", loc, j), "scenario config", "expected an object with vars, assert and options")
				continue
			}
			data := im.test(cm, fmt.Sprintf("%s.config[%d]", loc, j))
			for k, t := range tests {
				tm, ok := t.(map[string]any)
				if !ok {
					im.unsupported(fmt.Sprintf("%s.tests[%d]", loc, k), "test", "expected a test")
					continue
				}
				one := im.test(tm, fmt.Sprintf("%s.tests[%d]", loc, k))
				one.vars = im.merged(data.vars, one.vars)
				one.options = im.merged(data.options, one.options)
				one.asserts = append(slices.Clone(data.asserts), one.asserts...)
				if one.threshold == nil {
					one.threshold = data.threshold
				}
				if one.description == "" {
					one.description = data.description
				}
				if !one.promptsFiltered {
					one.prompts, one.promptsFiltered = data.prompts, data.promptsFiltered
				}
				if !one.providersFilt {
					one.providers, one.providersFilt = data.providers, data.providersFilt
				}
				out = append(out, one)
			}
		}
		im.mapped(loc, "scenario", "one test for each entry of its config and each of its tests, as promptfoo makes them")
	}
	return out
}

// defaults reads defaultTest: the vars, assertions, threshold, options and
// filters every test starts from.
func (im *importer) defaults(def any) test {
	d, ok := def.(map[string]any)
	if !ok {
		return test{loc: "defaultTest"}
	}
	return im.test(d, "defaultTest")
}

// withDefaults merges defaultTest (base) into t and expands list vars, as
// promptfoo does: the tests t makes, one for each combination.
func (im *importer) withDefaults(base, t test) []test {
	options := im.merged(base.options, t.options)
	vars := im.merged(base.vars, t.vars)
	if b, _ := options["disableDefaultAsserts"].(bool); !b {
		t.asserts = append(slices.Clone(base.asserts), t.asserts...)
	}
	if t.threshold == nil {
		t.threshold = base.threshold
	}
	if !t.promptsFiltered {
		t.prompts, t.promptsFiltered = base.prompts, base.promptsFiltered
	}
	if !t.providersFilt {
		t.providers, t.providersFilt = base.providers, base.providersFilt
	}
	t.options = options
	all := []map[string]any{vars}
	if b, _ := options["disableVarExpansion"].(bool); !b {
		all = im.expand(vars, t.loc)
	}
	out := make([]test, 0, len(all))
	for k, vs := range all {
		tt := t
		tt.vars = vs
		if len(all) > 1 {
			tt.variant = k + 1
		}
		out = append(out, tt)
	}
	return out
}

// expand returns the combinations of vars promptfoo runs: each var that is
// a list of texts takes each of its values in turn (another list is one
// value), keys in the order the config wrote them; a file:// var with a
// glob takes each file it matches.
func (im *importer) expand(vars map[string]any, loc string) []map[string]any {
	out := []map[string]any{{}}
	keys := im.keyOrder(vars)
	for _, k := range keys {
		vals := []any{vars[k]}
		switch x := vars[k].(type) {
		case []any:
			if len(x) > 0 {
				if _, ok := x[0].(string); ok {
					vals = x
				}
			}
		case string:
			if ref, ok := strings.CutPrefix(x, "file://"); ok && strings.ContainsAny(ref, "*?[{") {
				p, _ := im.resolve(x)
				files, err := im.glob(p)
				if err != nil || len(files) == 0 {
					im.unsupported(loc+".vars."+k, "var", "its pattern matches no file inside the config's repository")
					break
				}
				vals = nil
				for _, f := range files {
					rel, err := filepath.Rel(im.dir, f)
					if err != nil {
						rel = f
					}
					vals = append(vals, "file://"+rel)
				}
			}
		}
		var next []map[string]any
		for _, o := range out {
			for _, val := range vals {
				m := make(map[string]any, len(o)+1)
				for kk, vv := range o {
					m[kk] = vv
				}
				m[k] = val
				next = append(next, m)
			}
		}
		out = next
	}
	for _, m := range out {
		im.setOrder(m, keys)
	}
	return out
}

func (im *importer) test(m map[string]any, loc string) test { return im.testAt(m, loc, im.dir) }

// testKeys are the keys of a test the import reads, the nearest of which
// a key it does not know is likely a misspelling of.
var testKeys = []string{"assert", "description", "metadata", "options", "prompts", "provider", "providers", "threshold", "vars"}

// testAt reads a test of a file in the folder dir, which its vars files
// (vars: file://…) are relative to, as promptfoo reads them.
func (im *importer) testAt(m map[string]any, loc, dir string) test {
	t := test{loc: loc}
	t.description, _ = m["description"].(string)
	switch v := m["vars"].(type) {
	case map[string]any:
		t.vars = v
	case string, []any:
		t.vars = im.varsFiles(v, loc, dir)
	}
	t.asserts = im.assertList(m["assert"], loc)
	if th, ok := number(m["threshold"]); ok {
		t.threshold = &th
	}
	if o, ok := m["options"].(map[string]any); ok {
		t.options = map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(o)) {
			to, known := testOptions[k]
			switch {
			case known:
				t.options[k] = o[k]
				im.mapped(loc+".options."+k, k, to)
			case k == "provider" || k == "rubricPrompt":
				im.unsupported(loc+".options."+k, k, "the grader's model and prompt are evalgate's judge settings (judge in evalgate.yaml)")
			default:
				im.unsupported(loc+".options."+k, k, "evalgate has no counterpart for this test option")
			}
		}
	}
	for _, k := range []string{"prompts", "providers"} {
		if m[k] == nil {
			continue
		}
		var list []string
		for _, x := range asList(m[k]) {
			if s, ok := x.(string); ok {
				list = append(list, s)
			}
		}
		if k == "prompts" {
			t.prompts, t.promptsFiltered = list, true
		} else {
			t.providers, t.providersFilt = list, true
		}
		im.mapped(loc+"."+k, k, "the tasks of the "+k+" it names only")
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch k {
		case "description", "vars", "assert", "threshold", "options", "prompts", "providers":
		case "metadata":
			im.mapped(loc+".metadata", "metadata", "nothing: metadata filters promptfoo's runs, it does not score")
		case "provider":
			im.unsupported(loc+".provider", "provider", "a test's own provider is not imported: its tasks run with the project file's agent")
		default:
			why := "evalgate has no counterpart for this test setting"
			if near := spelling.Nearest(k, testKeys, max(1, len(k)/3)); near != "" {
				why += fmt.Sprintf("; did you mean %q?", near)
			}
			im.unsupported(loc+"."+k, k, why)
		}
	}
	return t
}

// varsFiles reads a test's vars from the YAML files it names, relative to
// dir, merged.
func (im *importer) varsFiles(v any, loc, dir string) map[string]any {
	out := map[string]any{}
	for _, x := range asList(v) {
		s, ok := x.(string)
		if !ok {
			continue
		}
		p := strings.TrimPrefix(s, "file://")
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		files, err := im.glob(p)
		if err != nil || len(files) == 0 {
			im.unsupported(loc+".vars", "vars", "could not read "+s+": no file inside the config's repository")
			continue
		}
		for _, f := range files {
			data, name, err := im.readFile(f, f)
			if err != nil {
				im.unsupported(loc+".vars", "vars", "could not read "+name+": "+err.Error())
				continue
			}
			doc, err := im.decodeYAML(data)
			m, ok := doc.(map[string]any)
			if err != nil || !ok {
				im.unsupported(loc+".vars", "vars", name+" is not a YAML mapping of vars")
				continue
			}
			out = im.merged(out, m)
		}
	}
	return out
}

func (im *importer) assertList(v any, loc string) []assertion {
	list, _ := v.([]any)
	var out []assertion
	for j, a := range list {
		m, ok := a.(map[string]any)
		sep := "." // tests[3].assert[0]; a test in a file: tests.jsonl:4:assert[0]
		if strings.Contains(loc, ":") && !strings.Contains(loc, "[") {
			sep = ":"
		}
		aloc := fmt.Sprintf("%s%sassert[%d]", loc, sep, j)
		if !ok {
			im.unsupported(aloc, "assertion", "expected an assertion object")
			continue
		}
		if m["type"] == "assert-set" {
			out = append(out, assertion{loc: aloc, raw: m, set: im.assertList(m["assert"], aloc)})
			continue
		}
		out = append(out, assertion{loc: aloc, raw: m})
	}
	return out
}

// testFile reads tests from the files a reference names, as promptfoo
// does: a CSV, JSON Lines, JSON or YAML file, or a glob of them.
func (im *importer) testFile(ref, loc string) []test {
	name := strings.TrimPrefix(ref, "file://")
	switch {
	case strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "huggingface://") || strings.HasPrefix(ref, "az://"):
		im.unsupported(loc, "tests", "tests fetched from the network are not imported: save them in a file in the repository")
		return nil
	}
	base := name
	if i := strings.LastIndex(base, ":"); i > 1 {
		base = base[:i]
	}
	switch strings.ToLower(filepath.Ext(base)) {
	case ".js", ".cjs", ".mjs", ".ts", ".py":
		im.unsupported(loc, "tests", "tests a program generates ("+filepath.Base(base)+") are not imported: run it once and save its tests in a YAML or JSON Lines file")
		return nil
	case ".xlsx", ".xls":
		im.unsupported(loc, "tests", "an Excel file of tests is not imported: save it as CSV")
		return nil
	}
	p, _ := im.resolve(ref)
	files := []string{p}
	if strings.ContainsAny(name, "*?[{") {
		var err error
		if files, err = im.glob(p); err != nil || len(files) == 0 {
			im.unsupported(loc, "tests", "the pattern "+name+" matches no file inside the config's repository")
			return nil
		}
	}
	var out []test
	for _, f := range files {
		shown := name
		if len(files) > 1 || f != p {
			if rel, err := filepath.Rel(im.dir, f); err == nil {
				shown = filepath.ToSlash(rel)
			}
		}
		out = append(out, im.oneTestFile(f, shown, loc)...)
	}
	return out
}

func (im *importer) oneTestFile(p, name, loc string) []test {
	data, _, err := im.readFile(p, name)
	if err != nil {
		im.unsupported(name, "tests", "could not read the file: "+err.Error())
		return nil
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return im.csvTests(name, data)
	case ".jsonl":
		var out []test
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			doc, err := im.decodeYAML(line)
			m, ok := doc.(map[string]any)
			if err != nil || !ok {
				im.unsupported(fmt.Sprintf("%s:%d", name, i+1), "test", "not a JSON object")
				continue
			}
			out = append(out, im.testAt(im.loadRefs(m, 0).(map[string]any), fmt.Sprintf("%s:%d", name, i+1), filepath.Dir(p)))
		}
		return out
	case ".json", ".yaml", ".yml":
		doc, err := im.decodeYAML(data)
		if err != nil {
			im.unsupported(name, "tests", "expected a list of tests: "+err.Error())
			return nil
		}
		list, ok := doc.([]any)
		if m, isMap := doc.(map[string]any); isMap {
			list, ok = []any{m}, true
		}
		if !ok {
			im.unsupported(name, "tests", "expected a list of tests")
			return nil
		}
		var out []test
		for i, x := range list {
			m, ok := im.loadRefs(x, 0).(map[string]any)
			if !ok {
				im.unsupported(fmt.Sprintf("%s[%d]", name, i), "test", "expected a test")
				continue
			}
			out = append(out, im.testAt(m, fmt.Sprintf("%s[%d]", name, i), filepath.Dir(p)))
		}
		return out
	}
	im.unsupported(name, "tests", "expected a .csv, .jsonl, .json or .yaml file of tests")
	return nil
}

// loadRefs is promptfoo's maybeLoadConfigFromExternalFile on a test read
// from a file: a file:// value is the file's content (parsed, for JSON and
// YAML), except vars (read as the prompt is rendered) and the code of
// JavaScript and Python assertions.
func (im *importer) loadRefs(v any, depth int) any {
	if depth > 64 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if k == "vars" {
				continue
			}
			if k == "value" && (x["type"] == "javascript" || x["type"] == "python" || x["type"] == "not-javascript" || x["type"] == "not-python") {
				continue
			}
			x[k] = im.loadRefs(x[k], depth+1)
		}
	case []any:
		for i := range x {
			x[i] = im.loadRefs(x[i], depth+1)
		}
	case string:
		if !strings.HasPrefix(x, "file://") {
			return x
		}
		ext := strings.ToLower(filepath.Ext(x))
		if ext == ".js" || ext == ".py" || strings.Count(x, ":") > 1 {
			return x
		}
		if loaded, ok := im.fileValue(x); ok {
			return loaded
		}
	}
	return v
}

// fileValue is the content of the file a value names: parsed for JSON and
// YAML, the text for others.
func (im *importer) fileValue(ref string) (any, bool) {
	data, _, err := im.readRef(ref)
	if err != nil {
		return nil, false
	}
	switch strings.ToLower(filepath.Ext(ref)) {
	case ".json", ".yaml", ".yml":
		doc, err := im.decodeYAML(data)
		if err != nil {
			return nil, false
		}
		return doc, true
	}
	return string(data), true
}

// csvTests reads a promptfoo CSV of tests: columns are vars, except
// __expected* (an assertion each), __description, __metadata:* and other
// columns promptfoo reserves.
func (im *importer) csvTests(name string, data []byte) []test {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		im.unsupported(name, "tests", "not a CSV file with a header row")
		return nil
	}
	var out []test
	for row := 2; ; row++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			im.unsupported(fmt.Sprintf("%s:%d", name, row), "test", "invalid CSV: "+err.Error())
			break
		}
		line, _ := r.FieldPos(0)
		out = append(out, im.csvTest(name, header, rec, line, func(i int) int { _, col := r.FieldPos(i); return col }))
	}
	return out
}

// csvTest reads the row of a CSV of tests that starts at line; col gives
// a cell's column, for the report.
func (im *importer) csvTest(name string, header, rec []string, line int, col func(int) int) test {
	t := test{loc: fmt.Sprintf("%s:%d", name, line), sheet: name, line: line, vars: map[string]any{}}
	var keys []string
	metric := ""
	thresholds := map[int]float64{} // __config:__expectedN:threshold, by assertion
	for i, h := range header {
		if i >= len(rec) {
			break
		}
		h = strings.TrimSpace(h)
		cell := rec[i]
		loc := fmt.Sprintf("%s:%d:%d", name, line, col(i))
		switch {
		case strings.HasPrefix(h, "__expected"):
			if strings.TrimSpace(cell) != "" {
				t.asserts = append(t.asserts, assertion{loc: loc, raw: expectedAssertion(strings.TrimSpace(cell))})
			}
		case h == "__description":
			t.description = cell
		case h == "__prefix" || h == "__suffix":
			if t.options == nil {
				t.options = map[string]any{}
			}
			t.options[strings.TrimPrefix(h, "__")] = cell
		case h == "__metric":
			metric = cell
		case h == "__threshold":
			if f := parseNumberPrefix(cell, false); !isNaN(f) && strings.TrimSpace(cell) != "" {
				t.threshold = &f
			}
		case strings.HasPrefix(h, "__config:"):
			parts := strings.Split(strings.TrimPrefix(h, "__config:"), ":")
			k := -1
			if len(parts) == 2 && parts[1] == "threshold" {
				if parts[0] == "__expected" {
					k = 0
				} else if n, err := strconv.Atoi(strings.TrimPrefix(parts[0], "__expected")); err == nil && n >= 1 && strings.HasPrefix(parts[0], "__expected") {
					k = n - 1
				}
			}
			f := parseNumberPrefix(cell, false)
			if k < 0 || isNaN(f) {
				im.unsupported(loc, h, "expected __config:__expected<N>:threshold and a number, as promptfoo reads it")
				continue
			}
			thresholds[k] = f
		case strings.HasPrefix(h, "__metadata"):
			// Metadata filters promptfoo's runs; it does not score.
		case strings.HasPrefix(h, "__"):
			if cell != "" {
				im.unsupported(loc, h, "this promptfoo column has no evalgate counterpart")
			}
		default:
			t.vars[h] = cell
			keys = append(keys, h)
		}
	}
	for i, a := range t.asserts {
		if metric != "" {
			a.raw["metric"] = metric
		}
		if th, ok := thresholds[i]; ok {
			a.raw["threshold"] = th
		}
	}
	im.setOrder(t.vars, keys)
	return t
}

// expectedAssertion reads an __expected cell as promptfoo's
// assertionFromString does: "type: value" for the types promptfoo reads
// there, else an equals.
func expectedAssertion(cell string) map[string]any {
	for _, prefix := range []string{"javascript", "fn", "eval", "python", "grade", "llm-rubric", "similar", "regex", "icontains-any", "icontains-all", "contains-any", "contains-all", "icontains", "contains", "starts-with", "equals", "is-json", "contains-json", "not-contains", "not-icontains", "not-regex", "not-equals", "not-starts-with", "not-is-json", "not-contains-any", "not-contains-all", "not-icontains-any", "not-icontains-all", "levenshtein", "word-count"} {
		if rest, ok := strings.CutPrefix(cell, prefix+":"); ok {
			typ := prefix
			switch prefix {
			case "fn", "eval":
				typ = "javascript"
			case "grade":
				typ = "llm-rubric"
			}
			val := any(strings.TrimSpace(rest))
			if strings.HasSuffix(typ, "-any") || strings.HasSuffix(typ, "-all") {
				var list []any
				for _, s := range strings.Split(rest, ",") {
					list = append(list, strings.TrimSpace(s))
				}
				val = list
			}
			return map[string]any{"type": typ, "value": val}
		}
	}
	if cell == "is-json" || cell == "not-is-json" || cell == "contains-json" || cell == "not-contains-json" {
		return map[string]any{"type": cell}
	}
	return map[string]any{"type": "equals", "value": cell}
}

// loadVarFiles is what promptfoo does with a var that names a file
// (file://x) as it renders a prompt: the file's text, trimmed; a YAML
// file's data as JSON. why names each var it could not read.
func (im *importer) loadVarFiles(vars map[string]any) (map[string]any, []string) {
	var out map[string]any
	var why []string
	for _, k := range im.keyOrder(vars) {
		s, ok := vars[k].(string)
		if !ok || !strings.HasPrefix(s, "file://") {
			continue
		}
		if out == nil {
			out = im.merged(vars, nil)
		}
		ext := strings.ToLower(filepath.Ext(s))
		switch ext {
		case ".js", ".cjs", ".mjs", ".ts", ".py":
			why = append(why, k+": a var a program computes ("+filepath.Base(s)+") is not imported")
			continue
		case ".pdf", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tiff", ".svg", ".mp3", ".wav", ".mp4", ".m4a", ".ogg", ".webm", ".mov", ".flac":
			data, name, err := im.readRef(s)
			if err != nil {
				why = append(why, k+": could not read "+name+": "+err.Error())
				continue
			}
			if ext == ".pdf" {
				why = append(why, k+": a PDF's text is not extracted")
				continue
			}
			out[k] = mediaVar(ext, data)
			continue
		}
		data, name, err := im.readRef(s)
		if err != nil {
			why = append(why, k+": could not read "+name+": "+err.Error())
			continue
		}
		if ext == ".yaml" || ext == ".yml" {
			doc, err := im.decodeYAML(data)
			if err != nil {
				why = append(why, k+": "+name+" is not YAML: "+err.Error())
				continue
			}
			out[k] = compactJSON(im.ordered(doc, 0))
			continue
		}
		out[k] = strings.TrimFunc(string(data), isJSSpace)
	}
	if out == nil {
		return vars, why
	}
	return out, why
}

// mediaVar is an image as promptfoo gives it to a prompt (a data URL),
// or other media as base64.
func mediaVar(ext string, data []byte) string {
	b64 := base64.StdEncoding.EncodeToString(data)
	mime := map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".bmp": "image/bmp", ".tiff": "image/tiff", ".svg": "image/svg+xml"}[ext]
	if mime == "" {
		return b64
	}
	return "data:" + mime + ";base64," + b64
}

// ordered is v with its maps as orderedObjects in the config's key order,
// for JSON written as promptfoo writes it.
func (im *importer) ordered(v any, depth int) any {
	if depth > 256 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		o := orderedObject{}
		for _, k := range im.keyOrder(x) {
			o.keys = append(o.keys, k)
			o.vals = append(o.vals, im.ordered(x[k], depth+1))
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = im.ordered(e, depth+1)
		}
		return out
	}
	return norm(v)
}

func isNaN(f float64) bool { return f != f }
