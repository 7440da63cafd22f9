//go:build unix

package runner

import (
	"context"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// TestRunGradedByChecks: a scale whose levels carry checks is graded
// without a judge, at the highest level whose checks all hold, and the
// criterion counts weight × (level − min)/(max − min) beside a binary one.
func TestRunGradedByChecks(t *testing.T) {
	s := loadSuite(t, `suiteId: acme.t.evals.graded
version: 1.0.0
modes: [rubric]
thresholds: {passScore: 0.5}
tasks:
  - {taskId: none, input: "nothing here", expected: &e {kind: rubric, rubric: [
      {id: tools, criterion: tool guidance, weight: 0.75, scale: {min: 0, max: 4, levels: {
        "0": none,
        "1": {assert: [{expr: 'output contains "tool"'}]},
        "2": {assert: [{expr: 'output contains "tool"'}, {expr: 'output contains "when"'}]},
        "3": {assert: [{expr: 'output contains "never"'}]},
        "4": {assert: [{expr: 'output contains "tool"'}, {expr: 'output contains "when"'}, {expr: 'output contains "example"'}]}}}},
      {criterion: short, weight: 0.25, assert: {expr: 'len(output) < 100'}}]}}
  - {taskId: names, input: "use the tool", expected: *e}
  - {taskId: when, input: "use the tool when asked", expected: *e}
  - {taskId: skips, input: "tool when, never", expected: *e}
  - {taskId: all, input: "use the tool when asked, for example", expected: *e}
`)
	got, err := Run(context.Background(), Plan([]*suites.Suite{s}, Selection{}), Options{
		Agent: &Plain{Command: []string{"/bin/cat"}}, Scorer: scored(),
	})
	assert.NilError(t, err)
	type want struct {
		level  int
		score  float64
		reason string
	}
	wants := map[string]want{
		"none":  {0, 0.25, "not-met"},
		"names": {1, (3*0.25 + 1) / 4, "partial"},
		"when":  {2, (3*0.5 + 1) / 4, "partial"},
		"skips": {3, (3*0.75 + 1) / 4, "partial"}, // level 3 holds though 4 does not
		"all":   {4, 1, ""},
	}
	for _, task := range got[0].Tasks {
		w := wants[task.ID]
		ck := task.Trials[0].Checks[0]
		assert.Check(t, ck.ID == "tools" && ck.Level != nil && *ck.Level == w.level, "%s: check %s level %v, want %d", task.ID, ck.ID, deref(ck.Level), w.level)
		assert.Check(t, ck.Scale != nil && *ck.Scale == results.Scale{Min: 0, Max: 4}, "%s: scale %v", task.ID, ck.Scale)
		assert.Check(t, ck.Criterion != nil && *ck.Criterion == 0 && !ck.Judged, "%s: criterion index or judged", task.ID)
		assert.Check(t, ck.Reason == w.reason && ck.Passed == (w.level == 4), "%s: reason %q passed %v", task.ID, ck.Reason, ck.Passed)
		assert.Check(t, task.Score == w.score, "%s: score %v, want %v", task.ID, task.Score, w.score)
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
