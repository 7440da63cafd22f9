package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/diag"
)

func TestParse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "evalgate.yaml")
	src := `
suites: [evals/, more/suite.json]
agent:
  exec: [python3, agent.py]
  modelClass: general
  mcp: true
  otel: true
  env: {MODE: test, KEY: "${HOME}"}
  version: 1.4.0
  health: ./agent.py --health
judge:
  exec: "./judge.sh --strict"
  samples: 3
  concurrency: 2
concurrency: 4
timeout: 90s
trials: 2
baseline: .evalgate/baseline.json
gates:
  - aggregateScore >= 0.9
  - regression.newFailures == 0
out: out
trust:
  owner: "@acme/support"
  history: [history/last.json]
pricing:
  gpt-4o: {inputPerMTok: 2.5, outputPerMTok: 10}
otel: {endpoint: "http://127.0.0.1:4318", forward: false}
`
	c, err := Parse(path, []byte(src))
	assert.NilError(t, err)
	want := &Config{
		File:   path,
		Dir:    dir,
		Suites: []string{filepath.Join(dir, "evals"), filepath.Join(dir, "more/suite.json")},
		Agent: Agent{
			Exec:       []string{"python3", "agent.py"},
			ModelClass: "general",
			Env:        map[string]string{"MODE": "test", "KEY": "${HOME}"},
			Dir:        dir,
			Version:    "1.4.0",
			Health:     []string{"/bin/sh", "-c", "./agent.py --health"},
			MCP:        true,
			OTel:       true,
		},
		Judge:       Judge{Exec: []string{"/bin/sh", "-c", "./judge.sh --strict"}, Samples: 3, Concurrency: 2},
		Concurrency: 4,
		Timeout:     90 * time.Second,
		Trials:      2,
		Baseline:    filepath.Join(dir, ".evalgate/baseline.json"),
		BaselineAt:  diag.Pos{File: path, Line: 18, Col: 11},
		Gates:       []string{"aggregateScore >= 0.9", "regression.newFailures == 0"},
		Out:         filepath.Join(dir, "out"),
		Trust:       &Trust{Owner: "@acme/support", History: []string{filepath.Join(dir, "history/last.json")}, MaxRepeats: 3},
		Pricing:     map[string]Pricing{"gpt-4o": {InputPerMTok: 2.5, OutputPerMTok: 10}},
		OTel:        OTelExport{Endpoint: "http://127.0.0.1:4318"},
	}
	assert.Check(t, is.DeepEqual(want, c, cmpopts.IgnoreUnexported(Config{}), cmpopts.IgnoreFields(OpenAI{}, "APIKeyEnvAt")), "config")

	c, err = Parse(path, []byte("trust:\n"))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(&Trust{MaxRepeats: DefaultMaxRepeats}, c.Trust), "trust alone")
}

func TestParseExplain(t *testing.T) {
	for src, want := range map[string]*bool{"": nil, "explain: true\n": new(true), "explain: false\n": new(false)} {
		c, err := Parse("evalgate.yaml", []byte(src))
		assert.NilError(t, err)
		assert.DeepEqual(t, c.Explain, want)
	}
	_, err := Parse("evalgate.yaml", []byte("explain: yes please\n"))
	assert.Error(t, err, "evalgate.yaml:1:10: explain: expected true or false")
}

func TestParseKeepsSchemeBaselines(t *testing.T) {
	for _, b := range []string{"git:main:.evalgate/baseline.json", "github-artifact:evalgate-results"} {
		c, err := Parse("evalgate.yaml", []byte("baseline: "+b))
		assert.NilError(t, err)
		assert.Check(t, c.Baseline == b, "baseline = %q, want %q", c.Baseline, b)
	}
}

func TestParseUserSimulator(t *testing.T) {
	c, err := Parse("evalgate.yaml", []byte("user:\n  simulator: {baseURL: http://127.0.0.1:9/v1, model: m, apiKeyEnv: SIM_KEY, pricing: {inputPerMTok: 1}}\n"))
	assert.NilError(t, err)
	assert.DeepEqual(t, c.User.Simulator, &OpenAI{BaseURL: "http://127.0.0.1:9/v1", Model: "m", APIKeyEnv: "SIM_KEY",
		APIKeyEnvAt: diag.Pos{File: "evalgate.yaml", Line: 2, Col: 68}, Pricing: Pricing{InputPerMTok: 1}})
}

