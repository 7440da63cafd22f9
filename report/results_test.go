package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/results"
)

// fullRun is failingRun with every optional field of the model set, so that
// validating it proves the schema describes every field.
func fullRun() *results.Run {
	r := failingRun()
	r.Interrupted = true
	r.Shard = &results.Shard{Index: 2, Count: 4}
	r.Selection = &results.Selection{Tasks: []string{"refund-window", "lost-parcel"}, Tags: []string{"smoke"}, Mode: "golden"}
	r.Judge = &results.JudgeInfo{ID: "openai:judge-model", Calibrated: true, Agreement: ptr(0.86)}
	r.Gates[2].Error = "unknown name findings.severe"
	r.Regression.Warnings = []string{"baseline ran a different suite version"}
	r.Regression.Fixed = 1
	r.Regression.CIHigh = 0.125
	r.Findings = results.Findings{Critical: 1, High: 1, Medium: 1, Low: 1}
	s := &r.Suites[0]
	s.Findings = r.Findings
	s.Regression.Fixed = 1
	s.Tasks[2].Tags = []string{"slow"}
	s.Tasks[2].FailedChecks = []string{"rubric[0]"}
	s.Tasks[2].Findings = []results.Finding{{Kind: "canary-leak", Severity: results.SeverityCritical}}
	s.Tasks[2].SchemaValid = ptr(false)
	s.Tasks[2].PassAtK = true
	s.Tasks[2].TrialsPassed = 1
	s.Tasks[2].LatencyMs = 120000
	s.Tasks[2].CostUsd = 0.01
	s.Tasks[2].AgentCostUsd = 0.01
	s.Tasks[2].JudgeCostUsd = 0.001
	s.Tasks[2].Tokens = results.Tokens{Input: 1, Output: 2}
	s.Tasks[2].ToolCalls = 4
	s.Tasks[2].Passed = true
	s.Tasks[2].Score = 0.1
	s.Tasks[2].ErrorMessage = "timed out after 2m"
	s.Tasks[2].LinesAfterFinal = 2
	s.Tasks[2].Trials[0] = results.Trial{
		Trial: 1, Status: results.StatusError, ErrorKind: results.ErrTimeout, ErrorMessage: "timed out after 2m", LinesAfterFinal: 2, Score: 0.1, Passed: true,
		LatencyMs: 120000, AgentCostUsd: 0.01, JudgeCostUsd: 0.001, Tokens: results.Tokens{Input: 1, Output: 2},
		ToolCalls: 4, SchemaValid: ptr(false),
		Checks:   []results.Check{{ID: "rubric[0]", Kind: "criterion", Weight: 0.5, Passed: true, Reason: "not-met", Judged: true}},
		Findings: []results.Finding{{Kind: "canary-leak", Severity: results.SeverityCritical}},
	}
	return r
}

// assertNoZeroFields fails for every field of v, at any depth, that holds
// its zero value; false booleans are allowed.
func assertNoZeroFields(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			t.Errorf("%s is nil", path)
			return
		}
		assertNoZeroFields(t, v.Elem(), path)
	case reflect.Struct:
		if v.Type().PkgPath() == "time" {
			if v.Interface().(interface{ IsZero() bool }).IsZero() {
				t.Errorf("%s is zero", path)
			}
			return
		}
		for i := range v.NumField() {
			assertNoZeroFields(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			t.Errorf("%s is empty", path)
		}
	case reflect.Bool:
	default:
		if v.IsZero() {
			t.Errorf("%s is zero", path)
		}
	}
}

// TestFullRunIsFull keeps fullRun honest: trimmed to its fullest gate,
// suite and task, it has no field left at its zero value, so a field added
// to the model later fails here until the fixture and the schema have it.
func TestFullRunIsFull(t *testing.T) {
	r := *fullRun()
	r.Gates = r.Gates[2:]
	s := r.Suites[0]
	s.Tasks = s.Tasks[2:]
	r.Suites = []results.Suite{s}
	assertNoZeroFields(t, reflect.ValueOf(r), "run")
}

