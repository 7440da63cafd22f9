package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/waittest"
)

// hostileCanary is a credential in evalgate's environment that must not
// come out anywhere: printed, in an output file, or in a transcript.
const hostileCanary = "ghs_HOSTILE0canary0token0value"

// hostileCase is one entry of the hostile corpus (testdata/hostile): a
// project that tries to get past evalgate, and what must hold after.
type hostileCase struct {
	name   string
	agent  string            // agents/<agent>, run as a plain agent; "" for setup to say
	exec   bool              // the agent speaks evalgate/1 rather than plain
	suite  string            // suites/<suite>; "" for setup to write evals/
	config string            // more lines of evalgate.yaml
	args   []string          // after `evalgate run`
	cmd    []string          // the command, when not `run --no-color`: ["merge", "--no-color"]
	env    map[string]string // more environment
	setup  func(t *testing.T, dir string)

	wantExit   int
	wantStderr []string // substrings
	outputs    bool     // results.json is written
	// check runs after the standard checks, with the case's folder.
	check func(t *testing.T, dir string, r hostileResult)
}

type hostileResult struct {
	code           int
	stdout, stderr string
	// elapsed is how long the run took: for messages only. Whether a run
	// waited on something it should not have is shown by a wait that
	// outlasts the test's deadline (see docs/testing.md).
	elapsed   time.Duration
	maxRSSKiB int64
}

// Every case must end within this memory, far above what a run of a few
// tasks takes (20-40 MiB), and before the test's deadline.
const hostileMaxRSSKiB = 400 << 10

// TestHostile runs the hostile corpus through the built binary.
func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds evalgate and runs the hostile corpus")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid is not on PATH")
	}
	bin := buildEvalgate(t)
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) { runHostile(t, bin, tc) })
	}
}

