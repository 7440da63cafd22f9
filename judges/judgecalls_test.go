package judges_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
	"github.com/google/go-cmp/cmp"
)

// metRubric meets the criteria at the indexes met, or fails with err.
type metRubric struct {
	met []bool
	err error
}

func (r metRubric) Decide(_ context.Context, req *judges.RubricRequest) (*judges.RubricVerdict, error) {
	if r.err != nil {
		return nil, r.err
	}
	return &judges.RubricVerdict{Met: r.met[:min(len(r.met), len(req.Criteria))], Reasons: []string{"said-a-reason"}}, nil
}

// call is what a judge call says, its times aside.
type call struct {
	kind, outcome string
	checks        []string
	score         float64
}

// TestScoreRecordsJudgeCalls: scoring a trial records each judge call,
// the program of a program check, the rubric judge over the judged
// criteria and the rubric judge asked whether a reply refuses, with its
// kind, checks, outcome and score and nothing it was asked or answered.
func TestScoreRecordsJudgeCalls(t *testing.T) {
	dir := t.TempDir()
	writeScript(t, dir, "pass.sh", "while read -r line; do echo '{\"pass\": true}'; done\n")
	writeScript(t, dir, "crash.sh", "read -r line; exit 3\n")
	rubric := func(refuse bool) *suites.Task {
		t := &suites.Task{ID: "r", Expected: suites.Expected{Kind: suites.KindRubric, Rubric: []suites.Criterion{
			{Criterion: "Names the order.", Weight: 3},
			{Criterion: "Is polite.", Weight: 1},
			{Criterion: "Says 'x'.", Weight: 1, Assert: &suites.Check{Kind: suites.CheckExpr, Expr: "true"}},
		}}}
		if refuse {
			t.Adversarial = &suites.Adversarial{ExpectRefusal: true}
		}
		return t
	}
	for _, tc := range []struct {
		name  string
		task  *suites.Task
		judge judges.Rubric
		want  []call
	}{
		{name: "program passes", task: programTask(dir, false, "./pass.sh"),
			want: []call{{results.JudgeProgram, results.JudgePassed, []string{"prog"}, -1}}},
		{name: "program negated still says what it answered", task: programTask(dir, true, "./pass.sh"),
			want: []call{{results.JudgeProgram, results.JudgePassed, []string{"prog"}, -1}}},
		{name: "program crashes", task: programTask(dir, false, "./crash.sh"),
			want: []call{{results.JudgeProgram, results.JudgeErrored, []string{"prog"}, -1}}},
		{name: "rubric judge meets one of two", task: rubric(false), judge: metRubric{met: []bool{true, false}},
			want: []call{{results.JudgeRubric, results.JudgeFailed, []string{"rubric[0]", "rubric[1]"}, 0.75}}},
		{name: "rubric judge meets all", task: rubric(false), judge: metRubric{met: []bool{true, true}},
			want: []call{{results.JudgeRubric, results.JudgePassed, []string{"rubric[0]", "rubric[1]"}, 1}}},
		{name: "rubric judge unreachable", task: rubric(false), judge: metRubric{err: errors.New("down")},
			want: []call{{results.JudgeRubric, results.JudgeErrored, []string{"rubric[0]", "rubric[1]"}, -1}}},
		{name: "no judge, no call", task: rubric(false)},
		{name: "rubric judge, then the refusal question", task: rubric(true), judge: metRubric{met: []bool{true, true}},
			want: []call{
				{results.JudgeRubric, results.JudgePassed, []string{"rubric[0]", "rubric[1]"}, 1},
				{results.JudgeRefusal, results.JudgePassed, nil, -1},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := judges.NewPrograms(context.Background(), judges.ProgramOptions{Env: process.ScrubEnv(os.Environ(), nil, nil), Timeout: noTimeout})
			defer ps.Close()
			sc := &judges.Scorer{Rubric: tc.judge, Programs: ps}
			if tc.task.Adversarial != nil {
				sc.Detectors = &judges.Detectors{Rubric: tc.judge}
			}
			s := &suites.Suite{ID: "acme.t.evals.s", Path: dir + "/s.yaml"}
			res := &results.Trial{}
			tr := &judges.Trial{Suite: s, Task: tc.task, Timeout: noTimeout, Result: res, Session: fixtures.NewSession(nil, fixtures.Options{}),
				Obs: judges.Observation{Input: json.RawMessage(`"q"`), Output: json.RawMessage(`"yes"`)}}
			sc.Score(context.Background(), tr)
			var got []call
			for _, c := range tr.Judges {
				got = append(got, call{c.Kind, c.Outcome, c.Checks, c.Score})
				assert.Check(t, !c.Start.IsZero() && c.Duration >= 0)
			}
			assert.Check(t, is.DeepEqual(got, tc.want, cmp.AllowUnexported(call{})))
		})
	}
}
