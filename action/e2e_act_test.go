package action

import (
	"archive/zip"
	"bufio"
	"context"
	"errors"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/results"
	"go.yaml.in/yaml/v3"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestActEndToEnd runs this repository's own action.yml under act in host
// mode (no Docker) on a pull_request event, against the fake GitHub API on
// loopback: the first run creates the sticky comment, the second updates it,
// and with a read-only token the third warns and keeps the gate's verdict.
//
// It needs act on PATH and EVALGATE_E2E_ACT=1 (scripts/e2e-act.sh sets both
// up). The workflow sets no install input: each run takes install-mode
// auto's path for an action that is not a listed release and builds
// evalgate from the action's checkout with the Go already on the runner,
// offline. act fetches every action a composite action names before it
// looks at the step's if:, so the actions that only a runner without a
// recent Go needs (actions/setup-go, actions/cache) are replaced by local
// stand-ins that fail the job if they ever run.
func TestActEndToEnd(t *testing.T) {
	act, root, f := actSetup(t)
	standIns := standInActions(t, filepath.Join(root, "action.yml"))
	marker := Marker("")

	type testCase struct {
		name      string
		agentMode string
		setup     func()
		// want
		wantExit    int // act's exit: 0, or non-zero when the gate fails
		wantPassed  string
		wantComment func(t *testing.T, comments []fakeComment)
		wantLog     []string
		explain     string   // the explain input
		absentLog   []string // what the log must not hold
	}
	ours := func(t *testing.T, comments []fakeComment) fakeComment {
		t.Helper()
		var found []fakeComment
		for _, c := range comments {
			if strings.HasPrefix(c.Body, marker+"\n") {
				found = append(found, c)
			}
		}
		assert.Equal(t, len(found), 1, "comments with our marker")
		return found[0]
	}
	// install.sh's notice for an action used from a path (uses: ./).
	builtFromSource := "::notice title=evalgate install::building evalgate from source (the action's checkout) with the runner's Go, " +
		runtime.Version() + ", because the action is used from a path, not from a release listed in action/checksums.txt"
	var bodies []string
	run := func(t *testing.T, tc testCase) {
		if tc.setup != nil {
			tc.setup()
		}
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		logBytes, err := actCommand(ctx, act, root, "workflow.yml", f, standIns, nil, "E2E_OUT="+out, "E2E_AGENT_MODE="+tc.agentMode, "E2E_EXPLAIN="+tc.explain).CombinedOutput()
		log := string(logBytes)
		_ = os.WriteFile(filepath.Join(out, "act.log"), logBytes, 0o644)
		exit := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			exit = ee.ExitCode()
		} else {
			assert.NilError(t, err, "act: %s", log)
		}
		assert.Assert(t, (exit == 0) == (tc.wantExit == 0), "act exited %d, want %d; log:\n%s", exit, tc.wantExit, log)
		for _, want := range append(tc.wantLog, builtFromSource) {
			assert.Assert(t, strings.Contains(log, want), "log lacks %q:\n%s", want, log)
		}
		for _, absent := range tc.absentLog {
			assert.Assert(t, !strings.Contains(log, absent), "the log holds %q:\n%s", absent, log)
		}
		assert.Assert(t, !strings.Contains(log, "the stand-in for"), "a step for runners without a recent Go ran:\n%s", log)
		assert.Assert(t, !strings.Contains(log, "ghs_e2e_token"), "the token leaked into the log")

		saw, err := os.ReadFile(filepath.Join(out, "agent-saw"))
		assert.NilError(t, err, "the agent did not run")
		assert.Assert(t, !strings.Contains(string(saw), "token"), "an agent found the GitHub token: %s", saw)
		outs := readKeyValues(t, filepath.Join(out, "outputs.txt"))
		assert.Equal(t, outs["passed"], tc.wantPassed, "outputs: %v\nlog:\n%s", outs, log)
		assert.Assert(t, outs["results"] != "", "outputs: %v", outs)
		_, err = os.Stat(outs["results"])
		assert.NilError(t, err, "the results output names a file")

		comments := f.snapshot()
		tc.wantComment(t, comments)
		c := ours(t, comments)
		bodies = append(bodies, c.Body)
		// The agent's answers and the task's expectations stay out of the
		// comment, whether or not the log explains the failures.
		for _, content := range []string{"Please contact support", "store credit instead", "30 days"} {
			assert.Assert(t, !strings.Contains(c.Body, content), "the comment quotes %q:\n%s", content, c.Body)
		}
		if url := outs["comment-url"]; url != "" {
			assert.Equal(t, url, c.HTMLURL)
		}
	}

	steps := []testCase{
		{
			name: "first run creates the comment", agentMode: "broken",
			setup: func() {
				f.addComment("alice", "Looks good to me; waiting for the evalgate scorecard.")
			},
			wantExit: 1, wantPassed: "false",
			wantComment: func(t *testing.T, comments []fakeComment) {
				assert.Equal(t, f.count(epCreateComment), 1)
				assert.Equal(t, f.count(epEditComment), 0)
				assert.Equal(t, len(comments), 2)
			},
			// The failing task is annotated at its line in the suite file,
			// and, with explain, the log says what it expected and got.
			explain: "true",
			wantLog: []string{"::error file=action/testdata/e2e/suites/refunds.yaml,line=15,title=evalgate%3A task store-credit failed::",
				`match (contains): expected to contain "store credit", got "Please contact support."`},
		},
		{
			name: "second run updates it", agentMode: "fixed",
			wantExit: 0, wantPassed: "true",
			wantComment: func(t *testing.T, comments []fakeComment) {
				assert.Equal(t, f.count(epCreateComment), 1)
				assert.Equal(t, f.count(epEditComment), 1)
				assert.Equal(t, len(comments), 2)
			},
		},
		{
			name: "read-only token warns and keeps the verdict", agentMode: "broken",
			setup: func() {
				f.failNext(epEditComment, fakeFailure{status: http.StatusForbidden, message: "Resource not accessible by integration"})
			},
			wantExit: 1, wantPassed: "false",
			wantComment: func(t *testing.T, comments []fakeComment) {
				assert.Equal(t, f.count(epCreateComment), 1)
				assert.Equal(t, f.count(epEditComment), 2)
				assert.Equal(t, len(comments), 2)
			},
			wantLog:   []string{"could not comment on pull request #7: the token may not write to it (HTTP 403"},
			absentLog: []string{"expected vs got", "Please contact support"},
		},
	}
	for _, tc := range steps {
		if !t.Run(tc.name, func(t *testing.T) { run(t, tc) }) {
			return // later steps build on this one
		}
	}
	assert.Assert(t, bodies[0] != bodies[1], "the second run should change the comment")
	assert.Equal(t, bodies[2], bodies[1], "a refused update leaves the comment as it was")
}

