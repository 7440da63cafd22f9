package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/suites"
)

// validateJSON checks a document against a JSON Schema, with a validator
// of its own rather than evalgate's readers.
func validateJSON(t *testing.T, schema, doc []byte) error {
	t.Helper()
	sdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	assert.NilError(t, err)
	c := jsonschema.NewCompiler()
	assert.NilError(t, c.AddResource("schema.json", sdoc))
	sch, err := c.Compile("schema.json")
	assert.NilError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	assert.NilError(t, err)
	return sch.Validate(inst)
}

// summaryLine is the count of extensions a command printed.
var summaryLine = regexp.MustCompile(`(no evalgate extensions|\d+ evalgate extensions? \(export --openwop: [^)]*\))(; \d+ of \d+ tasks? (is|are) scored only by them)?`)

// TestExportOpenWOP exports suites with and without extensions: the output
// is strictly openwop-valid, never has $schema, leaves out (or, asked to,
// keeps) the tasks only extensions score and then exits 1, and counts the
// extensions as validate --openwop does.
func TestExportOpenWOP(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"tidy.yaml": "$schema: https://evalgate.dev/schemas/suite/v1\nsuiteId: acme.x.evals.tidy\nversion: 1.0.0\nmodes: [golden]\n" +
			"description: kept apart from openwop\ntasks:\n  - taskId: a\n    input: 1\n    tags: [smoke]\n" +
			"    expected: {kind: golden, match: {strategy: exact, value: 1}, assert: [{maxToolCalls: 0}]}\n",
		"translated.yaml": "suiteId: acme.x.evals.translated\nversion: 1.0.0\nmodes: [golden]\ntasks:\n" +
			"  - taskId: literal\n    input: where?\n    expected: {kind: golden, match: {strategy: regex, value: in transit}}\n" +
			"  - taskId: scalar\n    input: status?\n    expected: {kind: golden, match: {strategy: json-subset, value: shipped}}\n",
	}
	for name, data := range files {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
	suitesDir := filepath.Join("..", "suites", "testdata", "ok")
	type testCase struct {
		name       string
		args       []string
		wantCode   int
		wantTasks  []string // in the export; nil when nothing is written
		wantStderr []string
	}
	run := func(t *testing.T, tc testCase) {
		code, stdout, stderr := runEvalgate(t, nil, append([]string{"export"}, tc.args...)...)
		assert.Equal(t, code, tc.wantCode, stderr)
		for _, want := range tc.wantStderr {
			assert.Check(t, is.Contains(stderr, want))
		}
		assert.Check(t, !strings.Contains(stderr, "extension(s)"))
		if tc.wantTasks == nil {
			assert.Equal(t, stdout, "")
			return
		}
		var doc struct {
			Schema *string `json:"$schema"`
			Tasks  []struct {
				TaskID   string `json:"taskId"`
				Expected struct {
					Match *json.RawMessage `json:"match"`
				} `json:"expected"`
			} `json:"tasks"`
		}
		assert.NilError(t, json.Unmarshal([]byte(stdout), &doc))
		assert.Check(t, doc.Schema == nil, "the export has $schema")
		var ids []string
		for _, task := range doc.Tasks {
			ids = append(ids, task.TaskID)
		}
		assert.DeepEqual(t, ids, tc.wantTasks)
		assert.NilError(t, validateJSON(t, suites.OpenWOPSchemaJSON(), []byte(stdout)))

		// The export of a file with nothing lost is called portable by
		// validate --openwop too; one that kept unscoreable tasks is not.
		out := filepath.Join(t.TempDir(), "export.json")
		assert.NilError(t, os.WriteFile(out, []byte(stdout), 0o644))
		vcode, vout, _ := runEvalgate(t, nil, "validate", "--openwop", out)
		if tc.wantCode == 0 || !slices.Contains(tc.args, "--keep-unscoreable") {
			assert.Equal(t, vcode, 0, vout)
			assert.Check(t, is.Contains(vout, "export.json: strictly openwop-portable: no evalgate extensions"))
		} else {
			assert.Equal(t, vcode, 2, vout)
			assert.Check(t, !strings.Contains(vout, "strictly openwop-portable\n"), vout)
		}

		// validate --openwop counts the source's extensions as export did.
		var src string
		for _, a := range tc.args {
			if !strings.HasPrefix(a, "--") {
				src = a
			}
		}
		_, vsrc, _ := runEvalgate(t, nil, "validate", "--openwop", src)
		assert.Equal(t, summaryLine.FindString(vsrc), summaryLine.FindString(stderr), "validate:\n%s\nexport:\n%s", vsrc, stderr)
	}
	for _, tc := range []testCase{
		{
			name: "a portable suite", args: []string{"--openwop", "../examples/evals/order-status.json"},
			wantTasks:  []string{"status-in-transit", "status-gold-member", "status-delivered-exact", "refund-json-answer"},
			wantStderr: []string{"no evalgate extensions", "the suite is strictly openwop-portable as it is"},
		},
		{
			name: "extensions dropped, every task still scored", args: []string{"--openwop", filepath.Join(dir, "tidy.yaml")},
			wantTasks: []string{"a"},
			wantStderr: []string{
				"tidy.yaml:1:1: /$schema: an evalgate extension for editors",
				"4 evalgate extensions (export --openwop: 4 dropped)",
				"the export is strictly openwop-portable",
			},
		},
		{
			name: "exact translations", args: []string{"--openwop", filepath.Join(dir, "translated.yaml")},
			wantTasks: []string{"literal", "scalar"},
			wantStderr: []string{
				`translated.yaml:7:48: /tasks/0/expected/match/strategy: strategy "regex" is an evalgate extension; the export writes it as "contains"`,
				`strategy "json-subset" is an evalgate extension; the export writes it as "json-match"`,
				"2 evalgate extensions (export --openwop: 2 translated to openwop)",
			},
		},
		{
			name: "tasks only extensions score are left out", args: []string{"--openwop", filepath.Join(suitesDir, "golden-all.yaml")},
			wantCode:  1,
			wantTasks: []string{"exact-string", "exact-number", "json-match", "asserts"},
			wantStderr: []string{
				`/tasks/8: task "asserts-only" is scored only by evalgate extensions; no openwop runner can score it without them; left out (--keep-unscoreable keeps it, without scoring)`,
				"; 6 of 10 tasks are scored only by them",
				"evalgate: 6 of 10 tasks left out: only evalgate extensions score them; the rest is strictly openwop-portable",
			},
		},
		{
			name: "kept on request, still exit 1", args: []string{"--openwop", "--keep-unscoreable", filepath.Join(suitesDir, "golden-all.yaml")},
			wantCode: 1,
			wantTasks: []string{"exact-string", "exact-number", "contains-ignore-case", "json-match", "regex", "json-subset-path",
				"json-schema", "asserts", "asserts-only", "schema-only"},
			wantStderr: []string{"; kept without scoring", "6 of 10 tasks kept without scoring: no openwop runner can score them, so the export is not portable"},
		},
		{
			name: "nothing left to write", args: []string{"--openwop", "../examples/evals/refunds.yaml"},
			wantCode:   1,
			wantStderr: []string{"7 of 7 tasks are scored only by them", "every task of ../examples/evals/refunds.yaml is scored only by evalgate extensions, so nothing was written"},
		},
		{
			name: "flags after the file", args: []string{"../examples/evals/rubric-replies.yaml", "--openwop"},
			wantTasks:  []string{"reply-in-transit", "reply-gold-member", "reply-missing-order-number", "reply-crm-down"},
			wantStderr: []string{"the export is strictly openwop-portable"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestValidateOpenWOP: a file is called strictly portable only when an
// openwop runner takes it unchanged and can score every task; $schema and
// an empty targetAgentId keep it from that.
func TestValidateOpenWOP(t *testing.T) {
	dir := t.TempDir()
	const portable = "suiteId: acme.x.evals.p\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: a\n    input: 1\n    expected: {kind: golden, match: {strategy: exact, value: 1}}\n"
	type testCase struct {
		name       string
		data       string
		wantCode   int
		wantStdout []string
	}
	run := func(t *testing.T, tc testCase) {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
		assert.NilError(t, os.WriteFile(path, []byte(tc.data), 0o644))
		code, stdout, stderr := runEvalgate(t, nil, "validate", "--openwop", path)
		assert.Equal(t, code, tc.wantCode, stdout+stderr)
		for _, want := range tc.wantStdout {
			assert.Check(t, is.Contains(stdout, want))
		}
	}
	for _, tc := range []testCase{
		{name: "portable", data: portable, wantStdout: []string{"portable.yaml: strictly openwop-portable: no evalgate extensions", "1 suite(s), 1 task(s): valid"}},
		{
			name: "schema", data: "$schema: https://evalgate.dev/schemas/suite/v1\n" + portable, wantCode: 2,
			wantStdout: []string{
				"schema.yaml: not strictly openwop-portable: 1 evalgate extension (export --openwop: 1 dropped)",
				"schema.yaml:1:1: /$schema: an evalgate extension for editors; openwop objects are closed, so the export drops it [openwop]",
			},
		},
		{
			name: "empty target agent", data: "targetAgentId: ''\n" + portable, wantCode: 2,
			wantStdout: []string{"empty-target-agent.yaml:1:16: /targetAgentId: "},
		},
		{
			name: "only asserts", wantCode: 2,
			data: strings.Replace(portable, "match: {strategy: exact, value: 1}", "assert: [{maxToolCalls: 0}]", 1),
			wantStdout: []string{
				"; 1 of 1 task is scored only by them",
				`only-asserts.yaml:5:5: /tasks/0: task "a" is scored only by evalgate extensions; no openwop runner can score it without them [openwop]`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
