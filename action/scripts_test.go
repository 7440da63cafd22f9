package action

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestRunScript runs action/run.sh, the action's run step, with crafted
// inputs and a stand-in binary that records its argv: every input must
// arrive as exactly the arguments it stands for, never through the shell.
func TestRunScript(t *testing.T) {
	bash := needTools(t, "bash")
	type testCase struct {
		name   string
		step   string // run.sh's argument; "" for none
		inputs map[string]string
		want   []string // the last command's arguments
		// wantAll are the arguments of every command run, in order, when
		// the step runs more than one.
		wantAll [][]string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		argvFile := filepath.Join(dir, "argv")
		bin := filepath.Join(dir, "evalgate")
		script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > " + shellQuote(argvFile) + "\n" +
			"cat " + shellQuote(argvFile) + " >> " + shellQuote(argvFile+".all") + "\necho >> " + shellQuote(argvFile+".all") + "\n"
		assert.NilError(t, os.WriteFile(bin, []byte(script), 0o755))
		cmd := exec.Command(bash, filepath.Join("run.sh"))
		if tc.step != "" {
			cmd.Args = append(cmd.Args, tc.step)
		}
		cmd.Dir = "."
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "EVALGATE_BIN=" + bin, "HOME=" + dir}
		for k, v := range tc.inputs {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, "%s", out)
		data, err := os.ReadFile(argvFile)
		assert.NilError(t, err)
		got := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		assert.DeepEqual(t, got, tc.want)
		if tc.wantAll != nil {
			data, err := os.ReadFile(argvFile + ".all")
			assert.NilError(t, err)
			var all [][]string
			for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				all = append(all, strings.Split(strings.TrimSuffix(line, "\x00"), "\x00"))
			}
			assert.DeepEqual(t, all, tc.wantAll)
		}
		_, err = os.Stat(filepath.Join(dir, "pwned"))
		assert.Assert(t, os.IsNotExist(err), "an input ran a command")
	}
	shards := t.TempDir()
	for _, d := range []string{"shard 1", "shard-2", "other"} {
		assert.NilError(t, os.Mkdir(filepath.Join(shards, d), 0o755))
	}
	for _, tc := range []testCase{
		{name: "no inputs", want: []string{"run", "--no-publish", "--history-store", "git:evalgate-history"}},
		{
			// A shard gates nothing and is balanced by the baseline.
			name: "shard",
			inputs: map[string]string{
				"INPUT_SHARD": " 2/4 ", "INPUT_BASELINE": "evalgate-out/baseline/results.json",
				"INPUT_GATES": "passRate > 0.9", "INPUT_SUITES": "evals/", "INPUT_AGENT_COMMAND": "./agent",
			},
			want: []string{"run", "--no-publish", "--agent-cmd", "./agent", "--shard", "2/4", "--gate", "true",
				"--balance", "evalgate-out/baseline/results.json", "--", "evals/"},
		},
		{
			name:   "shard without a baseline yet",
			inputs: map[string]string{"INPUT_SHARD": "1/2", "INPUT_BASELINE": "none"},
			want:   []string{"run", "--no-publish", "--shard", "1/2", "--gate", "true"},
		},
		{
			// Globs are expanded (a space in a name stays), a line that
			// matches nothing is passed on for evalgate to name.
			name: "merge",
			inputs: map[string]string{
				"INPUT_MERGE":    filepath.Join(shards, "shard*") + "\n\n" + filepath.Join(shards, "missing-*") + "\n",
				"INPUT_BASELINE": "git:origin/main:.evalgate/baseline.json", "INPUT_GATES": "passRate > 0.9",
				"INPUT_SUITES": "evals/", "INPUT_AGENT_COMMAND": "./agent", "INPUT_OUT": "out",
			},
			want: []string{"merge", "--no-publish", "--out", "out", "--baseline", "git:origin/main:.evalgate/baseline.json",
				"--history-store", "git:evalgate-history", "--gate", "passRate > 0.9", "--",
				filepath.Join(shards, "shard 1"), filepath.Join(shards, "shard-2"), filepath.Join(shards, "missing-*")},
		},
		{name: "fetch", step: "fetch",
			inputs: map[string]string{"INPUT_CONFIG": "a b.yaml", "INPUT_BASELINE": "github-artifact:x", "INPUT_OUT": "o", "INPUT_GATES": "passRate > 0", "INPUT_HISTORY": "off"},
			want:   []string{"baseline", "fetch", "--config", "a b.yaml", "--out", "o", "--baseline", "github-artifact:x"}},
		{name: "publish", step: "publish",
			inputs: map[string]string{"INPUT_CONFIG": "a b.yaml", "INPUT_OUT": "o", "INPUT_BASELINE": "x", "INPUT_SUITES": "evals/"},
			want:   []string{"publish", "--config", "a b.yaml", "--out", "o"}},
		{
			name: "all inputs",
			inputs: map[string]string{
				"INPUT_CONFIG":        "agents/support/evalgate.yaml",
				"INPUT_SUITES":        "evals/refunds.yaml\n  evals/more suites/  \n\n",
				"INPUT_AGENT_COMMAND": "python3 agent.py --model 'small'",
				"INPUT_BASELINE":      "github-artifact:evalgate-results",
				"INPUT_GATES":         "aggregateScore >= 0.9\n\nregression.newFailures == 0",
				"INPUT_OUT":           "out dir",
			},
			want: []string{"run", "--no-publish", "--config", "agents/support/evalgate.yaml", "--out", "out dir",
				"--agent-cmd", "python3 agent.py --model 'small'", "--history-store", "git:evalgate-history",
				"--baseline", "github-artifact:evalgate-results",
				"--gate", "aggregateScore >= 0.9", "--gate", "regression.newFailures == 0",
				"--", "evals/refunds.yaml", "evals/more suites/"},
		},
		{name: "explain", inputs: map[string]string{"INPUT_EXPLAIN": " true\n"}, want: []string{"run", "--no-publish", "--history-store", "git:evalgate-history", "--explain"}},
		{name: "explain off", inputs: map[string]string{"INPUT_EXPLAIN": "false"}, want: []string{"run", "--no-publish", "--history-store", "git:evalgate-history", "--explain=false"}},
		{name: "history store", inputs: map[string]string{"INPUT_HISTORY": " dir:.evalgate/history\n"},
			want: []string{"run", "--no-publish", "--history-store", "dir:.evalgate/history"}},
		{name: "history off", inputs: map[string]string{"INPUT_HISTORY": "off"}, want: []string{"run", "--no-publish"}},
		{name: "history off in a merge", inputs: map[string]string{"INPUT_HISTORY": "off", "INPUT_MERGE": "a"}, want: []string{"merge", "--no-publish", "--", "a"}},
		{
			// The default branch's push records the run, then publishes.
			name: "publish records a push of the default branch", step: "publish",
			inputs:  map[string]string{"INPUT_OUT": "o", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/trunk", "EVALGATE_DEFAULT_BRANCH": "trunk", "INPUT_CONFIG": "c.yaml"},
			wantAll: [][]string{{"history", "record", "o", "--store", "git:evalgate-history", "--config", "c.yaml"}, {"publish", "--config", "c.yaml", "--out", "o"}},
			want:    []string{"publish", "--config", "c.yaml", "--out", "o"},
		},
		{name: "publish records a schedule in the store given", step: "publish",
			inputs:  map[string]string{"INPUT_HISTORY": "dir:h", "GITHUB_EVENT_NAME": "schedule", "GITHUB_REF": "refs/heads/main", "EVALGATE_DEFAULT_BRANCH": "main"},
			wantAll: [][]string{{"history", "record", "evalgate-out", "--store", "dir:h"}, {"publish"}},
			want:    []string{"publish"}},
		{name: "the token stays off the command line", step: "publish",
			inputs:  map[string]string{"INPUT_HISTORY": "dir:h", "INPUT_GITHUB_TOKEN": "ghs_secret", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main", "EVALGATE_DEFAULT_BRANCH": "main"},
			wantAll: [][]string{{"history", "record", "evalgate-out", "--store", "dir:h"}, {"publish"}},
			want:    []string{"publish"}},
		{name: "a pull request records nothing", step: "publish",
			inputs:  map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REF": "refs/pull/3/merge", "EVALGATE_DEFAULT_BRANCH": "main"},
			wantAll: [][]string{{"publish"}}, want: []string{"publish"}},
		{name: "a push of another branch records nothing", step: "publish",
			inputs:  map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/feature", "EVALGATE_DEFAULT_BRANCH": "main"},
			wantAll: [][]string{{"publish"}}, want: []string{"publish"}},
		{name: "a shard records nothing", step: "publish",
			inputs:  map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main", "EVALGATE_DEFAULT_BRANCH": "main", "INPUT_SHARD": "1/2"},
			wantAll: [][]string{{"publish"}}, want: []string{"publish"}},
		{name: "history off records nothing", step: "publish",
			inputs:  map[string]string{"INPUT_HISTORY": "off", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main", "EVALGATE_DEFAULT_BRANCH": "main"},
			wantAll: [][]string{{"publish"}}, want: []string{"publish"}},
		{
			name: "crafted inputs stay data",
			inputs: map[string]string{
				"INPUT_CONFIG": "$(touch " + "pwned)`touch pwned`",
				"INPUT_SUITES": "-rf\n;touch pwned\n\"quoted\" 'single'",
				"INPUT_GATES":  "passRate > 0 && $(touch pwned)",
			},
			want: []string{"run", "--no-publish", "--config", "$(touch pwned)`touch pwned`", "--history-store", "git:evalgate-history",
				"--gate", "passRate > 0 && $(touch pwned)",
				"--", "-rf", ";touch pwned", `"quoted" 'single'`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestInstallScript runs action/install.sh, the action's install and build
// steps, for real: releases come from a fake release server on loopback and
// are checked against the checksums file the test writes; builds compile a
// small module standing in for the action's checkout with the Go running
// this test, or ask for actions/setup-go when that Go is older than the
// checkout's go.mod needs (or missing from PATH).
func TestInstallScript(t *testing.T) {
	bash := needTools(t, "bash", "curl", "tar", "sha256sum", "go")
	archive := fakeRelease(t)
	sum := sha256.Sum256(archive)
	good := hex.EncodeToString(sum[:])
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/evalgate/evalgate/releases/download/v1.2.3/evalgate_1.2.3_linux_amd64.tar.gz" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(archive)
	}))
	t.Cleanup(srv.Close)
	goVersion := strings.TrimSpace(goEnv(t, "GOVERSION"))
	goCache := strings.TrimSpace(goEnv(t, "GOCACHE"))

	type testCase struct {
		name      string
		checksums string
		gomod     string // the action checkout's go.mod; empty: goMod("1.21")
		noGo      bool   // no go on PATH
		env       map[string]string
		// want
		wantErr     string
		wantNotice  string
		wantOutputs map[string]string // a subset of the install step's outputs
		wantBuilt   string            // what the built or installed binary prints for `version`
		wantBuild   string            // an error of the build step, when it runs without setup-go
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		actionPath := filepath.Join(dir, "action-checkout")
		if tc.gomod == "" {
			tc.gomod = goMod("1.21")
		}
		writeFakeCheckout(t, actionPath, tc.gomod, tc.checksums)
		path := os.Getenv("PATH")
		if tc.noGo {
			path = pathWithout(t, "go")
		}
		env := []string{
			"PATH=" + path, "HOME=" + dir, "GOCACHE=" + goCache, "GOTOOLCHAIN=local",
			"EVALGATE_ACTION_PATH=" + actionPath, "RUNNER_TEMP=" + dir,
			"RUNNER_OS=Linux", "RUNNER_ARCH=X64", "GITHUB_SERVER_URL=" + srv.URL,
			"GITHUB_PATH=" + filepath.Join(dir, "path"),
		}
		for k, v := range tc.env {
			env = append(env, k+"="+v)
		}
		step := func(name string, env []string, args ...string) (string, map[string]string, error) {
			outputs := filepath.Join(dir, name+"-output")
			assert.NilError(t, os.WriteFile(outputs, nil, 0o644))
			cmd := exec.Command(bash, append([]string{"install.sh"}, args...)...)
			cmd.Env = append(env, "GITHUB_OUTPUT="+outputs)
			out, err := cmd.CombinedOutput()
			outs := map[string]string{}
			if data, _ := os.ReadFile(outputs); len(data) > 0 {
				outs = parseOutputFile(t, outputs)
			}
			return string(out), outs, err
		}

		out, outs, err := step("install", env)
		if tc.wantErr != "" {
			assert.Assert(t, err != nil, "install.sh succeeded: %s", out)
			assert.Assert(t, strings.Contains(out, "::error title=evalgate install::"+tc.wantErr), "%s", out)
			return
		}
		assert.NilError(t, err, "%s", out)
		var notices []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "::notice title=evalgate install::") {
				notices = append(notices, line)
			}
		}
		assert.Equal(t, len(notices), 1, "one notice says how evalgate is installed: %s", out)
		assert.Assert(t, strings.Contains(notices[0], tc.wantNotice), "%s", out)
		assert.Assert(t, !strings.Contains("\n"+out, "\n::error"), "%s", out)
		for k, v := range tc.wantOutputs {
			assert.Equal(t, outs[k], strings.ReplaceAll(v, "DIR", dir), "output %s of %v", k, outs)
		}
		bin := outs["path"]
		if outs["build"] == "true" {
			assert.Equal(t, bin, "", "a build installs nothing yet")
			out, outs, err = step("build", append(env, "EVALGATE_BIN="+outs["bin"], "EVALGATE_GO_CACHE="+outs["go-cache"]), "build")
			if tc.wantBuild != "" {
				assert.Assert(t, err != nil, "the build step succeeded: %s", out)
				assert.Assert(t, strings.Contains(out, "::error title=evalgate install::"+tc.wantBuild), "%s", out)
				return
			}
			assert.NilError(t, err, "%s", out)
			bin = outs["path"]
		}
		assert.Assert(t, strings.HasPrefix(bin, dir), "path %q", bin)
		got, err := exec.Command(bin, "version").Output()
		assert.NilError(t, err)
		assert.Equal(t, string(got), tc.wantBuilt+"\n")
		data, err := os.ReadFile(filepath.Join(dir, "path"))
		assert.NilError(t, err)
		assert.Equal(t, string(data), filepath.Dir(bin)+"\n", "GITHUB_PATH")
	}
	listed := good + "  evalgate_1.2.3_linux_amd64.tar.gz\n" +
		strings.Repeat("0", 64) + "  evalgate_1.2.3_darwin_arm64.tar.gz\n"
	real, err := os.ReadFile("checksums.txt")
	assert.NilError(t, err)
	const (
		released = "evalgate 1.2.3 (fake)"
		built    = "evalgate (built from the fake checkout)"
	)
	installed := "installed the evalgate v1.2.3 release binary for linux/amd64, its SHA-256 checked against action/checksums.txt"
	release := func(env map[string]string) map[string]string {
		m := map[string]string{"INPUT_INSTALL_MODE": "release"}
		for k, v := range env {
			m[k] = v
		}
		return m
	}
	for _, tc := range []testCase{
		// install-mode: release
		{name: "release: listed version", checksums: listed, env: release(map[string]string{"INPUT_VERSION": "v1.2.3"}),
			wantNotice: installed, wantBuilt: released},
		{name: "release: version without v", checksums: listed, env: release(map[string]string{"INPUT_VERSION": "1.2.3"}),
			wantNotice: installed, wantBuilt: released},
		{name: "release: the action's own ref", checksums: listed, env: release(map[string]string{"EVALGATE_ACTION_REF": "v1.2.3"}),
			wantNotice: installed, wantBuilt: released},
		{name: "release: newest listed", checksums: "# comment\n" + listed, env: release(nil),
			wantNotice: installed, wantBuilt: released},
		{name: "release: not listed", checksums: listed, env: release(map[string]string{"INPUT_VERSION": "v9.9.9"}),
			wantErr: "evalgate v9.9.9 for linux/amd64 (evalgate_9.9.9_linux_amd64.tar.gz) is not listed in action/checksums.txt"},
		{name: "release: checksum mismatch", checksums: strings.Repeat("f", 64) + "  evalgate_1.2.3_linux_amd64.tar.gz\n",
			env: release(map[string]string{"INPUT_VERSION": "v1.2.3"}), wantErr: "checksum mismatch for evalgate_1.2.3_linux_amd64.tar.gz"},
		{name: "release: nothing listed yet", checksums: string(real), env: release(nil),
			wantErr: "no evalgate release is listed in action/checksums.txt yet; leave install-mode out"},
		{name: "not a version", checksums: listed, env: map[string]string{"INPUT_VERSION": "v1.2.3;touch pwned"},
			wantErr: `version "v1.2.3;touch pwned" is not a release version`},
		{name: "bad mode", checksums: listed, env: map[string]string{"INPUT_INSTALL_MODE": "docker"},
			wantErr: `install-mode "docker" is not one of auto, release, source`},

		// install-mode: auto (the default)
		{name: "auto: the action's ref is a listed release", checksums: listed,
			env:        map[string]string{"EVALGATE_ACTION_REF": "v1.2.3"},
			wantNotice: installed, wantBuilt: released},
		{name: "auto: GITHUB_ACTION_REF when the ref is not passed", checksums: listed,
			env:        map[string]string{"GITHUB_ACTION_REF": "v1.2.3"},
			wantNotice: installed, wantBuilt: released},
		{name: "auto: version is a listed release", checksums: listed,
			env:        map[string]string{"INPUT_INSTALL_MODE": "auto", "INPUT_VERSION": "v1.2.3", "EVALGATE_ACTION_REF": "main"},
			wantNotice: installed, wantBuilt: released},
		{name: "auto: a listed release whose sum differs is never built instead",
			checksums: strings.Repeat("f", 64) + "  evalgate_1.2.3_linux_amd64.tar.gz\n",
			env:       map[string]string{"EVALGATE_ACTION_REF": "v1.2.3"},
			wantErr:   "checksum mismatch for evalgate_1.2.3_linux_amd64.tar.gz"},
		{name: "auto: version is not listed", checksums: listed,
			env:     map[string]string{"INPUT_VERSION": "v9.9.9"},
			wantErr: "evalgate v9.9.9 for linux/amd64 (evalgate_9.9.9_linux_amd64.tar.gz) is not listed in action/checksums.txt; pick a listed version, or leave version out to build the action's checkout"},
		{name: "auto: no release listed, the runner's Go builds", checksums: string(real),
			env:         map[string]string{"EVALGATE_ACTION_REF": "main"},
			wantNotice:  `building evalgate from source (the action's checkout) with the runner's Go, ` + goVersion + `, because the action's ref "main" is not a release listed in action/checksums.txt for linux/amd64`,
			wantOutputs: map[string]string{"build": "true", "setup-go": "false", "go-cache": "", "cache-key": ""},
			wantBuilt:   built},
		{name: "auto: a branch ref builds even when releases are listed", checksums: listed,
			env:        map[string]string{"EVALGATE_ACTION_REF": "main"},
			wantNotice: `building evalgate from source (the action's checkout) with the runner's Go, ` + goVersion + `, because the action's ref "main" is not a release`,
			wantBuilt:  built},
		{name: "auto: a release not listed for this runner builds", checksums: strings.Repeat("0", 64) + "  evalgate_1.2.3_darwin_arm64.tar.gz\n",
			env:        map[string]string{"EVALGATE_ACTION_REF": "v1.2.3"},
			wantNotice: `with the runner's Go, ` + goVersion + `, because the action's ref "v1.2.3" is not a release listed in action/checksums.txt for linux/amd64`,
			wantBuilt:  built},
		{name: "auto: the action used from a path", checksums: string(real),
			wantNotice: `building evalgate from source (the action's checkout) with the runner's Go, ` + goVersion + `, because the action is used from a path, not from a release listed in action/checksums.txt`,
			wantBuilt:  built},
		{name: "auto: an old Go asks for actions/setup-go", checksums: string(real), gomod: goMod("1.99.0"),
			env:        map[string]string{"EVALGATE_ACTION_REF": "main"},
			wantNotice: `building evalgate from source (the action's checkout) with Go 1.99.0 from actions/setup-go, since the runner has ` + goVersion + ` and the action's go.mod needs 1.99.0 or newer, because the action's ref "main" is not a release`,
			wantOutputs: map[string]string{"build": "true", "setup-go": "true", "go-cache": "DIR/evalgate-go",
				"cache-key": "evalgate-go-linux-amd64-1.99.0-" + sha256Hex(goSum)},
			wantBuild: "building evalgate needs Go 1.99.0 or newer (the action's go.mod), but the Go on PATH is " + goVersion},
		{name: "auto: one patch release short asks for actions/setup-go", checksums: string(real), gomod: goMod(nextPatch(t, goVersion)),
			wantNotice:  "with Go " + nextPatch(t, goVersion) + " from actions/setup-go, since the runner has " + goVersion,
			wantOutputs: map[string]string{"setup-go": "true"},
			wantBuild:   "building evalgate needs Go " + nextPatch(t, goVersion) + " or newer"},
		{name: "auto: a release candidate in go.mod is older than the release", checksums: string(real),
			gomod:      goMod(strings.Join(strings.Split(strings.TrimPrefix(goVersion, "go"), ".")[:2], ".") + "rc1"),
			wantNotice: "with the runner's Go, " + goVersion,
			wantBuilt:  built},
		{name: "auto: a newer toolchain directive asks for actions/setup-go", checksums: string(real),
			gomod:       goMod("1.21") + "\ntoolchain go1.99.1\n",
			wantNotice:  "with Go 1.99.1 from actions/setup-go, since the runner has " + goVersion + " and the action's go.mod needs 1.99.1 or newer",
			wantOutputs: map[string]string{"setup-go": "true"},
			wantBuild:   "building evalgate needs Go 1.99.1 or newer"},
		{name: "auto: no Go on the runner asks for actions/setup-go", checksums: string(real), noGo: true,
			wantNotice:  "with Go 1.21 from actions/setup-go, since the runner has no Go and the action's go.mod needs 1.21 or newer",
			wantOutputs: map[string]string{"setup-go": "true", "build": "true"},
			wantBuild:   "building evalgate needs Go 1.21 or newer (the action's go.mod), but the Go on PATH is missing"},
		{name: "auto: a crafted ref stays inside its notice", checksums: string(real),
			env:        map[string]string{"EVALGATE_ACTION_REF": "x%0A\n::error::pwned"},
			wantNotice: `because the action's ref "x%250A%0A::error::pwned" is not a release`,
			wantBuilt:  built},

		// install-mode: source
		{name: "source: the runner's Go builds", checksums: listed,
			env:        map[string]string{"INPUT_INSTALL_MODE": "source", "EVALGATE_ACTION_REF": "v1.2.3"},
			wantNotice: "building evalgate from source (the action's checkout) with the runner's Go, " + goVersion + ", because install-mode is source",
			wantBuilt:  built},
		{name: "source: an old Go is an error", checksums: listed, gomod: goMod("1.99.0"),
			env:     map[string]string{"INPUT_INSTALL_MODE": "source"},
			wantErr: "install-mode source builds with the runner's Go, which must be 1.99.0 or newer (the action's go.mod), but the runner has " + goVersion + ": add actions/setup-go before this step, or leave install-mode out (auto sets Go up itself)"},
		{name: "source: no Go is an error", checksums: listed, noGo: true,
			env:     map[string]string{"INPUT_INSTALL_MODE": "source"},
			wantErr: "install-mode source builds with the runner's Go, which must be 1.21 or newer (the action's go.mod), but the runner has no Go"},
	} {
		t.Run(tc.name, func(t *testing.T) { t.Parallel(); run(t, tc) }) // each in its own folder and environment
	}
}

// goMod is the go.mod of the fake action checkout.
func goMod(goVersion string) string {
	return "module example.com/fakeaction\n\ngo " + goVersion + "\n"
}

// goSum is the fake checkout's go.sum; the cache key hashes it.
const goSum = "example.com/dep v1.0.0 h1:AAAA=\n"

// writeFakeCheckout writes a stand-in for the action's checkout: a module
// whose binary answers `version`, and action/checksums.txt.
func writeFakeCheckout(t *testing.T, dir, gomod, checksums string) {
	t.Helper()
	main := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\n" +
		"func main() {\n\tif len(os.Args) > 1 && os.Args[1] == \"version\" {\n" +
		"\t\tfmt.Println(\"evalgate (built from the fake checkout)\")\n\t}\n}\n"
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "action"), 0o755))
	for name, data := range map[string]string{
		"go.mod": gomod, "go.sum": goSum, "main.go": main, "action/checksums.txt": checksums,
	} {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
}

