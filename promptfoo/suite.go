package promptfoo

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ardanlabs/jinja"
	"go.yaml.in/yaml/v3"
)

// The files an import writes beside the project files.
const (
	suiteFile = "evals/promptfoo.suite.yaml"
	rowsFile  = "evals/promptfoo.tests.jsonl"
	checksDir = "checks" // in evals/, the suite's folder, where program checks run
)

// suiteTemplate is the suite: every task is a row of the dataset, which
// holds its id, input, bar, expectation and the test's vars.
const suiteTemplate = `# Imported from a promptfoo config by evalgate import promptfoo: each row of
# promptfoo.tests.jsonl is one test with one prompt (see import-report.json).
suiteId: %s
version: 1.0.0
modes: [golden, rubric]
datasets:
  - file: promptfoo.tests.jsonl
    task:
      taskId: "{row.id}"
      description: "{row.description}"
      input: "{row.input}"
      passScore: "{row.passScore}"
      expected: "{row.expected}"
`

// suite writes the suite, its rows, the suites of the CSV sheets kept
// where they are, the program checks and the project files.
func (im *importer) suite(prompts []prompt, providers []provider, tests []test) error {
	if len(prompts) == 0 {
		return fmt.Errorf("%w: no prompt could be imported (see the unsupported list)", ErrNotPromptfoo)
	}
	var rows bytes.Buffer
	enc := json.NewEncoder(&rows)
	enc.SetEscapeHTML(false)
	label := ""
	if len(providers) > 0 {
		label = providers[0].id
	}
	sheets := im.sheets(prompts, tests)
	for n, t := range tests {
		expected, code := im.expected(t)
		if sh := sheets[t.sheet]; sh != nil {
			// The sheet's suite reads the row where it is, at every run;
			// mapping it here fills the report and writes its checks.
			for p := range prompts {
				im.rep.Tasks = append(im.rep.Tasks, TaskRef{SuiteID: sh.suiteID, TaskID: sheetTaskID(sh.prefix, strconv.Itoa(t.line), p, len(prompts)), TestIdx: n, PromptIdx: p, Provider: label})
			}
			continue
		}
		for p, pr := range prompts {
			id := fmt.Sprintf("test-%d", t.index)
			if len(prompts) > 1 {
				id += fmt.Sprintf("-p%d", p)
			}
			if t.variant > 0 {
				id += fmt.Sprintf("-v%d", t.variant)
			}
			row := im.row(t, pr, p, expected, code)
			row["id"] = id
			if err := enc.Encode(row); err != nil {
				return fmt.Errorf("could not write the test at %s: %w", t.loc, err)
			}
			im.rep.Tasks = append(im.rep.Tasks, TaskRef{SuiteID: im.suiteID, TaskID: id, TestIdx: n, PromptIdx: p, Provider: label})
		}
	}
	var list []string
	if rows.Len() > 0 {
		im.files[rowsFile] = rows.Bytes()
		im.files[suiteFile] = fmt.Appendf(nil, suiteTemplate, im.suiteID)
		list = append(list, "evals/")
	}
	for _, name := range slices.Sorted(maps.Keys(sheets)) {
		sh := sheets[name]
		im.files[sh.path] = sh.suite(prompts, im.defaultTest)
		if len(list) == 0 || !strings.HasPrefix(sh.path, "evals/") {
			list = append(list, sh.path)
		}
	}
	if len(providers) == 0 {
		providers = []provider{{id: "none", label: "none", agent: "  plain: [cat]   # no provider was imported: set the agent\n"}}
	}
	judge := ""
	if im.judged {
		// promptfoo grades llm-rubric and the model-graded assertions with
		// an OpenAI model unless told otherwise.
		judge = "judge:\n  openai: {baseURL: https://api.openai.com/v1, model: gpt-4o-mini, apiKeyEnv: OPENAI_API_KEY}\n"
	}
	for i, p := range providers {
		im.files[projectFile(i, p.label)] = fmt.Appendf(nil, "# Imported from promptfoo provider %s.\nsuites: [%s]\nagent:\n%s%s", strconv.Quote(p.id), strings.Join(list, ", "), p.agent, judge)
	}
	return nil
}