// actCommand is act running the workflow action/testdata/e2e/<workflow>
// on the pull_request event in host mode, from the repository root, against
// the fake GitHub API f, with the stand-in actions, more act flags and env
// (NAME=value).
func actCommand(ctx context.Context, act, root, workflow string, f *fakeGitHub, standIns, flags []string, env ...string) *exec.Cmd {
	return actEvent(ctx, act, root, workflow, "pull_request", "event.json", f, standIns, flags, env...)
}

// actEvent is actCommand on another event, its payload the file
// action/testdata/e2e/<eventFile>.
func actEvent(ctx context.Context, act, root, workflow, event, eventFile string, f *fakeGitHub, standIns, flags []string, env ...string) *exec.Cmd {
	args := []string{event,
		"--workflows", filepath.Join("action", "testdata", "e2e", workflow),
		"--eventpath", filepath.Join("action", "testdata", "e2e", eventFile),
		"--platform", "ubuntu-latest=-self-hosted",
		"--no-cache-server",
		"--secret", "GITHUB_TOKEN=ghs_e2e_token",
		"--env", "GITHUB_API_URL=" + f.apiURL(),
		"--env", "GITHUB_REPOSITORY=acme/agent",
	}
	for _, e := range env {
		args = append(args, "--env", e)
	}
	for _, s := range standIns {
		args = append(args, "--local-repository", s)
	}
	args = append(args, flags...)
	cmd := exec.CommandContext(ctx, act, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	return cmd
}

// standInActions writes, for every action that action.yml uses by
// owner/repo@ref, a local action that fails the job when it runs, and
// returns act's --local-repository mappings to them.
func standInActions(t *testing.T, actionYML string) []string {
	t.Helper()
	data, err := os.ReadFile(actionYML)
	assert.NilError(t, err)
	var mappings []string
	for _, m := range regexp.MustCompile(`(?m)^\s*uses:\s*([\w.-]+/[\w.-]+)@([0-9a-f]{40})\b`).FindAllStringSubmatch(string(data), -1) {
		dir := t.TempDir()
		yml := "name: stand-in\ndescription: stands in for " + m[1] + " in the offline act test\n" +
			"runs:\n  using: composite\n  steps:\n    - shell: bash\n" +
			"      run: echo '::error::the stand-in for " + m[1] + " ran' && exit 1\n"
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "action.yml"), []byte(yml), 0o644))
		mappings = append(mappings, m[1]+"@"+m[2]+"="+dir)
	}
	assert.Assert(t, len(mappings) >= 2, "action.yml names actions/setup-go and actions/cache by commit SHA: %v", mappings)
	return mappings
}

