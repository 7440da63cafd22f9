package promptfoo

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/internal/spelling"
)

// testVars are the vars of t as promptfoo's assertions see them: files
// read, trailing newlines removed, {{ var }} in vars written in.
func (im *importer) testVars(t test) map[string]any {
	vars, _ := im.loadVarFiles(t.vars)
	return prepareVars(vars)
}

// mapping is what expected builds for one test.
type mapping struct {
	im     *importer
	t      test
	vars   map[string]any // the test's vars, ordered, for rendering
	checks []map[string]any
	crit   []map[string]any
	// code is the inline JavaScript and Python of the test's assertions,
	// by language, which the row carries to the runners.
	code map[string][]string
	// asserts are the assertions the JavaScript runner decides itself
	// (after a transform), which the row carries to it.
	asserts []map[string]any
	// transform is the test's transform, for the runner.
	transform any
}

// expected maps a test's assertions to an evalgate expectation: golden
// checks, or a rubric when an assertion needs a judge. The row members
// it returns carry what the runners need: inline code, and the
// assertions and transform the JavaScript runner decides.
func (im *importer) expected(t test) (map[string]any, map[string]any) {
	m := &mapping{im: im, t: t, vars: im.orderedVars(im.testVars(t)), code: map[string][]string{}}
	tr, trLoc := t.options["transform"], "options.transform"
	if tr == nil {
		tr, trLoc = t.options["postprocess"], "options.postprocess"
	}
	if tr != nil {
		spec, why := im.transformSpec(tr)
		if why != "" {
			im.unsupported(t.loc+"."+trLoc, "transform", why+"; the test's checks see the output as the provider wrote it")
		} else {
			m.transform = spec
		}
	}
	for _, a := range t.asserts {
		m.add(a)
	}
	row := map[string]any{}
	if len(m.code) > 0 {
		row["code"] = m.code
	}
	if len(m.asserts) > 0 {
		row["asserts"] = m.asserts
		if m.transform != nil {
			row["transform"] = m.transform
		}
	}
	if len(m.crit) > 0 {
		for _, c := range m.checks {
			w := c["weight"]
			if w == nil {
				w = 1.0
			}
			delete(c, "weight")
			delete(c, "id")
			if _, isProgram := c["exec"]; isProgram {
				// A rubric criterion's assert cannot be a program check;
				// it stays a criterion the judge decides.
				m.crit = append(m.crit, map[string]any{"criterion": "the output passes the check " + describeCheck(c), "weight": 1.0})
				continue
			}
			m.crit = append(m.crit, map[string]any{"criterion": describeCheck(c), "weight": w, "assert": c})
		}
		normalize(m.crit)
		return map[string]any{"kind": "rubric", "rubric": m.crit}, row
	}
	checks := m.checks
	if len(checks) == 0 {
		// promptfoo passes a test without assertions.
		checks = append(checks, map[string]any{"id": "no-assertions", "expr": "true"})
	}
	uniqueIDs(checks)
	return map[string]any{"kind": "golden", "assert": checks}, row
}

// add maps one assertion (an assert-set: its assertions, or one check).
func (m *mapping) add(a assertion) {
	im := m.im
	typ, _ := a.raw["type"].(string)
	if a.set != nil {
		m.addSet(a)
		return
	}
	if m.transform != nil || a.raw["transform"] != nil {
		c, why := m.jsAssert(a)
		switch base := strings.TrimPrefix(typ, "not-"); {
		case why == "":
			m.push(a, typ, c)
			return
		case why != "-":
			im.unsupported(a.loc, typ, why)
			return
		case base == "python":
			im.unsupported(a.loc, "transform", "a Python assertion sees the output as the provider wrote it, before the transform")
		}
	}
	c, crit, why := m.check(a, typ)
	switch {
	case why != "":
		im.unsupported(a.loc, typ, why)
	case crit != nil:
		m.crit = append(m.crit, crit)
		im.judged = true
		im.mapped(a.loc, typ, "a rubric criterion, decided by the judge (judge.openai in the project file, promptfoo's default grader)")
		if m.transform != nil {
			im.unsupported(a.loc, "transform", "the judge decides on the output as the provider wrote it, before the test's transform")
		}
	case c["id"] == "unknown-assertion-type":
		m.checks = append(m.checks, c)
		why := `a check that fails ({"expr": "false"}): promptfoo does not know this assertion type and fails the test`
		base := strings.TrimPrefix(typ, "not-")
		if near := spelling.Nearest(base, promptfooTypes, max(1, len(base)/3)); near != "" {
			why += fmt.Sprintf("; did you mean %q?", near)
		}
		im.mapped(a.loc, typ, why)
	case c["id"] == "missing-file":
		m.checks = append(m.checks, c)
		im.mapped(a.loc, typ, `a check that fails ({"expr": "false"}): its file is not there, and promptfoo fails the test`)
	default:
		m.push(a, typ, c)
	}
}