// row is the dataset row of test t with prompt pr (the p-th): what the
// task template reads. expected and code are t's, from expected.
func (im *importer) row(t test, pr prompt, p int, expected map[string]any, code map[string][]string) map[string]any {
	input, ok := render(pr, t.vars)
	if !ok {
		im.unsupported(fmt.Sprintf("prompts[%d]", p), "prompt template", "the Jinja-compatible engine could not render it with a test's vars; the prompt is left as written")
	}
	bar := 1.0
	if t.threshold != nil {
		bar = *t.threshold
	}
	row := map[string]any{"description": cmpOr(t.description, t.loc), "input": input, "passScore": bar, "expected": expected, "vars": t.vars}
	if len(code) > 0 {
		row["code"] = code
	}
	return row
}

// render writes vars into a prompt with a Jinja-compatible engine, which
// reads promptfoo's Nunjucks: {{ var }}, filters, {% if %}, {% for %}. ok
// is false when the template does not compile or render; the prompt is
// then left as written.
func render(p prompt, vars map[string]any) (any, bool) {
	if p.chat == nil {
		return renderText(p.text, vars)
	}
	ok := true
	msgs := make([]any, len(p.chat))
	for i, m := range p.chat {
		out := map[string]any{}
		for k, v := range m {
			if s, isStr := v.(string); isStr && k == "content" {
				r, good := renderText(s, vars)
				ok = ok && good
				v = r
			}
			out[k] = v
		}
		msgs[i] = out
	}
	return msgs, ok
}

// templates are the prompts compiled, by their text.
var templates sync.Map

func renderText(s string, vars map[string]any) (string, bool) {
	if !strings.Contains(s, "{{") && !strings.Contains(s, "{%") {
		return s, true
	}
	var tmpl *jinja.Template
	if t, ok := templates.Load(s); ok {
		tmpl = t.(*jinja.Template)
	} else {
		t, err := jinja.Compile(s)
		if err != nil {
			return s, false
		}
		templates.Store(s, t)
		tmpl = t
	}
	out, err := tmpl.Render(vars)
	if err != nil {
		return s, false
	}
	return out, true
}

// expected maps a test's assertions to an evalgate expectation: golden
// checks, or a rubric when an assertion needs a judge.
//
// code is the inline JavaScript and Python of the test's assertions, by
// language, which the row carries to the runners.
func (im *importer) expected(t test) (expected map[string]any, code map[string][]string) {
	im.cur = map[string][]string{}
	defer func() { code = im.cur }()
	var checks []map[string]any
	var criteria []map[string]any
	for _, a := range t.asserts {
		typ, _ := a.raw["type"].(string)
		c, crit, why := im.check(a, typ)
		switch {
		case why != "":
			im.unsupported(a.loc, typ, why)
			continue
		case crit != nil:
			criteria = append(criteria, crit)
			im.judged = true
			im.mapped(a.loc, typ, "a rubric criterion, decided by the judge (judge.openai in the project file, promptfoo's default grader)")
			continue
		}
		if w, ok := number(a.raw["weight"]); ok {
			c["weight"] = w
		}
		if metric, ok := a.raw["metric"].(string); ok && metric != "" {
			c["id"] = metric
		}
		checks = append(checks, c)
		im.mapped(a.loc, typ, describeCheck(c))
	}
	if len(criteria) > 0 {
		for _, c := range checks {
			w := c["weight"]
			if w == nil {
				w = 1.0
			}
			delete(c, "weight")
			delete(c, "id")
			if _, isProgram := c["exec"]; isProgram {
				// A rubric criterion's assert cannot be a program check;
				// it stays a criterion the judge decides.
				criteria = append(criteria, map[string]any{"criterion": "the output passes the check " + describeCheck(c), "weight": 1.0})
				continue
			}
			criteria = append(criteria, map[string]any{"criterion": describeCheck(c), "weight": w, "assert": c})
		}
		normalize(criteria)
		return map[string]any{"kind": "rubric", "rubric": criteria}, nil
	}
	if len(checks) == 0 {
		// promptfoo passes a test without assertions.
		checks = append(checks, map[string]any{"id": "no-assertions", "expr": "true"})
	}
	uniqueIDs(checks)
	return map[string]any{"kind": "golden", "assert": checks}, nil
}

