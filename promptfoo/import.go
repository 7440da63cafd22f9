package promptfoo

import (
	"bytes"
	"embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/internal/inputfile"
)

// MaxConfigBytes bounds the config file and each file it names.
const MaxConfigBytes = 64 << 20

// ErrNotPromptfoo is the error of a file that is not a promptfoo config.
var ErrNotPromptfoo = errors.New("not a promptfoo config")

//go:embed runners/javascript.cjs runners/contains-json.cjs runners/python.py runners/provider.py runners/provider.cjs
var runners embed.FS

// Result is what an import writes: Files by path relative to the output
// folder, and the report, which Files also holds as import-report.json.
type Result struct {
	Files  map[string][]byte
	Report Report
}

// Report says what the import did: the tasks it made, each assertion it
// mapped and each part it could not.
type Report struct {
	Tasks       []TaskRef     `json:"tasks"`
	Mapped      []Mapped      `json:"mapped"`
	Unsupported []Unsupported `json:"unsupported"`
}

// TaskRef is one task made from a test and a prompt. TestIdx counts the
// tests as promptfoo does, after defaultTest is merged and list vars are
// expanded, so it names the same test as promptfoo's results.
type TaskRef struct {
	SuiteID   string `json:"suiteId"`
	TaskID    string `json:"taskId"`
	TestIdx   int    `json:"testIdx"`
	PromptIdx int    `json:"promptIdx"`
	Provider  string `json:"provider"`
}

// Mapped is a part of the config and what it became.
type Mapped struct {
	Location string `json:"location"`
	Type     string `json:"type"`
	To       string `json:"to"`
}

// Unsupported is a part of the config the import could not carry over.
type Unsupported struct {
	Location string `json:"location"`
	Type     string `json:"type"`
	Reason   string `json:"reason"`
}

// importer holds one import's state.
type importer struct {
	dir     string // the config's folder
	out     string // the folder the files are written into
	files   map[string][]byte
	rep     Report
	suiteID string
	// codes are the program-check files written, by language and file, so
	// assertions of the same file share a program.
	codes map[string]string
	// cur is the inline code of the test being mapped, by language: the
	// row carries it to the runner.
	cur  map[string][]string
	seen map[string]bool // locations reported as mapped
	// judged is set when an assertion became a criterion a judge decides.
	judged bool
	// base is defaultTest, as every test starts from it, and defaultTest
	// its setting as the config writes it.
	base        test
	defaultTest any
	// checks is where the suite's program checks are, relative to the
	// suite's folder: "checks" for evals/, another for a sheet's suite.
	checks string
	// quiet is set when the importer maps a sheet's rows for a run
	// (Sheet): nothing is reported or written.
	quiet bool
}

// test is one promptfoo test after defaultTest is merged in.
type test struct {
	loc   string // where its assertions are: "tests[3]", "data.csv:4"
	index int
	// sheet and line are the CSV file (as the config names it) and the
	// line a test read from a CSV starts at.
	sheet       string
	line        int
	description string
	vars        map[string]any
	asserts     []assertion
	threshold   *float64
	// variant numbers, from 1, the tests one test's array vars make; 0
	// when it makes one.
	variant int
}

// assertion is one promptfoo assertion with its location.
type assertion struct {
	loc string
	raw map[string]any
	// set holds the assertions of an assert-set with a threshold, which
	// becomes one check.
	set []assertion
}

// textChecks reports whether every assertion maps to an expression that
// cannot fail to evaluate, so an assert-set of them can be one expression.
func textChecks(as []assertion) bool {
	for _, a := range as {
		typ, _ := a.raw["type"].(string)
		switch strings.TrimPrefix(typ, "not-") {
		case "equals", "contains", "icontains", "starts-with", "regex",
			"contains-any", "contains-all", "icontains-any", "icontains-all":
		default:
			return false
		}
		if a.set != nil {
			return false
		}
	}
	return true
}

// Options configure Import.
type Options struct {
	// Out is the folder the files will be written into, which the
	// project files' paths to the config's own files (a script
	// provider) are relative to; "" for the current folder.
	Out string
}