func TestParseErrors(t *testing.T) {
	type testCase struct {
		name string
		src  string
		want []string
	}
	run := func(t *testing.T, tc testCase) {
		_, err := Parse("evalgate.yaml", []byte(tc.src))
		assert.Assert(t, err != nil, "no error")
		got := strings.Split(err.Error(), "\n")
		assert.Check(t, is.DeepEqual(tc.want, got), "errors")
	}
	for _, tc := range []testCase{
		{
			name: "unknown keys list the allowed ones",
			src:  "suites: [a]\nrunner: {}\n",
			want: []string{`evalgate.yaml:2:1: config: unknown key "runner"; expected one of "agent", "assessment", "baseline", "concurrency", "explain", "gates", "history", "judge", "otel", "out", "pricing", "suites", "timeout", "trials", "trust", "user"`},
		},
		{
			name: "a misspelt key names the one meant",
			src:  "sutes: [a]\nagnet: {}\n",
			want: []string{
				`evalgate.yaml:1:1: config: unknown key "sutes"; did you mean "suites"?`,
				`evalgate.yaml:2:1: config: unknown key "agnet"; did you mean "agent"?`,
			},
		},
		{
			name: "the user simulator is a model without a prompt of its own",
			src:  "user:\n  simulator: {baseURL: http://127.0.0.1:9/v1, systemPrompt: hi}\n",
			want: []string{
				`evalgate.yaml:2:47: user.simulator: unknown key "systemPrompt"; expected one of "apiKeyEnv", "baseURL", "model", "pricing"`,
				`evalgate.yaml:2:14: user.simulator: model is required`,
			},
		},
		{
			name: "every error at once",
			src:  "concurrency: 0\ntimeout: soon\nagent:\n  exec: [a]\n  plain: [b]\n  modelClass: huge\n",
			want: []string{
				`evalgate.yaml:1:14: concurrency: expected an integer >= 1`,
				`evalgate.yaml:2:10: timeout: expected a positive duration such as 90s or 2m`,
				`evalgate.yaml:4:3: agent: set only one of "exec", "plain", "openai"`,
				`evalgate.yaml:4:3: agent.modelClass: expected one of "reasoning", "writing", "coding", "research", "classification", "general", got "huge"`,
			},
		},
		{
			name: "mcp is a boolean for exec and plain agents",
			src:  "agent:\n  openai: {baseURL: http://x, model: m}\n  mcp: true\n",
			want: []string{`evalgate.yaml:2:3: agent.mcp: applies to exec and plain agents; an openai agent's tools are answered by evalgate's own loop`},
		},
		{
			name: "otel is for exec and plain agents",
			src:  "agent:\n  openai: {baseURL: http://x, model: m}\n  otel: true\n",
			want: []string{`evalgate.yaml:2:3: agent.otel: applies to exec and plain agents; an openai agent's calls are made by evalgate, which counts them itself`},
		},
		{
			name: "pricing is a table of models",
			src:  "pricing:\n  m: {inputPerMTok: -1, outputPerMtok: 2}\n  m: {}\n",
			want: []string{
				`evalgate.yaml:2:21: pricing.m.inputPerMTok: expected a number >= 0`,
				`evalgate.yaml:2:25: pricing.m: unknown key "outputPerMtok"; did you mean "outputPerMTok"?`,
				`evalgate.yaml:3:3: pricing: model "m" is priced twice`,
			},
		},
		{
			name: "otel needs an endpoint",
			src:  "otel: {forwrd: true}\n",
			want: []string{
				`evalgate.yaml:1:8: otel: unknown key "forwrd"; did you mean "forward"?`,
				`evalgate.yaml:1:7: otel: endpoint is required: the OTLP/HTTP address of a collector, such as http://127.0.0.1:4318`,
			},
		},
		{
			name: "pricing is a mapping",
			src:  "pricing: [a]\n",
			want: []string{`evalgate.yaml:1:10: pricing: expected a mapping of model names to {inputPerMTok, outputPerMTok}`},
		},
		{
			name: "mcp is true or false",
			src:  "agent:\n  exec: [a]\n  mcp: yes\n",
			want: []string{`evalgate.yaml:3:8: agent.mcp: expected true or false`},
		},
		{
			name: "openai needs baseURL and model",
			src:  "agent:\n  openai: {apiKeyEnv: K}\n",
			want: []string{
				`evalgate.yaml:2:11: agent.openai: baseURL is required`,
				`evalgate.yaml:2:11: agent.openai: model is required`,
			},
		},
		{
			name: "invalid yaml",
			src:  "suites: [a\n",
			want: []string{`evalgate.yaml:1:1: invalid YAML: did not find expected ',' or ']'`},
		},
		{
			name: "invalid yaml at the problem's line, not its mapping's",
			src:  "suites: [evals/]\nagent:\n  exec: [python3, agent.py]\n  env:\n    A: 1\n\n   B: 2\n",
			want: []string{`evalgate.yaml:7:1: invalid YAML: did not find expected key (in the mapping that starts at line 3)`},
		},
		{
			name: "gates that do not compile, at their place",
			src: "gates:\n  - aggregateScore >= 0.9\n  - aggregateScor >= 0.9\n  - 'regression.newFailure == 0'\n" +
				"  - \"findings.critical == 0 && \\\"x\\\" == passe\"\n  - >-\n    passRate >\n  - aggregateScore\n",
			want: []string{
				`evalgate.yaml:3:5: gates[1]: unknown name "aggregateScor"; did you mean aggregateScore?`,
				`evalgate.yaml:4:17: gates[2]: regression has no field "newFailure"; did you mean newFailures?`,
				`evalgate.yaml:5:5: gates[3]: column 34: unknown name "passe"; did you mean passed?`,
				`evalgate.yaml:6:5: gates[4]: column 10: unexpected end of the expression`,
				`evalgate.yaml:8:5: gates[5]: the expression must yield true or false, not a value of type number`,
			},
		},
		{
			name: "trust block",
			src:  "trust:\n  owner: [a]\n  maxRepeat: 2\n  maxRepeats: 0\n",
			want: []string{
				`evalgate.yaml:2:10: trust.owner: expected a string`,
				`evalgate.yaml:3:3: trust: unknown key "maxRepeat"; did you mean "maxRepeats"?`,
				`evalgate.yaml:4:15: trust.maxRepeats: expected an integer >= 1`,
			},
		},
		{
			name: "a gate on its own",
			src:  "gates: passRat > 0.5\n",
			want: []string{`evalgate.yaml:1:8: gates[0]: unknown name "passRat"; did you mean passRate?`},
		},
		{
			name: "wrong shapes",
			src:  "suites: {a: 1}\ngates: 3\n",
			want: []string{
				`evalgate.yaml:1:9: suites: expected a string or a list of strings`,
				`evalgate.yaml:2:8: gates[0]: the expression must yield true or false, not a value of type integer`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestLoadMissingDefaultIsEmpty(t *testing.T) {
	c, err := Load(filepath.Join(t.TempDir(), "evalgate.yaml"), false)
	assert.Assert(t, err == nil && c.File == "", "Load = %+v, %v; want the empty config", c, err)
	missing := filepath.Join(t.TempDir(), "evalgate.yaml")
	_, err = Load(missing, true)
	// The reason, without the system call and the path it repeats.
	assert.Error(t, err, fmt.Sprintf("could not read config %q: no such file or directory", missing))
}

// TestLoadLimit: a config is a regular file read through MaxFileBytes, so
// /dev/zero or a huge file is refused before it fills memory; /dev/null is
// no settings.
func TestLoadLimit(t *testing.T) {
	big := filepath.Join(t.TempDir(), "evalgate.yaml")
	f, err := os.Create(big)
	assert.NilError(t, err)
	assert.NilError(t, f.Truncate(MaxFileBytes+1)) // sparse
	assert.NilError(t, f.Close())
	_, err = Load(big, true)
	assert.Error(t, err, big+": the file is 1048577 bytes; expected a config of at most 1048576 bytes (1 MiB)")
	_, err = Load(t.TempDir(), true)
	assert.ErrorContains(t, err, "expected a config file (a regular file), found a folder")
	c, err := Load(os.DevNull, true)
	assert.NilError(t, err)
	assert.Equal(t, len(c.Suites), 0)
}

// TestParseResolvesPaths: every path of the file is relative to its folder;
// absolute paths and git:/github-artifact: baselines are left as they are.
func TestParseResolvesPaths(t *testing.T) {
	dir := filepath.Join("proj", "sub")
	src := `
suites: [evals/, /abs/suite.yaml]
agent:
  openai: {baseURL: http://127.0.0.1:9/v1, model: m, systemPromptFile: prompts/agent.md}
  dir: bin
judge:
  exec: [./judge.sh]
  calibration: cal/calibration.json
baseline: base/baseline.json
out: ../out
`
	c, err := Parse(filepath.Join(dir, "evalgate.yaml"), []byte(src))
	assert.NilError(t, err)
	got := map[string]any{
		"suites":           c.Suites,
		"systemPromptFile": c.Agent.OpenAI.SystemPromptFile,
		"agent.dir":        c.Agent.Dir,
		"calibration":      c.Judge.Calibration,
		"baseline":         c.Baseline,
		"out":              c.Out,
		"Path":             c.Path(".evalgate/cache/judge"),
	}
	want := map[string]any{
		"suites":           []string{"proj/sub/evals", "/abs/suite.yaml"},
		"systemPromptFile": "proj/sub/prompts/agent.md",
		"agent.dir":        "proj/sub/bin",
		"calibration":      "proj/sub/cal/calibration.json",
		"baseline":         "proj/sub/base/baseline.json",
		"out":              "proj/out",
		"Path":             "proj/sub/.evalgate/cache/judge",
	}
	assert.DeepEqual(t, got, want)

	// Without a folder (a config in the working directory) paths stay as written.
	c, err = Parse("evalgate.yaml", []byte("suites: [evals/]\nout: out\n"))
	assert.NilError(t, err)
	assert.DeepEqual(t, []string{c.Suites[0], c.Out, c.Path(".evalgate/cache/judge")}, []string{"evals/", "out", ".evalgate/cache/judge"})
}

// TestJudgeOpenAIHasNoAgentKeys: the judge has its own prompt and
// temperature 0, so the agent's keys are errors under judge.openai rather
// than settings that do nothing.
func TestJudgeOpenAIHasNoAgentKeys(t *testing.T) {
	_, err := Parse("evalgate.yaml", []byte("judge:\n  openai: {baseURL: http://x/v1, model: m, systemPromptFile: p.md, temperature: 0.5}\n"))
	assert.Error(t, err, `evalgate.yaml:2:44: judge.openai: unknown key "systemPromptFile"; expected one of "apiKeyEnv", "baseURL", "model", "pricing"`+"\n"+
		`evalgate.yaml:2:68: judge.openai: unknown key "temperature"; expected one of "apiKeyEnv", "baseURL", "model", "pricing"`)
}

// TestFilesStayInTheRepository: the files a config makes evalgate read and
// pass on (the system prompt, sent to the model; the calibration) must be
// in the repository, once ".." and symbolic links are resolved. The
// repository is the git work tree holding evalgate.yaml, else its folder.
func TestFilesStayInTheRepository(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	for _, d := range []string{".git", "sub", "prompts", "../outside", "../plain/prompts"} {
		assert.NilError(t, os.MkdirAll(filepath.Join(repo, d), 0o755))
	}
	for _, f := range []string{"prompts/agent.md", "sub/agent.md", "../outside/secret.md", "../plain/prompts/agent.md"} {
		assert.NilError(t, os.WriteFile(filepath.Join(repo, f), []byte("prompt"), 0o644))
	}
	assert.NilError(t, os.Symlink(filepath.Join(tmp, "outside", "secret.md"), filepath.Join(repo, "sub", "link.md")))
	assert.NilError(t, os.Symlink("../prompts/agent.md", filepath.Join(repo, "sub", "inlink.md")))
	assert.NilError(t, os.Symlink(filepath.Join(tmp, "outside"), filepath.Join(repo, "sub", "linkdir")))

	type testCase struct {
		name    string
		dir     string // the folder of evalgate.yaml, under tmp
		setting string // agent.openai.systemPromptFile, or judge.calibration with judge: true
		judge   bool
		wantErr string // "" for none
	}
	run := func(t *testing.T, tc testCase) {
		path := filepath.Join(tmp, tc.dir, "evalgate.yaml")
		src := "agent:\n  openai: {baseURL: http://127.0.0.1:9/v1, model: m, systemPromptFile: '" + tc.setting + "'}\n"
		if tc.judge {
			src = "judge:\n  exec: [./judge.sh]\n  calibration: '" + tc.setting + "'\n"
		}
		assert.NilError(t, os.WriteFile(path, []byte(src), 0o644))
		_, err := Load(path, true)
		if tc.wantErr == "" {
			assert.NilError(t, err)
			return
		}
		assert.ErrorContains(t, err, strings.ReplaceAll(strings.ReplaceAll(tc.wantErr, "FILE", path), "TMP", tmp))
	}
	for _, tc := range []testCase{
		{name: "in the folder", dir: "repo/sub", setting: "agent.md"},
		{name: "elsewhere in the repository", dir: "repo/sub", setting: "../prompts/agent.md"},
		{name: "a link within the repository", dir: "repo/sub", setting: "inlink.md"},
		{name: "a calibration not written yet", dir: "repo/sub", setting: ".evalgate/calibration.json", judge: true},
		{
			name: "an absolute path", dir: "repo/sub", setting: "/proc/self/environ",
			wantErr: `FILE:2:72: agent.openai.systemPromptFile: "/proc/self/environ" is an absolute path; name a file in the repository, relative to evalgate.yaml's folder, such as prompts/agent.md`,
		},
		{
			name: "climbing out", dir: "repo/sub", setting: "../../etc/passwd",
			wantErr: `FILE:2:72: agent.openai.systemPromptFile: "../../etc/passwd" leads outside the repository; name a file inside TMP/repo`,
		},
		{
			name: "a link out of the repository", dir: "repo/sub", setting: "link.md",
			wantErr: `FILE:2:72: agent.openai.systemPromptFile: "link.md" leads outside the repository through a symbolic link (to TMP/outside/secret.md); name a file inside TMP/repo`,
		},
		{
			name: "a file under a linked folder", dir: "repo/sub", setting: "linkdir/secret.md",
			wantErr: `"linkdir/secret.md" leads outside the repository through a symbolic link (to TMP/outside/secret.md)`,
		},
		{
			name: "a calibration out of the repository", dir: "repo/sub", setting: "../../cal.json", judge: true,
			wantErr: `FILE:3:16: judge.calibration: "../../cal.json" leads outside the repository; name a file inside TMP/repo`,
		},
		{
			name: "without git the folder of evalgate.yaml is the root", dir: "plain", setting: "../outside/secret.md",
			wantErr: `"../outside/secret.md" leads outside the repository; name a file inside TMP/plain`,
		},
		{name: "without git, inside the folder", dir: "plain", setting: "prompts/agent.md"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestParseAliasBomb: the config reader never expands a YAML alias (an
// alias where a value is expected is the wrong shape), so an alias bomb
// costs no more than its text.
func TestParseAliasBomb(t *testing.T) {
	bomb, err := os.ReadFile("../suites/testdata/err/yaml-alias-bomb.yaml")
	assert.NilError(t, err)
	_, err = Parse("evalgate.yaml", append(bomb, "suites: *i\n"...))
	assert.ErrorContains(t, err, "evalgate.yaml:10:9: suites: expected a string or a list of strings")
}

// TestParseDeepGate: a gate nested half a million parentheses deep, which
// fits in a config file, is refused at its place before expr-lang parses
// it (its parser's stack overflowed, a fatal error).
func TestParseDeepGate(t *testing.T) {
	deep := strings.Repeat("(", 500_000) + "passed" + strings.Repeat(")", 500_000)
	_, err := Parse("evalgate.yaml", []byte("gates:\n  - passed\n  - "+deep+"\n"))
	assert.Error(t, err, "evalgate.yaml:3:5: gates[1]: expected an expression of at most 4096 bytes, got 1000006 bytes; split it into several gates")
}

// TestParseOTelForwardsByDefault: otel: with an endpoint alone sends the
// agents' spans too.
func TestParseOTelForwardsByDefault(t *testing.T) {
	c, err := Parse("evalgate.yaml", []byte("otel: {endpoint: http://127.0.0.1:4318}\n"))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(c.OTel, OTelExport{Endpoint: "http://127.0.0.1:4318", Forward: true}))
}
