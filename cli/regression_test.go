package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/pipeline"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
)

// regrAgent is a plain agent: it answers "ok" (which every task
// expects) unless its state folder says otherwise. A task listed in
// state/regressed answers "wrong"; the task named in state/flaky answers
// "wrong" on even trials, so it fails trials 2 and 4 of 5, by EVALGATE_TRIAL.
const regrAgent = `#!/bin/sh
cat >/dev/null
if [ -f "$REGR_STATE/regressed" ] && grep -qx "$EVALGATE_TASK_ID" "$REGR_STATE/regressed"; then
	echo wrong; exit 0
fi
if [ -f "$REGR_STATE/flaky" ] && [ "$EVALGATE_TASK_ID" = "$(cat "$REGR_STATE/flaky")" ] && [ $((EVALGATE_TRIAL % 2)) -eq 0 ]; then
	echo wrong; exit 0
fi
echo ok
`

// project is a temp folder with two suites, the agent and evalgate.yaml.
type regrProject struct {
	dir, state, config string
}

func newRegrProject(t *testing.T) *regrProject {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir) // as a user would: the outputs name the suites from here
	p := &regrProject{dir: dir, state: filepath.Join(dir, "state"), config: filepath.Join(dir, "evalgate.yaml")}
	assert.NilError(t, os.MkdirAll(p.state, 0o755))
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "evals"), 0o755))
	suite := func(id string, tasks ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "{\n  \"suiteId\": %q,\n  \"version\": \"1.0.0\",\n  \"modes\": [\"golden\"],\n  \"thresholds\": {\"passScore\": 0.5},\n  \"tasks\": [\n", id)
		for i, task := range tasks {
			sep := ","
			if i == len(tasks)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "    {\"taskId\": %q, \"input\": %q, \"expected\": {\"kind\": \"golden\", \"match\": {\"strategy\": \"exact\", \"value\": \"ok\"}}}%s\n", task, task, sep)
		}
		b.WriteString("  ]\n}\n")
		return b.String()
	}
	write := func(rel, data string) {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, rel), []byte(data), 0o755))
	}
	write("evals/billing.json", suite("acme.test.evals.billing", "invoice", "late-fee", "refund", "credit", "dispute", "tax"))
	write("evals/support.json", suite("acme.test.evals.support", "greet", "lookup", "escalate", "close"))
	write("agent.sh", regrAgent)
	write("evalgate.yaml", fmt.Sprintf("suites: [evals/]\nagent:\n  plain: [sh, agent.sh]\n  env: {REGR_STATE: %q}\nconcurrency: 4\ntimeout: 30s\n", p.state))
	return p
}

// set writes a state file of the agent; an empty value removes it.
func (p *regrProject) set(t *testing.T, name, value string) {
	t.Helper()
	path := filepath.Join(p.state, name)
	if value == "" {
		assert.NilError(t, os.RemoveAll(path))
		return
	}
	assert.NilError(t, os.WriteFile(path, []byte(value), 0o644))
}

// evalgate runs the command line with buffers and no CI environment.
func runEvalgate(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := &Command{
		Stdout:     &out,
		Stderr:     &errOut,
		Getenv:     func(k string) string { return env[k] },
		IsTerminal: func() bool { return false },
	}
	code = c.Main(append([]string{"evalgate"}, args...))
	return code, out.String(), errOut.String()
}

func regrReadRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	r, err := results.Read(filepath.Join(dir, "results.json"))
	assert.NilError(t, err)
	return r
}

func regrReadFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	return string(data)
}

// validResults checks results.json against its published schema.
func regrValidResults(t *testing.T, dir string) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(results.SchemaJSON()))
	assert.NilError(t, err)
	c := jsonschema.NewCompiler()
	assert.NilError(t, c.AddResource("results.schema.json", doc))
	sch, err := c.Compile("results.schema.json")
	assert.NilError(t, err)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(regrReadFile(t, filepath.Join(dir, "results.json"))))
	assert.NilError(t, err)
	assert.NilError(t, sch.Validate(inst))
}