// normalize makes rubric weights fit 0..1, keeping their proportions.
func normalize(criteria []map[string]any) {
	total := 0.0
	for _, c := range criteria {
		w, _ := c["weight"].(float64)
		total += w
	}
	for _, c := range criteria {
		w, _ := c["weight"].(float64)
		if total > 0 {
			c["weight"] = w / total
		}
	}
}

// uniqueIDs gives checks that share a metric name their own ids.
func uniqueIDs(checks []map[string]any) {
	seen := map[string]int{}
	for _, c := range checks {
		id, ok := c["id"].(string)
		if !ok {
			continue
		}
		if n := seen[id]; n > 0 {
			c["id"] = fmt.Sprintf("%s-%d", id, n+1)
		}
		seen[id]++
	}
}

// describeCheck is the check as the report shows it.
func describeCheck(c map[string]any) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// quote is a string literal of expr-lang.
func quote(s string) string { return strconv.Quote(s) }

// check maps one assertion: a check, or a rubric criterion, or why it
// cannot be mapped.
func (im *importer) check(a assertion, typ string) (check, criterion map[string]any, why string) {
	negate := false
	base := typ
	if rest, ok := strings.CutPrefix(typ, "not-"); ok {
		negate, base = true, rest
	}
	val := a.raw["value"]
	s, isStr := val.(string)
	list := func() ([]string, bool) {
		xs, ok := val.([]any)
		if !ok {
			return nil, false
		}
		var out []string
		for _, x := range xs {
			str, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, str)
		}
		return out, true
	}
	expr := ""
	switch base {
	case "assert-set":
		return im.assertSet(a)
	case "equals":
		if !isStr {
			return nil, nil, "equals with a value that is not a string"
		}
		expr = "output == " + quote(s)
	case "contains":
		if !isStr {
			return nil, nil, "contains with a value that is not a string"
		}
		expr = "output contains " + quote(s)
	case "icontains":
		if !isStr {
			return nil, nil, "icontains with a value that is not a string"
		}
		expr = "lower(output) contains " + quote(strings.ToLower(s))
	case "starts-with":
		if !isStr {
			return nil, nil, "starts-with with a value that is not a string"
		}
		expr = "hasPrefix(output, " + quote(s) + ")"
	case "regex":
		if !isStr {
			return nil, nil, "regex with a value that is not a string"
		}
		expr = "output matches " + quote(s)
	case "contains-any", "contains-all", "icontains-any", "icontains-all":
		xs, ok := list()
		if !ok {
			if !isStr {
				return nil, nil, base + " with a value that is not a list of strings"
			}
			for _, x := range strings.Split(s, ",") {
				xs = append(xs, strings.TrimSpace(x))
			}
		}
		out, fn := "output", "any"
		if strings.HasPrefix(base, "i") {
			out = "lower(output)"
			for i := range xs {
				xs[i] = strings.ToLower(xs[i])
			}
		}
		if strings.HasSuffix(base, "-all") {
			fn = "all"
		}
		quoted := make([]string, len(xs))
		for i, x := range xs {
			quoted[i] = quote(x)
		}
		expr = fmt.Sprintf("%s([%s], {%s contains #})", fn, strings.Join(quoted, ", "), out)
	case "is-json":
		if val != nil {
			return nil, nil, "is-json with a schema: use outputSchema by hand"
		}
		expr = "let v = fromJSON(output); true"
	case "contains-json":
		c, why := im.containsJSON(val)
		if why != "" {
			return nil, nil, why
		}
		if negate {
			c["negate"] = true
		}
		return c, nil, ""
	case "latency":
		th, ok := number(a.raw["threshold"])
		if !ok || negate {
			return nil, nil, "latency needs a threshold in milliseconds"
		}
		return map[string]any{"maxLatencyMs": int64(th)}, nil, ""
	case "cost":
		th, ok := number(a.raw["threshold"])
		if !ok || negate {
			return nil, nil, "cost needs a threshold in US dollars"
		}
		return map[string]any{"maxCostUsd": th}, nil, ""
	case "javascript", "python":
		if !isStr {
			return nil, nil, base + " with a value that is not code or a file:// reference"
		}
		c, why := im.program(base, s, a)
		if why != "" {
			return nil, nil, why
		}
		if negate {
			c["negate"] = true
		}
		return c, nil, ""
	case "llm-rubric", "model-graded-closedqa", "factuality":
		if negate || !isStr {
			return nil, nil, base + " needs a string value"
		}
		crit := s
		switch base {
		case "model-graded-closedqa":
			crit = "the output meets this requirement: " + s
		case "factuality":
			crit = "the output is factually consistent with: " + s
		}
		w, ok := number(a.raw["weight"])
		if !ok {
			w = 1
		}
		return nil, map[string]any{"criterion": crit, "weight": w}, ""
	default:
		return nil, nil, "evalgate has no check for this assertion type"
	}
	c := map[string]any{"expr": expr}
	if negate {
		c["negate"] = true
	}
	return c, nil, ""
}

