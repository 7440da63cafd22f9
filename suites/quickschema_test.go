package suites

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// fullValid is the full validator's verdict on instance against schema,
// with ok false when either does not parse or the schema does not compile.
func fullValid(t *testing.T, schema, instance *value) (valid, ok bool) {
	t.Helper()
	const url = "https://evalgate.dev/schemas/quick-test"
	c := newCompiler()
	if err := c.AddResource(url, schema.toAny()); err != nil {
		return false, false
	}
	sch, err := c.Compile(url)
	if err != nil {
		return false, false
	}
	return sch.Validate(instance.toAny()) == nil, true
}

// suiteTasks returns the tasks of the suites under testdata/ok, the
// bench workload and the compact test suite.
func suiteTasks(t *testing.T) []*value {
	t.Helper()
	var tasks []*value
	add := func(path string, data []byte) {
		root, errs := parseTree(path, data)
		assert.Assert(t, errs == nil, "%s: %v", path, errs)
		tasks = append(tasks, root.get("tasks").items...)
	}
	for _, f := range testFiles(t, "ok") {
		data, err := os.ReadFile(f)
		assert.NilError(t, err)
		add(f, data)
	}
	add("bench.json", benchWorkload(20))
	add("compact.json", []byte(compactSuite(9)))
	return tasks
}

// TestQuickSchemaValidTasks: the suite schema has a quick form, and it
// finds valid every valid task, so valid suites skip the full validator.
func TestQuickSchemaValidTasks(t *testing.T) {
	_, err := suiteSchema.parsed()
	assert.NilError(t, err)
	assert.Assert(t, suiteSchema.quickTask != nil, "the suite schema's task must have a quick form")
	for i, task := range suiteTasks(t) {
		assert.Check(t, suiteSchema.quickTask.valid(task), "task %d (%s, line %d) is valid but the quick form does not find it so", i, task.get("taskId").lit, task.line)
	}
}

// TestQuickSchemaValidSuites: whole valid suites are found valid by the
// quick forms, evalgate's and (for a portable one) openwop's, so loading
// them never compiles the full validator.
func TestQuickSchemaValidSuites(t *testing.T) {
	for _, f := range testFiles(t, "ok") {
		data, err := os.ReadFile(f)
		assert.NilError(t, err)
		root, errs := parseTree(f, data)
		assert.Assert(t, errs == nil, "%s: %v", f, errs)
		fresh := &schemaSet{raw: suiteSchemaJSON, url: suiteSchema.url}
		assert.Assert(t, fresh.validate(f, root) == nil)
		assert.Assert(t, fresh.sch == nil, "%s: the full validator was compiled", f)
		assert.Assert(t, suiteSchema.validate(f, root) == nil)
		assert.Assert(t, suiteSchema.quick.valid(root), "%s is valid but the quick form does not find it so", f)
		if filepath.Base(f) == "portable.json" {
			assert.Assert(t, openwopSchema.validate(f, root) == nil)
			assert.Assert(t, openwopSchema.quick != nil && openwopSchema.quick.valid(root), "%s: openwop's quick form", f)
		}
	}
}