// pathWithout is PATH without the folders that hold tool.
func pathWithout(t *testing.T, tool string) string {
	t.Helper()
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, tool)); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// nextPatch is the Go release after v (go1.26.8 → 1.26.9).
func nextPatch(t *testing.T, v string) string {
	t.Helper()
	f := strings.Split(strings.TrimPrefix(v, "go"), ".")
	if len(f) != 3 {
		t.Skipf("the Go running the test, %s, is not a release", v)
	}
	n, err := strconv.Atoi(f[2])
	assert.NilError(t, err)
	return f[0] + "." + f[1] + "." + strconv.Itoa(n+1)
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	assert.NilError(t, err)
	return string(out)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// fakeRelease is a release archive whose evalgate is a shell script.
func fakeRelease(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	body := []byte("#!/bin/sh\necho 'evalgate 1.2.3 (fake)'\n")
	assert.NilError(t, tw.WriteHeader(&tar.Header{Name: "evalgate_1.2.3_linux_amd64/evalgate", Mode: 0o755, Size: int64(len(body))}))
	_, err := tw.Write(body)
	assert.NilError(t, err)
	assert.NilError(t, tw.Close())
	assert.NilError(t, gz.Close())
	return buf.Bytes()
}

func needTools(t *testing.T, tools ...string) string {
	t.Helper()
	var first string
	for i, tool := range tools {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not installed", tool)
		}
		if i == 0 {
			first = p
		}
	}
	return first
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestRunScriptExitCode: the run step passes evalgate's exit code on, as
// its own and as the step output exit-code the publish step reads.
func TestRunScriptExitCode(t *testing.T) {
	bash := needTools(t, "bash")
	for _, code := range []int{0, 1, 3} {
		dir := t.TempDir()
		bin := filepath.Join(dir, "evalgate")
		assert.NilError(t, os.WriteFile(bin, []byte(fmt.Sprintf("#!/bin/sh\nexit %d\n", code)), 0o755))
		outputs := filepath.Join(dir, "output")
		cmd := exec.Command(bash, "run.sh", "run")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "EVALGATE_BIN=" + bin, "GITHUB_OUTPUT=" + outputs}
		err := cmd.Run()
		got := 0
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			got = ee.ExitCode()
		} else {
			assert.NilError(t, err)
		}
		assert.Equal(t, got, code)
		data, err := os.ReadFile(outputs)
		assert.NilError(t, err)
		assert.Equal(t, string(data), fmt.Sprintf("exit-code=%d\n", code))
	}
}

