package cli

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"gotest.tools/v3/assert"
)

// The tests here are the hostile cases of docs/security.md:
// what a suite, a file name, a gate, a baseline or a server can make
// evalgate print, read or send.

// forged is what hostile text holds: a line that GitHub Actions would read
// as a workflow command, a colour and the terminal bell.
const forged = "\n::error::forged \x1b[31m red \a bell"

// hostileSuite is a valid suite whose free text (descriptions, input,
// expected value, check id) carries forged.
const hostileSuite = `suiteId: acme.x.evals.hostile
version: 1.0.0
description: "suite\n::error::forged \x1b[31m \a"
modes: [golden]
tasks:
  - taskId: a
    description: "task\n::error::forged \x1b[31m \a"
    input: "in\n::error::forged \x1b[31m \a"
    expected: {kind: golden, match: {strategy: exact, value: "exp\n::error::forged \x1b[31m \a"}}
  - taskId: b
    input: x
    expected:
      kind: golden
      assert: [{id: "check\n::error::forged \x1b[31m \a", expr: 'output == "y"'}]
`

// invalidHostileSuite is a suite whose errors quote forged text: an
// unknown key, a bad kind and a bad regular expression.
const invalidHostileSuite = `suiteId: acme.x.evals.bad
version: 1.0.0
"key\n::error::forged \x1b[31m \a": 1
modes: [golden]
tasks:
  - taskId: a
    input: x
    expected: {kind: golden, match: {strategy: regex, value: "(\n::error::forged \x1b[31m \a"}}
  - taskId: b
    input: x
    expected: {kind: "gold\n::error::forged \x1b[31m \a", match: {strategy: exact, value: 1}}
`

// assertPrintable fails when output holds a control character a terminal
// acts on, or a line that GitHub Actions would read as the forged
// workflow command.
func assertPrintable(t *testing.T, name, output string) {
	t.Helper()
	assert.Check(t, !strings.ContainsAny(output, "\x1b\a"), "%s holds ESC or BEL:\n%q", name, output)
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimLeft(line, " \t")
		assert.Check(t, !strings.HasPrefix(line, "::error::forged"), "%s has a forged workflow command: %q", name, line)
	}
}

func TestHostileTextIsEscaped(t *testing.T) {
	type testCase struct {
		name     string
		files    map[string]string
		args     []string
		wantCode int
		want     string // escaped text the output must show, so that it was printed at all
	}
	run := func(t *testing.T, tc testCase, inActions bool) {
		dir := t.TempDir()
		writeFiles(t, dir, tc.files)
		env := map[string]string{}
		if inActions {
			env = actionsEnv(t.TempDir(), "")
		}
		r := runCLI(t, dir, env, tc.args...)
		assert.Equal(t, r.code, tc.wantCode, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assertPrintable(t, "stdout", r.stdout)
		assertPrintable(t, "stderr", r.stderr)
		assert.Check(t, strings.Contains(r.stdout+r.stderr, tc.want), "no %q in\nstdout:\n%s\nstderr:\n%s", tc.want, r.stdout, r.stderr)
		if inActions {
			if summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"]); err == nil {
				assert.Check(t, !strings.ContainsAny(string(summary), "\x1b\a"), "the job summary holds ESC or BEL:\n%s", summary)
			}
		}
	}
	agent := map[string]string{"echo.sh": "#!/bin/sh\ncat\n", "evalgate.yaml": "agent:\n  plain: [./echo.sh]\n"}
	with := func(files map[string]string) map[string]string {
		for k, v := range agent {
			files[k] = v
		}
		return files
	}
	hostileName := "evals/s" + forged + ".yaml"
	for _, tc := range []testCase{
		{
			name:     "run: descriptions, input, expected value and check id",
			files:    with(map[string]string{"evals/s.yaml": hostileSuite}),
			args:     []string{"run", "evals"},
			wantCode: 1,
			want:     `check\n::error::forged \x1b[31m \x07`,
		},
		{
			name:     "run: suite file name",
			files:    with(map[string]string{hostileName: hostileSuite}),
			args:     []string{"run", "evals"},
			wantCode: 1,
			want:     `evals/s\n::error::forged \x1b[31m red \x07 bell.yaml`,
		},
		{
			name:     "run: gate expression",
			files:    with(map[string]string{"evals/s.yaml": hostileSuite}),
			args:     []string{"run", "--gate", "passRate == 1 ||\n\"::error::forged \x1b[31m \a\" == \"\"", "evals"},
			wantCode: 1,
			want:     `passRate == 1 ||\n"::error::forged \x1b[31m \x07" == ""`,
		},
		{
			name:     "run: gate that does not compile",
			files:    with(map[string]string{"evals/s.yaml": hostileSuite}),
			args:     []string{"run", "--gate", "passRate ==" + forged, "evals"},
			wantCode: 2,
			want:     `--gate "passRate ==\n::error::forged \x1b[31m red \a bell"`,
		},
		{
			name:     "run: invalid suite",
			files:    with(map[string]string{"evals/bad.yaml": invalidHostileSuite}),
			args:     []string{"run", "evals"},
			wantCode: 2,
			want:     `got "gold\n::error::forged \x1b[31m \a"`,
		},
		{
			name:     "validate: invalid suite",
			files:    map[string]string{"evals/bad.yaml": invalidHostileSuite},
			args:     []string{"validate", "evals"},
			wantCode: 2,
			want:     `/key\n::error::forged \x1b[31m \x07: unknown key`,
		},
		{
			name:     "validate: suite file name",
			files:    map[string]string{hostileName: invalidHostileSuite},
			args:     []string{"validate", "evals"},
			wantCode: 2,
			want:     `evals/s\n::error::forged \x1b[31m red \x07 bell.yaml:3:1:`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc, false) })
		t.Run(tc.name+" in GitHub Actions", func(t *testing.T) { run(t, tc, true) })
	}
}

