package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// docBlock returns the first fenced code block of language lang under the
// heading (a whole line, such as "## Regression gating") of a file of the
// repository.
func docBlock(t *testing.T, file, heading, lang string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", file))
	assert.NilError(t, err)
	_, section, ok := strings.Cut(string(data), "\n"+heading+"\n")
	assert.Assert(t, ok, "%s has no heading %q", file, heading)
	_, block, ok := strings.Cut(section, "\n```"+lang+"\n")
	assert.Assert(t, ok, "%s: no ```%s block under %q", file, lang, heading)
	block, _, ok = strings.Cut(block, "\n```")
	assert.Assert(t, ok, "%s: the ```%s block under %q does not end", file, lang, heading)
	return block + "\n"
}

// shellCommands splits a shell block into the argument lists of its
// commands: comments and blank lines are skipped, a trailing backslash
// continues the line, and single or double quotes group words as the shell
// would (without expansions, which the documented commands do not use).
func shellCommands(t *testing.T, block string) [][]string {
	t.Helper()
	var cmds [][]string
	var line strings.Builder
	for _, l := range strings.Split(block, "\n") {
		if rest, ok := strings.CutSuffix(l, "\\"); ok {
			line.WriteString(rest)
			continue
		}
		line.WriteString(l)
		text := strings.TrimSpace(line.String())
		line.Reset()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var words []string
		var word strings.Builder
		inWord := false
		var quote rune
		for _, r := range text {
			switch {
			case quote != 0 && r == quote:
				quote = 0
			case quote != 0:
				word.WriteRune(r)
			case r == '\'' || r == '"':
				quote, inWord = r, true
			case r == ' ' || r == '\t':
				if inWord {
					words = append(words, word.String())
					word.Reset()
					inWord = false
				}
			default:
				word.WriteRune(r)
				inWord = true
			}
		}
		assert.Assert(t, quote == 0, "unterminated quote in %q", text)
		if inWord {
			words = append(words, word.String())
		}
		cmds = append(cmds, words)
	}
	return cmds
}

// readmeRegressionRecipe is the README's regression recipe: the run on main,
// the promotion of its results, the pull request's run and the diff, each
// as the arguments after "evalgate".
type readmeRegressionRecipe struct {
	mainRun, promote, prRun, diff []string
}

func readReadmeRegressionRecipe(t *testing.T) readmeRegressionRecipe {
	t.Helper()
	var r readmeRegressionRecipe
	for _, cmd := range shellCommands(t, docBlock(t, "README.md", "## Regression gating", "sh")) {
		assert.Assert(t, len(cmd) > 1 && cmd[0] == "evalgate", "the recipe runs only evalgate: %q", cmd)
		args := cmd[1:]
		switch {
		case args[0] == "run" && slices.Contains(args, "--baseline"):
			r.prRun = args
		case args[0] == "run":
			r.mainRun = args
		case args[0] == "baseline" && args[1] == "promote":
			r.promote = args
		case args[0] == "diff":
			r.diff = args
		default:
			t.Fatalf("the README's recipe has a command this test does not know: %q", cmd)
		}
	}
	assert.Assert(t, r.mainRun != nil && r.promote != nil && r.prRun != nil && r.diff != nil,
		"the README's recipe lost a step: %+v", r)
	return r
}

// gatesOf lists the gates of a recipe's pull-request run.
func gatesOf(args []string) []string {
	var gs []string
	for i, a := range args {
		if a == "--gate" && i+1 < len(args) {
			gs = append(gs, args[i+1])
		}
	}
	return gs
}

