package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

func TestSummary(t *testing.T) {
	type testCase struct {
		name       string
		suite      func() results.Suite
		modelClass string
		golden     string // testdata file; empty to check only the schema and want
		want       func(t *testing.T, doc map[string]any)
		wantErr    string
	}
	sch := resultstest.CompileSchema(t, SummarySchemaJSON())

	run := func(t *testing.T, tc testCase) {
		s := tc.suite()
		got, err := Summary(&s, tc.modelClass)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			// The schema must reject what the code rejects.
			data, err := json.Marshal(buildSummary(&s, tc.modelClass))
			assert.NilError(t, err)
			assert.Check(t, resultstest.Validate(t, sch, data) != nil, "the schema accepts what Summary rejects")
			return
		}
		assert.NilError(t, err)
		assert.NilError(t, resultstest.Validate(t, sch, got), "summary does not match its schema:\n%s", got)
		if tc.golden != "" {
			golden.Assert(t, string(got), tc.golden)
		}
		if tc.want != nil {
			var doc map[string]any
			assert.NilError(t, json.Unmarshal(got, &doc))
			tc.want(t, doc)
		}
	}

	testCases := []testCase{
		{
			name:   "failing suite with findings and regression",
			suite:  resultstest.Refunds,
			golden: "summary-refunds.golden",
		},
		{
			name:   "passing suite without regression",
			suite:  resultstest.Greeting,
			golden: "summary-greeting.golden",
		},
		{
			name:       "model class from the argument",
			suite:      resultstest.Greeting,
			modelClass: "coding",
			want: func(t *testing.T, doc map[string]any) {
				assert.Equal(t, doc["evaluatedModelClass"], "coding")
			},
		},
		{
			name:       "argument wins over the suite's class",
			suite:      resultstest.Refunds,
			modelClass: "reasoning",
			want: func(t *testing.T, doc map[string]any) {
				assert.Equal(t, doc["evaluatedModelClass"], "reasoning")
			},
		},
		{
			name:       "class openwop does not know is left out",
			suite:      resultstest.Refunds,
			modelClass: "gpt-4o",
			want: func(t *testing.T, doc map[string]any) {
				assert.Check(t, !has(doc, "evaluatedModelClass"))
			},
		},
		{
			name: "scores, costs and delta clamped",
			suite: func() results.Suite {
				s := resultstest.Refunds()
				s.AggregateScore = 1.0000000002
				s.TotalCostUsd = -0.0001
				s.Regression.ScoreDelta = -1.5
				s.Tasks[0].Score = math.NaN()
				s.Tasks[1].Score = -0.1
				s.Tasks[1].LatencyMs = -5
				s.Tasks[2].CostUsd = math.Inf(-1)
				return s
			},
			want: func(t *testing.T, doc map[string]any) {
				assert.Equal(t, doc["aggregateScore"], 1.0)
				assert.Equal(t, doc["totalCostUsd"], 0.0)
				assert.Equal(t, doc["regression"].(map[string]any)["scoreDelta"], -1.0)
				tasks := doc["tasks"].([]any)
				assert.Equal(t, tasks[0].(map[string]any)["score"], 0.0)
				assert.Equal(t, tasks[1].(map[string]any)["score"], 0.0)
				assert.Equal(t, tasks[1].(map[string]any)["latencyMs"], 0.0)
				assert.Equal(t, tasks[2].(map[string]any)["costUsd"], 0.0)
			},
		},
		{
			name: "only allowed keys, content-free",
			suite: func() results.Suite {
				s := resultstest.Refunds()
				s.File = "secret/path.yaml"
				return s
			},
			want: func(t *testing.T, doc map[string]any) {
				assert.DeepEqual(t, keys(doc), []string{
					"aggregateScore", "evaluatedModelClass", "passed", "passedCount", "regression",
					"suiteId", "suiteVersion", "taskCount", "tasks", "totalCostUsd",
				})
				task := doc["tasks"].([]any)[1].(map[string]any)
				assert.DeepEqual(t, keys(task), []string{
					"costUsd", "latencyMs", "passed", "safetyFindings", "schemaValid", "score", "taskId",
				})
				assert.DeepEqual(t, keys(doc["regression"].(map[string]any)), []string{"baselineRunId", "scoreDelta"})
			},
		},
		{
			name: "schemaValid and findings left out when unknown or empty",
			suite: func() results.Suite {
				s := resultstest.Refunds()
				s.Tasks[1].SchemaValid = nil
				s.Tasks[1].Findings = []results.Finding{}
				return s
			},
			want: func(t *testing.T, doc map[string]any) {
				task := doc["tasks"].([]any)[1].(map[string]any)
				assert.Check(t, !has(task, "schemaValid"))
				assert.Check(t, !has(task, "safetyFindings"))
			},
		},
		{
			name: "suite id openwop does not allow",
			suite: func() results.Suite {
				s := resultstest.Greeting()
				s.ID = "Acme Greeting"
				return s
			},
			wantErr: `could not build summary for suite "Acme Greeting": does not match the EvalSummary schema: at /suiteId: "Acme Greeting" does not match`,
		},
		{
			name: "unknown severity",
			suite: func() results.Suite {
				s := resultstest.Refunds()
				s.Tasks[1].Findings[0].Severity = "severe"
				return s
			},
			wantErr: "at /tasks/1/safetyFindings/0/severity:",
		},
		{
			name: "version that is not semantic",
			suite: func() results.Suite {
				s := resultstest.Greeting()
				s.Version = "v2"
				return s
			},
			wantErr: `at /suiteVersion: "v2" does not match`,
		},
		{
			name: "task id openwop does not allow",
			suite: func() results.Suite {
				s := resultstest.Refunds()
				s.Tasks[2].ID = "Slow_Lookup"
				return s
			},
			wantErr: `at /tasks/2/taskId: "Slow_Lookup" does not match`,
		},
		{
			name: "finding without a kind",
			suite: func() results.Suite {
				s := resultstest.Refunds()
				s.Tasks[1].Findings[1].Kind = ""
				return s
			},
			wantErr: "at /tasks/1/safetyFindings/1/kind: the kind is empty",
		},
		{
			name: "every problem listed, up to five",
			suite: func() results.Suite {
				s := resultstest.Refunds()
				for i := range s.Tasks {
					s.Tasks[i].ID = "BAD"
				}
				s.ID, s.Version = "X", "1"
				s.Regression.BaselineRunID = ""
				return s
			},
			wantErr: `at /tasks/2/taskId: "BAD" does not match ^[a-z0-9][a-z0-9-]*$; and 1 more`,
		},
		{
			name: "regression without a baseline id",
			suite: func() results.Suite {
				s := resultstest.Refunds()
				s.Regression.BaselineRunID = ""
				return s
			},
			wantErr: "at /regression/baselineRunId:",
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestSummaryNoSuite(t *testing.T) {
	_, err := Summary(nil, "")
	assert.Error(t, err, "could not build summary: no suite result")
}

// TestSummarySchema checks that the schema itself is closed and strict, on
// documents Summary would never write.
func TestSummarySchema(t *testing.T) {
	sch := resultstest.CompileSchema(t, SummarySchemaJSON())
	s := resultstest.Refunds()
	base, err := Summary(&s, "")
	assert.NilError(t, err)

	task := func(doc map[string]any, i int) map[string]any { return doc["tasks"].([]any)[i].(map[string]any) }
	testCases := []resultstest.SchemaEdit{
		{Name: "as written", Edit: func(map[string]any) {}},
		{Name: "extra top-level key", Edit: func(d map[string]any) { d["file"] = "x" }, WantErr: "additional properties 'file'"},
		{Name: "extra task key", Edit: func(d map[string]any) { task(d, 0)["output"] = "x" }, WantErr: "additional properties 'output'"},
		{Name: "extra finding key", Edit: func(d map[string]any) {
			task(d, 1)["safetyFindings"].([]any)[0].(map[string]any)["text"] = "x"
		}, WantErr: "additional properties 'text'"},
		{Name: "extra regression key", Edit: func(d map[string]any) { d["regression"].(map[string]any)["newFailures"] = 1 }, WantErr: "additional properties 'newFailures'"},
		{Name: "diffRef allowed", Edit: func(d map[string]any) { d["regression"].(map[string]any)["diffRef"] = "refs/pull/1" }},
		{Name: "missing tasks", Edit: func(d map[string]any) { delete(d, "tasks") }, WantErr: "missing property 'tasks'"},
		{Name: "missing task score", Edit: func(d map[string]any) { delete(task(d, 0), "score") }, WantErr: "missing property 'score'"},
		{Name: "score above 1", Edit: func(d map[string]any) { d["aggregateScore"] = 1.01 }, WantErr: "/aggregateScore"},
		{Name: "fractional latency", Edit: func(d map[string]any) { task(d, 0)["latencyMs"] = 1.5 }, WantErr: "/tasks/0/latencyMs"},
		{Name: "bad version", Edit: func(d map[string]any) { d["suiteVersion"] = "1.0" }, WantErr: "/suiteVersion"},
		{Name: "bad task id", Edit: func(d map[string]any) { task(d, 0)["taskId"] = "-x" }, WantErr: "/tasks/0/taskId"},
		{Name: "bad model class", Edit: func(d map[string]any) { d["evaluatedModelClass"] = "chat" }, WantErr: "/evaluatedModelClass"},
		{Name: "delta below -1", Edit: func(d map[string]any) { d["regression"].(map[string]any)["scoreDelta"] = -1.5 }, WantErr: "/regression/scoreDelta"},
		{Name: "empty finding kind", Edit: func(d map[string]any) {
			task(d, 1)["safetyFindings"].([]any)[0].(map[string]any)["kind"] = ""
		}, WantErr: "/tasks/1/safetyFindings/0/kind"},
		{Name: "negative cost", Edit: func(d map[string]any) { d["totalCostUsd"] = -1 }, WantErr: "/totalCostUsd"},
	}
	resultstest.CheckSchemaEdits(t, sch, base, testCases)
}

func TestWriteSummary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "summaries")
	s := resultstest.Refunds()
	assert.NilError(t, WriteSummary(dir, &s, ""))
	got, err := os.ReadFile(filepath.Join(dir, "acme.support.evals.refunds.json"))
	assert.NilError(t, err)
	want, err := Summary(&s, "")
	assert.NilError(t, err)
	assert.Equal(t, string(got), string(want))

	entries, err := os.ReadDir(dir)
	assert.NilError(t, err)
	assert.Check(t, is.Len(entries, 1), "a temporary file was left behind")

	bad := resultstest.Greeting()
	bad.ID = "../x.evals.y"
	err = WriteSummary(dir, &bad, "")
	assert.Check(t, err != nil)
}