// program writes a program check that runs a JavaScript or Python
// assertion with promptfoo's calling convention.
func (im *importer) program(lang, value string, a assertion) (map[string]any, string) {
	runner, interp, ext := "javascript.cjs", "node", ".js"
	if lang == "python" {
		runner, interp, ext = "python.py", "python3", ".py"
	}
	var args []any
	if ref, ok := strings.CutPrefix(value, "file://"); ok {
		if strings.Contains(ref, ":") {
			return nil, "a file:// assertion naming a function is not imported"
		}
		// Named by its path, not by a count, so that a sheet's suite
		// (Sheet) names the copy the import wrote.
		name := lang + "-" + slug(strings.TrimSuffix(filepath.ToSlash(ref), ext)) + ext
		if !im.quiet {
			key := lang + "\x00" + filepath.ToSlash(filepath.Clean(ref))
			for k, n := range im.codes {
				if n == name && k != key {
					return nil, "its file's copy would have the name of " + strings.TrimPrefix(k, lang+"\x00") + "'s (" + name + "); rename one of them"
				}
			}
			if _, ok := im.codes[key]; !ok {
				data, shown, err := im.readFile(value)
				if err != nil {
					return nil, "could not read " + shown + ": " + err.Error()
				}
				im.codes[key] = name
				im.files["evals/"+checksDir+"/"+name] = data
			}
		}
		args = []any{im.checks + "/" + name}
	} else {
		// Inline code travels in the row, so one process per worker runs
		// the inline assertions of every test (#18).
		k := len(im.cur[lang])
		im.cur[lang] = append(im.cur[lang], value)
		args = []any{"--inline", strconv.Itoa(k)}
	}
	im.runner(runner)
	cmd := append([]any{interp, im.checks + "/" + runner}, args...)
	if th, ok := number(a.raw["threshold"]); ok {
		cmd = append(cmd, strconv.FormatFloat(th, 'g', -1, 64))
	}
	return map[string]any{"exec": cmd}, ""
}

// assertSet maps an assert-set with a threshold, which passes as promptfoo
// decides it: when the weighted share of its assertions that pass reaches
// the threshold. It is one check; its weight and metric are the set's.
func (im *importer) assertSet(a assertion) (check, criterion map[string]any, why string) {
	th, _ := number(a.raw["threshold"])
	var terms []string
	total := 0.0
	for _, in := range a.set {
		typ, _ := in.raw["type"].(string)
		c, _, why := im.check(in, typ)
		if why != "" {
			return nil, nil, "its assertion " + in.loc + ": " + why
		}
		e, _ := c["expr"].(string)
		if c["negate"] == true {
			e = "!(" + e + ")"
		}
		w, ok := number(in.raw["weight"])
		if !ok {
			w = 1
		}
		total += w
		terms = append(terms, fmt.Sprintf("(%s ? %s : 0)", e, strconv.FormatFloat(w, 'g', -1, 64)))
		im.mapped(in.loc, typ, "a term of the assert-set's check")
	}
	expr := "false"
	switch {
	case total > 0:
		expr = fmt.Sprintf("(%s) / %s >= %s", strings.Join(terms, " + "), strconv.FormatFloat(total, 'g', -1, 64), strconv.FormatFloat(th, 'g', -1, 64))
	case th <= 0:
		expr = "true" // promptfoo scores a set without weight 0
	}
	return map[string]any{"expr": expr}, nil, ""
}

