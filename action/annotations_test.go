package action

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

// annotatedRun has twelve tasks that did not pass (two errored, ten failed
// with falling scores), one passed task, and a task whose ids try to inject
// workflow commands.
func annotatedRun() *results.Run {
	s := results.Suite{ID: "acme.support.evals.refunds", File: "evals/refunds.yaml"}
	s.Tasks = append(s.Tasks, results.Task{ID: "ok", File: s.File, Line: 3, Status: results.StatusPassed, Score: 1, PassScore: 1})
	for i := range 10 {
		s.Tasks = append(s.Tasks, results.Task{
			ID: fmt.Sprintf("task-%02d", i), File: s.File, Line: 10 + i, Status: results.StatusFailed,
			Score: float64(i) / 10, PassScore: 1, FailedChecks: []string{"match"},
		})
	}
	s.Tasks = append(s.Tasks,
		results.Task{ID: "slow", File: s.File, Line: 40, Status: results.StatusError, ErrorKind: results.ErrTimeout},
		results.Task{ID: "crash", File: s.File, Line: 44, Status: results.StatusError, ErrorKind: results.ErrAgentExit},
	)
	crafted := results.Suite{ID: "x.evals.y\n::set-output name=passed::true", File: "evals/a,b:c%.yaml", Tasks: []results.Task{{
		ID: "t1::warning file=x::pwned\r\n::add-mask::", File: "evals/a,b:c%.yaml", Line: 2,
		Status: results.StatusFailed, Score: 0.05, PassScore: 1, FailedChecks: []string{"assert[0]\n::error::x"},
	}}}
	return &results.Run{Suites: []results.Suite{s, crafted}}
}

func TestAnnotations(t *testing.T) {
	anns, total := Annotations(annotatedRun(), MaxAnnotations)
	assert.Equal(t, total, 13)
	assert.Equal(t, len(anns), MaxAnnotations)
	var order []string
	for _, a := range anns {
		order = append(order, a.Title)
	}
	// Errored first in run order, then failed by rising score.
	assert.DeepEqual(t, order[:5], []string{
		"evalgate: task slow errored",
		"evalgate: task crash errored",
		"evalgate: task task-00 failed",
		"evalgate: task t1::warning file=x::pwned\r\n::add-mask:: failed",
		"evalgate: task task-01 failed",
	})

	var buf bytes.Buffer
	assert.NilError(t, WriteAnnotations(&buf, anns))
	golden.Assert(t, buf.String(), "annotations.golden")

	// Every line is one ::error command: nothing a crafted id holds starts a
	// line of its own.
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	assert.Equal(t, len(lines), MaxAnnotations)
	for _, line := range lines {
		assert.Assert(t, strings.HasPrefix(line, "::error "), line)
		props, _, ok := strings.Cut(strings.TrimPrefix(line, "::error "), "::")
		assert.Assert(t, ok, line)
		for _, kv := range strings.Split(props, ",") {
			k, _, ok := strings.Cut(kv, "=")
			assert.Assert(t, ok && (k == "file" || k == "line" || k == "title"), "property %q in %q", kv, line)
		}
	}
}

