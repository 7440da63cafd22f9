package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/results"
	"gotest.tools/v3/assert"
)

// faqSuite is a suite of the rows of data/faq.csv whose tasks expect
// expected.
func faqSuite(expected string) string {
	return `suiteId: acme.cli.evals.faq
version: 1.0.0
modes: [golden]
datasets:
  - file: data/faq.csv
    task:
      taskId: "faq-{row.id}"
      input: "{row.question}"
      expected: ` + expected + "\n"
}

// datasetProject is a suite whose tasks are the rows of a CSV sheet, and
// a plain agent that answers each question by echoing it.
func datasetProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/faq.yaml":     faqSuite(`{kind: golden, match: {strategy: contains, value: "{row.answer}"}}`),
		"evals/data/faq.csv": "id,question,answer\n1,say yes,yes\n2,say no,no\n3,say maybe,never\n",
		"echo.sh":            "#!/bin/sh\ncat\n",
		"evalgate.yaml":      "suites: [evals/]\nagent:\n  plain: [./echo.sh]\n",
	})
	return dir
}

// TestRunDataset: the tasks a dataset makes run, select, shard and export
// like any other, and results place each at its row.
func TestRunDataset(t *testing.T) {
	dir := datasetProject(t)
	r := runCLI(t, dir, nil, "run", "--gate", "passRate == 1")
	assert.Equal(t, r.code, 1, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stdout+r.stderr)
	data, err := os.ReadFile(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
	var res struct {
		Suites []struct {
			Tasks []struct {
				ID     string `json:"taskId"`
				File   string `json:"file"`
				Line   int    `json:"line"`
				Passed bool   `json:"passed"`
			} `json:"tasks"`
		} `json:"suites"`
	}
	assert.NilError(t, json.Unmarshal(data, &res))
	tasks := res.Suites[0].Tasks
	assert.Equal(t, len(tasks), 3)
	assert.Equal(t, tasks[2].ID, "faq-3")
	assert.Equal(t, tasks[2].File, "evals/data/faq.csv")
	assert.Equal(t, tasks[2].Line, 4)
	assert.Assert(t, tasks[0].Passed && tasks[1].Passed && !tasks[2].Passed)

	r = runCLI(t, dir, nil, "run", "--task", "faq-2", "--out", "one")
	assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stdout+r.stderr)
	assert.Assert(t, strings.Contains(r.stdout, "1/1 passed"), r.stdout)

	total := 0
	for _, shard := range []string{"1/2", "2/2"} {
		r = runCLI(t, dir, nil, "run", "--shard", shard, "--out", "shard"+shard[:1], "--gate", "true")
		assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stdout+r.stderr)
		data, err := os.ReadFile(filepath.Join(dir, "shard"+shard[:1], "results.json"))
		assert.NilError(t, err)
		assert.NilError(t, json.Unmarshal(data, &res))
		total += len(res.Suites[0].Tasks)
	}
	assert.Equal(t, total, 3)

	r = runCLI(t, dir, nil, "export", "--openwop", "evals/faq.yaml")
	assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stdout+r.stderr)
	assert.Equal(t, strings.Count(r.stdout, `"taskId": "faq-`), 3, r.stdout)
}

// TestValidateDataset: a newcomer's broken sheet is reported at its rows,
// and a column the template names that the sheet has not at the template.
func TestValidateDataset(t *testing.T) {
	dir := datasetProject(t)
	writeFiles(t, dir, map[string]string{
		"evals/data/faq.csv": "id,question,answer\n1,say yes,yes\n2,\"say no,no\n",
	})
	r := runCLI(t, dir, nil, "validate")
	assert.Equal(t, r.code, 2, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stdout+r.stderr)
	assert.Assert(t, strings.Contains(r.stdout+r.stderr, "evals/data/faq.csv:3:14: invalid CSV: extraneous or missing \" in quoted-field [syntax]"), r.stdout+r.stderr)

	writeFiles(t, dir, map[string]string{
		"evals/data/faq.csv": "id,question,reply\n1,say yes,yes\n",
	})
	r = runCLI(t, dir, nil, "validate")
	assert.Equal(t, r.code, 2)
	assert.Assert(t, strings.Contains(r.stdout+r.stderr, `evals/faq.yaml:9:67: /datasets/0/task/expected/match/value: {row.answer}: evals/data/faq.csv has no column "answer"; its columns are "id", "question", "reply" [semantic]`), r.stdout+r.stderr)
}

