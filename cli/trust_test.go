package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/trust"
)

// TestChaosExample runs examples/chaos through the real example agent: the
// malformed CRM answer and the timed-out call are contained (an
// escalation, a retry that recovers), the run completes, and the trust
// scorecard it writes has the level its evidence allows: TL3, since the
// example has no TL4 sign-off and no history. Then the shards of the same
// run merge into the same scorecard, and a trust.level gate holds in both.
func TestChaosExample(t *testing.T) {
	t.Parallel()
	agent := buildExampleAgent(t) // the config's go run ../agent, built once
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runEvalgate(t, nil, "run", "--config", "../examples/chaos/evalgate.yaml", "--agent-cmd", agent, "--out", out)
	assert.Equal(t, code, ExitPass, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	r := regrReadRun(t, out)

	tasks := map[string]results.Task{}
	for _, task := range r.Suites[0].Tasks {
		tasks[task.ID] = task
		assert.Check(t, task.Status == results.StatusPassed, "%s: %s %s", task.ID, task.Status, task.ErrorMessage)
		assert.Check(t, task.Idempotent != nil && *task.Idempotent, "%s is not idempotent", task.ID)
	}
	assert.DeepEqual(t, tasks["chaos-malformed-crm"].Faults, []string{"raw"})
	assert.DeepEqual(t, tasks["chaos-crm-timeout"].Faults, []string{"timeout"})
	// The timed-out call answered an error after toolTimeoutMs, then the retry recovered.
	crm := tasks["chaos-crm-timeout"].Trials[0].Tools[0]
	assert.Equal(t, crm.Name, "crm:lookup")
	assert.Equal(t, crm.Calls, 2)
	assert.Equal(t, crm.Errors, 1)
	assert.Check(t, tasks["chaos-crm-timeout"].Trials[0].LatencyMs >= 300)
	assert.Equal(t, tasks["chaos-crm-down"].Trials[0].Tools[0].MaxSame, 2)
	assert.Assert(t, r.Health != nil && r.Health.Passed)

	assert.Assert(t, r.Trust != nil)
	assert.Equal(t, r.Trust.Level, 3)
	var sc trust.Scorecard
	data, err := os.ReadFile(filepath.Join(out, "trust.json"))
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(data, &sc))
	assert.Equal(t, sc.Level, 3)
	assert.Equal(t, sc.Score, r.Trust.Score)
	assert.Check(t, is.Contains(strings.Join(sc.Next, "\n"), "a tl4-signoff attestation"))
	for _, f := range []string{"trust-badge.svg", "badge.svg"} {
		_, err := os.Stat(filepath.Join(out, f))
		assert.NilError(t, err)
	}
	assert.Check(t, is.Contains(regrReadFile(t, filepath.Join(out, "scorecard.md")), "#### Trust: TL3 Autonomous"))
	assert.Check(t, is.Contains(stdout, "trust: TL3 Autonomous"))

	// evalgate trust over the written results gives the same scorecard.
	rescored := filepath.Join(t.TempDir(), "again")
	code, stdout, stderr = runEvalgate(t, nil, "trust", out, "--config", "../examples/chaos/evalgate.yaml", "--out", rescored)
	assert.Equal(t, code, ExitPass, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Check(t, is.Contains(stdout, "trust: TL3 Autonomous, "))
	// docs/trust.md shows this very table.
	doc := regrReadFile(t, "../docs/trust.md")
	_, doc, _ = strings.Cut(doc, "and prints a table:\n\n```\n")
	doc, _, _ = strings.Cut(doc, "```\n")
	assert.Equal(t, strings.Replace(stdout, "wrote "+filepath.Join(rescored, "trust.json"), "wrote evalgate-out/chaos/trust.json", 1), doc, "docs/trust.md's table is not what evalgate trust prints")

	// Shards score a part each; merge scores the whole again.
	dir := t.TempDir()
	for _, shard := range []string{"1/2", "2/2"} {
		code, stdout, stderr = runEvalgate(t, nil, "run", "--config", "../examples/chaos/evalgate.yaml", "--agent-cmd", agent, "--shard", shard,
			"--out", filepath.Join(dir, "shard-"+shard[:1]))
		assert.Equal(t, code, ExitPass, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	merged := filepath.Join(dir, "merged")
	code, stdout, stderr = runEvalgate(t, nil, "merge", filepath.Join(dir, "shard-1"), filepath.Join(dir, "shard-2"),
		"--config", "../examples/chaos/evalgate.yaml", "--out", merged, "--gate", "trust.level >= 3")
	assert.Equal(t, code, ExitPass, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	m := regrReadRun(t, merged)
	assert.Equal(t, m.Trust.Level, 3)
	assert.Equal(t, m.Trust.Score, r.Trust.Score)
	assert.Assert(t, m.Health != nil && m.Health.Passed)

	// Against a baseline that was TL4, the same run is a demotion, and the
	// scorecard says so.
	r.Trust.Level, r.Trust.LevelName = 4, "Trusted"
	base := filepath.Join(dir, "base.json")
	assert.NilError(t, results.Write(base, r))
	again := filepath.Join(dir, "again")
	code, stdout, stderr = runEvalgate(t, nil, "merge", filepath.Join(dir, "shard-1"), filepath.Join(dir, "shard-2"),
		"--config", "../examples/chaos/evalgate.yaml", "--out", again, "--baseline", base)
	assert.Equal(t, code, ExitPass, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	d := regrReadRun(t, again)
	assert.Assert(t, d.Trust.Demoted())
	assert.Check(t, is.Contains(regrReadFile(t, filepath.Join(again, "scorecard.md")), "**Demoted** from TL4 Trusted on the baseline to TL3 Autonomous"))
}

// TestTrustGateWithoutScorecard: a gate reading trust.* in a run without a
// trust: block fails and says what to add.
func TestTrustGateWithoutScorecard(t *testing.T) {
	dir := exampleProject(t)
	r := runCLI(t, dir, nil, "run", "--gate", "trust.level >= 1")
	assert.Equal(t, r.code, ExitGateFail, r.stdout)
	assert.Check(t, is.Contains(r.stdout, "no trust scorecard in this run: add a trust: block to evalgate.yaml"))
}

// TestTrustNewcomer: the mistakes a newcomer makes with evalgate trust are
// exit 2 and say what happened and what to do.
func TestTrustNewcomer(t *testing.T) {
	dir := exampleProject(t)
	mustRun(t, dir, "run")
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		want  string
	}{
		{"no results", nil, []string{"trust"}, "trust: expected a results.json, or the folder holding one"},
		{"a missing results file", nil, []string{"trust", "nope/"}, `could not read results "nope/": no such file or directory; name the output folder of a finished run`},
		{"a missing history file", nil, []string{"trust", "evalgate-out/", "--history", "last-week.json"}, `trust history: could not read results "last-week.json": no such file or directory`},
		{"a typo in trust.yaml", map[string]string{".evalgate/trust.yaml": "atestations: []\n"}, []string{"trust", "evalgate-out/"},
			`.evalgate/trust.yaml:1:1: /atestations: unknown key "atestations"; did you mean "attestations"? [trust]`},
		{"a bad date in trust.yaml", map[string]string{".evalgate/trust.yaml": "attestations:\n  - {kind: tl4-signoff, by: ana, date: 02/11/2026, agentVersion: 1.0.0}\n"},
			[]string{"trust", "evalgate-out/"}, `.evalgate/trust.yaml:2:40: /attestations/0/date: expected a date as YYYY-MM-DD, such as 2026-11-02, got "02/11/2026" [trust]`},
		{"a typo in the trust block", map[string]string{"evalgate.yaml": "suites: [evals/]\nagent:\n  exec: [python3, agent.py]\ntrust:\n  maxRepeat: 2\n"},
			[]string{"run"}, `evalgate.yaml:5:3: trust: unknown key "maxRepeat"; did you mean "maxRepeats"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFiles(t, dir, tc.files)
			r := runCLI(t, dir, nil, tc.args...)
			assert.Equal(t, r.code, ExitInvalid, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Check(t, is.Contains(r.stderr, tc.want))
			for name := range tc.files {
				if name != "evalgate.yaml" {
					assert.NilError(t, os.Remove(filepath.Join(dir, name)))
				}
			}
		})
	}
}