func hostileCases() []hostileCase {
	return slices.Concat([]hostileCase{
		{
			name: "an agent that floods its output", agent: "flood.sh", suite: "plain.yaml",
			wantExit: 1, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				assert.Check(t, is.Contains(readOut(t, dir, "results.json"), `"errorKind": "output-too-large"`))
			},
		},
		{
			// The daemon sleeps for an hour: the run ends only without it.
			name: "an agent that leaves a setsid daemon holding its stdout", agent: "orphan.sh", suite: "plain.yaml",
			wantExit: 0, outputs: true,
		},
		{
			name: "an agent that ignores SIGTERM and never answers", agent: "deaf.sh", suite: "plain.yaml",
			args:     []string{"--timeout", "2s"},
			wantExit: 1, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				assert.Check(t, is.Contains(readOut(t, dir, "results.json"), `"errorKind": "timeout"`))
			},
		},
		{
			name: "an agent whose output nests 9,990 levels deep", agent: "deep.sh", exec: true, suite: "plain.yaml",
			args:     []string{"--transcripts"},
			wantExit: 1, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				assert.Check(t, is.Contains(readOut(t, dir, "results.json"), `"errorKind": "protocol"`))
				assert.Check(t, is.Contains(readOut(t, dir, "results.json"), "nested deeper than 256 levels"))
			},
		},
		{
			name: "usage numbers that add up to infinity, or below zero", agent: "numbers.sh", exec: true, suite: "numbers.yaml",
			wantExit: 1, outputs: true,
			check: func(t *testing.T, dir string, r hostileResult) {
				res := readOut(t, dir, "results.json")
				assert.Check(t, strings.Count(res, `"errorKind": "protocol"`) >= 2, res)
				assert.Check(t, is.Contains(res, `"passedCount": 1`))
				assert.Check(t, !strings.Contains(res, `"totalCostUsd": -`), "a negative cost reached the totals")
			},
		},
		{
			name: "an agent that forges workflow commands and terminal escapes", agent: "forger.sh", exec: true, suite: "plain.yaml",
			env:      map[string]string{"GITHUB_ACTIONS": "true"},
			args:     []string{"--no-publish", "--transcripts"},
			wantExit: 1, outputs: true,
		},
		{
			name: "a suite whose text holds markup, control characters and workflow commands", agent: "sleepy.sh", suite: "markup.yaml",
			env:      map[string]string{"GITHUB_ACTIONS": "true", "HOSTILE_SLEEP": "0"},
			args:     []string{"--no-publish"},
			wantExit: 1, outputs: true,
		},
		{
			name: "an agent that reads every environment it can", agent: "snoop.sh", suite: "exact.yaml",
			args:     []string{"--transcripts"},
			wantExit: 1, outputs: true,
		},
		{
			name: "an agent that appends to the runner's file commands", agent: "runnerfiles.sh", suite: "plain.yaml",
			args: []string{"--no-publish"},
			setup: func(t *testing.T, dir string) {
				runner := filepath.Join(dir, "runner")
				assert.NilError(t, os.Mkdir(runner, 0o755))
				for _, f := range []string{"set_env", "set_output", "add_path", "step_summary", "save_state"} {
					assert.NilError(t, os.WriteFile(filepath.Join(runner, f), []byte("EARLIER=1\n"), 0o644))
				}
			},
			env: map[string]string{
				"GITHUB_ACTIONS": "true", "HOSTILE_RUNNER_DIR": "runner",
				"GITHUB_ENV": "runner/set_env", "GITHUB_OUTPUT": "runner/set_output", "GITHUB_PATH": "runner/add_path",
				"GITHUB_STEP_SUMMARY": "runner/step_summary", "GITHUB_STATE": "runner/save_state",
			},
			wantExit: 3, outputs: true,
			wantStderr: []string{"$GITHUB_ENV, $GITHUB_OUTPUT, $GITHUB_PATH, $GITHUB_STEP_SUMMARY, $GITHUB_STATE changed while the agents ran"},
			check: func(t *testing.T, dir string, r hostileResult) {
				for _, f := range []string{"set_env", "set_output", "add_path", "step_summary", "save_state"} {
					data, err := os.ReadFile(filepath.Join(dir, "runner", f))
					assert.NilError(t, err)
					assert.Check(t, is.Equal(string(data), "EARLIER=1\n"), f)
				}
			},
		},
		{
			name: "a YAML alias bomb", agent: "sleepy.sh", wantExit: 2,
			setup:      func(t *testing.T, dir string) { writeEvals(t, dir, "bomb.yaml", aliasBomb()) },
			wantStderr: []string{"bomb.yaml"},
		},
		{
			name: "an expression nested 300,000 levels deep", agent: "sleepy.sh", wantExit: 2,
			setup: func(t *testing.T, dir string) {
				expr := strings.Repeat("(", 300_000) + "true" + strings.Repeat(")", 300_000)
				writeEvals(t, dir, "deep.json", fmt.Sprintf(`{"suiteId":"hostile.evals.deep","version":"1.0.0","modes":["golden"],"tasks":[{"taskId":"t","input":"x","expected":{"kind":"golden","assert":[{"expr":%q}]}}]}`, expr))
			},
			wantStderr: []string{"deep.json"},
		},
		{
			name: "an 11 KB regular expression", agent: "sleepy.sh", wantExit: 2,
			setup: func(t *testing.T, dir string) {
				re := strings.Repeat("(a|aa)*", 1600) + "$"
				writeEvals(t, dir, "regex.yaml", fmt.Sprintf("suiteId: hostile.evals.regex\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: t\n    input: x\n    expected: {kind: golden, match: {strategy: regex, value: %q}}\n", re))
			},
			wantStderr: []string{"regex.yaml"},
		},
		{
			name: "a suite that is a link to /dev/zero", agent: "sleepy.sh", wantExit: 2,
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.MkdirAll(filepath.Join(dir, "evals"), 0o755))
				assert.NilError(t, os.Symlink("/dev/zero", filepath.Join(dir, "evals", "zero.yaml")))
			},
			wantStderr: []string{"zero.yaml"},
		},
		{
			name: "a baseline whose score is 1e308", agent: "sleepy.sh", suite: "plain.yaml",
			env: map[string]string{"HOSTILE_SLEEP": "0"},
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.WriteFile(filepath.Join(dir, "baseline.json"), []byte(`{"$schema":"https://evalgate.dev/schemas/results/v1.json","runId":"b","suites":[{"suiteId":"hostile.evals.plain","tasks":[{"taskId":"answer","status":"passed","score":1e308}]}]}`), 0o644))
			},
			args:       []string{"--baseline", "baseline.json"},
			wantExit:   2,
			wantStderr: []string{"baseline.json"},
		},
		{
			name: "a baseline that is a link to /dev/zero", agent: "sleepy.sh", suite: "plain.yaml",
			env: map[string]string{"HOSTILE_SLEEP": "0"},
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.Symlink("/dev/zero", filepath.Join(dir, "baseline.json")))
			},
			args:       []string{"--baseline", "baseline.json"},
			wantExit:   2,
			wantStderr: []string{"not a regular file"},
		},
		{
			// The agent sleeps for an hour: the run ends only by the signal.
			name: "SIGINT in the middle of a run", agent: "sleepy.sh", suite: "plain.yaml",
			env:      map[string]string{"HOSTILE_SLEEP": "3600"},
			wantExit: 130, outputs: true,
		},
	},
		hostileInputCases(),
		hostileExecCases(),
		hostileMcpCases(),
		hostileOtelCases(),
		hostileProcCases(),
		hostileFrontCases(),
		hostilePfCases(),
	)
}

