package results_test

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

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

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
			assert.Check(t, !v.Interface().(interface{ IsZero() bool }).IsZero(), "%s is zero", path)
			return
		}
		for i := range v.NumField() {
			assertNoZeroFields(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice, reflect.Map:
		assert.Check(t, v.Len() != 0, "%s is empty", path)
	case reflect.Bool:
	default:
		assert.Check(t, !v.IsZero(), "%s is zero", path)
	}
}

// TestFullRunIsFull keeps resultstest.Full honest: trimmed to its fullest gate,
// suite and task, it has no field left at its zero value, so a field added
// to the model later fails here until the fixture and the schema have it.
func TestFullRunIsFull(t *testing.T) {
	r := *resultstest.Full()
	r.Gates = r.Gates[2:]
	s := r.Suites[0]
	s.Tasks = s.Tasks[2:]
	r.Suites = []results.Suite{s}
	assertNoZeroFields(t, reflect.ValueOf(r), "run")
}

func TestWrite(t *testing.T) {
	type testCase struct {
		name   string
		run    func() *results.Run
		golden string
		check  func(t *testing.T, in *results.Run, data []byte)
	}
	sch := resultstest.CompileSchema(t, results.SchemaJSON())
	run := func(t *testing.T, tc testCase) {
		path := filepath.Join(t.TempDir(), "out", "results.json")
		in := tc.run()
		before, err := json.Marshal(in)
		assert.NilError(t, err)

		assert.NilError(t, results.Write(path, in))
		data, err := os.ReadFile(path)
		assert.NilError(t, err)
		assert.NilError(t, resultstest.Validate(t, sch, data), "results.json does not match its schema")

		after, err := json.Marshal(in)
		assert.NilError(t, err)
		assert.Equal(t, string(after), string(before), "Write changed its input")

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
			run:    resultstest.Full,
			golden: "results-full.golden",
		},
		{
			name: "round trip",
			run:  resultstest.Full,
			check: func(t *testing.T, in *results.Run, data []byte) {
				path := filepath.Join(t.TempDir(), "again.json")
				assert.NilError(t, os.WriteFile(path, data, 0o644))
				back, err := results.Read(path)
				assert.NilError(t, err)
				// Gate values come back as float64, as any JSON reader sees them.
				want := resultstest.Full()
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
				r := resultstest.Failing()
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
				r := resultstest.Failing()
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

func TestWriteStable(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	assert.NilError(t, results.Write(a, resultstest.Full()))
	assert.NilError(t, results.Write(b, resultstest.Full()))
	da, err := os.ReadFile(a)
	assert.NilError(t, err)
	db, err := os.ReadFile(b)
	assert.NilError(t, err)
	assert.Equal(t, string(da), string(db))

	// Overwriting replaces the file whole.
	small := resultstest.Failing()
	small.Suites = nil
	assert.NilError(t, results.Write(a, small))
	back, err := results.Read(a)
	assert.NilError(t, err)
	assert.Check(t, is.Len(back.Suites, 0))
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	assert.NilError(t, os.WriteFile(file, nil, 0o644))

	err := results.Write(filepath.Join(file, "results.json"), resultstest.Failing())
	assert.ErrorContains(t, err, `could not write results "`+filepath.Join(file, "results.json")+`": `)

	assert.Error(t, results.Write(filepath.Join(dir, "r.json"), nil), "could not write results: no run")

	if runtime.GOOS != "windows" && os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		assert.NilError(t, os.Mkdir(ro, 0o555))
		assert.Check(t, results.Write(filepath.Join(ro, "results.json"), resultstest.Failing()) != nil)
	}
}

// TestResultsSchema checks that the schema is closed where the model is.
func TestResultsSchema(t *testing.T) {
	sch := resultstest.CompileSchema(t, results.SchemaJSON())
	data, err := results.EncodeResults(resultstest.Full())
	assert.NilError(t, err)
	obj := func(v any) map[string]any { return v.(map[string]any) }
	idx := func(v any, i int) map[string]any { return v.([]any)[i].(map[string]any) }
	testCases := []resultstest.SchemaEdit{
		{Name: "as written", Edit: func(map[string]any) {}},
		{Name: "unknown top-level key", Edit: func(d map[string]any) { d["output"] = "x" }, WantErr: "at '/output'"},
		{Name: "unknown suite key", Edit: func(d map[string]any) { idx(d["suites"], 0)["prompt"] = "x" }, WantErr: "at '/suites/0/prompt'"},
		{Name: "unknown task key", Edit: func(d map[string]any) { idx(obj(idx(d["suites"], 0))["tasks"], 0)["input"] = 1 }, WantErr: "'input'"},
		{Name: "unknown check key", Edit: func(d map[string]any) {
			task := idx(obj(idx(d["suites"], 0))["tasks"], 1)
			idx(idx(task["trials"], 0)["checks"], 0)["judgeReason"] = "x"
		}, WantErr: "'judgeReason'"},
		{Name: "gate values are open", Edit: func(d map[string]any) { obj(idx(d["gates"], 0)["values"])["anything"] = []any{1} }},
		{Name: "missing stats field", Edit: func(d map[string]any) { delete(d, "p95LatencyMs") }, WantErr: "'p95LatencyMs'"},
		{Name: "missing suite stats field", Edit: func(d map[string]any) { delete(idx(d["suites"], 0), "findings") }, WantErr: "'findings'"},
		{Name: "bad status", Edit: func(d map[string]any) { idx(obj(idx(d["suites"], 0))["tasks"], 0)["status"] = "ok" }, WantErr: "/status"},
		{Name: "bad severity", Edit: func(d map[string]any) {
			idx(idx(obj(idx(d["suites"], 0))["tasks"], 1)["findings"], 0)["severity"] = "severe"
		}, WantErr: "/severity"},
		{Name: "wrong format id", Edit: func(d map[string]any) { d["$schema"] = "https://example.com/other" }, WantErr: "/$schema"},
		{Name: "fractional count", Edit: func(d map[string]any) { d["taskCount"] = 1.5 }, WantErr: "/taskCount"},
		{Name: "empty error message", Edit: func(d map[string]any) {
			idx(obj(idx(d["suites"], 0))["tasks"], 2)["errorMessage"] = ""
		}, WantErr: "/errorMessage"},
		{Name: "no lines after final is left out, not 0", Edit: func(d map[string]any) {
			idx(obj(idx(d["suites"], 0))["tasks"], 2)["linesAfterFinal"] = 0
		}, WantErr: "/linesAfterFinal"},
	}
	resultstest.CheckSchemaEdits(t, sch, data, testCases)
}