// TestRunScriptShardAndMerge: one job cannot both run a shard and merge
// them; the step says so before anything runs.
// TestRunScriptExplainIsTrueOrFalse: any other value of the explain
// input is an error that names the input, exit 2, and runs nothing.
func TestRunScriptExplainIsTrueOrFalse(t *testing.T) {
	bash := needTools(t, "bash")
	dir := t.TempDir()
	outputs := filepath.Join(dir, "output")
	cmd := exec.Command(bash, "run.sh")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "EVALGATE_BIN=" + filepath.Join(dir, "not-run"), "GITHUB_OUTPUT=" + outputs, "INPUT_EXPLAIN=yes\n::warning::x"}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	assert.Assert(t, errors.As(err, &ee) && ee.ExitCode() == 2, "%v: %s", err, out)
	assert.Equal(t, string(out), "::error title=evalgate::the input explain is true or false, not 'yes   warning  x'\n")
	data, err := os.ReadFile(outputs)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "exit-code=2\n")
}

func TestRunScriptShardAndMerge(t *testing.T) {
	bash := needTools(t, "bash")
	dir := t.TempDir()
	bin := filepath.Join(dir, "evalgate")
	assert.NilError(t, os.WriteFile(bin, []byte("#!/bin/sh\ntouch "+shellQuote(filepath.Join(dir, "ran"))+"\n"), 0o755))
	outputs := filepath.Join(dir, "output")
	cmd := exec.Command(bash, "run.sh", "run")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "EVALGATE_BIN=" + bin, "GITHUB_OUTPUT=" + outputs, "INPUT_SHARD=1/2", "INPUT_MERGE=shards/*"}
	out, err := cmd.CombinedOutput()
	ee, ok := errors.AsType[*exec.ExitError](err)
	assert.Assert(t, ok, "run.sh: %v\n%s", err, out)
	assert.Equal(t, ee.ExitCode(), 2)
	assert.Check(t, strings.Contains(string(out), "the inputs shard and merge exclude each other"), "%s", out)
	_, err = os.Stat(filepath.Join(dir, "ran"))
	assert.Check(t, os.IsNotExist(err), "evalgate ran")
	data, err := os.ReadFile(outputs)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "exit-code=2\n")
}
