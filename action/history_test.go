package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/testenv"
	"github.com/evalgate/evalgate/results"
)

// historyAgent answers "ok" to every task but those listed in $STATE.
const historyAgent = `#!/bin/sh
cat >/dev/null
if [ -f "$STATE" ] && grep -qx "$EVALGATE_TASK_ID" "$STATE"; then echo wrong; else echo ok; fi
`

// TestActionHistory runs the action's steps (action/run.sh: fetch, run,
// publish) with the real evalgate, as action.yml runs them, in a clone of
// a bare remote on disk: three pushes of the default branch record their
// runs on the evalgate-history branch (the default store), a pushed
// feature branch and a pull request only read it. The pull request's run
// labels the task that flipped known-flaky and the one that never failed
// new, and its scorecard draws the trend.
func TestActionHistory(t *testing.T) {
	bash := needTools(t, "bash", "git")
	bin := testenv.Build(t, "evalgate", "..")
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	work := filepath.Join(root, "work")
	gitIn := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	gitIn(root, "init", "--quiet", "--bare", "--initial-branch=main", remote)
	gitIn(root, "clone", "--quiet", remote, work)
	state := filepath.Join(root, "failing")
	suite := "suiteId: acme.e2e.evals.history\nversion: 1.0.0\nmodes: [golden]\nthresholds: {passScore: 0.5}\ntasks:\n"
	for _, id := range []string{"flaky", "steady", "other"} {
		suite += "  - {taskId: " + id + ", input: " + id + ", expected: {kind: golden, match: {strategy: exact, value: ok}}}\n"
	}
	for name, data := range map[string]string{
		"evalgate.yaml":      "suites: [evals/]\nagent:\n  plain: [sh, agent.sh]\n  env: {STATE: " + state + "}\ngates: [\"regression.newFailuresNotFlaky == 0\"]\n",
		"evals/history.yaml": suite,
		"agent.sh":           historyAgent,
		".gitignore":         "evalgate-out/\n",
	} {
		assert.NilError(t, os.MkdirAll(filepath.Dir(filepath.Join(work, name)), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(work, name), []byte(data), 0o644))
	}
	gitIn(work, "add", ".")
	gitIn(work, "commit", "--quiet", "-m", "evals")
	gitIn(work, "push", "--quiet", "origin", "main")

	// job runs the three steps as action.yml does, for an event of a ref,
	// with the given tasks failing; it returns the run's exit code and
	// its results.
	job := func(t *testing.T, event, ref, failing string) (int, *results.Run, string) {
		t.Helper()
		assert.NilError(t, os.WriteFile(state, []byte(failing), 0o644))
		out := filepath.Join(work, "evalgate-out")
		assert.NilError(t, os.RemoveAll(out))
		env := []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + root, "EVALGATE_BIN=" + bin, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + event, "GITHUB_REF=" + ref, "GITHUB_REPOSITORY=acme/agent",
			"GITHUB_SHA=" + gitIn(work, "rev-parse", "HEAD"), "EVALGATE_DEFAULT_BRANCH=main", "INPUT_COMMENT=never",
			"GITHUB_STEP_SUMMARY=" + filepath.Join(root, "summary.md"),
		}
		var log strings.Builder
		code := 0
		for _, step := range []string{"fetch", "run", "publish"} {
			outputs := filepath.Join(root, step+"-output")
			assert.NilError(t, os.WriteFile(outputs, nil, 0o644))
			cmd := exec.Command(bash, filepath.Join(testenvRoot(t), "action", "run.sh"), step)
			cmd.Dir = work
			cmd.Env = append(env, "GITHUB_OUTPUT="+outputs)
			data, err := cmd.CombinedOutput()
			log.Write(data)
			if step == "run" {
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else {
					assert.NilError(t, err, "%s", data)
				}
				continue
			}
			assert.NilError(t, err, "run.sh %s: %s", step, data)
		}
		r, err := results.Read(filepath.Join(out, "results.json"))
		assert.NilError(t, err, "%s", log.String())
		return code, r, log.String()
	}
	records := func() int {
		out := gitIn(work, "ls-remote", "origin", "refs/heads/evalgate-history")
		if out == "" {
			return 0
		}
		return len(strings.Fields(gitIn(work, "ls-tree", "--name-only", strings.Fields(out)[0])))
	}
	labels := func(r *results.Run) map[string]string {
		got := map[string]string{}
		for _, task := range r.Suites[0].Tasks {
			if task.Flaky != "" {
				got[task.ID] = task.Flaky
			}
		}
		return got
	}

	code, r, log := job(t, "push", "refs/heads/main", "")
	assert.Equal(t, code, 0, log)
	assert.Equal(t, r.History.Store, "git:evalgate-history")
	assert.Equal(t, r.History.Runs, 0)
	assert.Equal(t, records(), 1, log)
	gitIn(work, "fetch", "--quiet", "origin")
	code, _, log = job(t, "push", "refs/heads/main", "flaky\n")
	assert.Equal(t, code, 1, log) // flaky never failed before: new
	assert.Equal(t, records(), 2, log)
	code, _, log = job(t, "push", "refs/heads/main", "")
	assert.Equal(t, code, 0, log)
	assert.Equal(t, records(), 3, log)
	code, _, log = job(t, "push", "refs/heads/feature", "")
	assert.Equal(t, code, 0, log)
	assert.Equal(t, records(), 3, "a push of another branch records nothing:\n%s", log)

	code, r, log = job(t, "pull_request", "refs/pull/7/merge", "flaky\nsteady\n")
	assert.Equal(t, code, 1, log) // steady is new: the gate fails on it alone
	assert.DeepEqual(t, labels(r), map[string]string{"flaky": results.FlakyKnown, "steady": results.FlakyNew})
	assert.Equal(t, r.History.Runs, 3)
	assert.Equal(t, r.History.NewFailuresNotFlaky, 1)
	assert.Equal(t, records(), 3, "a pull request records nothing:\n%s", log)
	card, err := os.ReadFile(filepath.Join(work, "evalgate-out", "scorecard.md"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(card), "#### Trend over the last 3 runs"))
	assert.Check(t, is.Contains(string(card), "| `acme.e2e.evals.history` | ▇▃▇▁ | 0.33–1.00 |"))
	assert.Check(t, is.Contains(log, "acme.e2e.evals.history  ▇▃▇▁ score 0.333..1.000, now 0.333"))
}

// testenvRoot is the repository's root: the action's checkout.
func testenvRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	assert.NilError(t, err)
	return root
}