// TestRunProgramChecks: a program check is one process per worker for
// the whole run, and one that crashes makes its tasks errors of kind
// check (exit 1), not a failed run.
func TestRunProgramChecks(t *testing.T) {
	dir := datasetProject(t)
	var rows strings.Builder
	rows.WriteString("id,question,answer\n")
	for i := range 20 {
		rows.WriteString(strings.Repeat("x", i%3) + "q" + string(rune('a'+i)) + ",say yes,yes\n")
	}
	writeFiles(t, dir, map[string]string{
		"evals/data/faq.csv": rows.String(),
		"evals/faq.yaml": faqSuite(`
        kind: golden
        assert:
          - {id: grader, exec: [./grade.sh]}
          - {expr: 'output contains "no"', negate: true}`),
		"evals/grade.sh": "#!/bin/sh\necho start >> starts.log\nwhile read -r line; do\n  case \"$line\" in *'\"output\":\"say yes\"'*'\"answer\":\"yes\"'*) echo '{\"pass\": true}' ;; *) echo '{\"pass\": false}' ;; esac\ndone\n",
	})
	r := runCLI(t, dir, nil, "run", "--concurrency", "2")
	assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	log, err := os.ReadFile(filepath.Join(dir, "evals", "starts.log"))
	assert.NilError(t, err)
	starts := strings.Count(string(log), "start")
	assert.Assert(t, starts >= 1 && starts <= 2, "%d check processes for 20 tasks at concurrency 2", starts)

	writeFiles(t, dir, map[string]string{"evals/grade.sh": "#!/bin/sh\nexit 4\n"})
	r = runCLI(t, dir, nil, "run", "--out", "crash")
	assert.Equal(t, r.code, 1, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	data, err := os.ReadFile(filepath.Join(dir, "crash", "results.json"))
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(data), `"errorKind": "check"`), string(data))
}

// TestImportPromptfoo: the example config imports and runs offline; a
// file that is not a promptfoo config, and an import that would overwrite
// a file, exit 2.
func TestImportPromptfoo(t *testing.T) {
	dir := t.TempDir()
	example, err := filepath.Abs("../examples/promptfoo/promptfooconfig.yaml")
	assert.NilError(t, err)
	r := runCLI(t, dir, nil, "import", "promptfoo", example, "--out", "imported")
	assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Assert(t, strings.Contains(r.stdout, "tests.csv:4:14         equals"), r.stdout)
	r = runCLI(t, filepath.Join(dir, "imported"), nil, "run", "--gate", "passRate >= 0.8")
	assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	r = runCLI(t, dir, nil, "import", "promptfoo", example, "--out", "imported")
	assert.Equal(t, r.code, 2)
	assert.Assert(t, strings.Contains(r.stderr, "would overwrite"), r.stderr)

	// Imported in place, the CSV sheet stays where it is: its suite reads
	// it at every run, with the verdicts of the rows copied above.
	inPlace := filepath.Join(dir, "in-place")
	assert.NilError(t, os.CopyFS(inPlace, os.DirFS(filepath.Dir(example))))
	r = runCLI(t, inPlace, nil, "import", "promptfoo", "promptfooconfig.yaml", "--out", ".")
	assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Assert(t, strings.Contains(r.stdout, "a dataset of tests.suite.yaml, which reads the sheet where it is"), r.stdout)
	r = runCLI(t, inPlace, nil, "run", "--gate", "passRate >= 0.8")
	assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	verdicts := func(folder string) map[[2]int]bool {
		var rep struct {
			Tasks []struct {
				SuiteID, TaskID    string
				TestIdx, PromptIdx int
			}
		}
		data, err := os.ReadFile(filepath.Join(folder, "import-report.json"))
		assert.NilError(t, err)
		assert.NilError(t, json.Unmarshal(data, &rep))
		run, err := results.Read(filepath.Join(folder, "evalgate-out", "results.json"))
		assert.NilError(t, err)
		passed := map[string]bool{}
		for _, s := range run.Suites {
			for _, task := range s.Tasks {
				passed[s.ID+" "+task.ID] = task.Passed
			}
		}
		out := map[[2]int]bool{}
		for _, task := range rep.Tasks {
			p, ok := passed[task.SuiteID+" "+task.TaskID]
			assert.Assert(t, ok, "task %s %s did not run", task.SuiteID, task.TaskID)
			out[[2]int{task.TestIdx, task.PromptIdx}] = p
		}
		return out
	}
	assert.DeepEqual(t, verdicts(inPlace), verdicts(filepath.Join(dir, "imported")))

	writeFiles(t, dir, map[string]string{"suite.yaml": "suiteId: acme.evals.x\nversion: 1.0.0\nmodes: [golden]\ntasks: []\n"})
	r = runCLI(t, dir, nil, "import", "promptfoo", "suite.yaml")
	assert.Equal(t, r.code, 2)
	assert.Assert(t, strings.Contains(r.stderr, "not a promptfoo config: it is an evalgate suite"), r.stderr)
}