func TestWriteResults(t *testing.T) {
	type testCase struct {
		name   string
		run    func() *results.Run
		golden string
		check  func(t *testing.T, in *results.Run, data []byte)
	}
	sch := compileTestSchema(t, ResultsSchemaJSON())
	run := func(t *testing.T, tc testCase) {
		path := filepath.Join(t.TempDir(), "out", "results.json")
		in := tc.run()
		before, err := json.Marshal(in)
		assert.NilError(t, err)

		assert.NilError(t, WriteResults(path, in))
		data, err := os.ReadFile(path)
		assert.NilError(t, err)
		assert.NilError(t, validate(t, sch, data), "results.json does not match its schema")

		after, err := json.Marshal(in)
		assert.NilError(t, err)
		assert.Equal(t, string(after), string(before), "WriteResults changed its input")

		entries, err := os.ReadDir(filepath.Dir(path))
		assert.NilError(t, err)
		assert.Check(t, is.Len(entries, 1), "a temporary file was left behind")

		if tc.golden != "" {
			golden.Assert(t, string(data), tc.golden)
		}
		if tc.check != nil {
			tc.check(t, in, data)
		}
	}
	testCases := []testCase{
		{
			name:   "fully populated",
			run:    fullRun,
			golden: "results-full.golden",
		},
		{
			name: "round trip",
			run:  fullRun,
			check: func(t *testing.T, in *results.Run, data []byte) {
				path := filepath.Join(t.TempDir(), "again.json")
				assert.NilError(t, os.WriteFile(path, data, 0o644))
				back, err := results.Read(path)
				assert.NilError(t, err)
				// Gate values come back as float64, as any JSON reader sees them.
				want := fullRun()
				for i := range want.Gates {
					for k, v := range want.Gates[i].Values {
						if n, ok := v.(int); ok {
							want.Gates[i].Values[k] = float64(n)
						}
					}
				}
				assert.Check(t, cmp.Diff(want, back) == "", cmp.Diff(want, back))
			},
		},
		{
			name: "missing lists written as empty ones",
			run: func() *results.Run {
				r := failingRun()
				r.Schema = ""
				r.Gates = nil
				r.Suites[0].Modes = nil
				r.Suites[0].Tasks[2].Trials[0].Checks = nil
				r.Suites[1].Tasks = nil
				return r
			},
			check: func(t *testing.T, in *results.Run, data []byte) {
				var doc struct {
					Schema string            `json:"$schema"`
					Gates  []json.RawMessage `json:"gates"`
					Suites []struct {
						Modes json.RawMessage `json:"modes"`
						Tasks []struct {
							Trials []struct {
								Checks json.RawMessage `json:"checks"`
							} `json:"trials"`
						} `json:"tasks"`
					} `json:"suites"`
				}
				assert.NilError(t, json.Unmarshal(data, &doc))
				assert.Equal(t, doc.Schema, results.Schema)
				assert.Check(t, doc.Gates != nil)
				assert.Equal(t, string(doc.Suites[0].Modes), "[]")
				assert.Equal(t, string(doc.Suites[0].Tasks[2].Trials[0].Checks), "[]")
				assert.Check(t, doc.Suites[1].Tasks != nil)
				// The input still has its nils.
				assert.Check(t, in.Gates == nil && in.Suites[0].Modes == nil && in.Suites[1].Tasks == nil)
				assert.Check(t, in.Suites[0].Tasks[2].Trials[0].Checks == nil)
			},
		},
		{
			name: "no suites",
			run: func() *results.Run {
				r := failingRun()
				r.Suites = nil
				r.Regression = nil
				return r
			},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestWriteResultsStable(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	assert.NilError(t, WriteResults(a, fullRun()))
	assert.NilError(t, WriteResults(b, fullRun()))
	da, err := os.ReadFile(a)
	assert.NilError(t, err)
	db, err := os.ReadFile(b)
	assert.NilError(t, err)
	assert.Equal(t, string(da), string(db))

	// Overwriting replaces the file whole.
	small := failingRun()
	small.Suites = nil
	assert.NilError(t, WriteResults(a, small))
	back, err := results.Read(a)
	assert.NilError(t, err)
	assert.Check(t, is.Len(back.Suites, 0))
}

func TestWriteResultsErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	assert.NilError(t, os.WriteFile(file, nil, 0o644))

	err := WriteResults(filepath.Join(file, "results.json"), failingRun())
	assert.ErrorContains(t, err, `could not write results "`+filepath.Join(file, "results.json")+`": `)

	assert.Error(t, WriteResults(filepath.Join(dir, "r.json"), nil), "could not write results: no run")

	if runtime.GOOS != "windows" && os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		assert.NilError(t, os.Mkdir(ro, 0o555))
		assert.Check(t, WriteResults(filepath.Join(ro, "results.json"), failingRun()) != nil)
	}
}

// TestResultsSchema checks that the schema is closed where the model is.
func TestResultsSchema(t *testing.T) {
	sch := compileTestSchema(t, ResultsSchemaJSON())
	data, err := encodeResults(fullRun())
	assert.NilError(t, err)
	obj := func(v any) map[string]any { return v.(map[string]any) }
	idx := func(v any, i int) map[string]any { return v.([]any)[i].(map[string]any) }
	testCases := []schemaEdit{
		{name: "as written", edit: func(map[string]any) {}},
		{name: "unknown top-level key", edit: func(d map[string]any) { d["output"] = "x" }, wantErr: "at '/output'"},
		{name: "unknown suite key", edit: func(d map[string]any) { idx(d["suites"], 0)["prompt"] = "x" }, wantErr: "at '/suites/0/prompt'"},
		{name: "unknown task key", edit: func(d map[string]any) { idx(obj(idx(d["suites"], 0))["tasks"], 0)["input"] = 1 }, wantErr: "'input'"},
		{name: "unknown check key", edit: func(d map[string]any) {
			task := idx(obj(idx(d["suites"], 0))["tasks"], 1)
			idx(idx(task["trials"], 0)["checks"], 0)["judgeReason"] = "x"
		}, wantErr: "'judgeReason'"},
		{name: "gate values are open", edit: func(d map[string]any) { obj(idx(d["gates"], 0)["values"])["anything"] = []any{1} }},
		{name: "missing stats field", edit: func(d map[string]any) { delete(d, "p95LatencyMs") }, wantErr: "'p95LatencyMs'"},
		{name: "missing suite stats field", edit: func(d map[string]any) { delete(idx(d["suites"], 0), "findings") }, wantErr: "'findings'"},
		{name: "bad status", edit: func(d map[string]any) { idx(obj(idx(d["suites"], 0))["tasks"], 0)["status"] = "ok" }, wantErr: "/status"},
		{name: "bad severity", edit: func(d map[string]any) {
			idx(idx(obj(idx(d["suites"], 0))["tasks"], 1)["findings"], 0)["severity"] = "severe"
		}, wantErr: "/severity"},
		{name: "wrong format id", edit: func(d map[string]any) { d["$schema"] = "https://example.com/other" }, wantErr: "/$schema"},
		{name: "fractional count", edit: func(d map[string]any) { d["taskCount"] = 1.5 }, wantErr: "/taskCount"},
		{name: "empty error message", edit: func(d map[string]any) {
			idx(obj(idx(d["suites"], 0))["tasks"], 2)["errorMessage"] = ""
		}, wantErr: "/errorMessage"},
		{name: "no lines after final is left out, not 0", edit: func(d map[string]any) {
			idx(obj(idx(d["suites"], 0))["tasks"], 2)["linesAfterFinal"] = 0
		}, wantErr: "/linesAfterFinal"},
	}
	checkSchemaEdits(t, sch, data, testCases)
}
