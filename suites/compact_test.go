package suites

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// compactSuite has tasks with every kind of field a trial uses: inputs,
// matches that compile (regex, json-schema), shared and single expressions,
// fixtures, memory, rubric criteria with asserts, an adversarial block.
func compactSuite(tasks int) string {
	var b strings.Builder
	b.WriteString(`{"suiteId": "acme.t.evals.compact", "version": "1.0.0", "modes": ["golden", "rubric", "adversarial"], "tasks": [`)
	for i := range tasks {
		if i > 0 {
			b.WriteString(",\n")
		}
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"taskId": "g%d", "tags": ["t%d"], "passScore": 0.5, "timeoutMs": 900, "input": {"n": %d},
  "expected": {"kind": "golden", "match": {"strategy": "regex", "value": "^a+$", "ignoreCase": true},
    "assert": [{"expr": "len(trace) < 3"}, {"id": "own", "expr": "output != \"%d\"", "weight": 2}, {"toolCalled": "crm:lookup", "args": {"id": %d}}],
    "outputSchema": {"type": "string"}},
  "fixtures": {"toolResponses": [{"tool": "crm:lookup", "args": {"id": %d}, "response": {"ok": true}, "times": 1}], "memorySeed": [{"k": %d}], "onUnmatched": "fail"}}`, i, i, i, i, i, i, i)
		case 1:
			fmt.Fprintf(&b, `{"taskId": "r%d", "input": "hi", "metadata": {"domain": "code", "complexity": 4, "autonomyLevel": 0}, "expected": {"kind": "rubric", "rubric": [
  {"criterion": "polite", "weight": 0.5}, {"criterion": "short", "weight": 0.5, "assert": {"expr": "len(trace) < 3"}}]}}`, i)
		default:
			fmt.Fprintf(&b, `{"taskId": "a%d", "input": null, "expected": {"kind": "golden", "match": {"strategy": "json-schema", "value": {"type": "object"}}},
  "fixtures": {"canaries": ["SECRET-%d"]}, "adversarial": {"forbiddenTools": ["crm:delete"], "expectRefusal": true, "detectors": ["canary"]}}`, i, i)
		}
	}
	b.WriteString("]}\n")
	return b.String()
}

// TestCompactTasksDecodeTheSame loads a suite past the compact threshold:
// its tasks keep only their summary, and Full gives back what a suite that
// is not compact decodes (bar positions inside the task), with the shared
// expression's program.
func TestCompactTasksDecodeTheSame(t *testing.T) {
	// A byte order mark and a first line of its own shift every offset: a
	// task read back from the file must still be found.
	src := []byte("\ufeff\n" + compactSuite(7))
	path := filepath.Join(t.TempDir(), "c.json")
	assert.NilError(t, os.WriteFile(path, src, 0o644))
	whole, err := Parse(path, src)
	assert.NilError(t, err)
	defer func(n int) { compactAbove = n }(compactAbove)
	compactAbove = 4
	parsed, err := Parse(path, src) // compact tasks keep their JSON
	assert.NilError(t, err)
	loaded, err := Load(path) // compact tasks are read from the file again
	assert.NilError(t, err)
	for _, compact := range []*Suite{parsed, loaded[0]} {
		checkCompact(t, whole, compact)
	}

	// A file changed under a run is an error, not another task.
	assert.NilError(t, os.WriteFile(path, []byte(strings.Replace(string(src), `"g3"`, `"x3"`, 1)), 0o644))
	_, err = loaded[0].Full(loaded[0].Tasks[3])
	assert.Check(t, err != nil && strings.Contains(err.Error(), "changed during the run"), "Full of a changed file: %v", err)
}

func checkCompact(t *testing.T, whole, compact *Suite) {
	t.Helper()
	ignorePos := cmp.Options{
		cmpopts.IgnoreFields(Check{}, "Pos", "Program"),
		cmpopts.IgnoreUnexported(Check{}),
		cmpopts.IgnoreFields(Match{}, "Pos", "Regexp", "Schema"),
		cmpopts.IgnoreFields(Criterion{}, "Pos"),
		cmpopts.IgnoreFields(ToolResponse{}, "Pos"),
		cmpopts.IgnoreFields(Expected{}, "OutputSchema"),
		cmp.AllowUnexported(Task{}),
		cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) }),
	}
	for i, ct := range compact.Tasks {
		wt := whole.Tasks[i]
		assert.Assert(t, ct.Compact() && !wt.Compact(), "task %s: compact %v, whole %v", ct.ID, ct.Compact(), wt.Compact())
		assert.Check(t, ct.ID == wt.ID && ct.Pos == wt.Pos && ct.Kind == wt.Kind && cmp.Equal(ct.Faults, wt.Faults) && cmp.Equal(ct.Tags, wt.Tags) && cmp.Equal(ct.PassScore, wt.PassScore) && cmp.Equal(ct.Adversarial, wt.Adversarial) && cmp.Equal(ct.Metadata, wt.Metadata), "task %s: the summary fields differ", ct.ID)
		full, err := compact.Full(ct)
		assert.NilError(t, err)
		assert.Check(t, is.DeepEqual(mustFull(t, whole, wt), full, ignorePos), "task %s: Full differs from the whole decode", ct.ID)
		m := full.Expected.Match
		if m != nil && m.Strategy == StrategyRegex {
			assert.Check(t, m.Regexp != nil, "task %s: the regex is not compiled", ct.ID)
		}
		m = full.Expected.Match
		if m != nil && m.Strategy == StrategyJSONSchema {
			assert.Check(t, m.Schema != nil, "task %s: the schema is not compiled", ct.ID)
		}
		for _, c := range full.Expected.Assert {
			shared := c.Expr == "len(trace) < 3" || c.Expr == `output == ""` // the expressions the suites share
			if c.Kind == CheckExpr {
				assert.Check(t, shared == (c.shared != nil), "task %s: check %s shares a program: %v, want only the shared expression to", ct.ID, c.ID, c.shared != nil)
			}
			if shared {
				assert.Check(t, c.shared == compact.shared[c.Expr], "task %s: check %s does not share the suite's program", ct.ID, c.ID)
			}
		}
	}
}

func TestFullOfAWholeTaskIsTheTask(t *testing.T) {
	whole, err := Parse("evals/c.json", []byte(compactSuite(3)))
	assert.NilError(t, err)
	same, err := whole.Full(whole.Tasks[0])
	again, _ := whole.Full(whole.Tasks[0])
	assert.Check(t, err == nil && same == again && same.ID == whole.Tasks[0].ID, "Full of a whole task must be the task itself")
}

// mustFull is s.Full(ref), which must succeed.
func mustFull(t testing.TB, s *Suite, ref *TaskRef) *Task {
	t.Helper()
	full, err := s.Full(ref)
	assert.NilError(t, err)
	return full
}

// TestCompactSuiteStillReportsErrors: compacting never hides a problem of
// a task past the threshold.
func TestCompactSuiteStillReportsErrors(t *testing.T) {
	defer func(n int) { compactAbove = n }(compactAbove)
	compactAbove = 2
	src := strings.Replace(compactSuite(6), `"output != \"3\""`, `"output !="`, 1)
	src = strings.Replace(src, `"taskId": "a5"`, `"taskId": "a2"`, 1)
	src = strings.Replace(src, `"taskId": "r4", "input": "hi"`, `"taskId": "r4", "input": "hi", "timeoutMs": 0`, 1)
	path := filepath.Join(t.TempDir(), "c.json")
	assert.NilError(t, os.WriteFile(path, []byte(src), 0o644))
	_, parseErr := Parse("evals/c.json", []byte(src))
	_, loadErr := Load(path)
	for _, err := range []error{parseErr, loadErr} {
		assert.Assert(t, err != nil, "no error")
		msg := err.Error()
		for _, want := range []string{
			"/tasks/5/taskId: duplicate task id \"a2\"",
			"/tasks/3/expected/assert/1/expr: expression does not compile",
			"/tasks/4/timeoutMs: ",
		} {
			assert.Check(t, strings.Contains(msg, want), "missing %q in:\n%s", want, msg)
		}
	}
}