// Import reads the promptfoo config at path and returns the files to
// write. A file that is not a promptfoo config is ErrNotPromptfoo.
func Import(path string, opts Options) (*Result, error) {
	data, err := inputfile.Read(path, MaxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("could not read %s: %w", path, err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", path, ErrNotPromptfoo, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if cfg == nil {
		return nil, fmt.Errorf("%s: %w: expected a YAML mapping with prompts, providers and tests", path, ErrNotPromptfoo)
	}
	if _, ok := cfg["suiteId"]; ok {
		return nil, fmt.Errorf("%s: %w: it is an evalgate suite (it has suiteId)", path, ErrNotPromptfoo)
	}
	if cfg["prompts"] == nil || (cfg["tests"] == nil && cfg["providers"] == nil) {
		return nil, fmt.Errorf("%s: %w: expected a YAML mapping with prompts, providers and tests", path, ErrNotPromptfoo)
	}
	im := &importer{dir: filepath.Dir(path), out: cmpOr(opts.Out, "."), files: map[string][]byte{}, codes: map[string]string{}, seen: map[string]bool{}, checks: checksDir}
	name := slug(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if d, ok := cfg["description"].(string); ok && d != "" {
		name = slug(d)
	}
	im.suiteID = "promptfoo.evals." + name
	for key := range cfg {
		switch key {
		case "description", "prompts", "providers", "tests", "defaultTest":
		default:
			im.unsupported(key, key, "evalgate has no counterpart for this setting")
		}
	}
	prompts := im.prompts(cfg["prompts"])
	providers := im.providers(cfg["providers"])
	im.defaultTest = cfg["defaultTest"]
	tests := im.tests(cfg["tests"], cfg["defaultTest"])
	if err := im.suite(prompts, providers, tests); err != nil {
		return nil, err
	}
	slices.SortStableFunc(im.rep.Unsupported, func(a, b Unsupported) int { return strings.Compare(a.Location, b.Location) })
	rep, _ := json.MarshalIndent(im.rep, "", "  ")
	im.files["import-report.json"] = append(rep, '\n')
	return &Result{Files: im.files, Report: im.rep}, nil
}

func (im *importer) mapped(loc, typ, to string) {
	if !im.quiet && !im.seen[loc] {
		im.seen[loc] = true
		im.rep.Mapped = append(im.rep.Mapped, Mapped{Location: loc, Type: typ, To: to})
	}
}

func (im *importer) unsupported(loc, typ, reason string) {
	if !im.quiet && !im.seen["!"+loc] {
		im.seen["!"+loc] = true
		im.rep.Unsupported = append(im.rep.Unsupported, Unsupported{Location: loc, Type: typ, Reason: reason})
	}
}

// readFile reads a file the config names by file://, relative to the
// config's folder.
func (im *importer) readFile(ref string) ([]byte, string, error) {
	name := strings.TrimPrefix(ref, "file://")
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(im.dir, name)
	}
	data, err := inputfile.Read(p, MaxConfigBytes)
	return data, name, err
}

// prompt is one prompt: a text template, or chat messages whose contents
// are templates.
type prompt struct {
	text string
	chat []map[string]any
}

// asList is v as a list: v itself, a one-item list of anything else, no
// items for nil. promptfoo takes one prompt, provider or test file where
// it takes a list.
func asList(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	}
	return []any{v}
}

func (im *importer) prompts(v any) []prompt {
	var out []prompt
	for i, p := range asList(v) {
		loc := fmt.Sprintf("prompts[%d]", i)
		if m, ok := p.(map[string]any); ok {
			if raw, ok := m["raw"].(string); ok {
				p = raw
			} else if id, ok := m["id"].(string); ok {
				p = id
			}
		}
		s, ok := p.(string)
		if !ok {
			im.unsupported(loc, "prompt", "expected a string or file:// reference")
			continue
		}
		if !strings.HasPrefix(s, "file://") {
			out = append(out, prompt{text: s})
			im.mapped(loc, "prompt", "the input of each task")
			continue
		}
		data, name, err := im.readFile(s)
		if err != nil {
			im.unsupported(loc, "prompt", "could not read "+name+": "+err.Error())
			continue
		}
		if strings.EqualFold(filepath.Ext(name), ".json") {
			var chat []map[string]any
			if err := json.Unmarshal(data, &chat); err != nil {
				im.unsupported(loc, "prompt", name+" is not a list of chat messages")
				continue
			}
			out = append(out, prompt{chat: chat})
			im.mapped(loc, "chat prompt", "the input of each task, a list of messages")
			continue
		}
		if ext := strings.ToLower(filepath.Ext(name)); ext == ".py" || ext == ".js" {
			im.unsupported(loc, "prompt", "prompt functions are not imported")
			continue
		}
		out = append(out, prompt{text: string(data)})
		im.mapped(loc, "prompt", "the input of each task")
	}
	return out
}

