package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// forkCommentWorkflow is the second workflow of the fork recipe in
// docs/github-action.md.
const forkCommentWorkflow = "../examples/workflows/evalgate-fork-comment.yml"

// recipeStep is the step of a workflow that posts the comment: its env, as
// written, and its script.
type recipeStep struct {
	Name string            `yaml:"name"`
	Env  map[string]string `yaml:"env"`
	Run  string            `yaml:"run"`
}

func readRecipeStep(t *testing.T, path, job, name string) recipeStep {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	var wf struct {
		Jobs map[string]struct {
			Steps []recipeStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	assert.NilError(t, yaml.Unmarshal(data, &wf))
	for _, s := range wf.Jobs[job].Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("%s: job %s has no step %q", path, job, name)
	return recipeStep{}
}

// TestForkCommentRecipe runs the script of the fork recipe's comment workflow
// with bash, curl and jq, as a runner would, against the fake GitHub API on
// loopback. As docs/security.md says, the pull request comes from the
// triggering run (its pull request, else the open one whose head is the run's
// branch), at the run's very commit, never from the fork's artifact; only the
// workflow token's own comment is edited; nothing from the event or the
// artifact runs as shell.
func TestForkCommentRecipe(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH; the recipe needs it, as GitHub's runners have it", tool)
		}
	}
	step := readRecipeStep(t, forkCommentWorkflow, "comment", "create or update the sticky comment")
	assert.Assert(t, !strings.Contains(step.Run, "${{"), "the script interpolates an expression; pass it through env")
	for name, v := range step.Env {
		assert.Assert(t, !strings.Contains(v, "artifact") && !strings.Contains(v, "pull_request."), "env %s comes from %s", name, v)
	}

	const (
		sha      = "1111111111111111111111111111111111111111"
		newerSHA = "2222222222222222222222222222222222222222"
		hostile  = `x$(touch pwned-subst)";touch pwned-quote;#`
	)
	marker := Marker("evalgate.yaml")
	scorecard := "## evalgate: ❌ failed\n\n`$(touch pwned-body)` \"quoted\" \\ back\n"
	type event struct{ runPR, sha, owner, branch string }
	type testCase struct {
		name      string
		event     event
		pulls     []fakePull
		setup     func(f *fakeGitHub)
		noCard    bool
		wantOn    int               // the pull request the scorecard is on afterwards; 0: none
		wantCalls map[string]int    // calls of these endpoints
		wantOut   string            // in the script's output
		wantOther map[string]string // bodies of others' comments afterwards, by author
	}
	run := func(t *testing.T, tc testCase) {
		f := newFakeGitHub(t, "")
		f.token = "ghs_recipe_token"
		f.pulls = tc.pulls
		if tc.setup != nil {
			tc.setup(f)
		}
		dir := t.TempDir()
		// The fork writes what it likes into the artifact: a pull request
		// number among it, which the recipe must not read.
		assert.NilError(t, os.MkdirAll(filepath.Join(dir, "evalgate-comment"), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "evalgate-comment", "pr-number"), []byte("9\n"), 0o644))
		if !tc.noCard {
			assert.NilError(t, os.WriteFile(filepath.Join(dir, "evalgate-comment", "scorecard.md"), []byte(scorecard), 0o644))
		}
		exprs := map[string]string{
			"github.token":      f.token,
			"github.api_url":    f.apiURL(),
			"github.repository": "acme/agent",
			"github.event.workflow_run.pull_requests[0].number":     tc.event.runPR,
			"github.event.workflow_run.head_sha":                    tc.event.sha,
			"github.event.workflow_run.head_branch":                 tc.event.branch,
			"github.event.workflow_run.head_repository.owner.login": tc.event.owner,
		}
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C.UTF-8"}
		exprRE := regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
		for name, v := range step.Env {
			v = exprRE.ReplaceAllStringFunc(v, func(e string) string {
				key := exprRE.FindStringSubmatch(e)[1]
				val, ok := exprs[key]
				assert.Check(t, ok, "the step uses %s, which the test does not set", key)
				return val
			})
			env = append(env, name+"="+v)
		}
		script := filepath.Join(t.TempDir(), "step.sh")
		assert.NilError(t, os.WriteFile(script, []byte(step.Run), 0o644))
		// What a runner runs for `run:` with the default shell.
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, "the step failed:\n%s", out)
		assert.Check(t, is.Contains(string(out), tc.wantOut))
		assert.Check(t, !strings.Contains(string(out), f.token), "the token was printed")

		pwned, _ := filepath.Glob(filepath.Join(dir, "pwned*"))
		assert.Check(t, is.Len(pwned, 0), "event or artifact text ran as shell")
		var on []int
		for _, c := range f.snapshot() {
			if want, ok := tc.wantOther[c.User.Login]; ok {
				assert.Check(t, is.Equal(c.Body, want), "the comment by %s was edited", c.User.Login)
			}
			if c.User.Login == ActionsBot && strings.HasPrefix(c.Body, marker+"\n") {
				assert.Check(t, is.Equal(c.Body, marker+"\n"+scorecard))
				on = append(on, c.PR)
			}
		}
		if tc.wantOn == 0 {
			assert.Check(t, is.Len(on, 0), "a scorecard was posted")
		} else {
			assert.Check(t, is.DeepEqual(on, []int{tc.wantOn}))
			assert.Check(t, is.Contains(string(out), "https://github.example/o/r/pull/"))
		}
		for ep, n := range tc.wantCalls {
			assert.Check(t, is.Equal(f.count(ep), n), "calls of %s", ep)
		}
	}
	testCases := []testCase{
		{
			name:   "the run's pull request",
			event:  event{runPR: "7", sha: sha, owner: "acme", branch: "feature"},
			pulls:  []fakePull{{Number: 7, Head: "acme:feature", SHA: sha}, {Number: 9, Head: "acme:other", SHA: sha}},
			wantOn: 7, wantCalls: map[string]int{epGetPull: 1, epListPulls: 0, epCreateComment: 1},
		},
		{
			name:   "a fork: the open pull request whose head is the run's branch",
			event:  event{sha: sha, owner: "mallory", branch: "patch-1"},
			pulls:  []fakePull{{Number: 9, Head: "mallory:other", SHA: sha}, {Number: 8, Head: "mallory:patch-1", SHA: sha}},
			wantOn: 8, wantCalls: map[string]int{epGetPull: 0, epListPulls: 1, epCreateComment: 1},
		},
		{
			name:   "a fork branch named like shell",
			event:  event{sha: sha, owner: "mallory", branch: hostile},
			pulls:  []fakePull{{Number: 8, Head: "mallory:" + hostile, SHA: sha}},
			wantOn: 8,
		},
		{
			name:    "the run's pull request has moved on",
			event:   event{runPR: "7", sha: sha, owner: "acme", branch: "feature"},
			pulls:   []fakePull{{Number: 7, Head: "acme:feature", SHA: newerSHA}},
			wantOut: "::notice::no open pull request has the commit " + sha,
			wantOn:  0, wantCalls: map[string]int{epCreateComment: 0, epEditComment: 0},
		},
		{
			name:    "the fork pushed again",
			event:   event{sha: sha, owner: "mallory", branch: "patch-1"},
			pulls:   []fakePull{{Number: 8, Head: "mallory:patch-1", SHA: newerSHA}},
			wantOut: "::notice::no open pull request has the commit",
			wantOn:  0, wantCalls: map[string]int{epCreateComment: 0},
		},
		{
			name:  "its own comment on page two is updated, another's with the marker is not",
			event: event{runPR: "7", sha: sha, owner: "acme", branch: "feature"},
			pulls: []fakePull{{Number: 7, Head: "acme:feature", SHA: sha}},
			setup: func(f *fakeGitHub) {
				f.addComment("mallory", marker+"\nplanted")
				f.addComment("alice", "LGTM")
				f.addComment(ActionsBot, marker+"\nold")
			},
			wantOn:    7,
			wantOther: map[string]string{"mallory": marker + "\nplanted"},
			wantCalls: map[string]int{epEditComment: 1, epCreateComment: 0},
		},
		{
			name:  "only another's comment has the marker",
			event: event{runPR: "7", sha: sha, owner: "acme", branch: "feature"},
			pulls: []fakePull{{Number: 7, Head: "acme:feature", SHA: sha}},
			setup: func(f *fakeGitHub) {
				f.addComment("mallory", marker+"\nplanted")
			},
			wantOn:    7,
			wantOther: map[string]string{"mallory": marker + "\nplanted"},
			wantCalls: map[string]int{epEditComment: 0, epCreateComment: 1},
		},
		{
			name:    "no scorecard",
			event:   event{runPR: "7", sha: sha, owner: "acme", branch: "feature"},
			noCard:  true,
			wantOut: "::warning::no scorecard in the artifact; nothing to post",
			wantOn:  0, wantCalls: map[string]int{epGetPull: 0, epCreateComment: 0},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { t.Parallel(); run(t, tc) }) // each with its own fake GitHub and folder
	}
}