// runHostile runs one case in a copy of the corpus.
func runHostile(t *testing.T, bin string, tc hostileCase) {
	dir := t.TempDir()
	corpus, err := filepath.Abs(filepath.Join("testdata", "hostile"))
	assert.NilError(t, err)
	agentKind := "plain"
	if tc.exec {
		agentKind = "exec"
	}
	config := fmt.Sprintf("suites: [evals/]\nagent:\n  %s: [/bin/sh, %s]\n%s", agentKind, filepath.Join(corpus, "agents", tc.agent), tc.config)
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "evalgate.yaml"), []byte(config), 0o644))
	if tc.suite != "" {
		data, err := os.ReadFile(filepath.Join(corpus, "suites", tc.suite))
		assert.NilError(t, err)
		writeEvals(t, dir, tc.suite, string(data))
	}
	if tc.setup != nil {
		tc.setup(t, dir)
	}
	pids := filepath.Join(dir, "pids")

	ctx := waittest.Context(t)
	command := []string{"run", "--no-color"}
	if tc.cmd != nil {
		command = tc.cmd
	}
	cmd := exec.CommandContext(ctx, bin, append(command, tc.args...)...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "GITHUB_TOKEN="+hostileCanary, "HOSTILE_PIDS="+pids)
	for k, v := range tc.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	assert.NilError(t, cmd.Start())
	if tc.wantExit == 130 {
		waitForFile(t, pids)
		assert.NilError(t, cmd.Process.Signal(syscall.SIGINT))
	}
	err = cmd.Wait()
	r := hostileResult{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	assert.Assert(t, ctx.Err() == nil, "the run had not ended after %s, by the test's deadline\nstderr:\n%s", r.elapsed, r.stderr)
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		r.code = ee.ExitCode()
	} else {
		assert.NilError(t, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSSKiB = ru.Maxrss
	}

	assert.Equal(t, r.code, tc.wantExit, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	for _, want := range tc.wantStderr {
		assert.Check(t, is.Contains(r.stderr, want))
	}
	assert.Check(t, r.maxRSSKiB < hostileMaxRSSKiB, "peak RSS %d KiB", r.maxRSSKiB)
	_, err = os.Stat(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.Check(t, err == nil == tc.outputs, "results.json written: %v, want %v", err == nil, tc.outputs)

	// Nothing leaked, nothing forged, no escape reached the terminal.
	everything := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	_ = filepath.WalkDir(filepath.Join(dir, "evalgate-out"), func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(path)
			everything[path] = string(data)
		}
		return nil
	})
	for where, text := range everything {
		for _, line := range strings.Split(text, "\n") {
			// ::add-mask:: is how a credential is kept out of the log.
			if !strings.HasPrefix(line, "::add-mask::") {
				assert.Check(t, !strings.Contains(line, hostileCanary), "the token is in %s: %q", where, line)
			}
		}
		if where == "stdout" || where == "stderr" {
			assert.Check(t, !strings.ContainsAny(text, "\x1b\x07"), "an escape or bell reached the terminal through %s", where)
			for _, line := range strings.Split(text, "\n") {
				assert.Check(t, !strings.Contains(line, "forged") || !strings.HasPrefix(strings.TrimSpace(line), "::"), "a forged workflow command in %s: %q", where, line)
			}
		}
	}

	// No process is left.
	if data, err := os.ReadFile(pids); err == nil {
		for _, f := range strings.Fields(string(data)) {
			pid, _ := strconv.Atoi(f)
			assert.Check(t, waittest.Exited(t, pid), "process %d outlived the run", pid)
		}
	}
	if tc.check != nil {
		tc.check(t, dir, r)
	}
}

func writeEvals(t *testing.T, dir, name, content string) {
	t.Helper()
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "evals"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "evals", name), []byte(content), 0o644))
}

func readOut(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "evalgate-out", name))
	assert.NilError(t, err)
	return string(data)
}

// smallDisk mounts a 256 KiB tmpfs for the test, which needs root; it
// skips where mounting is not allowed.
func smallDisk(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small disk needs root")
	}
	disk := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small disk: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", disk).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", disk, err, out)
		}
	})
	return disk
}

// fillDisk writes to a file on disk until no byte more fits.
func fillDisk(t *testing.T, disk string) {
	t.Helper()
	f, err := os.Create(filepath.Join(disk, "fill"))
	assert.NilError(t, err)
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			assert.Assert(t, errors.Is(err, syscall.ENOSPC), "filling the disk: %v", err)
			break
		}
	}
	// The last partial chunk may have left a few bytes free.
	for {
		if _, err := f.Write(chunk[:1]); err != nil {
			break
		}
	}
}

// waitForFile waits until path exists (an agent has started).
func waitForFile(t *testing.T, path string) {
	t.Helper()
	waittest.File(t, path)
}

// aliasBomb is a "billion laughs" YAML suite padded to 4 MB.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("# " + strings.Repeat("x", 4<<20) + "\n")
	b.WriteString("suiteId: hostile.evals.bomb\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: t\n    input: *a9\n    expected: {kind: golden, match: {strategy: exact, value: x}}\n")
	return b.String()
}