// provider is an agent for evalgate.yaml.
type provider struct {
	id, label string
	agent     string // the agent block, YAML
}

// vendors are the OpenAI-compatible endpoints of providers promptfoo
// names by vendor: the base URL and the variable holding the key.
var vendors = map[string][2]string{
	"openai":    {"https://api.openai.com/v1", "OPENAI_API_KEY"},
	"anthropic": {"https://api.anthropic.com/v1", "ANTHROPIC_API_KEY"},
	"google":    {"https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY"},
	"vertex":    {"https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY"},
	"azure":     {"https://YOUR-RESOURCE.openai.azure.com/openai/v1", "AZURE_OPENAI_API_KEY"},
}

func (im *importer) providers(v any) []provider {
	var out []provider
	for i, p := range asList(v) {
		loc := fmt.Sprintf("providers[%d]", i)
		label := ""
		var settings map[string]any // the provider's config
		if m, ok := p.(map[string]any); ok {
			label, _ = m["label"].(string)
			for _, k := range slices.Sorted(maps.Keys(m)) {
				switch k {
				case "id", "label":
				case "config":
					if settings, ok = m[k].(map[string]any); !ok {
						im.unsupported(loc+".config", "config", "expected a mapping of settings")
					}
				default:
					im.unsupported(loc+"."+k, k, "evalgate has no counterpart for this provider setting")
				}
			}
			p = m["id"]
		}
		id, ok := p.(string)
		if !ok {
			im.unsupported(loc, "provider", "expected a provider id")
			continue
		}
		pr := provider{id: id, label: cmpOr(label, id)}
		vendor, model, _ := strings.Cut(id, ":")
		// others reports the settings a provider does not take.
		others := func(taken ...string) {
			for _, k := range slices.Sorted(maps.Keys(settings)) {
				if !slices.Contains(taken, k) {
					im.unsupported(loc+".config."+k, k, "evalgate's agent for this provider has no counterpart for this setting")
				}
			}
		}
		switch {
		case strings.HasPrefix(id, "file://"):
			agent, why := im.scriptProvider(strings.TrimPrefix(id, "file://"), settings)
			if why != "" {
				im.unsupported(loc, "provider "+id, why)
				continue
			}
			if len(settings) > 0 {
				im.mapped(loc+".config", "config", "the provider's config, as promptfoo gives it (options.config in Python, the constructor's config in JavaScript)")
			}
			pr.agent = agent
		case id == "echo":
			pr.agent = "  plain: [cat]\n"
			others()
		case vendor == "exec":
			pr.agent = im.execProvider(strings.TrimSpace(model))
			others()
		case vendors[vendor] != [2]string{} && model != "":
			m := model
			for _, pre := range []string{"chat:", "messages:", "completion:"} {
				m = strings.TrimPrefix(m, pre)
			}
			ep := vendors[vendor]
			pr.agent = fmt.Sprintf("  openai:\n    baseURL: %s\n    model: %s\n    apiKeyEnv: %s\n", ep[0], strconv.Quote(m), ep[1])
			if t, ok := number(settings["temperature"]); ok {
				pr.agent += "    temperature: " + strconv.FormatFloat(t, 'g', -1, 64) + "\n"
				im.mapped(loc+".config.temperature", "temperature", "agent.openai.temperature")
				others("temperature")
			} else {
				others()
			}
		default:
			im.unsupported(loc, "provider "+id, "evalgate has no agent for this provider; set agent in evalgate.yaml by hand")
			continue
		}
		im.mapped(loc, "provider "+id, "agent of "+projectFile(len(out), pr.label))
		out = append(out, pr)
	}
	return out
}