// containsJSON is a program check that finds a JSON object in the output
// as promptfoo's contains-json does; with a schema, one that validates.
func (im *importer) containsJSON(val any) (map[string]any, string) {
	module := "contains-json.cjs"
	if val != nil {
		schema := val
		if s, ok := val.(string); ok {
			if strings.HasPrefix(s, "file://") || strings.Contains(s, "{{") || strings.Contains(s, "{%") {
				return nil, "contains-json with a schema from a file or a template is not imported"
			}
			var parsed any
			if err := yaml.Unmarshal([]byte(s), &parsed); err != nil {
				return nil, "contains-json with a schema that is not YAML or JSON"
			}
			schema = parsed
		}
		if why := schemaSubset(schema); why != "" {
			return nil, "contains-json with a schema: " + why
		}
		data, err := json.Marshal(schema)
		if err != nil {
			return nil, "contains-json with a schema that is not JSON"
		}
		// Named by its schema, so that a sheet's suite (Sheet) names the
		// module the import wrote.
		sum := sha256.Sum256(data)
		module = fmt.Sprintf("contains-json-%x.cjs", sum[:4])
		if !im.quiet {
			im.files["evals/"+checksDir+"/"+module] = fmt.Appendf(nil, "// contains-json with a schema, written by evalgate import promptfoo.\n'use strict';\nmodule.exports = require('./contains-json.cjs').withSchema(%s);\n", data)
		}
	}
	im.runner("javascript.cjs")
	im.runner("contains-json.cjs")
	return map[string]any{"exec": []any{"node", im.checks + "/javascript.cjs", im.checks + "/" + module}}, ""
}

// runner writes the embedded runner name into the checks folder, once.
func (im *importer) runner(name string) {
	if _, ok := im.files["evals/"+checksDir+"/"+name]; !ok && !im.quiet {
		data, _ := runners.ReadFile("runners/" + name)
		im.files["evals/"+checksDir+"/"+name] = data
	}
}

// schemaSubset says why a JSON Schema uses more than the keywords the
// contains-json runner validates; "" when it does not.
func schemaSubset(v any) string {
	if _, ok := v.(bool); ok {
		return ""
	}
	s, ok := v.(map[string]any)
	if !ok {
		return "a schema must be an object or a boolean"
	}
	isNum := func(x any) bool { _, ok := number(x); return ok }
	for k, x := range s {
		why := ""
		switch k {
		case "title", "description":
		case "type":
			types, isList := x.([]any)
			if !isList {
				types = []any{x}
			}
			for _, t := range types {
				switch t {
				case "null", "boolean", "string", "number", "integer", "array", "object":
				default:
					why = "an unknown type"
				}
			}
		case "enum":
			if _, ok := x.([]any); !ok {
				why = "enum must be a list"
			}
		case "const":
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems":
			if !isNum(x) {
				why = k + " must be a number"
			}
		case "pattern":
			if _, ok := x.(string); !ok {
				why = "pattern must be a string"
			}
		case "required":
			list, ok := x.([]any)
			for _, r := range list {
				if _, isStr := r.(string); !isStr {
					ok = false
				}
			}
			if !ok {
				why = "required must be a list of names"
			}
		case "items", "additionalProperties":
			why = schemaSubset(x)
		case "properties":
			props, ok := x.(map[string]any)
			if !ok {
				why = "properties must be an object"
			}
			for _, p := range props {
				if why == "" {
					why = schemaSubset(p)
				}
			}
		default:
			why = "the keyword " + k + " is not validated here (only type, enum, const, the bounds, pattern, required, properties, additionalProperties and items are)"
		}
		if why != "" {
			return why
		}
	}
	return ""
}