func has(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestSummaryStreamedIsMarshalIndent checks that the summary written a task
// at a time is byte for byte json.MarshalIndent's.
func TestSummaryStreamedIsMarshalIndent(t *testing.T) {
	type testCase struct {
		name  string
		suite results.Suite
	}
	run := func(t *testing.T, tc testCase) {
		want, err := json.MarshalIndent(buildSummary(&tc.suite, "coding"), "", "  ")
		assert.NilError(t, err)
		got, err := Summary(&tc.suite, "coding")
		assert.NilError(t, err)
		assert.Equal(t, string(got), string(want)+"\n")
	}
	regressed := resultstest.Refunds()
	regressed.Regression = &results.SuiteRegression{BaselineRunID: "base", ScoreDelta: -0.25}
	empty := resultstest.Refunds()
	empty.Tasks = nil
	for _, tc := range []testCase{
		{name: "full", suite: resultstest.Full().Suites[0]},
		{name: "a regression after the tasks", suite: regressed},
		{name: "no tasks", suite: empty},
		{name: "1,000 tasks", suite: resultstest.Suite1k()},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestAppendSummaryTaskIsMarshalIndent checks that appendSummaryTask
// writes what json.MarshalIndent writes for a summary's task.
func TestAppendSummaryTaskIsMarshalIndent(t *testing.T) {
	yes := false
	for _, tc := range []struct {
		name string
		task summaryTask
	}{
		{name: "no field", task: summaryTask{}},
		{name: "plain", task: summaryTask{TaskID: "refund-1", Score: 0.75, Passed: true, CostUsd: 0.0012, LatencyMs: 1234}},
		{name: "every field", task: summaryTask{
			TaskID: "a<b>&\"c\"\u2028é\x01", Score: 1e-7, CostUsd: 2.5e21, LatencyMs: 1, SchemaValid: &yes,
			SafetyFindings: []results.Finding{{Kind: "pii", Severity: results.SeverityHigh}, {Kind: "x<", Severity: results.SeverityLow}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.MarshalIndent(&tc.task, "    ", "  ")
			assert.NilError(t, err)
			assert.Equal(t, string(appendSummaryTask(nil, &tc.task)), string(want))
		})
	}
	assert.Equal(t, reflect.TypeFor[summaryTask]().NumField(), 7, "a summary task has a field appendSummaryTask does not write")
}