// recipeAgent is a plain agent for ten tasks that expect "ok" and give a
// tenth of their weight to answering exactly that. The files in
// $RECIPE_STATE list the tasks that misbehave: broken ones answer "no"
// (score 0), sloppy ones "ok." (score 1/1.1, below the bar of 1), and flaky
// ones answer "no" in their first trial only.
const recipeAgent = `#!/bin/sh
cat >/dev/null
listed() { [ -f "$RECIPE_STATE/$1" ] && grep -qx "$EVALGATE_TASK_ID" "$RECIPE_STATE/$1"; }
if listed broken; then echo no; exit 0; fi
if listed sloppy; then echo ok.; exit 0; fi
if [ "$EVALGATE_TRIAL" = 1 ] && listed flaky; then echo no; exit 0; fi
echo ok
`

var recipeTasks = []string{"greet", "lookup", "refund", "escalate", "close", "invoice", "late-fee", "credit", "dispute", "tax"}

// newRecipeProject is a git repository holding a suite of ten tasks, the
// agent and an evalgate.yaml that names them and nothing else: the recipes
// add the trials, the baseline and the gates.
func newRecipeProject(t *testing.T) (dir, state string) {
	t.Helper()
	dir = t.TempDir()
	state = filepath.Join(dir, "state")
	var tasks []string
	for _, id := range recipeTasks {
		tasks = append(tasks, fmt.Sprintf(`    {"taskId": %q, "input": %q, "expected": {"kind": "golden",
      "match": {"strategy": "contains", "value": "ok"},
      "assert": [{"id": "exactly-ok", "expr": "output == \"ok\"", "weight": 0.1}]}}`, id, id))
	}
	suite := "{\n  \"suiteId\": \"acme.recipe.evals.support\",\n  \"version\": \"1.0.0\",\n  \"modes\": [\"golden\"],\n  \"tasks\": [\n" +
		strings.Join(tasks, ",\n") + "\n  ]\n}\n"
	for rel, data := range map[string]string{
		"evals/support.json": suite,
		"agent.sh":           recipeAgent,
		"evalgate.yaml":      fmt.Sprintf("suites: [evals/]\nagent:\n  plain: [sh, agent.sh]\n  env: {RECIPE_STATE: %q}\nconcurrency: 4\ntimeout: 30s\n", state),
	} {
		assert.NilError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, rel), []byte(data), 0o644))
	}
	assert.NilError(t, os.MkdirAll(state, 0o755))
	git(t, dir, "init", "-q", "-b", "main")
	return dir, state
}