func (m *mapping) push(a assertion, typ string, c map[string]any) {
	if w, ok := number(a.raw["weight"]); ok {
		c["weight"] = w
	}
	if metric, ok := a.raw["metric"].(string); ok && metric != "" {
		c["id"] = metric
	}
	m.checks = append(m.checks, c)
	m.im.mapped(a.loc, typ, describeCheck(c))
}

// addSet maps an assert-set: with a threshold, and text checks only, one
// expr check; run by the JavaScript runner, one check that decides as
// promptfoo does; else each of its assertions is a check.
func (m *mapping) addSet(a assertion) {
	im := m.im
	if m.transform != nil || hasTransform(a.set) {
		if c, why := m.jsAssert(a); why == "" {
			m.push(a, "assert-set", c)
			return
		}
	}
	if _, ok := number(a.raw["threshold"]); ok && textChecks(a.set) {
		c, _, _ := m.assertSet(a)
		m.push(a, "assert-set", c)
		return
	}
	im.mapped(a.loc, "assert-set", "its assertions, each a check")
	if a.raw["threshold"] != nil {
		im.unsupported(a.loc+".threshold", "assert-set threshold", "kept only for a set of text checks (equals, contains, icontains, starts-with, regex, the -any/-all lists and their not- forms); each of this set's checks counts on its own")
	}
	for _, in := range a.set {
		m.add(in)
	}
}

func hasTransform(as []assertion) bool {
	for _, a := range as {
		if a.raw["transform"] != nil || hasTransform(a.set) {
			return true
		}
	}
	return false
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
		if a.set != nil || a.raw["transform"] != nil {
			return false
		}
	}
	return true
}

// value is an assertion's value as promptfoo's runAssertion gives it: a
// string (or each string of a list) rendered with the test's vars, a
// file:// reference to a text, JSON or YAML file read.
func (m *mapping) value(a assertion) (any, string) {
	v := a.raw["value"]
	render := func(s string) (any, string) {
		if strings.HasPrefix(s, "file://") {
			loaded, ok := m.im.fileValue(s)
			if !ok {
				return nil, "could not read " + strings.TrimPrefix(s, "file://") + " inside the config's repository"
			}
			return loaded, ""
		}
		r, err := renderString(s, m.vars, m.im.fixedSteps)
		if err != nil {
			return nil, "its value could not be rendered with the test's vars: " + err.Error()
		}
		return r, ""
	}
	switch x := v.(type) {
	case string:
		return render(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if s, ok := e.(string); ok {
				r, why := render(s)
				if why != "" {
					return nil, why
				}
				out[i] = r
				continue
			}
			out[i] = e
		}
		return out, ""
	}
	return v, ""
}

