package cli

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// auditProject scaffolds the agent audit over the three definitions of
// testdata/audit (good, medium, skeleton), graded by its phrase-counting
// judge instead of a model.
func auditProject(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{}
	for _, name := range []string{"grader.py", "prompts/good.md", "prompts/medium.md", "prompts/skeleton.md"} {
		data, err := os.ReadFile(filepath.Join(testdata, "audit", name))
		assert.NilError(t, err)
		files[name] = string(data)
	}
	writeFiles(t, dir, files)
	res := runCLI(t, dir, nil, "init", "--template", "agent-audit", "prompts/good.md", "prompts/medium.md", "prompts/skeleton.md")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	cfg, err := os.ReadFile(filepath.Join(dir, "evalgate.yaml"))
	assert.NilError(t, err)
	judge := regexp.MustCompile(`(?m)^  openai: .*$`)
	assert.Assert(t, judge.Match(cfg), "the template configures a model judge")
	writeFiles(t, dir, map[string]string{"evalgate.yaml": judge.ReplaceAllString(string(cfg), "  exec: [python3, grader.py]")})
	return dir
}

// TestAuditTemplate is the audit's "done when": it ranks three definitions
// in their order of quality and fails the skeleton; a pull request that
// removes the tool guidance shows "tools 4 → 0" in the scorecard.
func TestAuditTemplate(t *testing.T) {
	dir := auditProject(t)
	res := runCLI(t, dir, nil, "run")
	assert.Equal(t, res.code, ExitGateFail, "the skeleton fails the gate\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	run := resultsOf(t, filepath.Join(dir, "evalgate-out", "results.json"))
	type graded struct {
		score  float64
		passed bool
		levels []int
	}
	got := map[string]graded{}
	for _, task := range run.Suites[0].Tasks {
		g := graded{score: math.Round(task.Score*1e9) / 1e9, passed: task.Passed}
		for _, c := range task.Trials[0].Checks {
			assert.Assert(t, c.Level != nil && c.Scale != nil && *c.Scale == results.Scale{Min: 0, Max: 4}, "%s: %s", task.ID, c.ID)
			g.levels = append(g.levels, *c.Level)
		}
		got[task.ID] = g
	}
	all := func(n int) []int { return []int{n, n, n, n, n, n, n, n, n, n} }
	assert.DeepEqual(t, got, map[string]graded{
		"prompts-good":     {score: 1, passed: true, levels: all(4)},                                  // production-ready: ≥ 28/34
		"prompts-medium":   {score: 0.75, passed: true, levels: all(3)},                               // needs-work: ≥ 20/34
		"prompts-skeleton": {score: 0.05, passed: false, levels: []int{1, 0, 0, 0, 0, 1, 0, 0, 0, 0}}, // skeleton
	}, cmp.AllowUnexported(graded{}))

	// The pull request: the tool guidance goes from the good definition.
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, ".evalgate"), 0o755))
	res = runCLI(t, dir, nil, "baseline", "promote", "evalgate-out", "--out", ".evalgate/baseline.json")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	good := filepath.Join(dir, "prompts", "good.md")
	data, err := os.ReadFile(good)
	assert.NilError(t, err)
	start, end := strings.Index(string(data), "## Tools"), strings.Index(string(data), "## Context")
	assert.NilError(t, os.WriteFile(good, append(data[:start:start], data[end:]...), 0o644))
	res = runCLI(t, dir, nil, "run", "--baseline", ".evalgate/baseline.json")
	assert.Equal(t, res.code, ExitGateFail, res.stderr)
	// Levels and level changes are in results.json, as its schema says.
	data, err = os.ReadFile(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
	assert.NilError(t, resultstest.Validate(t, resultstest.CompileSchema(t, results.SchemaJSON()), data))
	reg := resultsOf(t, filepath.Join(dir, "evalgate-out", "results.json")).Regression
	assert.Assert(t, reg != nil && len(reg.Tasks) == 1)
	assert.DeepEqual(t, reg.Tasks[0].Levels, []results.LevelChange{{Check: "tools", Criterion: 1, Base: 4, Head: 0}})
	card, err := os.ReadFile(filepath.Join(dir, "evalgate-out", "scorecard.md"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(card), "| `agents.audit.evals.definitions` / `prompts-good` | tools 4 → 0 |"))
	res = runCLI(t, dir, nil, "diff", ".evalgate/baseline.json", "evalgate-out")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	assert.Check(t, is.Contains(res.stdout, "prompts-good  tools 4 → 0"))
}

// TestInitAuditTemplate pins the files `init --template agent-audit` writes
// and what it says.
func TestInitAuditTemplate(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agents/Support Agent.md": "You are a support agent.\n"})
	res := runCLI(t, dir, nil, "init", "--template", "agent-audit", "agents/Support Agent.md", "prompts/billing.md")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	golden.Assert(t, res.stdout, filepath.Join(testdata, "init", "agent-audit.golden"))
	suite, err := os.ReadFile(filepath.Join(dir, "evals", "agent-audit.yaml"))
	assert.NilError(t, err)
	golden.Assert(t, string(suite), filepath.Join(testdata, "init", "agent-audit.yaml.golden"))
	res = runCLI(t, dir, nil, "validate")
	assert.Equal(t, res.code, ExitPass, res.stdout+res.stderr)

	// Again with the same files, nothing to do; with another, the suite
	// is kept and init says it does not grade the new file.
	res = runCLI(t, dir, nil, "init", "--template", "agent-audit", "agents/Support Agent.md", "prompts/billing.md")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	assert.Check(t, strings.HasPrefix(res.stdout, "nothing to do:") && !strings.Contains(res.stdout, "kept as it is"), res.stdout)
	res = runCLI(t, dir, nil, "init", "--template", "agent-audit", "prompts/refunds.md")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	assert.Check(t, is.Contains(res.stdout, "evals/agent-audit.yaml is kept as it is, so it may not grade the files named: add a task for each new one"))

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown template", []string{"init", "--template", "audit"}, `--template: expected "starter" or "agent-audit", got "audit"`},
		{"files for the starter", []string{"init", "x.md"}, `init takes no arguments, got "x.md"; pass the folder with --dir`},
		{"an absolute path", []string{"init", "--template", "agent-audit", "/etc/x.md"}, `expected definition files relative to the project folder (--dir), got "/etc/x.md"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runCLI(t, t.TempDir(), nil, tc.args...)
			assert.Equal(t, res.code, ExitInvalid)
			assert.Check(t, is.Contains(res.stderr, tc.want))
		})
	}
}