// TestRegressionRecipes runs the regression recipes of the README (flags)
// and of docs/regression.md (evalgate.yaml) as they are written, in a git
// repository whose main branch holds the baseline: a baseline of ten
// passing tasks, then pull requests that break, degrade or shake some of
// them. The recipes must fail real regressions, even when the score barely
// moves, and hold for a flaky task.
func TestRegressionRecipes(t *testing.T) {
	readme := readReadmeRegressionRecipe(t)
	docYAML := docBlock(t, "docs/regression.md", "## The recipe", "yaml")
	dir, state := newRecipeProject(t)
	t.Chdir(dir)
	assert.NilError(t, os.WriteFile("evalgate.recipe.yaml", append(regrReadFileBytes(t, "evalgate.yaml"), docYAML...), 0o644))

	// On main: the README's first two steps, then the commit they ask for.
	code, stdout, stderr := runEvalgate(t, nil, readme.mainRun...)
	assert.Equal(t, code, 0, stdout+stderr)
	code, stdout, stderr = runEvalgate(t, nil, readme.promote...)
	assert.Equal(t, code, 0, stdout+stderr)
	base := regrReadRun(t, "evalgate-out")
	assert.Equal(t, base.TaskCount, 10)
	assert.Equal(t, base.PassedCount, 10)
	assert.Check(t, base.Suites[0].Trials > 1, "the recipe runs several trials")
	git(t, dir, "add", ".evalgate/baseline.json")
	git(t, dir, "commit", "-q", "-m", "evals: baseline")
	git(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD")

	set := func(t *testing.T, name string, ids []string) {
		t.Helper()
		path := filepath.Join(state, name)
		if len(ids) == 0 {
			assert.NilError(t, os.RemoveAll(path))
			return
		}
		assert.NilError(t, os.WriteFile(path, []byte(strings.Join(ids, "\n")+"\n"), 0o644))
	}
	type testCase struct {
		name                  string
		broken, sloppy, flaky []string
		wantCode              int
		wantFailing           []string // the variables of the gates that fail
		newFailures           int
		newConsistentFailures int
		wantDiff              string
		significanceGateHolds bool // the old recipe, newFailures == 0 || pValue > 0.05
	}
	run := func(t *testing.T, tc testCase, args []string) {
		set(t, "broken", tc.broken)
		set(t, "sloppy", tc.sloppy)
		set(t, "flaky", tc.flaky)
		code, stdout, stderr := runEvalgate(t, nil, args...)
		assert.Equal(t, code, tc.wantCode, stdout+stderr)
		r := regrReadRun(t, "evalgate-out")
		reg := r.Regression
		assert.Assert(t, reg != nil, "no comparison with the baseline")
		assert.Equal(t, reg.NewFailures, tc.newFailures)
		assert.Equal(t, reg.NewConsistentFailures, tc.newConsistentFailures)
		assert.Equal(t, r.Suites[0].Regression.NewConsistentFailures, tc.newConsistentFailures)
		assert.Equal(t, reg.NewFailures == 0 || reg.PValue > 0.05, tc.significanceGateHolds, "p = %v", reg.PValue)
		var exprs, failing, want []string
		for _, g := range r.Gates {
			exprs = append(exprs, g.Expr)
			assert.Check(t, g.Error == "", "gate %q: %s", g.Expr, g.Error)
			if !g.Passed {
				failing = append(failing, g.Expr)
			}
			for _, v := range tc.wantFailing {
				if strings.Contains(g.Expr, v) {
					want = append(want, g.Expr)
				}
			}
		}
		assert.DeepEqual(t, exprs, gatesOf(readme.prRun)) // the same recipe in both places
		assert.DeepEqual(t, failing, want)
		regrValidResults(t, "evalgate-out")

		code, diff, stderr := runEvalgate(t, nil, readme.diff...)
		assert.Equal(t, code, 0, stderr)
		assert.Check(t, is.Contains(diff, tc.wantDiff))
	}
	three := recipeTasks[:3]
	for _, tc := range []testCase{
		{
			name: "nothing changed", wantCode: 0, significanceGateHolds: true, wantDiff: "UNCHANGED",
		},
		{
			name: "three tasks fail outright", broken: three, wantCode: 1,
			wantFailing: []string{"aggregateScore", "regression.newConsistentFailures", "regression.scoreDelta"},
			newFailures: 3, newConsistentFailures: 3, significanceGateHolds: true,
			wantDiff: "3 newly failing (3 in every trial)",
		},
		{
			// The score falls by less than 0.03: only the consistent
			// failures tell, and McNemar's p = 0.25 would let it through.
			name: "three tasks lose a check in every trial", sloppy: three, wantCode: 1,
			wantFailing: []string{"regression.newConsistentFailures"},
			newFailures: 3, newConsistentFailures: 3, significanceGateHolds: true,
			wantDiff: "3 newly failing (3 in every trial)",
		},
		{
			name: "one flaky task fails one trial of three", flaky: recipeTasks[4:5], wantCode: 0,
			newFailures: 1, newConsistentFailures: 0, significanceGateHolds: true,
			wantDiff: "| `acme.recipe.evals.support` / `close` |",
		},
		{
			name: "every task turns flaky", flaky: recipeTasks, wantCode: 1,
			wantFailing: []string{"aggregateScore", "regression.scoreDelta"},
			newFailures: 10, newConsistentFailures: 0, significanceGateHolds: false,
			wantDiff: "10 newly failing (0 in every trial)",
		},
	} {
		t.Run("README/"+tc.name, func(t *testing.T) { run(t, tc, readme.prRun) })
		t.Run("docs/regression.md/"+tc.name, func(t *testing.T) {
			run(t, tc, []string{"run", "--config", "evalgate.recipe.yaml"})
		})
	}
}

func regrReadFileBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	return data
}