// check maps one assertion: a check, or a rubric criterion, or why it
// cannot be mapped.
func (m *mapping) check(a assertion, typ string) (check, criterion map[string]any, why string) {
	im := m.im
	negate := false
	base := typ
	if rest, ok := strings.CutPrefix(typ, "not-"); ok {
		negate, base = true, rest
	}
	var val any
	switch base {
	case "javascript", "python":
		val = a.raw["value"]
		if s, ok := val.(string); ok && !strings.HasPrefix(s, "file://") {
			r, err := renderString(s, m.vars, m.im.fixedSteps)
			if err != nil {
				return nil, nil, "its code could not be rendered with the test's vars: " + err.Error()
			}
			val = r
		}
	default:
		v, why := m.value(a)
		if why != "" {
			return nil, nil, why
		}
		val = v
	}
	s, isStr := val.(string)
	list := func() ([]string, bool) {
		xs, ok := val.([]any)
		if !ok {
			return nil, false
		}
		var out []string
		for _, x := range xs {
			switch y := norm(x).(type) {
			case string:
				out = append(out, y)
			case float64:
				out = append(out, jsNumber(y))
			default:
				return nil, false
			}
		}
		return out, true
	}
	expr := ""
	switch base {
	case "equals":
		switch x := norm(val).(type) {
		case string:
			expr = "output == " + quote(x)
		case float64:
			expr = "output == " + quote(jsNumber(x))
		case bool:
			expr = "output == " + quote(strconv.FormatBool(x))
		default:
			return m.jsOnly(a, "equals with an object value")
		}
	case "contains", "icontains", "starts-with":
		if f, ok := norm(val).(float64); ok && base != "starts-with" {
			s, isStr = jsNumber(f), true
		}
		if !isStr {
			return nil, nil, base + " with a value that is not a string"
		}
		switch base {
		case "contains":
			expr = "output contains " + quote(s)
		case "icontains":
			expr = "lower(output) contains " + quote(strings.ToLower(s))
		default:
			expr = "hasPrefix(output, " + quote(s) + ")"
		}
	case "regex":
		if !isStr {
			return nil, nil, "regex with a value that is not a string"
		}
		if !re2Same(s) {
			// JavaScript's regular expressions: the runner of JavaScript
			// assertions matches it as promptfoo does.
			return m.jsOnly(a, "")
		}
		expr = "output matches " + quote(s)
	case "contains-any", "contains-all", "icontains-any", "icontains-all":
		xs, ok := list()
		if !ok {
			if !isStr {
				return nil, nil, base + " with a value that is not a list of strings"
			}
			xs = splitCommas(s)
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
			return m.jsOnly(a, "")
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
		if !ok {
			return nil, nil, "latency needs a threshold in milliseconds"
		}
		c := map[string]any{"maxLatencyMs": int64(th)}
		if negate {
			c["negate"] = true
		}
		return c, nil, ""
	case "cost":
		th, ok := number(a.raw["threshold"])
		if !ok {
			return nil, nil, "cost needs a threshold in US dollars"
		}
		c := map[string]any{"maxCostUsd": th}
		if negate {
			c["negate"] = true
		}
		return c, nil, ""
	case "javascript", "python":
		if !isStr {
			return nil, nil, base + " with a value that is not code or a file:// reference"
		}
		c, why := im.program(base, s, a, m.code)
		if strings.HasPrefix(why, missing) {
			return map[string]any{"expr": "false", "id": "missing-file"}, nil, ""
		}
		if why != "" {
			return nil, nil, why
		}
		if negate {
			c["negate"] = true
		}
		return c, nil, ""
	case "llm-rubric", "model-graded-closedqa", "factuality", "model-graded-factuality":
		if negate || !isStr {
			return nil, nil, base + " needs a string value"
		}
		crit := s
		switch base {
		case "model-graded-closedqa":
			crit = "the output meets this requirement: " + s
		case "factuality", "model-graded-factuality":
			crit = "the output is factually consistent with: " + s
		}
		w, ok := number(a.raw["weight"])
		if !ok {
			w = 1
		}
		return nil, map[string]any{"criterion": crit, "weight": w}, ""
	case "levenshtein", "word-count":
		return m.jsOnly(a, "")
	default:
		if !promptfooKnows(base) {
			// promptfoo throws on a type it does not know: the test fails.
			return map[string]any{"expr": "false", "id": "unknown-assertion-type"}, nil, ""
		}
		return nil, nil, "evalgate has no check for this assertion type"
	}
	c := map[string]any{"expr": expr}
	if negate {
		c["negate"] = true
	}
	return c, nil, ""
}

// promptfooTypes are the assertion types promptfoo 0.123.1 knows (its
// handlers, and the set and selection types its evaluator takes itself).
var promptfooTypes = strings.Fields(`agent-rubric answer-relevance assert-set bleu classifier contains contains-all
	contains-any contains-html contains-json contains-sql contains-xml context-faithfulness context-recall
	context-relevance conversation-relevance cost equals factuality finish-reason g-eval gleu guardrails
	icontains icontains-all icontains-any is-html is-json is-refusal is-sql is-valid-function-call
	is-valid-openai-function-call is-valid-openai-tools-call is-xml javascript latency levenshtein llm-rubric
	max-score meteor model-graded-closedqa model-graded-factuality moderation perplexity perplexity-score pi
	python regex ruby rouge-n search-rubric select-best skill-used similar similar:cosine similar:dot
	similar:euclidean starts-with tool-call-f1 trajectory:goal-success trajectory:tool-args-match
	trajectory:step-count trajectory:tool-sequence trajectory:tool-used trace-error-spans trace-span-count
	trace-span-duration webhook word-count`)

func promptfooKnows(base string) bool {
	return slices.Contains(promptfooTypes, base) || strings.HasPrefix(base, "promptfoo:redteam:") || strings.HasPrefix(base, "select-")
}

// jsOnly maps an assertion only the JavaScript runner decides as promptfoo
// does (a JavaScript regular expression, is-json with a schema, …), or why
// it cannot.
func (m *mapping) jsOnly(a assertion, fallback string) (map[string]any, map[string]any, string) {
	c, why := m.jsAssert(a)
	if why != "" && why != "-" {
		return nil, nil, why
	}
	if why == "-" {
		return nil, nil, cmp.Or(fallback, "evalgate has no check for this assertion")
	}
	return c, nil, ""
}

// jsTypes are the assertions the JavaScript runner decides itself, with
// promptfoo's meaning, on the output as a transform left it.
var jsTypes = []string{"equals", "contains", "icontains", "starts-with", "regex", "contains-any", "contains-all", "icontains-any", "icontains-all", "is-json", "contains-json", "javascript", "levenshtein", "word-count", "assert-set"}

// jsAssert makes a an assertion the JavaScript runner decides: the row
// carries it (its value rendered) and the check names its place. why is
// "-" for an assertion the runner does not decide (latency, cost, a
// model-graded one), which maps as it would without a transform.
func (m *mapping) jsAssert(a assertion) (map[string]any, string) {
	spec, why := m.jsSpec(a, 0)
	if why != "" {
		return nil, why
	}
	m.im.runner("javascript.cjs")
	m.im.runner("contains-json.cjs")
	k := len(m.asserts)
	m.asserts = append(m.asserts, spec)
	return map[string]any{"exec": []any{"node", m.im.checks + "/javascript.cjs", "--assert", strconv.Itoa(k)}}, ""
}

func (m *mapping) jsSpec(a assertion, depth int) (map[string]any, string) {
	typ, _ := a.raw["type"].(string)
	base, negate := typ, false
	if rest, ok := strings.CutPrefix(typ, "not-"); ok {
		base, negate = rest, true
	}
	if !slices.Contains(jsTypes, base) || depth > 8 {
		if base == "latency" || base == "cost" || depth == 0 {
			return nil, "-"
		}
		return nil, "the assertion " + typ + " cannot run after a transform"
	}
	spec := map[string]any{"type": base}
	if negate {
		spec["inverse"] = true
	}
	for _, k := range []string{"threshold", "weight"} {
		if x, ok := number(a.raw[k]); ok {
			spec[k] = x
		}
	}
	if tr := a.raw["transform"]; tr != nil {
		ts, why := m.im.transformSpec(tr)
		if why != "" {
			return nil, why
		}
		spec["transform"] = ts
	}
	switch base {
	case "assert-set":
		var inner []any
		for _, in := range a.set {
			s, why := m.jsSpec(in, depth+1)
			if why != "" {
				return nil, "its assertion " + in.loc + ": " + cmp.Or(strings.TrimPrefix(why, "-"), "cannot run in the set")
			}
			inner = append(inner, s)
			m.im.mapped(in.loc, fmt.Sprint(in.raw["type"]), "a part of the set's check, decided by the JavaScript runner")
		}
		spec["assert"] = inner
		return spec, ""
	case "javascript":
		s, _ := a.raw["value"].(string)
		if cfg, ok := a.raw["config"]; ok {
			spec["config"] = cfg
		}
		if ref, ok := strings.CutPrefix(s, "file://"); ok {
			if i := strings.LastIndex(ref, ":"); i > 1 {
				spec["fn"] = ref[i+1:]
				ref = ref[:i]
			}
			name, why := m.im.codeFile("javascript", ref, ".js")
			if why != "" {
				return nil, why
			}
			spec["file"] = name
			return spec, ""
		}
		r, err := renderString(s, m.vars, m.im.fixedSteps)
		if err != nil {
			return nil, "its code could not be rendered with the test's vars: " + err.Error()
		}
		spec["value"] = r
		return spec, ""
	case "contains-json", "is-json":
		if v := a.raw["value"]; v != nil {
			schema, why := schemaOf(v)
			if why != "" {
				return nil, base + " with a schema: " + why
			}
			spec["schema"] = schema
		}
		return spec, ""
	}
	v, why := m.value(a)
	if why != "" {
		return nil, why
	}
	spec["value"] = v
	return spec, ""
}

// transformSpec is a transform as the JavaScript runner takes it: inline
// code, or {file, fn} for a JavaScript file copied into the checks folder.
func (im *importer) transformSpec(v any) (any, string) {
	s, ok := v.(string)
	if !ok {
		return nil, "a transform must be JavaScript code or a file:// reference"
	}
	ref, isFile := strings.CutPrefix(s, "file://")
	if !isFile {
		return s, ""
	}
	file, fn := ref, ""
	if i := strings.LastIndex(ref, ":"); i > 1 {
		file, fn = ref[:i], ref[i+1:]
	}
	switch strings.ToLower(filepath.Ext(file)) {
	case ".js", ".cjs":
	case ".py":
		return nil, "a Python transform (" + filepath.Base(file) + ") is not run: write it in JavaScript, or inline"
	default:
		return nil, "expected a .js transform file"
	}
	name, why := im.codeFile("transform", file, filepath.Ext(file))
	if why != "" {
		return nil, why
	}
	spec := map[string]any{"file": name}
	if fn != "" {
		spec["fn"] = fn
	}
	return spec, ""
}

// missing starts why an assertion's file could not be read when it is not
// there: promptfoo fails the test, and so does a check that fails.
const missing = "the file is not there, and promptfoo fails the test: "

// codeFile copies a file of code the config names into the checks folder,
// once, and returns its path from the suite's folder; why starts with
// missing when the file is not there.
func (im *importer) codeFile(kind, ref, ext string) (string, string) {
	name := kind + "-" + slug(strings.TrimSuffix(filepath.ToSlash(ref), ext)) + ext
	if !im.quiet {
		key := kind + "\x00" + filepath.ToSlash(filepath.Clean(ref))
		for k, n := range im.codes {
			if n == name && k != key {
				return "", "its file's copy would have the name of " + strings.TrimPrefix(k, kind+"\x00") + "'s (" + name + "); rename one of them"
			}
		}
		if _, ok := im.codes[key]; !ok {
			data, shown, err := im.readRef(ref)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return "", missing + shown
				}
				return "", "could not read " + shown + ": " + err.Error()
			}
			im.codes[key] = name
			im.files["evals/"+checksDir+"/"+name] = data
		}
	}
	return im.checks + "/" + name, ""
}

