package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/dirlock"
	"github.com/evalgate/evalgate/internal/waittest"
	"github.com/evalgate/evalgate/report"
)

// outSuite has two tasks; its agent echoes the input.
const outSuite = `suiteId: acme.cli.evals.out
version: 1.0.0
modes: [golden]
tasks:
  - taskId: quick
    input: quick
    expected: {kind: golden, match: {strategy: exact, value: quick}}
  - taskId: slow
    input: slow
    expected: {kind: golden, match: {strategy: exact, value: slow}}
`

// TestOutFolderIsLocked: while a run writes to its output folder, a second
// run, a merge or a report into that folder stops at once with exit 3 and
// says what to do, and the first run's outputs are its own. Once the lock
// is given up, the next run works.
func TestOutFolderIsLocked(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	started, proceed := filepath.Join(dir, "started"), filepath.Join(dir, "proceed")
	writeFiles(t, dir, map[string]string{
		"evals/s.yaml": outSuite,
		// The slow task says that it started, then waits to be let go.
		"agent.sh": fmt.Sprintf("#!/bin/sh\nread x\nif [ \"$x\" = slow ]; then touch %q; while [ ! -f %q ]; do sleep 0.05; done; fi\nprintf '%%s' \"$x\"\n",
			started, proceed),
		// The slow task waits for proceed as long as the test lasts.
		"evalgate.yaml": "suites: [evals]\nagent: {plain: [./agent.sh]}\ntimeout: 1h\n",
	})
	t.Cleanup(func() { os.WriteFile(proceed, nil, 0o644) })
	type outcome struct {
		code           int
		stdout, stderr string
	}
	first := make(chan outcome, 1)
	go func() {
		var o outcome
		o.code, o.stdout, o.stderr = runEvalgate(t, nil, "run")
		first <- o
	}()
	waittest.File(t, started)

	const busy = "evalgate: another evalgate run is writing to \"evalgate-out\": wait for it to finish, or pass --out with another folder\n"
	code, stdout, stderr := runEvalgate(t, nil, "run")
	assert.Check(t, is.Equal(code, ExitRunError), stdout)
	assert.Check(t, is.Equal(stderr, busy))
	assert.Check(t, is.Equal(stdout, ""), "the second run reported nothing")

	assert.NilError(t, os.WriteFile(proceed, nil, 0o644))
	o := waittest.Receive(t, "the first run to end", first)
	assert.Equal(t, o.code, ExitPass, "stdout:\n%s\nstderr:\n%s", o.stdout, o.stderr)
	events := regrEvents(t, "evalgate-out")
	count := map[string]int{}
	for _, ev := range events {
		count[ev["type"].(string)]++
	}
	assert.DeepEqual(t, count, map[string]int{report.EventStarted: 1, report.EventScored: 2, report.EventCompleted: 1})
	run := regrReadRun(t, "evalgate-out")
	assert.Equal(t, run.TaskCount, 2)

	// The lock held by the test itself: run, merge and report into the
	// folder stop, and write nothing there.
	assert.NilError(t, os.MkdirAll("shard", 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join("shard", "results.json"), []byte(regrReadFile(t, filepath.Join("evalgate-out", "results.json"))), 0o644))
	assert.NilError(t, os.WriteFile(proceed, nil, 0o644))
	before := regrReadFile(t, filepath.Join("evalgate-out", "events.ndjson"))
	lock, err := dirlock.Acquire("evalgate-out")
	assert.NilError(t, err)
	code, _, stderr = runEvalgate(t, nil, "run")
	assert.Check(t, is.Equal(code, ExitRunError))
	assert.Check(t, is.Equal(stderr, busy))
	code, _, stderr = runEvalgate(t, nil, "merge", "--out", "evalgate-out", "shard")
	assert.Check(t, is.Equal(code, ExitRunError))
	assert.Check(t, is.Equal(stderr, busy))
	code, _, stderr = runEvalgate(t, nil, "report", "--out", filepath.Join("evalgate-out", "report.md"), "shard")
	assert.Check(t, is.Equal(code, ExitRunError))
	assert.Check(t, is.Equal(stderr, "evalgate: another evalgate run is writing to \"evalgate-out\": wait for it to finish, or pass --out with a file in another folder\n"))
	_, err = os.Stat(filepath.Join("evalgate-out", "report.md"))
	assert.Check(t, os.IsNotExist(err), "report wrote into the locked folder")
	// A run that stops on an invalid suite does not write its
	// findings.sarif there either, and says why.
	writeFiles(t, dir, map[string]string{"bad/s.yaml": "suiteId: acme.cli.evals.bad\nversion: one\ntasks: []\n"})
	sarif := regrReadFile(t, filepath.Join("evalgate-out", "findings.sarif"))
	code, _, stderr = runEvalgate(t, nil, "run", "bad")
	assert.Check(t, is.Equal(code, ExitInvalid))
	assert.Check(t, is.Contains(stderr, "evalgate: could not write findings.sarif: another evalgate run is writing to \"evalgate-out\": wait for it to finish, or pass --out with another folder\n"))
	assert.Check(t, is.Equal(regrReadFile(t, filepath.Join("evalgate-out", "findings.sarif")), sarif))
	assert.Check(t, is.Equal(regrReadFile(t, filepath.Join("evalgate-out", "events.ndjson")), before))

	// Given up, the lock is there to take: by a run, a merge, a report.
	assert.NilError(t, lock.Release())
	mustRun(t, "", "run")
	mustRun(t, "", "merge", "--out", "evalgate-out", "shard")
	mustRun(t, "", "report", "--out", filepath.Join("evalgate-out", "report.md"), "shard")
	// A report outside any output folder takes no lock and leaves no
	// lock file.
	mustRun(t, "", "report", "--out", "report.md", "shard")
	_, err = os.Stat(dirlock.File)
	assert.Check(t, os.IsNotExist(err), "report left a lock file in the working folder")
}