// TestHostileFileNameInAnnotations: in GitHub Actions, a failing task of a
// suite file with a forged name is annotated, and the name is escaped in
// the command's properties.
func TestHostileFileNameInAnnotations(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evals/s" + forged + ".yaml": hostileSuite,
		"echo.sh":                    "#!/bin/sh\ncat\n",
		"evalgate.yaml":              "agent:\n  plain: [./echo.sh]\n",
	})
	env := actionsEnv(t.TempDir(), "")
	git(t, dir, "init", "-q")
	r := runCLI(t, dir, env, "run", "evals")
	assert.Equal(t, r.code, 1, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assertPrintable(t, "stdout", r.stdout)
	assert.Assert(t, strings.Contains(r.stdout, "::error file=evals/s\\n%3A%3Aerror%3A%3Aforged \\x1b[31m red \\x07 bell.yaml,line="), r.stdout)
	_, err := os.Stat(filepath.Join(dir, "evalgate-out", "results.json"))
	assert.NilError(t, err)
}

// TestGitBaselineIsNeverAnOption: a git: baseline spec, from the command
// line or from evalgate.yaml in a pull request, cannot pass git an option
// (git show --output=FILE writes FILE): it is exit 2 before anything runs,
// and nothing is written.
func TestGitBaselineIsNeverAnOption(t *testing.T) {
	type testCase struct {
		name   string
		config string
		args   []string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"evals/s.yaml":  plainSuite,
			"upper.sh":      "#!/bin/sh\ntr a-z A-Z\n",
			"evalgate.yaml": "suites: [evals/]\nagent:\n  plain: [./upper.sh]\n" + tc.config,
		})
		git(t, dir, "init", "-q")
		git(t, dir, "add", ".")
		git(t, dir, "commit", "-q", "-m", "suites")
		r := runCLI(t, dir, nil, append([]string{"run"}, tc.args...)...)
		assert.Equal(t, r.code, 2, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Assert(t, strings.Contains(r.stderr, `starts with "-", which git would take for an option; name a branch, tag or commit`), r.stderr)
		written, err := filepath.Glob(filepath.Join(dir, "pwned*"))
		assert.NilError(t, err)
		assert.Equal(t, len(written), 0, "git wrote %v", written)
		_, err = os.Stat(filepath.Join(dir, "evalgate-out", "results.json"))
		assert.Assert(t, os.IsNotExist(err), "the run went ahead")
	}
	for _, tc := range []testCase{
		{name: "flag", args: []string{"--baseline", "git:--output=pwned:x"}},
		{name: "config", config: "baseline: 'git:--output=pwned:x'\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// echoServer is an OpenAI-compatible API that echoes the Authorization
// header it was sent (a bearer key, or the user and password of the URL
// as Basic) into what it answers: the error body with status, or, with
// status 200, the answer itself.
type echoServer struct {
	status int
}

func (e echoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	if e.status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.status)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "rejected " + auth, "type": auth, "code": auth}})
		return
	}
	content := "you sent " + auth
	if strings.Contains(r.Header.Get("Content-Type"), "json") && r.ContentLength > 0 {
		var req struct {
			ResponseFormat *struct{} `json:"response_format"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) == nil && req.ResponseFormat != nil { // the judge
			c, _ := json.Marshal(map[string]any{"criteria": []any{
				map[string]any{"met": false, "reason": "you sent " + auth},
				map[string]any{"met": false, "reason": "you sent " + auth},
			}})
			content = string(c)
		}
	}
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}},
	})
}

// TestCredentialsAreRedacted: an API key evalgate read from the
// environment, and the password of an API URL, are nowhere in what it
// prints or writes, transcripts included, though the server echoes them.
func TestCredentialsAreRedacted(t *testing.T) {
	const (
		key      = "sk-test-echoed-0123456789"
		password = "hunter2-url-password"
	)
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + password))
	type testCase struct {
		name     string
		config   string // evalgate.yaml after suites; HOST is the server's host:port
		status   int    // the server's answer
		rubric   bool   // the rubric suite, for a judge
		wantCode int
		want     string // what shows the redaction happened, in stdout, stderr or an output file
	}
	run := func(t *testing.T, tc testCase, inActions bool) {
		srv := httptest.NewServer(echoServer{status: tc.status})
		defer srv.Close()
		dir := t.TempDir()
		suite := "evals/s.yaml"
		files := map[string]string{
			"evalgate.yaml": "suites: [evals/]\nout: out\n" + strings.ReplaceAll(tc.config, "HOST", strings.TrimPrefix(srv.URL, "http://")),
			"agent.sh":      "cat > /dev/null\necho 'We will refund your order.'\n",
		}
		if tc.rubric {
			files["evals/rubric.yaml"] = rubricSuite
		} else {
			files[suite] = plainSuite
		}
		writeFiles(t, dir, files)
		env := map[string]string{"EVALGATE_TEST_KEY": key}
		if inActions {
			env = actionsEnv(t.TempDir(), "")
			env["EVALGATE_TEST_KEY"] = key
		}
		r := runCLI(t, dir, env, "run", "--transcripts", "--no-cache")
		assert.Equal(t, r.code, tc.wantCode, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

		all := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
		if inActions {
			// The runner is told to mask the secrets: those lines are the
			// only ones that may, and must, name them.
			var kept []string
			for _, line := range strings.Split(r.stdout, "\n") {
				if !strings.HasPrefix(line, "::add-mask::") {
					kept = append(kept, line)
				}
			}
			all["stdout"] = strings.Join(kept, "\n")
			if strings.Contains(tc.config, "apiKeyEnv") {
				assert.Check(t, strings.Contains(r.stdout, "::add-mask::"+key), r.stdout)
			}
			if strings.Contains(tc.config, password) {
				assert.Check(t, strings.Contains(r.stdout, "::add-mask::"+password), r.stdout)
			}
			for _, f := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"} {
				if data, err := os.ReadFile(env[f]); err == nil {
					all[f] = string(data)
				}
			}
		}
		err := filepath.WalkDir(filepath.Join(dir, "out"), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			all[path] = string(data)
			return err
		})
		if !errors.Is(err, fs.ErrNotExist) { // a run that could not happen leaves no folder
			assert.NilError(t, err)
		}
		found := false
		for name, text := range all {
			for _, secret := range []string{key, password, basic} {
				assert.Check(t, !strings.Contains(text, secret), "%s holds %q:\n%s", name, secret, text)
			}
			found = found || strings.Contains(text, tc.want)
		}
		assert.Check(t, found, "no %q anywhere: the server's echo never reached the outputs", tc.want)
	}
	for _, tc := range []testCase{
		{
			name:     "agent API echoes the key in its error",
			config:   "agent:\n  openai: {baseURL: 'http://user:" + password + "@HOST/v1', model: m, apiKeyEnv: EVALGATE_TEST_KEY}\n",
			status:   http.StatusBadRequest,
			wantCode: ExitGateFail,
			want:     "rejected Bearer [redacted]",
		},
		{
			name:     "agent API echoes the URL password in its error",
			config:   "agent:\n  openai: {baseURL: 'http://user:" + password + "@HOST/v1', model: m}\n",
			status:   http.StatusBadRequest,
			wantCode: ExitGateFail,
			want:     "rejected Basic [redacted]",
		},
		{
			name:     "model echoes the key in its answer",
			config:   "agent:\n  openai: {baseURL: 'http://HOST/v1', model: m, apiKeyEnv: EVALGATE_TEST_KEY}\n",
			status:   http.StatusOK,
			wantCode: ExitGateFail,
			want:     "you sent Bearer [redacted]",
		},
		{
			name:     "agent API unreachable at a URL with a password",
			config:   "agent:\n  openai: {baseURL: 'http://user:" + password + "@127.0.0.1:9/v1', model: m, apiKeyEnv: EVALGATE_TEST_KEY}\n",
			status:   http.StatusOK,
			wantCode: ExitRunError,
			want:     "could not reach the model API at http://user:xxxxx@127.0.0.1:9/v1",
		},
		{
			name:     "judge API echoes the key and the URL is printed",
			config:   "agent:\n  plain: [sh, agent.sh]\njudge:\n  openai: {baseURL: 'http://user:" + password + "@HOST/v1', model: grader, apiKeyEnv: EVALGATE_TEST_KEY}\n",
			status:   http.StatusUnauthorized,
			rubric:   true,
			wantCode: ExitRunError,
			want:     "the judge at http://user:xxxxx@",
		},
		{
			name:     "judge echoes the key in its reasons",
			config:   "agent:\n  plain: [sh, agent.sh]\njudge:\n  openai: {baseURL: 'http://HOST/v1', model: grader, apiKeyEnv: EVALGATE_TEST_KEY}\n",
			status:   http.StatusOK,
			rubric:   true,
			wantCode: ExitGateFail,
			want:     "you sent Bearer [redacted]",
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc, false) })
		if tc.wantCode != ExitRunError || tc.rubric { // the same message, after the same 3.5s of retries
			t.Run(tc.name+" in GitHub Actions", func(t *testing.T) { run(t, tc, true) })
		}
	}
}

// TestConfigFilesStayInTheRepository: a config from a pull request cannot
// make evalgate send a file outside the repository to its model: an
// absolute systemPromptFile, one that climbs out, or a link leading out is
// exit 2 at its place in evalgate.yaml, before any request.
func TestConfigFilesStayInTheRepository(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	type testCase struct {
		name, setting, want string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		outside := filepath.Join(t.TempDir(), "secret.md")
		writeFiles(t, dir, map[string]string{
			"evals/s.yaml": plainSuite,
			"evalgate.yaml": "suites: [evals/]\nagent:\n  openai:\n    baseURL: " + srv.URL + "/v1\n    model: m\n" +
				"    systemPromptFile: " + tc.setting + "\n",
		})
		assert.NilError(t, os.WriteFile(outside, []byte("EVALGATE-OUTSIDE-SECRET"), 0o644))
		assert.NilError(t, os.Symlink(outside, filepath.Join(dir, "prompt.md")))
		r := runCLI(t, dir, nil, "run")
		assert.Equal(t, r.code, ExitInvalid, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Assert(t, strings.Contains(r.stderr, "evalgate: evalgate.yaml:6:23: agent.openai.systemPromptFile: "+tc.want), r.stderr)
		assert.Equal(t, requests.Load(), int32(0), "the model was asked")
	}
	for _, tc := range []testCase{
		{name: "absolute", setting: "/proc/self/environ", want: `"/proc/self/environ" is an absolute path; name a file in the repository`},
		{name: "climbing out", setting: "../../etc/passwd", want: `"../../etc/passwd" leads outside the repository; name a file inside `},
		{name: "link out", setting: "prompt.md", want: `"prompt.md" leads outside the repository through a symbolic link (to `},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// apologySuite has one rubric task the agent of rubricProject fails: it
// never says sorry.
const apologySuite = `suiteId: acme.support.evals.apology
version: 1.0.0
modes: [rubric]
thresholds: {passScore: 0.5}
tasks:
  - taskId: apology
    input: "My parcel is lost"
    expected:
      kind: rubric
      rubric:
        - {criterion: 'Says "sorry".', weight: 1}
`

// TestPlantedJudgeVerdictsAreIgnored is docs/security.md "Judge verdicts cannot be
// planted": judge cache entries committed to the repository (which on a
// pull request from a fork is the fork's) that say a failing task passes
// are ignored, counted on stderr and in results.json, and the judge is
// asked again; the entries evalgate writes under the key are reused.
func TestPlantedJudgeVerdictsAreIgnored(t *testing.T) {
	const secret = "evalgate-cache-secret-0123456789"
	type testCase struct {
		name string
		// plant rewrites the cache of an honest first run (or, with
		// lyingRun, the cache a lying judge wrote without the secret).
		plant    func(t *testing.T, entry map[string]any)
		lyingRun bool
	}
	run := func(t *testing.T, tc testCase) {
		fake := &fakeJudgeModel{t: t}
		srv := httptest.NewServer(fake)
		defer srv.Close()
		judge := "judge:\n  openai: {baseURL: " + srv.URL + "/v1, model: grader, apiKeyEnv: JUDGE_KEY}\n"
		dir := rubricProject(t, judge)
		assert.NilError(t, os.Remove(filepath.Join(dir, "evals", "rubric.yaml")))
		writeFiles(t, dir, map[string]string{"evals/apology.yaml": apologySuite})
		ciEnv := map[string]string{"JUDGE_KEY": "sk-judge-0123456789", "EVALGATE_CACHE_KEY": secret}

		// The attacker's cache: an honest run's entries rewritten, or a
		// lying judge's entries written without the secret.
		firstEnv := ciEnv
		if tc.lyingRun {
			fake.lying.Store(true)
			firstEnv = map[string]string{"JUDGE_KEY": "", "EVALGATE_CACHE_KEY": ""}
			// No secret at all: a judge that needs no key (an apiKeyEnv
			// naming an unset variable stops a run before it starts).
			writeFiles(t, dir, map[string]string{"evalgate.yaml": "suites: [evals/]\nagent:\n  plain: [sh, agent.sh]\nout: out\n" +
				strings.Replace(judge, ", apiKeyEnv: JUDGE_KEY", "", 1)})
		}
		r := runCLI(t, dir, firstEnv, "run")
		fake.lying.Store(false)
		if tc.lyingRun {
			writeFiles(t, dir, map[string]string{"evalgate.yaml": "suites: [evals/]\nagent:\n  plain: [sh, agent.sh]\nout: out\n" + judge})
		}
		assert.Equal(t, fake.count(), 1, "stderr:\n%s", r.stderr)
		entries, err := filepath.Glob(filepath.Join(dir, ".evalgate", "cache", "judge", "*", "*.json"))
		assert.NilError(t, err)
		if tc.lyingRun {
			// Without a secret, nothing is written that a run with one
			// could be made to believe; the judge is asked, as ever.
			assert.Equal(t, len(entries), 0, "a run without a secret wrote cache entries")
			r = runCLI(t, dir, ciEnv, "run")
			assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Equal(t, fake.count(), 2, "the judge was asked again")
			assert.Assert(t, !strings.Contains(r.stderr, "judge cache"), "stderr:\n%s", r.stderr)
			return
		}
		assert.Equal(t, len(entries), 1)
		if tc.plant != nil {
			data, err := os.ReadFile(entries[0])
			assert.NilError(t, err)
			var entry map[string]any
			assert.NilError(t, json.Unmarshal(data, &entry))
			tc.plant(t, entry)
			data, err = json.Marshal(entry)
			assert.NilError(t, err)
			assert.NilError(t, os.WriteFile(entries[0], data, 0o644))
		}

		// CI, with the secret: the planted verdict does not pass the task.
		r = runCLI(t, dir, ciEnv, "run")
		assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Equal(t, fake.count(), 2, "the judge was asked again")
		assert.Assert(t, strings.Contains(r.stderr, "evalgate: warning: 1 judge cache entry in .evalgate/cache/judge failed its check and was ignored; the judge was asked again."), "stderr:\n%s", r.stderr)
		assert.Assert(t, strings.Contains(r.stderr, "set EVALGATE_CACHE_KEY to a secret in CI"), "stderr:\n%s", r.stderr)
		assert.Assert(t, !strings.Contains(r.stdout+r.stderr, secret), "the key was printed")
		res := resultsOf(t, filepath.Join(dir, "out", "results.json"))
		assert.Equal(t, res.Judge.CacheRejected, 1)
		assert.Equal(t, taskScores(res)["apology"], 0.0)

		// The judge's verdict replaced the planted one and is reused.
		r = runCLI(t, dir, ciEnv, "run")
		assert.Equal(t, r.code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Equal(t, fake.count(), 2, "the cache answered")
		assert.Assert(t, !strings.Contains(r.stderr, "judge cache"), "stderr:\n%s", r.stderr)
		assert.Equal(t, resultsOf(t, filepath.Join(dir, "out", "results.json")).Judge.CacheRejected, 0)
	}
	for _, tc := range []testCase{
		{name: "no MAC", plant: func(_ *testing.T, e map[string]any) {
			e["value"].(map[string]any)["met"] = []bool{true}
			delete(e, "mac")
		}},
		{name: "the MAC of the judge's own verdict", plant: func(t *testing.T, e map[string]any) {
			assert.Assert(t, e["mac"] != nil, "evalgate wrote no MAC")
			e["value"].(map[string]any)["met"] = []bool{true}
		}},
		{name: "written without the secret by a judge that says met", lyingRun: true},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