// schemaOf reads a JSON Schema value: an object, or YAML or JSON text.
func schemaOf(v any) (any, string) {
	schema := v
	if s, ok := v.(string); ok {
		if strings.HasPrefix(s, "file://") || strings.Contains(s, "{{") || strings.Contains(s, "{%") {
			return nil, "a schema from a file or a template is not imported"
		}
		var parsed any
		if err := yaml.Unmarshal([]byte(s), &parsed); err != nil {
			return nil, "a schema that is not YAML or JSON"
		}
		schema = parsed
	}
	if why := schemaSubset(schema); why != "" {
		return nil, why
	}
	return schema, ""
}

// re2Same reports whether Go's regular expressions read pattern as
// JavaScript's do: it compiles, and uses nothing the two read apart.
func re2Same(pattern string) bool {
	if _, err := regexp.Compile(pattern); err != nil {
		return false
	}
	// Inline flags and \z, \A, \Q…\E are Go's only; JavaScript rejects or
	// reads them otherwise; \d, \w, \s and \b agree on ASCII.
	return !strings.Contains(pattern, "(?") && !strings.Contains(pattern, `\z`) && !strings.Contains(pattern, `\A`) && !strings.Contains(pattern, `\Q`) && !strings.Contains(pattern, `\p`) && !strings.Contains(pattern, `\P`)
}