// events reads events.ndjson.
func regrEvents(t *testing.T, dir string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "events.ndjson"))
	assert.NilError(t, err)
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev map[string]any
		assert.NilError(t, json.Unmarshal(sc.Bytes(), &ev))
		out = append(out, ev)
	}
	return out
}

// TestRegressionGating is the first "done when": a good run is
// promoted to baseline, the agent regresses on two tasks, and the scorecard,
// diff, scoreDelta and gates all say so.
func TestRegressionGating(t *testing.T) {
	p := newRegrProject(t)
	good := filepath.Join(p.dir, "good")
	code, _, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", good)
	assert.Equal(t, code, 0, stderr)
	baseline := filepath.Join(p.dir, ".evalgate", "baseline.json")
	code, stdout, stderr := runEvalgate(t, nil, "baseline", "promote", good, "--out", baseline)
	assert.Equal(t, code, 0, stderr)
	assert.Check(t, is.Contains(stdout, "2 suites, 10 tasks"))

	p.set(t, "regressed", "late-fee\nescalate\n")
	type testCase struct {
		name     string
		gate     string
		baseline string
		wantCode int
	}
	run := func(t *testing.T, tc testCase) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", out, "--baseline", tc.baseline, "--gate", tc.gate)
		assert.Equal(t, code, tc.wantCode, stdout+stderr)
		regrValidResults(t, out)

		r := regrReadRun(t, out)
		reg := r.Regression
		assert.Assert(t, reg != nil)
		assert.Equal(t, reg.NewFailures, 2)
		assert.Equal(t, reg.Fixed, 0)
		assert.Equal(t, reg.ScoreDelta, -2.0/10, "two of ten tasks lost their full point")
		assert.Equal(t, reg.PValue, 0.5, "McNemar with b=2, c=0")
		assert.Assert(t, reg.CILow < 0 && reg.CIHigh <= 0 && reg.CILow <= reg.ScoreDelta)
		var failing []string
		for _, d := range reg.Tasks {
			assert.Equal(t, d.Change, results.ChangeNewFailure)
			failing = append(failing, d.SuiteID+"/"+d.TaskID)
		}
		assert.DeepEqual(t, failing, []string{"acme.test.evals.billing/late-fee", "acme.test.evals.support/escalate"})
		billing := r.Suites[0]
		assert.Equal(t, billing.ID, "acme.test.evals.billing")
		assert.Equal(t, billing.Regression.ScoreDelta, -1.0/6)
		assert.Equal(t, billing.Regression.NewFailures, 1)

		card := regrReadFile(t, filepath.Join(out, "scorecard.md"))
		assert.Check(t, strings.HasPrefix(card, "### "+map[bool]string{true: "✅ evalgate: PASS", false: "❌ evalgate: FAIL"}[tc.wantCode == 0]))
		assert.Check(t, is.Contains(card, "#### Newly failing (2)"))
		assert.Check(t, is.Contains(card, "`acme.test.evals.billing` / `late-fee`"))
		assert.Check(t, is.Contains(card, "`acme.test.evals.support` / `escalate`"))
		assert.Check(t, is.Contains(card, "billing.json#L"), "a link to the task's line")
		assert.Check(t, is.Contains(card, "`match (mismatch)`"), "which check failed")
		assert.Check(t, !strings.Contains(card, "wrong"), "the scorecard carries no output")

		// eval.started names the baseline run and each summary has its block.
		base := regrReadRun(t, good)
		for _, ev := range regrEvents(t, out) {
			if ev["type"] == report.EventStarted {
				payload := ev["payload"].(map[string]any)
				assert.Check(t, payload["baselineRunId"] != nil && payload["baselineRunId"] != "", "eval.started without baselineRunId")
			}
		}
		sum := regrReadFile(t, filepath.Join(out, "summaries", "acme.test.evals.billing.json"))
		assert.Check(t, is.Contains(sum, `"baselineRunId": "`+base.Suites[0].RunID+`"`))

		// diff names the same two tasks, in both forms.
		code, diff, stderr := runEvalgate(t, nil, "diff", good, out)
		assert.Equal(t, code, 0, stderr)
		assert.Check(t, strings.HasPrefix(diff, "REGRESSED"))
		assert.Check(t, is.Contains(diff, "newly failing (2)"))
		assert.Check(t, is.Contains(diff, "late-fee"))
		assert.Check(t, is.Contains(diff, "escalate"))
		assert.Check(t, !strings.Contains(diff, "\x1b["), "no colour off a terminal")
		code, md, stderr := runEvalgate(t, nil, "diff", "--format", "md", baseline, out)
		assert.Equal(t, code, 0, stderr)
		assert.Check(t, is.Contains(md, "#### Newly failing (2)"))
		assert.Check(t, is.Contains(md, "`late-fee`"))
		assert.Check(t, is.Contains(md, "`escalate`"))
	}
	for _, tc := range []testCase{
		{name: "no new failures allowed", gate: "regression.newFailures == 0", baseline: baseline, wantCode: 1},
		{name: "significance gate", gate: "regression.newFailures == 0 || regression.pValue > 0.05", baseline: baseline, wantCode: 0},
		{name: "score may fall a little", gate: "regression.scoreDelta >= -0.25", baseline: baseline, wantCode: 0},
		{name: "score may not fall", gate: "regression.scoreDelta >= 0", baseline: baseline, wantCode: 1},
		{name: "per-suite gate", gate: `suites["acme.test.evals.support"].regression.newFailures == 0`, baseline: baseline, wantCode: 1},
		{name: "results folder as baseline", gate: "regression.newFailures <= 2", baseline: good, wantCode: 0},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestShardsMergeToTheWholeRun is the second "done when": two shards merged
// equal the whole run.
func TestShardsMergeToTheWholeRun(t *testing.T) {
	p := newRegrProject(t)
	p.set(t, "regressed", "refund\ngreet\nclose\n")
	gate := "passRate >= 0.8"
	whole := filepath.Join(p.dir, "whole")
	wholeCode, _, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", whole, "--gate", gate)
	assert.Equal(t, wholeCode, 1, stderr)

	var shardDirs []string
	counts := 0
	for i := 1; i <= 2; i++ {
		dir := filepath.Join(p.dir, fmt.Sprintf("shard-%d", i))
		code, stdout, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", dir, "--shard", fmt.Sprintf("%d/2", i), "--gate", "taskCount > 0")
		assert.Equal(t, code, 0, stdout+stderr)
		counts += regrReadRun(t, dir).TaskCount
		shardDirs = append(shardDirs, dir)
	}
	assert.Equal(t, counts, 10, "the shards split the tasks")

	merged := filepath.Join(p.dir, "merged")
	code, stdout, stderr := runEvalgate(t, nil, append([]string{"merge", "--config", p.config, "--out", merged, "--gate", gate}, shardDirs...)...)
	assert.Equal(t, code, wholeCode, stdout+stderr)
	assert.Check(t, is.Contains(stdout, "evalgate: FAIL"))
	regrValidResults(t, merged)

	w, m := regrReadRun(t, whole), regrReadRun(t, merged)
	assert.Equal(t, m.Passed, w.Passed)
	assert.Equal(t, m.Shard, (*results.Shard)(nil))
	shape := func(r *results.Run) []string {
		var out []string
		for _, s := range r.Suites {
			out = append(out, fmt.Sprintf("%s passed=%t agg=%.6f %d/%d", s.ID, s.Passed, s.AggregateScore, s.PassedCount, s.TaskCount))
			for _, task := range s.Tasks {
				out = append(out, fmt.Sprintf("  %s:%d %s %.3f", task.ID, task.Line, task.Status, task.Score))
			}
		}
		return out
	}
	assert.DeepEqual(t, shape(m), shape(w))
	assert.Equal(t, m.TaskCount, w.TaskCount)
	assert.Equal(t, m.PassedCount, w.PassedCount)
	assert.Equal(t, m.AggregateScore, w.AggregateScore)
	assert.DeepEqual(t, m.Gates[0].Values, w.Gates[0].Values)
	for _, name := range []string{"scorecard.md", "junit.xml", "findings.sarif", "badge.svg", "summaries/acme.test.evals.billing.json", "summaries/acme.test.evals.support.json"} {
		_, err := os.Stat(filepath.Join(merged, name))
		assert.Check(t, err, "merge did not write %s", name)
	}
	var scored, started int
	for _, ev := range regrEvents(t, merged) {
		switch ev["type"] {
		case report.EventScored:
			scored++
		case report.EventStarted:
			started++
		}
	}
	assert.Equal(t, scored, 10)
	assert.Equal(t, started, 2)

	// The merged run records each shard's wall time; hashed shards have no plan.
	assert.Equal(t, len(m.Shards), 2)
	for i, sh := range m.Shards {
		assert.Check(t, sh.Index == i+1 && sh.PlannedMs == 0, "%+v", sh)
	}
	assert.Check(t, is.Contains(regrReadFile(t, filepath.Join(merged, "scorecard.md")), "Merged from 2 shards (tasks assigned by hash): wall time "))

	// Balanced by the whole run's latencies: every shard computes the
	// same assignment alone, so together they run every task once.
	var balanced []string
	counts = 0
	for i := 1; i <= 2; i++ {
		dir := filepath.Join(p.dir, fmt.Sprintf("balanced-%d", i))
		code, stdout, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", dir, "--shard", fmt.Sprintf("%d/2", i), "--balance", whole, "--gate", "taskCount >= 0")
		assert.Equal(t, code, 0, stdout+stderr)
		r := regrReadRun(t, dir)
		assert.Check(t, r.Shard != nil && r.Shard.Balanced, "shard %d: %+v", i, r.Shard)
		counts += r.TaskCount
		balanced = append(balanced, dir)
	}
	assert.Equal(t, counts, 10, "the balanced shards split the tasks")
	mergedBalanced := filepath.Join(p.dir, "merged-balanced")
	code, stdout, stderr = runEvalgate(t, nil, append([]string{"merge", "--config", p.config, "--out", mergedBalanced, "--gate", gate}, balanced...)...)
	assert.Equal(t, code, wholeCode, stdout+stderr)
	assert.DeepEqual(t, shape(regrReadRun(t, mergedBalanced)), shape(w))
	assert.Check(t, is.Contains(regrReadFile(t, filepath.Join(mergedBalanced, "scorecard.md")), "Merged from 2 shards (balanced by past latency)"))

	// A shard the hash gives no task runs none, and says so: more shards
	// than tasks must not fail a matrix job.
	used := map[int]bool{}
	for _, s := range w.Suites {
		for _, task := range s.Tasks {
			used[pipeline.ShardOf(s.ID, task.ID, 64)] = true
		}
	}
	idle := 1
	for used[idle] {
		idle++
	}
	idleDir := filepath.Join(p.dir, "idle")
	code, _, stderr = runEvalgate(t, nil, "run", "--config", p.config, "--out", idleDir, "--shard", fmt.Sprintf("%d/64", idle), "--gate", "true")
	assert.Equal(t, code, 0, stderr)
	assert.Check(t, is.Contains(stderr, fmt.Sprintf("shard %d of 64 has no task", idle)))
	assert.Equal(t, regrReadRun(t, idleDir).TaskCount, 0)

	// Without a past latency for any task the shards keep the hash, and say so.
	empty := filepath.Join(p.dir, "empty.json")
	assert.NilError(t, os.WriteFile(empty, []byte(`{"$schema":"`+results.Schema+`","runId":"r","tool":{"name":"evalgate","version":"0"},"startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:00Z","passed":true,"gates":[],"suites":[]}`), 0o644))
	code, _, stderr = runEvalgate(t, nil, "run", "--config", p.config, "--out", filepath.Join(p.dir, "hashed"), "--shard", "1/2", "--balance", empty, "--gate", "taskCount >= 0")
	assert.Equal(t, code, 0, stderr)
	assert.Check(t, is.Contains(stderr, "no task of this run has a past latency there; its shards are assigned by hash"))
	ids := func(r *results.Run) []string {
		var out []string
		for _, s := range r.Suites {
			for _, task := range s.Tasks {
				out = append(out, s.ID+"/"+task.ID)
			}
		}
		return out
	}
	fallback := regrReadRun(t, filepath.Join(p.dir, "hashed"))
	assert.DeepEqual(t, ids(fallback), ids(regrReadRun(t, shardDirs[0])))
	assert.Check(t, !fallback.Shard.Balanced)

	type testCase struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}
	fail := func(t *testing.T, tc testCase) {
		code, _, stderr := runEvalgate(t, nil, append([]string{"merge", "--out", filepath.Join(t.TempDir(), "m")}, tc.args...)...)
		assert.Equal(t, code, tc.wantCode, stderr)
		assert.Check(t, is.Contains(stderr, tc.wantErr))
	}
	for _, tc := range []testCase{
		{name: "overlapping shards", args: []string{shardDirs[0], shardDirs[0]}, wantCode: 3, wantErr: "the shards overlap"},
		{name: "the whole run and a shard", args: []string{whole, shardDirs[1]}, wantCode: 3, wantErr: "the shards overlap"},
		{name: "a missing shard", args: []string{shardDirs[1]}, wantCode: 3, wantErr: "shard 1 of 2 is missing"},
		{name: "no results", args: nil, wantCode: 2, wantErr: "expected the results of every shard"},
		{name: "unreadable results", args: []string{filepath.Join(p.dir, "nope")}, wantCode: 2, wantErr: "could not read results"},
	} {
		t.Run(tc.name, func(t *testing.T) { fail(t, tc) })
	}
}

