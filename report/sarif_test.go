package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/results"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

func TestSARIF(t *testing.T) {
	type testCase struct {
		name      string
		run       *results.Run
		suiteErrs []*SuiteError
		// want maps each expected result (ruleId@uri:line) to its level.
		want map[string]string
	}
	schema := sarifTestSchema(t)
	run := func(t *testing.T, tc testCase) {
		out, err := SARIF(tc.run, tc.suiteErrs)
		assert.NilError(t, err)
		golden.Assert(t, string(out), "sarif-"+tc.name+".golden.sarif")

		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
		assert.NilError(t, err)
		assert.NilError(t, schema.Validate(inst))

		var log sarifLog
		assert.NilError(t, json.Unmarshal(out, &log))
		assert.Equal(t, len(log.Runs), 1)
		r := log.Runs[0]
		assert.Equal(t, r.Tool.Driver.Name, "evalgate")
		got := map[string]string{}
		for _, res := range r.Results {
			assert.Equal(t, r.Tool.Driver.Rules[res.RuleIndex].ID, res.RuleID, "ruleIndex of %s", res.RuleID)
			pl := res.Locations[0].PhysicalLocation
			key := res.RuleID + "@" + pl.ArtifactLocation.URI
			if pl.Region != nil {
				key += ":" + strconv.Itoa(pl.Region.StartLine)
			}
			got[key] = res.Level
		}
		assert.DeepEqual(t, got, tc.want)
	}
	for _, tc := range []testCase{
		{
			name: "mixed",
			run:  ciRun(),
			suiteErrs: []*SuiteError{
				{Pos: diag.Pos{File: "evals/broken.yaml", Line: 4, Col: 7}, Pointer: "/tasks/0/expected/kind", Message: `expected one of "golden", "rubric"`, Kind: "schema"},
			},
			want: map[string]string{
				"suite-invalid@evals/broken.yaml:4":          "error",
				"unfixtured-tool-call@evals/refunds.yaml:12": "note",
				"canary-leak@evals/refunds.yaml:60":          "error",
				"unsafe-tool-call@evals/refunds.yaml:60":     "error",
				"pii-leak@evals/greeting%20suite.json:9":     "warning",
			},
		},
		{name: "empty", want: map[string]string{}},
		{
			name: "suite-errors-only",
			suiteErrs: []*SuiteError{
				{Pos: diag.Pos{File: "./evals/a.json"}, Message: "could not parse suite"},
				{Pos: diag.Pos{File: "evals/b.yaml", Line: 2}, Message: ""},
			},
			want: map[string]string{
				"suite-invalid@evals/a.json":   "error",
				"suite-invalid@evals/b.yaml:2": "error",
			},
		},
		{
			name: "unknown-kind",
			run: &results.Run{RunID: "r", Suites: []results.Suite{{ID: "x.evals.y", File: "s.yaml", Tasks: []results.Task{
				{ID: "t", Line: 5, Findings: []results.Finding{
					{Kind: "prompt-injection", Severity: results.SeverityHigh},
					{Kind: "prompt-injection", Severity: results.SeverityHigh},
				}},
			}}}},
			want: map[string]string{"prompt-injection@s.yaml:5": "error"},
		},
		{
			// A file in the repository is relative to %SRCROOT%; one outside it
			// climbs out with no base, or is an absolute file URI.
			name: "outside-repo",
			run: &results.Run{RunID: "r", Suites: []results.Suite{
				sarifSuite("acme.a.evals.in", "sub/evals/in.yaml"),
				sarifSuite("acme.a.evals.up", "../shared/up.yaml"),
				sarifSuite("acme.a.evals.abs", "/opt/evals/abs.yaml"),
			}},
			want: map[string]string{
				"secret-leak@sub/evals/in.yaml:3":          "error",
				"secret-leak@../shared/up.yaml:3":          "error",
				"secret-leak@file:///opt/evals/abs.yaml:3": "error",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// sarifSuite is a suite in file with one task with a secret-leak finding.
func sarifSuite(id, file string) results.Suite {
	return results.Suite{ID: id, File: file, Tasks: []results.Task{{ID: "t", File: file, Line: 3, Status: results.StatusFailed,
		Findings: []results.Finding{{Kind: "secret-leak", Severity: results.SeverityCritical}}}}}
}

// TestSARIFLevels pins the severity mapping code scanning shows.
func TestSARIFLevels(t *testing.T) {
	type testCase struct {
		severity, level, score string
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, sarifLevel(tc.severity), tc.level)
		assert.Equal(t, sarifSecuritySeverity(tc.severity), tc.score)
	}
	for _, tc := range []testCase{
		{results.SeverityCritical, "error", "9.5"},
		{results.SeverityHigh, "error", "8.0"},
		{results.SeverityMedium, "warning", "5.5"},
		{results.SeverityLow, "note", "2.0"},
	} {
		t.Run(tc.severity, func(t *testing.T) { run(t, tc) })
	}
}

// TestSARIFSchemaRejects shows the trimmed schema is not a rubber stamp.
func TestSARIFSchemaRejects(t *testing.T) {
	type testCase struct {
		name string
		doc  string
	}
	schema := sarifTestSchema(t)
	run := func(t *testing.T, tc testCase) {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tc.doc)))
		assert.NilError(t, err)
		assert.Assert(t, schema.Validate(inst) != nil)
	}
	for _, tc := range []testCase{
		{name: "wrong version", doc: `{"version":"2.0.0","runs":[{"tool":{"driver":{"name":"x"}}}]}`},
		{name: "no location", doc: `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"r","message":{"text":"m"},"locations":[]}]}]}`},
		{name: "line zero", doc: `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"r","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"},"region":{"startLine":0}}}]}]}]}`},
		{name: "bad level", doc: `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"r","level":"critical","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"}}}]}]}]}`},
		{name: "unknown key", doc: `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rulez":[]}}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func sarifTestSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join("testdata", "sarif-2.1.0-trimmed.schema.json")
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	assert.NilError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	assert.NilError(t, c.AddResource("sarif.json", doc))
	sch, err := c.Compile("sarif.json")
	assert.NilError(t, err)
	return sch
}
