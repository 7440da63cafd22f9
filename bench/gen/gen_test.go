package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/suites"
)

// referenceGen is the shared workload's reference generator, beside the
// repository (or where BENCH_REFERENCE_GEN says); the test that compares
// with it is skipped where it or node is missing.
func referenceGen() string {
	if p := os.Getenv("BENCH_REFERENCE_GEN"); p != "" {
		return p
	}
	p, _ := filepath.Abs("../../../shared/bench/gen.mjs")
	return p
}

var outputs = []string{"promptfooconfig.yaml", "evalgate.suite.json", "cases.jsonl", "evalgate.yaml"}

func TestMulberry32(t *testing.T) {
	// The first values of the reference generator for seed 1, as printed by
	// node: floor(rnd()*1000) for four calls.
	rnd := mulberry32(1)
	var got []int
	for range 4 {
		got = append(got, int(rnd()*1000))
	}
	assert.DeepEqual(t, got, []int{627, 2, 527, 981})
}

func TestGolden(t *testing.T) {
	type testCase struct {
		name string
		args []string
	}
	run := func(t *testing.T, tc testCase) {
		out := t.TempDir()
		args := append([]string{"gen", "-out", out, "-agent", "/bench/agent.sh", "-agent-plain", "/bench/agent-plain.sh"}, tc.args...)
		var stdout, stderr bytes.Buffer
		assert.NilError(t, run(args, &stdout, &stderr))
		for _, f := range outputs {
			data, err := os.ReadFile(filepath.Join(out, f))
			assert.NilError(t, err)
			golden.Assert(t, string(data), filepath.Join(tc.name, f))
		}
	}
	for _, tc := range []testCase{
		{name: "exec-3", args: []string{"-n", "3"}},
		{name: "openai-3-fail", args: []string{"-n", "3", "-provider", "openai", "-fail-every", "2", "-json-check", "js"}},
		{name: "rubric-openai-3-fail", args: []string{"-n", "3", "-workload", "rubric", "-provider", "openai", "-fail-every", "2"}},
		{name: "rubric-exec-2", args: []string{"-n", "2", "-workload", "rubric"}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestFlagErrors(t *testing.T) {
	type testCase struct {
		name string
		args []string
		want string
	}
	run := func(t *testing.T, tc testCase) {
		var stdout, stderr bytes.Buffer
		err := run(append([]string{"gen", "-out", t.TempDir()}, tc.args...), &stdout, &stderr)
		assert.ErrorContains(t, err, tc.want)
	}
	for _, tc := range []testCase{
		{name: "provider", args: []string{"-provider", "grpc"}, want: `unknown provider "grpc"`},
		{name: "format", args: []string{"-format", "csv"}, want: `unknown format "csv"`},
		{name: "assert", args: []string{"-asserts", "equals,length"}, want: `unknown assert kind "length"`},
		{name: "negative", args: []string{"-n", "-1"}, want: "-n must not be negative"},
		{name: "workload", args: []string{"-workload", "vibes"}, want: `unknown workload "vibes" (have: checks, rubric)`},
		{name: "rubric asserts", args: []string{"-workload", "rubric", "-asserts", "equals"}, want: "-asserts applies to the checks workload only"},
		{name: "argument", args: []string{"extra"}, want: `unexpected argument "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestSameAsReference checks that every file, header comment aside, is
// byte for byte what the reference generator writes for the same flags.
func TestSameAsReference(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	ref := referenceGen()
	if _, err := os.Stat(ref); err != nil {
		t.Skipf("the reference generator %s is not here", ref)
	}
	refDir := filepath.Dir(ref)
	type testCase struct {
		name string
		args []string
	}
	run := func(t *testing.T, tc testCase) {
		want, got := t.TempDir(), t.TempDir()
		cmd := exec.Command(node, append([]string{ref, "--out", want}, tc.args...)...)
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, string(out))
		var goArgs []string
		for _, a := range tc.args {
			goArgs = append(goArgs, strings.Replace(a, "--", "-", 1))
		}
		goArgs = append([]string{"gen", "-out", got,
			"-agent", filepath.Join(refDir, "agent.sh"), "-agent-plain", filepath.Join(refDir, "agent-plain.sh")}, goArgs...)
		var stdout, stderr bytes.Buffer
		assert.NilError(t, run(goArgs, &stdout, &stderr))
		for _, f := range outputs {
			w, err := os.ReadFile(filepath.Join(want, f))
			assert.NilError(t, err)
			g, err := os.ReadFile(filepath.Join(got, f))
			assert.NilError(t, err)
			w, g = dropHeader(w), dropHeader(g)
			assert.Assert(t, bytes.Equal(w, g), "%s differs from the reference (%d vs %d bytes)", f, len(g), len(w))
		}
	}
	for _, tc := range []testCase{
		{name: "exec-1000", args: []string{"--n", "1000"}},
		{name: "exec-5000", args: []string{"--n", "5000", "--provider", "exec"}},
		{name: "openai-5000", args: []string{"--n", "5000", "--provider", "openai"}},
		{name: "http-port", args: []string{"--n", "50", "--provider", "http", "--port", "18099"}},
		{name: "fail-js-seed", args: []string{"--n", "300", "--fail-every", "7", "--json-check", "js", "--seed", "42"}},
		{name: "subset", args: []string{"--n", "20", "--asserts", "regex,equals"}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// dropHeader removes the "# generated by" comment on the first line, which
// names the generator.
func dropHeader(b []byte) []byte {
	if bytes.HasPrefix(b, []byte("# generated by ")) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return b[i+1:]
		}
	}
	return b
}

// TestRubricWorkload checks the rubric workload's shape: evalgate reads its
// suite and config as a rubric suite judged by the mock, and promptfoo's
// config and cases.jsonl hold the same three criteria a case as
// llm-rubric assertions graded by the mock; every k-th case, and only it,
// names a wrong sum in its answer criterion. (The workload is evalgate's
// own: no reference generator has it.)
func TestRubricWorkload(t *testing.T) {
	const n, failEvery, port = 25, 10, 18099
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	assert.NilError(t, run([]string{"gen", "-out", out, "-workload", "rubric", "-provider", "openai",
		"-n", strconv.Itoa(n), "-fail-every", strconv.Itoa(failEvery), "-port", strconv.Itoa(port)}, &stdout, &stderr))
	mock := fmt.Sprintf("http://127.0.0.1:%d/v1", port)
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(out, name))
		assert.NilError(t, err)
		return data
	}

	// What each case's criteria must be, from its input alone.
	cases := BuildCases(n, 1, 0)
	var want [][]string
	var failing []string
	for i := range n {
		var id string
		var a, b int
		_, err := fmt.Sscanf(cases[i].Input, "task %s add %d %d", &id, &a, &b)
		assert.NilError(t, err)
		id = strings.TrimSuffix(id, ":")
		answer := a + b
		if (i+1)%failEvery == 0 {
			answer++
			failing = append(failing, id)
		}
		want = append(want, []string{
			fmt.Sprintf(`The output's "id" field is "%s".`, id),
			fmt.Sprintf(`The output's "answer" field is %d.`, answer),
			fmt.Sprintf(`The output's "text" field is "The sum of %d and %d is %d".`, a, b, a+b),
		})
	}
	assert.DeepEqual(t, failing, []string{"t9", "t19"})

	suite, err := suites.Parse("evalgate.suite.json", read("evalgate.suite.json"))
	assert.NilError(t, err)
	assert.Equal(t, suite.ID, "bench.evalgate.evals.rubric-openai-25")
	assert.DeepEqual(t, suite.Modes, []string{"rubric"})
	assert.Equal(t, len(suite.Tasks), n)
	for i, ref := range suite.Tasks {
		task, err := suite.Full(ref)
		assert.NilError(t, err)
		assert.Equal(t, task.ID, fmt.Sprintf("t%d", i))
		assert.Equal(t, task.Expected.Kind, suites.KindRubric)
		var got []string
		for _, c := range task.Expected.Rubric {
			assert.Equal(t, c.Weight, 1.0)
			assert.Assert(t, c.Assert == nil, "%s: every criterion goes to the judge", task.ID)
			got = append(got, c.Criterion)
		}
		assert.DeepEqual(t, got, want[i])
	}

	cfg, err := config.Parse(filepath.Join(out, "evalgate.yaml"), read("evalgate.yaml"))
	assert.NilError(t, err)
	assert.Equal(t, cfg.Agent.OpenAI.BaseURL, mock)
	assert.Equal(t, cfg.Judge.OpenAI.BaseURL, mock)
	assert.Equal(t, cfg.Judge.Samples, 1)

	var pf struct {
		Providers []struct {
			ID     string `yaml:"id"`
			Config struct {
				APIBaseURL string `yaml:"apiBaseUrl"`
			} `yaml:"config"`
		} `yaml:"providers"`
		DefaultTest struct {
			Options struct {
				Provider struct {
					ID     string `yaml:"id"`
					Config struct {
						APIBaseURL string `yaml:"apiBaseUrl"`
					} `yaml:"config"`
				} `yaml:"provider"`
			} `yaml:"options"`
		} `yaml:"defaultTest"`
		Tests []struct {
			Description string `yaml:"description"`
			Vars        struct {
				Input string `yaml:"input"`
			} `yaml:"vars"`
			Assert []pfAssert `yaml:"assert"`
		} `yaml:"tests"`
	}
	assert.NilError(t, yaml.Unmarshal(read("promptfooconfig.yaml"), &pf))
	assert.Equal(t, len(pf.Providers), 1)
	assert.Equal(t, pf.Providers[0].ID, "openai:chat:mock-model")
	assert.Equal(t, pf.Providers[0].Config.APIBaseURL, mock)
	assert.Equal(t, pf.DefaultTest.Options.Provider.ID, "openai:chat:mock-judge")
	assert.Equal(t, pf.DefaultTest.Options.Provider.Config.APIBaseURL, mock)
	assert.Equal(t, len(pf.Tests), n)
	for i, tc := range pf.Tests {
		assert.Equal(t, tc.Description, suite.Tasks[i].ID)
		task, err := suite.Full(suite.Tasks[i])
		assert.NilError(t, err)
		assert.Equal(t, jsonText(tc.Vars.Input), string(task.Input))
		assert.DeepEqual(t, rubricValues(t, tc.Assert), want[i])
	}

	lines := strings.Split(strings.TrimSuffix(string(read("cases.jsonl")), "\n"), "\n")
	assert.Equal(t, len(lines), n)
	for i, line := range lines {
		var c struct {
			ID      string     `json:"id"`
			Asserts []pfAssert `json:"asserts"`
		}
		assert.NilError(t, json.Unmarshal([]byte(line), &c))
		assert.Equal(t, c.ID, suite.Tasks[i].ID)
		assert.DeepEqual(t, rubricValues(t, c.Asserts), want[i])
	}
}

// rubricValues are the criteria of llm-rubric assertions; any other kind
// fails the test.
func rubricValues(t *testing.T, as []pfAssert) []string {
	t.Helper()
	var out []string
	for _, a := range as {
		assert.Equal(t, a.Type, "llm-rubric")
		s, ok := a.Value.(string)
		assert.Assert(t, ok, "an llm-rubric value is a string, got %v", a.Value)
		out = append(out, s)
	}
	return out
}