// TestQuickSchemaVerdicts compares the quick and full verdicts on tasks
// broken one way at a time: the quick form must never find valid what
// the full validator does not, and here it knows every answer.
func TestQuickSchemaVerdicts(t *testing.T) {
	_, doc, err := suiteSchema.compiled()
	assert.NilError(t, err)
	task := doc.get("$defs").get("task")
	schema := &value{kind: kindObject, fields: append([]field{{key: "$defs", val: doc.get("$defs")}}, task.fields...)}
	base := `{"taskId": "t-1", "input": {"q": [1, 2.5, null, true]}, "expected": {"kind": "golden",
		"match": {"strategy": "exact", "value": "4"}, "assert": [{"expr": "output != \"\"", "weight": 0.5}]},
		"tags": ["a", "b"], "passScore": 0.75, "timeoutMs": 1000, "metadata": {"complexity": 3},
		"fixtures": {"toolResponses": [{"tool": "crm:lookup", "response": 1, "times": 2, "delayMs": 0}], "onUnmatched": "fail"},
		"adversarial": {"detectors": ["pii", "canary"], "severities": {"pii-leak": "high"}}}`
	for _, tc := range []struct {
		name     string
		valid    bool
		from, to string
	}{
		{"valid", true, "", ""},
		{"integer written 1.0e3", true, `"timeoutMs": 1000`, `"timeoutMs": 1.0e3`},
		{"integer with a fraction", false, `"timeoutMs": 1000`, `"timeoutMs": 1000.5`},
		{"below a minimum", false, `"timeoutMs": 1000`, `"timeoutMs": 0`},
		{"above a maximum", false, `"passScore": 0.75`, `"passScore": 1.0000000000000000001`},
		{"at a maximum", true, `"passScore": 0.75`, `"passScore": 1e0`},
		{"a number for a string", false, `"taskId": "t-1"`, `"taskId": 1`},
		{"pattern not matched", false, `"taskId": "t-1"`, `"taskId": "T 1"`},
		{"unknown key", false, `"tags"`, `"tagz"`},
		{"required key missing", false, `"input": {"q": [1, 2.5, null, true]}, `, ``},
		{"not in the enum", false, `"kind": "golden"`, `"kind": "silver"`},
		{"duplicate tags", false, `["a", "b"]`, `["a", "a"]`},
		{"empty tag", false, `["a", "b"]`, `["a", ""]`},
		{"empty list", false, `"assert": [{"expr": "output != \"\"", "weight": 0.5}]`, `"assert": []`},
		{"negative weight", false, `"weight": 0.5`, `"weight": -0.5`},
		{"bad property name", false, `"pii-leak": "high"`, `"pii-leaks": "high"`},
		{"a list for an object", false, `"metadata": {"complexity": 3}`, `"metadata": [3]`},
		{"null where a value is allowed", true, `"response": 1`, `"response": null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := base
			if tc.from != "" {
				assert.Assert(t, strings.Contains(src, tc.from))
				src = strings.Replace(src, tc.from, tc.to, 1)
			}
			v, errs := parseJSON("task.json", []byte(src))
			assert.Assert(t, errs == nil, "%v", errs)
			full, ok := fullValid(t, schema, v)
			assert.Assert(t, ok)
			assert.Equal(t, full, tc.valid, "the full validator's verdict")
			assert.Equal(t, suiteSchema.quickTask.valid(v), tc.valid, "the quick verdict")
		})
	}
}

// TestQuickSchemaUnknownKeywords: a schema using a keyword the quick form
// does not know, or a form of one it does not, has no quick form.
func TestQuickSchemaUnknownKeywords(t *testing.T) {
	for _, src := range []string{
		`{"const": 1}`,
		`{"type": "object", "patternProperties": {"^a": {}}}`,
		`{"properties": {"a": {"format": "email"}}}`,
		`{"enum": ["a", 1]}`,
		`{"type": "whole"}`,
		`{"$ref": "https://example.com/s"}`,
		`{"$ref": "#/$defs/missing"}`,
		`{"items": [{}]}`,
		`{"minLength": -1}`,
		`{"pattern": "("}`,
		`3`,
	} {
		v, errs := parseJSON("schema.json", []byte(src))
		assert.Assert(t, errs == nil, "%v", errs)
		assert.Assert(t, compileQuick(v, v) == nil, "%s has a quick form", src)
	}
}

// FuzzQuickSchema checks, for any schema with a quick form and any
// instance, that the quick form finds valid only what the full validator
// finds valid.
func FuzzQuickSchema(f *testing.F) {
	seeds := [][2]string{
		{`{"type": "integer", "minimum": 1, "maximum": 5}`, `3.0`},
		{`{"type": ["string", "null"], "minLength": 2, "pattern": "^a"}`, `"aé"`},
		{`{"type": "array", "items": {"enum": ["x", "y"]}, "uniqueItems": true, "minItems": 1}`, `["x", "y"]`},
		{`{"type": "object", "required": ["a"], "additionalProperties": false, "properties": {"a": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "number", "minimum": 0}}}`, `{"a": 1e-400}`},
		{`{"propertyNames": {"enum": ["a", "b"]}, "additionalProperties": {"type": "boolean"}}`, `{"a": true, "c": 1}`},
		{`{"$defs": {"l": {"type": "array", "items": {"$ref": "#/$defs/l"}}}, "$ref": "#/$defs/l"}`, `[[[]], []]`},
		{`true`, `{}`},
		{`false`, `null`},
		{string(suiteSchemaJSON), `{"suiteId": "a.evals.b", "version": "1.0.0", "tasks": []}`},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, schemaSrc, instanceSrc string) {
		schema, errs := parseJSON("schema.json", []byte(schemaSrc))
		if errs != nil {
			return
		}
		instance, errs := parseJSON("instance.json", []byte(instanceSrc))
		if errs != nil {
			return
		}
		q := compileQuick(schema, schema)
		if q == nil || !q.valid(instance) {
			return
		}
		valid, ok := fullValid(t, schema, instance)
		if ok {
			assert.Assert(t, valid, "the quick form finds %s valid against %s; the full validator does not", instanceSrc, schemaSrc)
		}
	})
}