// TestFlakyTrials is the third "done when": with five trials a task that
// fails trials 2 and 4 has pass@k but not pass^k, and the significance
// figure keeps that one flaky task from failing a significance-gated build.
func TestFlakyTrials(t *testing.T) {
	p := newRegrProject(t)
	stable := filepath.Join(p.dir, "stable")
	code, _, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", stable, "--trials", "5")
	assert.Equal(t, code, 0, stderr)
	baseline := filepath.Join(p.dir, "baseline.json")
	code, _, stderr = runEvalgate(t, nil, "baseline", "promote", "--out", baseline, stable)
	assert.Equal(t, code, 0, stderr)
	assert.Check(t, is.Contains(regrReadFile(t, baseline), `"trials":[{"trial":1,"score":1,"passed":true},{"trial":2`))

	p.set(t, "flaky", "lookup")
	type testCase struct {
		name     string
		gate     string
		wantCode int
	}
	run := func(t *testing.T, tc testCase) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", out, "--trials", "5", "--baseline", baseline, "--gate", tc.gate)
		assert.Equal(t, code, tc.wantCode, stdout+stderr)
		r := regrReadRun(t, out)
		var lookup *results.Task
		for i := range r.Suites[1].Tasks {
			if r.Suites[1].Tasks[i].ID == "lookup" {
				lookup = &r.Suites[1].Tasks[i]
			}
		}
		assert.Assert(t, lookup != nil)
		assert.Equal(t, len(lookup.Trials), 5)
		var trialPassed []bool
		for _, tr := range lookup.Trials {
			trialPassed = append(trialPassed, tr.Passed)
		}
		assert.DeepEqual(t, trialPassed, []bool{true, false, true, false, true})
		assert.Equal(t, lookup.TrialsPassed, 3)
		assert.Equal(t, lookup.Passed, false, "pass^k: not every trial passed")
		assert.Equal(t, lookup.PassAtK, true, "pass@k: some trial passed")
		assert.Equal(t, lookup.Score, 0.6)
		assert.Equal(t, lookup.Status, results.StatusFailed)

		reg := r.Regression
		assert.Equal(t, reg.NewFailures, 1)
		assert.Equal(t, reg.PValue, 1.0, "one flip is no evidence")
		assert.Equal(t, reg.ScoreDelta, -0.4/10)
		assert.Assert(t, reg.CILow < 0 && reg.CIHigh == 0, "[%v, %v]", reg.CILow, reg.CIHigh)
	}
	for _, tc := range []testCase{
		{name: "strict gate fails on the flaky task", gate: "regression.newFailures == 0", wantCode: 1},
		{name: "significance gate holds", gate: "regression.newFailures == 0 || regression.pValue > 0.05", wantCode: 0},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestBaselineSpecs covers how a baseline is found, and what happens when
// it is not.
func TestBaselineSpecs(t *testing.T) {
	p := newRegrProject(t)
	good := filepath.Join(p.dir, "good")
	code, _, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", good)
	assert.Equal(t, code, 0, stderr)
	// A hand-edited baseline whose score is out of range: it once made the
	// run's figures infinite and results.json unwritable, exit 3.
	data, err := os.ReadFile(filepath.Join(good, "results.json"))
	assert.NilError(t, err)
	edited := filepath.Join(p.dir, "edited.json")
	assert.NilError(t, os.WriteFile(edited, bytes.Replace(data, []byte(`"score": 1,`), []byte(`"score": 1e308,`), 1), 0o644))

	type testCase struct {
		name       string
		baseline   string
		fetch      func(ctx context.Context, name string) (string, bool, error)
		wantCode   int
		wantStderr string
		wantReg    bool
	}
	run := func(t *testing.T, tc testCase) {
		defer func(prev func(context.Context, string) (string, bool, error)) { pipeline.FetchArtifact = prev }(pipeline.FetchArtifact)
		pipeline.FetchArtifact = tc.fetch
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", out, "--baseline", tc.baseline)
		assert.Equal(t, code, tc.wantCode, stdout+stderr)
		assert.Check(t, is.Contains(stderr, tc.wantStderr))
		if tc.wantCode == 2 || tc.wantCode == 3 {
			_, err := os.Stat(out)
			assert.Check(t, os.IsNotExist(err), "nothing runs after a bad baseline")
			return
		}
		assert.Equal(t, regrReadRun(t, out).Regression != nil, tc.wantReg)
	}
	for _, tc := range []testCase{
		{name: "missing file", baseline: filepath.Join(p.dir, "nope.json"), wantCode: 2, wantStderr: "no such file or directory"},
		{name: "artifact outside the Action", baseline: "github-artifact:evalgate-baseline", wantCode: 2,
			wantStderr: "github-artifact baselines need the GitHub Action (GITHUB_ACTIONS=true)"},
		{name: "artifact not there yet", baseline: "github-artifact:evalgate-baseline",
			fetch:      func(context.Context, string) (string, bool, error) { return "", false, nil },
			wantStderr: "no baseline yet"},
		{name: "artifact fetched", baseline: "github-artifact:evalgate-baseline",
			fetch: func(_ context.Context, name string) (string, bool, error) {
				if name != "evalgate-baseline" {
					return "", false, fmt.Errorf("unexpected artifact %q", name)
				}
				return filepath.Join(good, "results.json"), true, nil
			},
			wantReg: true},
		{name: "artifact API down", baseline: "github-artifact:evalgate-baseline",
			fetch:    func(context.Context, string) (string, bool, error) { return "", false, fmt.Errorf("502 bad gateway") },
			wantCode: 3, wantStderr: "502 bad gateway"},
		{name: "a number out of range", baseline: edited, wantCode: 2,
			wantStderr: `could not read baseline "` + edited + `": /suites/0/tasks/0/score: expected a number from 0 to 1, got 1e+308`},
		{name: "summaries folder", baseline: good + "/summaries", wantReg: true},
		{name: "results folder", baseline: good, wantReg: true},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestBaselineInConfigUnreadable checks that a baseline evalgate.yaml
// names and that cannot be read is reported at its line there, with what
// to do, and exit 2 before anything runs.
func TestBaselineInConfigUnreadable(t *testing.T) {
	p := newRegrProject(t)
	cfg, err := os.ReadFile(p.config)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(filepath.Join(p.dir, "notresults.json"), []byte(`{"hello": "world"}`), 0o644))
	line := bytes.Count(cfg, []byte("\n")) + 1

	type testCase struct {
		name     string
		baseline string
		flag     string
		want     string
	}
	run := func(t *testing.T, tc testCase) {
		assert.NilError(t, os.WriteFile(p.config, append(slices.Clone(cfg), "baseline: "+tc.baseline+"\n"...), 0o644))
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"run", "--config", "evalgate.yaml", "--out", out}
		if tc.flag != "" {
			args = append(args, "--baseline", tc.flag)
		}
		code, stdout, stderr := runEvalgate(t, nil, args...)
		assert.Equal(t, code, 2, stdout+stderr)
		assert.Check(t, is.Contains(stderr, tc.want))
		_, err := os.Stat(out)
		assert.Check(t, os.IsNotExist(err), "nothing runs after a bad baseline")
	}
	at := fmt.Sprintf("evalgate: evalgate.yaml:%d:11: baseline: ", line)
	promote := "; fix the path, or run `evalgate baseline promote` to write one from a run's results"
	for _, tc := range []testCase{
		{name: "the promoted file not there yet", baseline: ".evalgate/baseline.json",
			want: at + `could not read baseline ".evalgate/baseline.json": no such file or directory` + promote},
		{name: "not a results file", baseline: "notresults.json",
			want: at + `could not read baseline "notresults.json": neither a results file`},
		{name: "a git ref outside a repository", baseline: "git:main:.evalgate/baseline.json",
			want: at + `could not read baseline "git:main:.evalgate/baseline.json": git show: `},
		{name: "the flag's own spec has no line", baseline: "git:main:x.json", flag: "nope.json",
			want: "evalgate: could not read baseline \"nope.json\": no such file or directory" + promote},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestReportCommand(t *testing.T) {
	p := newRegrProject(t)
	out := filepath.Join(p.dir, "out")
	code, _, stderr := runEvalgate(t, nil, "run", "--config", p.config, "--out", out)
	assert.Equal(t, code, 0, stderr)

	type testCase struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}
	run := func(t *testing.T, tc testCase) {
		code, stdout, stderr := runEvalgate(t, nil, append([]string{"report"}, tc.args...)...)
		assert.Equal(t, code, tc.wantCode, stderr)
		assert.Check(t, is.Contains(stdout, tc.wantOut))
		assert.Check(t, is.Contains(stderr, tc.wantErr))
	}
	for _, tc := range []testCase{
		{name: "md is the scorecard", args: []string{"--format", "md", out}, wantOut: regrReadFile(t, filepath.Join(out, "scorecard.md"))},
		{name: "md by default", args: []string{out}, wantOut: "### ✅ evalgate: PASS"},
		{name: "junit", args: []string{out, "--format", "junit"}, wantOut: regrReadFile(t, filepath.Join(out, "junit.xml"))},
		{name: "sarif", args: []string{"--format", "sarif", filepath.Join(out, "results.json")}, wantOut: `"version": "2.1.0"`},
		{name: "badge", args: []string{"--format", "badge", out}, wantOut: "<svg"},
		{name: "html", args: []string{"--format", "html", out}, wantOut: "<!DOCTYPE html>"},
		{name: "unknown format", args: []string{"--format", "pdf", out}, wantCode: 2, wantErr: "expected md, junit, sarif, badge or html"},
		{name: "no results", args: []string{"--format", "md"}, wantCode: 2, wantErr: "expected one results.json"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}

	// In GitHub Actions the links point at the commit on GitHub.
	env := map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/agent", "GITHUB_SHA": "0123abc"}
	p.set(t, "regressed", "tax")
	code, _, _ = runEvalgate(t, env, "run", "--config", p.config, "--out", out, "--gate", "passRate == 1")
	assert.Equal(t, code, 1)
	r := regrReadRun(t, out)
	card := regrReadFile(t, filepath.Join(out, "scorecard.md"))
	assert.Equal(t, r.GitSHA, "0123abc")
	assert.Check(t, is.Contains(card, "(https://github.com/acme/agent/blob/0123abc/evals/billing.json#L12)"))
}