func splitCommas(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(x))
	}
	return out
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

// program writes a program check that runs a JavaScript or Python
// assertion with promptfoo's calling convention; code collects the inline
// code the row carries.
func (im *importer) program(lang, value string, a assertion, code map[string][]string) (map[string]any, string) {
	runner, interp, ext := "javascript.cjs", "node", ".js"
	if lang == "python" {
		runner, interp, ext = "python.py", "python3", ".py"
	}
	var args []any
	if cfg, ok := a.raw["config"]; ok {
		data, err := json.Marshal(cfg)
		if err != nil {
			return nil, "its config is not JSON: " + err.Error()
		}
		args = append(args, "--config", string(data))
	}
	if ref, ok := strings.CutPrefix(value, "file://"); ok {
		if i := strings.LastIndex(ref, ":"); i > 1 {
			args = append(args, "--fn", ref[i+1:])
			ref = ref[:i]
		}
		// Named by its path, not by a count, so that a sheet's suite
		// (Sheet) names the copy the import wrote.
		name, why := im.codeFile(lang, ref, ext)
		if why != "" {
			return nil, why
		}
		args = append(args, name)
	} else {
		// Inline code travels in the row, so one process per worker runs
		// the inline assertions of every test (#18).
		k := len(code[lang])
		code[lang] = append(code[lang], value)
		args = append(args, "--inline", strconv.Itoa(k))
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
func (m *mapping) assertSet(a assertion) (check, criterion map[string]any, why string) {
	th, _ := number(a.raw["threshold"])
	var terms []string
	total := 0.0
	for _, in := range a.set {
		typ, _ := in.raw["type"].(string)
		c, _, why := m.check(in, typ)
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
		m.im.mapped(in.loc, typ, "a term of the assert-set's check")
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
		schema, why := schemaOf(val)
		if why != "" {
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
		case "title", "description", "$schema":
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