// TestRunAfterKilledRun: a run in another process holds the lock, and a
// run here stops; once that process is killed with SIGKILL, nothing of its
// lock is left, and the next run works and removes the trials' scratch
// file the killed run left.
func TestRunAfterKilledRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	started, hang := filepath.Join(dir, "started"), filepath.Join(dir, "hang")
	writeFiles(t, dir, map[string]string{
		"evals/s.yaml": outSuite,
		"hang":         "",
		// While the file hang is there, the slow task hangs.
		"agent.sh": fmt.Sprintf("#!/bin/sh\nread x\nif [ \"$x\" = slow ]; then touch %q; while [ -f %q ]; do sleep 0.05; done; fi\nprintf '%%s' \"$x\"\n",
			started, hang),
		"evalgate.yaml": "suites: [evals]\nagent: {plain: [./agent.sh]}\ntimeout: 1h\n",
	})
	cmd := exec.Command(os.Args[0], "run")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "CI=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, asEvalgate+"=1")
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = os.Remove(hang); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waittest.File(t, started)

	code, _, stderr := runEvalgate(t, nil, "run")
	assert.Check(t, is.Equal(code, ExitRunError))
	assert.Check(t, is.Contains(stderr, "another evalgate run is writing to \"evalgate-out\""))

	assert.NilError(t, cmd.Process.Kill())
	err := cmd.Wait()
	assert.Check(t, is.ErrorContains(err, "killed"))
	_, err = os.Stat(filepath.Join("evalgate-out", dirlock.File))
	assert.NilError(t, err, "the killed run removed its lock file; the test shows nothing")
	spills, err := filepath.Glob(filepath.Join("evalgate-out", ".trials-*.json"))
	assert.NilError(t, err)
	assert.Equal(t, len(spills), 1, "the killed run left no scratch file; the test shows nothing")
	assert.NilError(t, os.Remove(hang))
	mustRun(t, "", "run")
	assert.Check(t, is.Equal(regrReadRun(t, "evalgate-out").TaskCount, 2))
	spills, err = filepath.Glob(filepath.Join("evalgate-out", ".trials-*.json"))
	assert.NilError(t, err)
	assert.Check(t, is.Len(spills, 0), "the killed run's scratch file is still there")
}