// TestHostileFaults: the environment fails or fights the run: two runs on
// one output folder, evalgate killed with SIGKILL and run again, an output
// folder that cannot be made.
func TestHostileFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds evalgate and runs agents")
	}
	bin := buildEvalgate(t)
	corpus, err := filepath.Abs(filepath.Join("testdata", "hostile"))
	assert.NilError(t, err)
	project := func(t *testing.T) string {
		dir := t.TempDir()
		config := fmt.Sprintf("suites: [evals/]\nagent:\n  plain: [/bin/sh, %s]\n", filepath.Join(corpus, "agents", "sleepy.sh"))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "evalgate.yaml"), []byte(config), 0o644))
		data, err := os.ReadFile(filepath.Join(corpus, "suites", "plain.yaml"))
		assert.NilError(t, err)
		writeEvals(t, dir, "plain.yaml", string(data))
		return dir
	}
	// sleep is the agent's HOSTILE_SLEEP: seconds, or "gate" to wait for
	// the file gate in dir.
	start := func(t *testing.T, dir, sleep string, args ...string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, append([]string{"run", "--no-color"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(cleanEnv(), "HOSTILE_PIDS="+filepath.Join(dir, "pids"), "HOSTILE_SLEEP="+sleep, "HOSTILE_GATE="+filepath.Join(dir, "gate"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		assert.NilError(t, cmd.Start())
		return cmd, &stderr
	}
	exitCode := func(err error) int {
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			return ee.ExitCode()
		}
		return 0
	}

	t.Run("two runs on one output folder", func(t *testing.T) {
		dir := project(t)
		first, _ := start(t, dir, "gate")
		waitForFile(t, filepath.Join(dir, "pids"))
		second, stderr := start(t, dir, "0")
		assert.Equal(t, exitCode(second.Wait()), 3, stderr.String())
		assert.Check(t, is.Contains(stderr.String(), "another evalgate run is writing to"))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "gate"), nil, 0o644))
		assert.Equal(t, exitCode(first.Wait()), 0)
		events, err := os.ReadFile(filepath.Join(dir, "evalgate-out", "events.ndjson"))
		assert.NilError(t, err)
		assert.Equal(t, strings.Count(string(events), `"type":"eval.started"`), 1, "the second run wrote into the first's events")
	})

	t.Run("SIGKILL, then run again", func(t *testing.T) {
		dir := project(t)
		killed, _ := start(t, dir, "3600")
		waitForFile(t, filepath.Join(dir, "pids"))
		assert.NilError(t, killed.Process.Kill())
		_ = killed.Wait()
		data, err := os.ReadFile(filepath.Join(dir, "pids"))
		assert.NilError(t, err)
		for _, f := range strings.Fields(string(data)) {
			pid, _ := strconv.Atoi(f)
			assert.Check(t, waittest.Exited(t, pid), "agent %d outlived the SIGKILL of evalgate", pid)
		}
		again, stderr := start(t, dir, "0")
		assert.Equal(t, exitCode(again.Wait()), 0, "a run after a killed one: %s", stderr.String())
	})

	t.Run("a full disk", func(t *testing.T) {
		dir := project(t)
		disk := smallDisk(t)
		out := filepath.Join(disk, "out")
		first, stderr := start(t, dir, "0", "--out", out)
		assert.Equal(t, exitCode(first.Wait()), 0, stderr.String())
		before, err := os.ReadFile(filepath.Join(out, "results.json"))
		assert.NilError(t, err)

		fillDisk(t, disk)
		full, stderr := start(t, dir, "0", "--out", out)
		assert.Equal(t, exitCode(full.Wait()), 3, stderr.String())
		assert.Check(t, is.Contains(stderr.String(), "no space left on device"))
		assert.Check(t, is.Contains(stderr.String(), out), "the message names the file it could not write")
		after, err := os.ReadFile(filepath.Join(out, "results.json"))
		assert.NilError(t, err)
		assert.Check(t, bytes.Equal(before, after), "the last whole results.json was lost or cut")
		leftovers, err := filepath.Glob(filepath.Join(out, "*", "*.tmp"))
		assert.NilError(t, err)
		top, err := filepath.Glob(filepath.Join(out, "*.tmp"))
		assert.NilError(t, err)
		assert.Check(t, is.Len(append(leftovers, top...), 0), "temporary files left behind")
	})

	t.Run("an output folder that cannot be made", func(t *testing.T) {
		dir := project(t)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
		run, stderr := start(t, dir, "0", "--out", "file/out")
		assert.Equal(t, exitCode(run.Wait()), 3, stderr.String())
		assert.Check(t, is.Contains(stderr.String(), "file/out"))
	})
}