// scriptProvider wraps a Python or JavaScript provider file as a plain
// agent: a runner reads the prompt on stdin and calls the file's call_api
// (callApi) as promptfoo does.
func (im *importer) scriptProvider(ref string, settings map[string]any) (string, string) {
	file, fn, _ := strings.Cut(ref, ":")
	runner, interp := "provider.py", "python3"
	switch strings.ToLower(filepath.Ext(file)) {
	case ".py":
	case ".js", ".cjs":
		if fn != "" {
			return "", "a JavaScript provider naming an export is not wrapped"
		}
		runner, interp = "provider.cjs", "node"
	default:
		return "", "expected a .py or .js provider file"
	}
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(im.dir, file)
	}
	if _, err := inputfile.Read(p, MaxConfigBytes); err != nil {
		return "", "could not read " + file + ": " + err.Error()
	}
	rel := im.fromOut(p)
	data, _ := runners.ReadFile("runners/" + runner)
	im.files["providers/"+runner] = data
	args := []string{interp, "providers/" + runner}
	if len(settings) > 0 {
		cfg, err := json.Marshal(settings)
		if err != nil {
			return "", "its config is not JSON: " + err.Error()
		}
		args = append(args, "--config", string(cfg))
	}
	args = append(args, filepath.ToSlash(rel))
	if fn != "" {
		args = append(args, fn)
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	return "  plain: [" + strings.Join(quoted, ", ") + "]   # the prompt on stdin, the provider's output on stdout\n", ""
}

// projectFile names the project file of the i-th provider.
func projectFile(i int, label string) string {
	if i == 0 {
		return "evalgate.yaml"
	}
	return "evalgate." + slug(label) + ".yaml"
}

func (im *importer) tests(v, def any) []test {
	base := im.defaults(def)
	im.base = base
	var raw []test
	list := asList(v)
	for i, t := range list {
		if s, ok := t.(string); ok {
			raw = append(raw, im.testFile(s)...)
			continue
		}
		m, ok := t.(map[string]any)
		if !ok {
			im.unsupported(fmt.Sprintf("tests[%d]", i), "test", "expected a test or a file:// reference")
			continue
		}
		raw = append(raw, im.test(m, fmt.Sprintf("tests[%d]", i)))
	}
	if len(list) == 0 {
		raw = append(raw, test{loc: "defaultTest"})
	}
	var out []test
	for i, t := range raw {
		t.index = i
		out = append(out, withDefaults(base, t)...)
	}
	return out
}

// defaults reads defaultTest: the vars, assertions and threshold every
// test starts from.
func (im *importer) defaults(def any) test {
	var base test
	d, ok := def.(map[string]any)
	if !ok {
		return base
	}
	base.vars, _ = d["vars"].(map[string]any)
	base.asserts = im.assertList(d["assert"], "defaultTest")
	if th, ok := number(d["threshold"]); ok {
		base.threshold = &th
	}
	for k := range d {
		if k != "vars" && k != "assert" && k != "threshold" {
			im.unsupported("defaultTest."+k, k, "evalgate has no counterpart for this setting")
		}
	}
	return base
}