// TestOutFolderLinksAreReplaced: symbolic links planted in the output
// folder, to files and folders outside it, are replaced by what evalgate
// writes; nothing outside the folder changes.
func TestOutFolderLinksAreReplaced(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	t.Chdir(dir)
	writeFiles(t, dir, map[string]string{
		"evals/s.yaml":  outSuite,
		"agent.sh":      "#!/bin/sh\ncat\n",
		"evalgate.yaml": "suites: [evals]\nagent: {plain: [./agent.sh]}\n",
	})
	targets := map[string]string{} // the files planted links lead to, and their content
	var folders []string           // the folders planted links point at
	plant := func(out, name string, folder bool) {
		t.Helper()
		target := filepath.Join(outside, strings.ReplaceAll(out+"/"+name, "/", "_"))
		if folder {
			assert.NilError(t, os.MkdirAll(target, 0o755))
			writeFiles(t, target, map[string]string{"keep": "keep " + name})
			folders = append(folders, target)
			targets[filepath.Join(target, "keep")] = "keep " + name
		} else {
			writeFiles(t, outside, map[string]string{filepath.Base(target): "keep " + name})
			targets[target] = "keep " + name
		}
		p := filepath.Join(dir, out, name)
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		assert.NilError(t, os.Symlink(target, p))
	}
	files := []string{"results.json", "events.ndjson", "scorecard.md", "junit.xml", "findings.sarif", "badge.svg"}
	for _, name := range files {
		plant("evalgate-out", name, false)
	}
	plant("evalgate-out", "summaries", true)
	plant("evalgate-out", "transcripts", true)
	// A dangling link as the lock file: its target must not be created.
	assert.NilError(t, os.Symlink(filepath.Join(outside, "lock"), filepath.Join(dir, "evalgate-out", dirlock.File)))
	// A link one folder down, in a real transcripts folder.
	plant("out2", "transcripts/acme.cli.evals.out", true)

	mustRun(t, "", "run", "--transcripts")
	mustRun(t, "", "run", "--transcripts", "--out", "out2")
	mustRun(t, "", "merge", "--out", "out3", "evalgate-out")
	plant("merged", "results.json", false)
	plant("merged", "summaries", true)
	mustRun(t, "", "merge", "--out", "merged", "evalgate-out")
	plant("reports", "scorecard.md", false)
	mustRun(t, "", "report", "--out", filepath.Join("reports", "scorecard.md"), "evalgate-out")

	// A run that stops on an invalid suite writes findings.sarif: not
	// through a link either.
	writeFiles(t, dir, map[string]string{"bad/s.yaml": "suiteId: acme.cli.evals.bad\nversion: one\ntasks: []\n"})
	plant("invalid", "findings.sarif", false)
	code, stdout, stderr := runEvalgate(t, nil, "run", "--out", "invalid", "bad")
	assert.Equal(t, code, ExitInvalid, stdout+stderr)

	for path, content := range targets {
		assert.Check(t, is.Equal(regrReadFile(t, path), content), "%s was written through a link", path)
	}
	for _, folder := range folders {
		entries, err := os.ReadDir(folder)
		assert.NilError(t, err)
		assert.Check(t, is.Len(entries, 1), "%s was written into through a link", folder)
	}
	entries, err := os.ReadDir(outside)
	assert.NilError(t, err)
	assert.Check(t, is.Len(entries, 13), "a file was made outside the output folder")
	real := func(path string, folder bool) {
		t.Helper()
		fi, err := os.Lstat(path)
		assert.NilError(t, err)
		if folder {
			assert.Check(t, fi.IsDir(), "%s is %v, not a folder", path, fi.Mode())
		} else {
			assert.Check(t, fi.Mode().IsRegular(), "%s is %v, not a file", path, fi.Mode())
		}
	}
	for _, name := range files {
		real(filepath.Join("evalgate-out", name), false)
	}
	_, err = os.Lstat(filepath.Join("evalgate-out", dirlock.File))
	assert.Check(t, os.IsNotExist(err), "the lock file is left behind")
	real(filepath.Join("evalgate-out", "summaries", "acme.cli.evals.out.json"), false)
	real(filepath.Join("evalgate-out", "transcripts", "acme.cli.evals.out", "slow.trial-1.json"), false)
	real(filepath.Join("out2", "transcripts", "acme.cli.evals.out", "slow.trial-1.json"), false)
	real(filepath.Join("merged", "results.json"), false)
	real(filepath.Join("merged", "summaries", "acme.cli.evals.out.json"), false)
	real(filepath.Join("reports", "scorecard.md"), false)
	real(filepath.Join("invalid", "findings.sarif"), false)
	assert.Check(t, is.Equal(regrReadRun(t, "evalgate-out").TaskCount, 2))
	assert.Check(t, is.Len(regrEvents(t, "evalgate-out"), 4))
}

// TestOutFolderIsALink: an output folder that is itself a symbolic link is
// refused, exit 3, and nothing is written where it points.
func TestOutFolderIsALink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	t.Chdir(dir)
	writeFiles(t, dir, map[string]string{
		"evals/s.yaml":  outSuite,
		"agent.sh":      "#!/bin/sh\ncat\n",
		"evalgate.yaml": "suites: [evals]\nagent: {plain: [./agent.sh]}\n",
	})
	assert.NilError(t, os.Symlink(outside, "evalgate-out"))
	assert.NilError(t, os.Symlink(outside, "linked"))
	mustRun(t, "", "run", "--out", "real")
	for _, args := range [][]string{
		{"run"},
		{"run", "--out", "linked"},
		{"merge", "real"},
	} {
		code, stdout, stderr := runEvalgate(t, nil, args...)
		out := "evalgate-out"
		if len(args) == 3 && args[1] == "--out" {
			out = args[2]
		}
		assert.Check(t, is.Equal(code, ExitRunError), "%v: %s", args, stdout)
		assert.Check(t, is.Equal(stderr, "evalgate: the output folder \""+out+"\" is a symbolic link; evalgate does not write through links: remove the link, or pass --out with a real folder\n"), "%v", args)
	}
	entries, err := os.ReadDir(outside)
	assert.NilError(t, err)
	assert.Check(t, is.Len(entries, 0), "a file was written through the linked output folder")
}