// TestGitLabShardRecipe runs examples/ci/gitlab-sharded.yml as GitLab would
// run it: each of the four parallel jobs with its CI_NODE_INDEX, then the
// merge job over the shards' folders, in a project whose baseline the
// shards are balanced by. The merged run has every task once, and a lost
// shard stops the merge with exit 3.
func TestGitLabShardRecipe(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "ci", "gitlab-sharded.yml"))
	assert.NilError(t, err)
	var ci struct {
		Shard struct {
			Parallel int      `yaml:"parallel"`
			Script   []string `yaml:"script"`
		} `yaml:"evals"`
		Merge struct {
			Script []string `yaml:"script"`
		} `yaml:"evals-merge"`
	}
	assert.NilError(t, yaml.Unmarshal(data, &ci))
	shardJob, mergeJob := ci.Shard, ci.Merge
	assert.Assert(t, shardJob.Parallel > 1 && len(shardJob.Script) == 1 && len(mergeJob.Script) == 1, "%+v", ci)

	dir, _ := newRecipeProject(t)
	t.Chdir(dir)
	code, stdout, stderr := runEvalgate(t, nil, "run", "--trials", "2")
	assert.Equal(t, code, 0, stdout+stderr)
	code, stdout, stderr = runEvalgate(t, nil, "baseline", "promote", "evalgate-out", "--out", ".evalgate/baseline.json")
	assert.Equal(t, code, 0, stdout+stderr)

	// script runs one line of a job's script, with GitLab's variables and
	// the shell's globbing.
	script := func(t *testing.T, line string, vars map[string]string) int {
		t.Helper()
		for k, v := range vars {
			line = strings.ReplaceAll(line, "$"+k, v)
		}
		cmds := shellCommands(t, line)
		assert.Assert(t, len(cmds) == 1 && cmds[0][0] == "evalgate", "%q", line)
		var args []string
		for _, a := range cmds[0][1:] {
			if strings.Contains(a, "*") {
				// As the shell globs: "shard-*/" matches folders only.
				pattern, folders := strings.CutSuffix(a, "/")
				matches, err := filepath.Glob(pattern)
				assert.NilError(t, err)
				for _, m := range matches {
					if fi, err := os.Stat(m); err == nil && (!folders || fi.IsDir()) {
						args = append(args, m)
					}
				}
				continue
			}
			args = append(args, a)
		}
		code, stdout, stderr := runEvalgate(t, nil, args...)
		t.Log(stdout + stderr)
		return code
	}
	total := strconv.Itoa(shardJob.Parallel)
	balanced := 0
	for i := 1; i <= shardJob.Parallel; i++ {
		assert.Equal(t, script(t, shardJob.Script[0], map[string]string{"CI_NODE_INDEX": strconv.Itoa(i), "CI_NODE_TOTAL": total}), 0)
		r := regrReadRun(t, fmt.Sprintf("shard-%d", i))
		if r.Shard != nil && r.Shard.Balanced {
			balanced++
		}
	}
	assert.Equal(t, balanced, shardJob.Parallel, "the shards are balanced by the baseline")
	assert.Equal(t, script(t, mergeJob.Script[0], nil), 0)
	m := regrReadRun(t, "evalgate-out")
	assert.Equal(t, m.TaskCount, len(recipeTasks))
	assert.Equal(t, len(m.Shards), shardJob.Parallel)
	assert.Check(t, m.Regression != nil, "the merge compared with the baseline")

	assert.NilError(t, os.RemoveAll("shard-2"))
	assert.Equal(t, script(t, mergeJob.Script[0], nil), ExitRunError)
}
