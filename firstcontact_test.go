package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestFirstContact walks the first hour of a new user through the built
// binary, in a fresh git repository: init, a first run that passes, a
// mistyped agent that stops the run with exit 3, the README's regression
// recipe failing a pull request whose agent regressed, and baseline promote
// refusing a run that covered only some tasks.
func TestFirstContact(t *testing.T) {
	if testing.Short() {
		t.Skip("builds evalgate and runs python3 agents")
	}
	for _, tool := range []string{"git", "python3", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	bin := filepath.Dir(buildEvalgate(t))

	repo := t.TempDir()
	sh := func(t *testing.T, script string) result {
		t.Helper()
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = repo
		cmd.Env = append(cleanEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		r := result{stdout: stdout.String(), stderr: stderr.String()}
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			r.code = ee.ExitCode()
		case err != nil:
			t.Fatalf("%s: %v", script, err)
		}
		return r
	}
	mustPass := func(t *testing.T, script string) result {
		t.Helper()
		r := sh(t, script)
		assert.Equal(t, r.code, 0, "%s\nstdout:\n%s\nstderr:\n%s", script, r.stdout, r.stderr)
		return r
	}
	mustPass(t, `git init -q -b main . && git config user.email ci@example.com && git config user.name CI`)

	// init, then a run that passes as it is.
	r := mustPass(t, "evalgate init")
	assert.Assert(t, is.Contains(r.stdout, "evalgate run"), "init says what to do next")
	r = mustPass(t, "evalgate run")
	assert.Assert(t, is.Contains(r.stdout, "PASS"))
	mustPass(t, `git add -A && git commit -qm "evalgate init"`)

	// An agent that cannot run is exit 3, naming the command and its stderr.
	r = sh(t, "evalgate run --agent-cmd 'python3 agnet.py'")
	assert.Equal(t, r.code, 3, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Assert(t, is.Contains(r.stderr, `"python3 agnet.py"`))
	assert.Assert(t, is.Contains(r.stderr, "agnet.py"))
	assert.Assert(t, is.Contains(r.stderr, "No such file"), "the first lines of its stderr")
	assert.Equal(t, r.stdout, "", "no suite line before the exit-3 message")

	// The README's regression recipe: the baseline on main, then a pull
	// request whose agent no longer greets.
	onMain, onPR := readmeRecipe(t)
	for _, cmd := range onMain {
		mustPass(t, cmd)
	}
	mustPass(t, `git add -A && git commit -qm baseline && git update-ref refs/remotes/origin/main HEAD`)
	agent := filepath.Join(repo, "evals", "agent.py")
	src, err := os.ReadFile(agent)
	assert.NilError(t, err)
	regressed := strings.Replace(string(src), `return "Hello! Ask me where your order is."`, `return "Ask me where your order is."`, 1)
	assert.Assert(t, regressed != string(src), "the starter agent's greeting moved: update this test")
	assert.NilError(t, os.WriteFile(agent, []byte(regressed), 0o644))
	var gated bool
	for _, cmd := range onPR {
		r := sh(t, cmd)
		if !strings.HasPrefix(cmd, "evalgate run") {
			assert.Equal(t, r.code, 0, "%s\n%s%s", cmd, r.stdout, r.stderr)
			continue
		}
		gated = true
		assert.Equal(t, r.code, 1, "the recipe must fail the regressed agent:\n%s%s", r.stdout, r.stderr)
		assert.Assert(t, is.Contains(r.stdout, "greets-the-user"))
		assert.Assert(t, is.Contains(r.stdout, "regression.newConsistentFailures == 0"))
	}
	assert.Assert(t, gated, "the README's recipe runs no gated pull-request run")

	// promote refuses a run of some tasks only, and keeps the baseline.
	before, err := os.ReadFile(filepath.Join(repo, ".evalgate", "baseline.json"))
	assert.NilError(t, err)
	sh(t, "evalgate run --task greets-the-user")
	r = sh(t, "evalgate baseline promote evalgate-out --out .evalgate/baseline.json")
	assert.Equal(t, r.code, 2, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Assert(t, is.Contains(r.stderr, "--task"))
	assert.Assert(t, is.Contains(r.stderr, "--force"))
	after, err := os.ReadFile(filepath.Join(repo, ".evalgate", "baseline.json"))
	assert.NilError(t, err)
	assert.Equal(t, string(after), string(before), "a refused promote leaves the baseline alone")
}

type result struct {
	code           int
	stdout, stderr string
}

// readmeRecipe returns the commands of the README's regression recipe, as
// bash command lines, split where its comment says the pull request starts.
func readmeRecipe(t *testing.T) (onMain, onPR []string) {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	assert.NilError(t, err)
	block := regexp.MustCompile("(?s)## Regression gating\n+```sh\n(.*?)```").FindSubmatch(readme)
	assert.Assert(t, block != nil, "README.md has no sh block under \"## Regression gating\"")
	script := strings.ReplaceAll(string(block[1]), "\\\n", " ")
	pr := false
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "# on a pull request"):
			pr = true
		case line == "" || strings.HasPrefix(line, "#"):
		case pr:
			onPR = append(onPR, line)
		default:
			onMain = append(onMain, line)
		}
	}
	assert.Assert(t, len(onMain) > 0 && len(onPR) > 0, "the recipe's comments no longer say where the pull request starts")
	return onMain, onPR
}

// cleanEnv is this process's environment without what would make evalgate
// think it runs in GitHub Actions or on a terminal.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "RUNNER_") || name == "CI" ||
			strings.HasPrefix(name, "GIT_") || name == "FORCE_COLOR" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CI=true", "NO_COLOR=1")
}
