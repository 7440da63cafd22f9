package action

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
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
		inputs map[string]string
		want   []string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		argvFile := filepath.Join(dir, "argv")
		bin := filepath.Join(dir, "evalgate")
		script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > " + shellQuote(argvFile) + "\n"
		assert.NilError(t, os.WriteFile(bin, []byte(script), 0o755))
		cmd := exec.Command(bash, filepath.Join("run.sh"))
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
		_, err = os.Stat(filepath.Join(dir, "pwned"))
		assert.Assert(t, os.IsNotExist(err), "an input ran a command")
	}
	for _, tc := range []testCase{
		{name: "no inputs", want: []string{"run"}},
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
			want: []string{"run", "--config", "agents/support/evalgate.yaml",
				"--agent-cmd", "python3 agent.py --model 'small'",
				"--baseline", "github-artifact:evalgate-results", "--out", "out dir",
				"--gate", "aggregateScore >= 0.9", "--gate", "regression.newFailures == 0",
				"--", "evals/refunds.yaml", "evals/more suites/"},
		},
		{
			name: "crafted inputs stay data",
			inputs: map[string]string{
				"INPUT_CONFIG": "$(touch " + "pwned)`touch pwned`",
				"INPUT_SUITES": "-rf\n;touch pwned\n\"quoted\" 'single'",
				"INPUT_GATES":  "passRate > 0 && $(touch pwned)",
			},
			want: []string{"run", "--config", "$(touch pwned)`touch pwned`",
				"--gate", "passRate > 0 && $(touch pwned)",
				"--", "-rf", ";touch pwned", `"quoted" 'single'`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestInstallScript runs action/install.sh's release mode against a fake
// release server on loopback, with the checksums file the test writes.
func TestInstallScript(t *testing.T) {
	bash := needTools(t, "bash", "curl", "tar", "sha256sum")
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

	type testCase struct {
		name      string
		checksums string
		env       map[string]string
		wantErr   string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		actionPath := filepath.Join(dir, "action-checkout")
		assert.NilError(t, os.MkdirAll(filepath.Join(actionPath, "action"), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(actionPath, "action", "checksums.txt"), []byte(tc.checksums), 0o644))
		outputs := filepath.Join(dir, "output")
		cmd := exec.Command(bash, "install.sh")
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
			"EVALGATE_ACTION_PATH=" + actionPath, "RUNNER_TEMP=" + dir,
			"RUNNER_OS=Linux", "RUNNER_ARCH=X64", "GITHUB_SERVER_URL=" + srv.URL,
			"GITHUB_OUTPUT=" + outputs, "GITHUB_PATH=" + filepath.Join(dir, "path"),
		}
		for k, v := range tc.env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		if tc.wantErr != "" {
			assert.Assert(t, err != nil, "install.sh succeeded: %s", out)
			assert.Assert(t, strings.Contains(string(out), tc.wantErr), "%s", out)
			return
		}
		assert.NilError(t, err, "%s", out)
		assert.Assert(t, strings.Contains(string(out), "evalgate 1.2.3 (fake)"), "%s", out)
		outs := parseOutputFile(t, outputs)
		bin := outs["path"]
		assert.Assert(t, strings.HasPrefix(bin, dir), bin)
		got, err := exec.Command(bin, "version").Output()
		assert.NilError(t, err)
		assert.Equal(t, string(got), "evalgate 1.2.3 (fake)\n")
	}
	listed := good + "  evalgate_1.2.3_linux_amd64.tar.gz\n" +
		strings.Repeat("0", 64) + "  evalgate_1.2.3_darwin_arm64.tar.gz\n"
	real, err := os.ReadFile("checksums.txt")
	assert.NilError(t, err)
	for _, tc := range []testCase{
		{name: "listed version", checksums: listed, env: map[string]string{"INPUT_VERSION": "v1.2.3"}},
		{name: "version without v", checksums: listed, env: map[string]string{"INPUT_VERSION": "1.2.3"}},
		{name: "the action's own ref", checksums: listed, env: map[string]string{"GITHUB_ACTION_REF": "v1.2.3"}},
		{name: "newest listed", checksums: "# comment\n" + listed},
		{name: "not listed", checksums: listed, env: map[string]string{"INPUT_VERSION": "v9.9.9"},
			wantErr: "evalgate v9.9.9 for linux/amd64 (evalgate_9.9.9_linux_amd64.tar.gz) is not listed in action/checksums.txt"},
		{name: "checksum mismatch", checksums: strings.Repeat("f", 64) + "  evalgate_1.2.3_linux_amd64.tar.gz\n",
			env: map[string]string{"INPUT_VERSION": "v1.2.3"}, wantErr: "checksum mismatch for evalgate_1.2.3_linux_amd64.tar.gz"},
		{name: "nothing listed yet", checksums: string(real),
			wantErr: "no evalgate release is listed in action/checksums.txt yet; set install-mode: source"},
		{name: "not a version", checksums: listed, env: map[string]string{"INPUT_VERSION": "v1.2.3;touch pwned"},
			wantErr: `version "v1.2.3;touch pwned" is not a release version`},
		{name: "bad mode", checksums: listed, env: map[string]string{"INPUT_INSTALL_MODE": "docker"},
			wantErr: `install-mode "docker" is not one of release, source`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
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