// artifactServer is act's flags to serve the run's artifacts on loopback,
// at a port that was free a moment ago (act takes a number, not a
// listener), keeping them in dir.
func artifactServer(t *testing.T, dir string) []string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	assert.NilError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	assert.NilError(t, l.Close())
	return []string{"--artifact-server-path", dir, "--artifact-server-addr", "127.0.0.1", "--artifact-server-port", strconv.Itoa(port)}
}

// artifactStandIns maps the actions/upload-artifact and
// actions/download-artifact that the workflow uses, at the commits it pins,
// to the stand-ins in action/testdata, which speak act's artifact protocol.
func artifactStandIns(t *testing.T, root, workflow string) []string {
	t.Helper()
	data, err := os.ReadFile(workflow)
	assert.NilError(t, err)
	seen := map[string]bool{}
	var mappings []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:-\s*)?uses:\s*actions/((?:upload|download)-artifact)@([0-9a-f]{40})\b`).FindAllStringSubmatch(string(data), -1) {
		ref := "actions/" + m[1] + "@" + m[2]
		if !seen[ref] {
			seen[ref] = true
			mappings = append(mappings, ref+"="+filepath.Join(root, "action", "testdata", m[1]))
		}
	}
	assert.Equal(t, len(mappings), 2, "%s uses actions/upload-artifact and actions/download-artifact, each at one commit SHA: %v", workflow, mappings)
	return mappings
}

// shardArtifacts reads the results.json of every evalgate-shard-* artifact
// that act's artifact server keeps in dir (RUN/NAME/NAME.zip), by name.
func shardArtifacts(t *testing.T, dir string) map[string]*results.Run {
	t.Helper()
	zips, err := filepath.Glob(filepath.Join(dir, "*", "evalgate-shard-*", "*.zip"))
	assert.NilError(t, err)
	runs := map[string]*results.Run{}
	for _, z := range zips {
		name := filepath.Base(filepath.Dir(z))
		assert.Equal(t, filepath.Base(z), name+".zip")
		zr, err := zip.OpenReader(z)
		assert.NilError(t, err, "artifact %s", name)
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		// The upload names one file, so the zip holds it at its top.
		assert.DeepEqual(t, names, []string{"results.json"})
		in, err := zr.File[0].Open()
		assert.NilError(t, err)
		data, err := io.ReadAll(in)
		assert.NilError(t, err)
		assert.NilError(t, zr.Close())
		path := filepath.Join(t.TempDir(), "results.json")
		assert.NilError(t, os.WriteFile(path, data, 0o644))
		r, err := results.Read(path)
		assert.NilError(t, err, "artifact %s", name)
		runs[name] = r
	}
	return runs
}

func readKeyValues(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	assert.NilError(t, err)
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	assert.NilError(t, sc.Err())
	return out
}

// shardedRecipe is the sharded workflow users copy; the act test's
// sharded workflow passes results between jobs with its steps.
const shardedRecipe = "../examples/workflows/sharded.yml"

// TestShardedRecipeMatchesActTest: the steps that pass the shards' results
// to the merge job in the recipe are those TestActSharded runs under act:
// the shard step's out, the upload step, the download step and the merge
// input, as written, with the same actions at the same commits.
func TestShardedRecipeMatchesActTest(t *testing.T) {
	type step = map[string]any
	read := func(t *testing.T, path string) map[string][]step {
		t.Helper()
		data, err := os.ReadFile(path)
		assert.NilError(t, err)
		var wf struct {
			Jobs map[string]struct {
				Steps []step `yaml:"steps"`
			} `yaml:"jobs"`
		}
		assert.NilError(t, yaml.Unmarshal(data, &wf))
		jobs := map[string][]step{}
		for name, j := range wf.Jobs {
			jobs[name] = j.Steps
		}
		return jobs
	}
	// find is the job's one step that s picks.
	find := func(t *testing.T, path, job, what string, steps []step, pick func(s step) bool) step {
		t.Helper()
		var found []step
		for _, s := range steps {
			if pick(s) {
				found = append(found, s)
			}
		}
		assert.Assert(t, len(found) == 1, "%s: job %s should have one step that %s, has %d", path, job, what, len(found))
		return found[0]
	}
	uses := func(prefix string) func(s step) bool {
		return func(s step) bool { u, _ := s["uses"].(string); return strings.HasPrefix(u, prefix) }
	}
	with := func(name string) func(s step) bool {
		return func(s step) bool { w, _ := s["with"].(map[string]any); _, ok := w[name]; return ok }
	}
	tested := filepath.Join("testdata", "e2e", "sharded.yml")
	recipe, act := read(t, shardedRecipe), read(t, tested)
	for _, c := range []struct {
		job, what string
		pick      func(s step) bool
		input     string // compare this input only, else the whole step
	}{
		{job: "shard", what: "runs a shard", pick: with("shard"), input: "out"},
		{job: "shard", what: "uploads the results", pick: uses("actions/upload-artifact@")},
		{job: "merge", what: "downloads the shards", pick: uses("actions/download-artifact@")},
		{job: "merge", what: "merges them", pick: with("merge"), input: "merge"},
	} {
		want := find(t, shardedRecipe, c.job, c.what, recipe[c.job], c.pick)
		got := find(t, tested, c.job, c.what, act[c.job], c.pick)
		if c.input != "" {
			want, got = step{c.input: want["with"].(map[string]any)[c.input]}, step{c.input: got["with"].(map[string]any)[c.input]}
		}
		assert.Check(t, is.DeepEqual(got, want), "%s: the %s job's step that %s is not as in %s", tested, c.job, c.what, shardedRecipe)
	}
}

// TestActSharded runs a sharded workflow under act as TestActEndToEnd runs
// the plain one: three matrix jobs with the shard input, each uploading its
// results.json with actions/upload-artifact, then a job that downloads them
// with actions/download-artifact and gives them to the merge input. The
// results go through act's artifact server, and the upload and download
// actions are stand-ins at the commits the workflow pins. The shards post
// no comment; the merge gates on every task and keeps one sticky comment,
// whose figures are a single job's; a second run updates it; a shard that
// uploads nothing stops the merge with exit 3.
func TestActSharded(t *testing.T) {
	act, root, f := actSetup(t)
	out := t.TempDir()
	standIns := append(standInActions(t, filepath.Join(root, "action.yml")),
		artifactStandIns(t, root, filepath.Join(root, "action", "testdata", "e2e", "sharded.yml"))...)
	// runAct runs the workflow with a new artifact store, which it returns.
	runAct := func(t *testing.T, drop string) (log string, exit int, artifacts string) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		artifacts = t.TempDir()
		logBytes, err := actCommand(ctx, act, root, "sharded.yml", f, standIns, artifactServer(t, artifacts), "E2E_OUT="+out, "E2E_AGENT_MODE=fixed", "E2E_DROP_SHARD="+drop).CombinedOutput()
		log = string(logBytes)
		_ = os.WriteFile(filepath.Join(out, "act-"+drop+".log"), logBytes, 0o644)
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			exit = ee.ExitCode()
		} else {
			assert.NilError(t, err, "act: %s", log)
		}
		assert.Assert(t, !strings.Contains(log, "ghs_e2e_token"), "the token leaked into the log")
		return log, exit, artifacts
	}
	merged := func(t *testing.T, log, artifacts string) {
		t.Helper()
		// The shards' results are read from the artifact server's store:
		// each shard job wrote them in its own workspace, which the merge
		// job does not see.
		shards := shardArtifacts(t, artifacts)
		assert.Equal(t, len(shards), 3, "artifacts in %s", artifacts)
		tasks := 0
		for _, n := range []string{"1", "2", "3"} {
			r := shards["evalgate-shard-"+n]
			assert.Assert(t, r != nil, "no artifact evalgate-shard-%s", n)
			assert.Check(t, r.Shard != nil && r.Shard.Count == 3, "shard %s: %+v", n, r.Shard)
			tasks += r.TaskCount
		}
		assert.Check(t, strings.Contains(log, "Total of 3 artifact(s) downloaded"), "the merge job did not download three artifacts:\n%s", log)
		m, err := results.Read(filepath.Join(out, "merged", "results.json"))
		assert.NilError(t, err)
		assert.Equal(t, m.TaskCount, tasks)
		assert.Equal(t, len(m.Shards), 3)
		// The figures a single job gives the same suites and agent
		// (TestActEndToEnd's second run): both tasks pass, score 1.
		assert.Check(t, m.Passed && m.TaskCount == 2 && m.PassedCount == 2 && m.AggregateScore == 1, "%+v", m.Stats)
		outs := readKeyValues(t, filepath.Join(out, "outputs.txt"))
		assert.Equal(t, outs["passed"], "true", "outputs: %v\nlog:\n%s", outs, log)
		comments := f.snapshot()
		assert.Equal(t, len(comments), 1, "the shards posted comments")
		assert.Check(t, strings.Contains(comments[0].Body, "2/2 tasks passed") && strings.Contains(comments[0].Body, "Merged from 3 shards"), comments[0].Body)
		assert.Equal(t, outs["comment-url"], comments[0].HTMLURL)
	}

	t.Run("the merge job comments once", func(t *testing.T) {
		log, exit, artifacts := runAct(t, "")
		assert.Equal(t, exit, 0, log)
		merged(t, log, artifacts)
		assert.Equal(t, f.count(epCreateComment), 1)
		assert.Equal(t, f.count(epEditComment), 0)
		assert.Check(t, strings.Contains(log, "evalgate shard 1 of 3:"), "no shard summary line in the log")
	})
	t.Run("a second run updates the comment", func(t *testing.T) {
		log, exit, artifacts := runAct(t, "")
		assert.Equal(t, exit, 0, log)
		merged(t, log, artifacts)
		assert.Equal(t, f.count(epCreateComment), 1)
		assert.Equal(t, f.count(epEditComment), 1)
	})
	t.Run("a shard that uploads nothing stops the merge with exit 3", func(t *testing.T) {
		log, exit, artifacts := runAct(t, "2")
		assert.Assert(t, exit != 0, "act passed with a shard lost:\n%s", log)
		assert.Check(t, strings.Contains(log, "No files were found with the provided path: shard-2/results.json. No artifacts will be uploaded."), "shard 2 uploaded:\n%s", log)
		shards := shardArtifacts(t, artifacts)
		assert.Check(t, len(shards) == 2 && shards["evalgate-shard-1"] != nil && shards["evalgate-shard-3"] != nil, "artifacts: %v", slices.Collect(maps.Keys(shards)))
		assert.Check(t, strings.Contains(log, "Total of 2 artifact(s) downloaded"), "the merge job did not download two artifacts:\n%s", log)
		assert.Check(t, strings.Contains(log, "shard 2 of 3 is missing"), "the merge did not name the lost shard:\n%s", log)
		assert.Check(t, strings.Contains(log, "exit code 3") || strings.Contains(log, "exitcode '3'") || strings.Contains(log, "exit status 3"), "not exit 3:\n%s", log)
		assert.Equal(t, f.count(epEditComment), 1, "a failed merge published")
	})
}

// TestActHistory runs the action under act as TestActEndToEnd does, with
// a history store: three pushes of the default branch record their runs
// (the agent right, then wrong on store-credit, then right again), and a
// pull request on which both tasks fail reads them: store-credit, which
// flipped twice, is known-flaky, refund-window, which never failed, is
// new, and only the new one fails the gate; the scorecard draws the trend.
func TestActHistory(t *testing.T) {
	act, root, f := actSetup(t)
	standIns := standInActions(t, filepath.Join(root, "action.yml"))
	store := t.TempDir()
	run := func(t *testing.T, event, eventFile, mode string) (*results.Run, string, string) {
		t.Helper()
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		logBytes, _ := actEvent(ctx, act, root, "history.yml", event, eventFile, f, standIns, nil,
			"E2E_OUT="+out, "E2E_HISTORY="+store, "E2E_AGENT_MODE="+mode).CombinedOutput()
		log := string(logBytes)
		assert.Assert(t, !strings.Contains(log, "ghs_e2e_token"), "the token leaked into the log")
		outs := readKeyValues(t, filepath.Join(out, "outputs.txt"))
		r, err := results.Read(outs["results"])
		assert.NilError(t, err, "log:\n%s", log)
		card, err := os.ReadFile(outs["scorecard"])
		assert.NilError(t, err)
		return r, string(card), log
	}
	records := func() int {
		m, err := filepath.Glob(filepath.Join(store, "*.json"))
		assert.NilError(t, err)
		return len(m)
	}
	for i, mode := range []string{"fixed", "broken", "fixed"} {
		r, _, log := run(t, "push", "push.json", mode)
		assert.Equal(t, r.History.Runs, i, "log:\n%s", log)
		assert.Equal(t, records(), i+1, "the push's run is recorded; log:\n%s", log)
	}
	r, card, log := run(t, "pull_request", "event.json", "all-broken")
	assert.Equal(t, records(), 3, "a pull request records nothing; log:\n%s", log)
	assert.Equal(t, r.History.Runs, 3)
	flaky := map[string]string{}
	for _, task := range r.Suites[0].Tasks {
		flaky[task.ID] = task.Flaky
	}
	assert.DeepEqual(t, flaky, map[string]string{"store-credit": results.FlakyKnown, "refund-window": results.FlakyNew})
	assert.Equal(t, r.History.NewFailuresNotFlaky, 1)
	assert.Assert(t, !r.Passed)
	// Scores 1, 0.5, 1, then this run's 0.
	assert.Check(t, is.Contains(card, "| `acme.support.evals.refunds` | ▇▃▇▁ | 0.00–1.00 |"), card)
	assert.Check(t, is.Contains(log, "acme.support.evals.refunds  ▇▃▇▁ score 0.000..1.000, now 0.000"), log)
}

// actSetup is what every act test starts with: it skips unless
// EVALGATE_E2E_ACT=1 and act is on PATH, and gives act's path, the
// repository root and a fake GitHub API that takes the job's token.
func actSetup(t *testing.T) (act, root string, f *fakeGitHub) {
	t.Helper()
	if os.Getenv("EVALGATE_E2E_ACT") != "1" {
		t.Skip("set EVALGATE_E2E_ACT=1 to run the act end-to-end test (scripts/e2e-act.sh)")
	}
	act, err := exec.LookPath("act")
	if err != nil {
		t.Skip("act is not on PATH (go install github.com/nektos/act@v0.2.89)")
	}
	root, err = filepath.Abs("..")
	assert.NilError(t, err)
	f = newFakeGitHub(t, "/api/v3")
	f.token = "ghs_e2e_token"
	return act, root, f
}