// withDefaults merges defaultTest (base) into t and expands list vars, as
// promptfoo does: the tests t makes, one for each combination.
func withDefaults(base, t test) []test {
	vars := map[string]any{}
	for k, val := range base.vars {
		vars[k] = val
	}
	for k, val := range t.vars {
		vars[k] = val
	}
	t.asserts = append(slices.Clone(base.asserts), t.asserts...)
	if t.threshold == nil {
		t.threshold = base.threshold
	}
	all := expand(vars)
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

// expand returns the combinations of the array values of vars.
func expand(vars map[string]any) []map[string]any {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := []map[string]any{{}}
	for _, k := range keys {
		vals, ok := vars[k].([]any)
		if !ok || len(vals) == 0 {
			vals = []any{vars[k]}
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
	return out
}

func (im *importer) test(m map[string]any, loc string) test {
	t := test{loc: loc}
	t.description, _ = m["description"].(string)
	t.vars, _ = m["vars"].(map[string]any)
	t.asserts = im.assertList(m["assert"], loc)
	if th, ok := number(m["threshold"]); ok {
		t.threshold = &th
	}
	for k := range m {
		switch k {
		case "description", "vars", "assert", "threshold":
		default:
			im.unsupported(loc+"."+k, k, "evalgate has no counterpart for this setting")
		}
	}
	return t
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
			inner := im.assertList(m["assert"], aloc)
			if _, ok := number(m["threshold"]); ok && textChecks(inner) {
				// Its threshold decides: the set is one check.
				out = append(out, assertion{loc: aloc, raw: m, set: inner})
				continue
			}
			im.mapped(aloc, "assert-set", "its assertions, each a check")
			if m["threshold"] != nil {
				im.unsupported(aloc+".threshold", "assert-set threshold", "kept only for a set of text checks (equals, contains, icontains, starts-with, regex, the -any/-all lists and their not- forms); each of this set's checks counts on its own")
			}
			out = append(out, inner...)
			continue
		}
		out = append(out, assertion{loc: aloc, raw: m})
	}
	return out
}

// testFile reads tests from a CSV, JSON Lines, JSON or YAML file.
func (im *importer) testFile(ref string) []test {
	data, name, err := im.readFile(ref)
	if err != nil {
		im.unsupported(ref, "tests", "could not read the file: "+err.Error())
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
			var m map[string]any
			if json.Unmarshal(line, &m) != nil {
				im.unsupported(fmt.Sprintf("%s:%d", name, i+1), "test", "not a JSON object")
				continue
			}
			out = append(out, im.test(m, fmt.Sprintf("%s:%d", name, i+1)))
		}
		return out
	case ".json", ".yaml", ".yml":
		var list []map[string]any
		if err := yaml.Unmarshal(data, &list); err != nil {
			im.unsupported(name, "tests", "expected a list of tests")
			return nil
		}
		var out []test
		for i, m := range list {
			out = append(out, im.test(m, fmt.Sprintf("%s[%d]", name, i)))
		}
		return out
	}
	im.unsupported(name, "tests", "expected a .csv, .jsonl, .json or .yaml file of tests")
	return nil
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
	for i, h := range header {
		if i >= len(rec) {
			break
		}
		cell := rec[i]
		loc := fmt.Sprintf("%s:%d:%d", name, line, col(i))
		switch {
		case strings.HasPrefix(h, "__expected"):
			if cell != "" {
				t.asserts = append(t.asserts, assertion{loc: loc, raw: expectedAssertion(cell)})
			}
		case h == "__description":
			t.description = cell
		case strings.HasPrefix(h, "__metadata"):
			// Metadata filters promptfoo's runs; it does not score.
		case strings.HasPrefix(h, "__"):
			if cell != "" {
				im.unsupported(loc, h, "this promptfoo column has no evalgate counterpart")
			}
		default:
			t.vars[h] = cell
		}
	}
	return t
}

// expectedAssertion reads an __expected cell: "type: value" for the types
// promptfoo reads there, else an equals.
func expectedAssertion(cell string) map[string]any {
	for _, prefix := range []string{"javascript", "fn", "eval", "python", "grade", "llm-rubric", "similar", "regex", "icontains-any", "icontains-all", "contains-any", "contains-all", "icontains", "contains", "starts-with", "equals", "is-json", "not-contains", "not-icontains", "not-regex", "not-equals", "not-starts-with", "not-is-json"} {
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
	return map[string]any{"type": "equals", "value": cell}
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// execProvider runs an exec: command as promptfoo does: in the config's
// folder (so a script named relative to it is found), the prompt as its
// argument.
func (im *importer) execProvider(cmd string) string {
	script := "exec " + cmd + ` "$(cat)"`
	if dir := im.fromOut(im.dir); dir != "." {
		script = "cd '" + strings.ReplaceAll(dir, "'", `'\''`) + "' && " + script
	}
	return fmt.Sprintf("  plain: [/bin/sh, -c, %s]\n", strconv.Quote(script))
}

// fromOut names path relative to the output folder, where the agent runs
// (the project file's folder); an absolute path when it cannot.
func (im *importer) fromOut(path string) string { return relSlash(im.out, path) }

// slug makes a name fit a suite id or a file name.
func slug(s string) string {
	s = strings.ToLower(s)
	s = regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(s, "-")
	s = strings.Trim(s, "-")
	if s == "" {
		return "imported"
	}
	return s
}