// A run whose gates all hold still annotates its failing tasks, as
// warnings: the check is green and the tasks are on the diff.
func TestAnnotationsLevel(t *testing.T) {
	type testCase struct {
		name      string
		passed    bool
		wantLevel string
	}
	run := func(t *testing.T, tc testCase) {
		r := annotatedRun()
		r.Passed = tc.passed
		anns, _ := Annotations(r, 3)
		var buf bytes.Buffer
		assert.NilError(t, WriteAnnotations(&buf, anns))
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		assert.Equal(t, len(lines), 3)
		for i, line := range lines {
			assert.Equal(t, anns[i].Level, tc.wantLevel)
			assert.Assert(t, strings.HasPrefix(line, "::"+tc.wantLevel+" file=evals/refunds.yaml,"), line)
		}
	}
	for _, tc := range []testCase{
		{name: "the build fails", passed: false, wantLevel: LevelError},
		{name: "every gate holds", passed: true, wantLevel: LevelWarning},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// Files are the run's, already relative to the repository root; one
// outside it has no file property (GitHub could not place it) and is named
// in the message instead.
func TestAnnotationsFiles(t *testing.T) {
	type testCase struct {
		name, file        string
		wantFile, wantMsg string
		wantLine          int
	}
	run := func(t *testing.T, tc testCase) {
		r := &results.Run{Suites: []results.Suite{{ID: "s", Tasks: []results.Task{
			{ID: "t", File: tc.file, Line: 7, Status: results.StatusFailed, PassScore: 1},
		}}}}
		anns, _ := Annotations(r, MaxAnnotations)
		assert.Equal(t, anns[0].File, tc.wantFile)
		assert.Equal(t, anns[0].Line, tc.wantLine)
		assert.Equal(t, anns[0].Message, tc.wantMsg)
	}
	for _, tc := range []testCase{
		{name: "in the repository", file: "sub/evals/a.yaml", wantFile: "sub/evals/a.yaml", wantLine: 7, wantMsg: "s/t: score 0.00 < 1.00"},
		{name: "climbs out", file: "../shared/a.yaml", wantMsg: "../shared/a.yaml:7: s/t: score 0.00 < 1.00"},
		{name: "absolute", file: "/elsewhere/a.yaml", wantMsg: "/elsewhere/a.yaml:7: s/t: score 0.00 < 1.00"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestMaskSecrets(t *testing.T) {
	type testCase struct {
		name   string
		env    map[string]string
		names  []string
		values []string
		want   string
	}
	run := func(t *testing.T, tc testCase) {
		var buf bytes.Buffer
		assert.NilError(t, MaskSecrets(&buf, envOf(tc.env), tc.names, tc.values...))
		assert.Equal(t, buf.String(), tc.want)
	}
	for _, tc := range []testCase{
		{
			name: "token and judge key", env: map[string]string{"JUDGE_API_KEY": "sk-judge-123"},
			names: []string{"JUDGE_API_KEY", "UNSET"}, values: []string{"ghs_token"},
			want: "::add-mask::ghs_token\n::add-mask::sk-judge-123\n",
		},
		{
			name: "multi-line secret", values: []string{"line1\nline2%"},
			want: "::add-mask::line1%0Aline2%25\n::add-mask::line1\n::add-mask::line2%25\n",
		},
		{name: "nothing", names: []string{"UNSET"}, values: []string{"", "  "}, want: ""},
		{name: "once each", values: []string{"abc", "abc"}, want: "::add-mask::abc\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestWriteSuiteErrors(t *testing.T) {
	errs := []*report.SuiteError{
		{Pos: diag.Pos{File: "evals/a.yaml", Line: 4, Col: 7}, Pointer: "/tasks/0/taskId", Message: `"Bad Id" does not match ^[a-z0-9][a-z0-9-]*$`, Kind: "schema"},
		{Pos: diag.Pos{File: "evals/b,c.json"}, Message: "could not parse suite: unexpected end of JSON input\n::set-output name=passed::true"},
		{Message: ""},
		{Pos: diag.Pos{File: "../shared/c.yaml", Line: 3, Col: 1}, Message: "unknown key"},
	}
	for i := range 10 {
		errs = append(errs, &report.SuiteError{Pos: diag.Pos{File: "evals/many.yaml", Line: i + 1}, Message: "unknown key"})
	}
	var buf bytes.Buffer
	assert.NilError(t, WriteSuiteErrors(&buf, errs))
	golden.Assert(t, buf.String(), "suite-errors.golden")
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	assert.Equal(t, len(lines), MaxAnnotations+1)
	assert.Equal(t, lines[MaxAnnotations], "::notice title=evalgate::4 more suite errors; evalgate validate lists them all")
}
