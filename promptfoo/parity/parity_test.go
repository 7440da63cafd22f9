package parity

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/testenv"
	"github.com/evalgate/evalgate/internal/waittest"
)

// evalgate is the binary the test builds (TestMain), "" when it could not.
var evalgate string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "evalgate-parity-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	bin := filepath.Join(dir, "evalgate")
	build := exec.Command("go", "build", "-o", bin, "github.com/evalgate/evalgate")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(3)
	}
	evalgate = bin
	code := testenv.Run(m) // Python straight, not through a shim
	os.RemoveAll(dir)
	os.Exit(code)
}

// row names one verdict: a test, a prompt (its place among the config's
// prompts) and a provider.
type row struct{ test, prompt, provider int }

func (r row) String() string {
	return fmt.Sprintf("provider %d, test %d, prompt %d", r.provider, r.test, r.prompt)
}

// TestPromptfooParity imports each config of testdata/, runs it offline,
// and compares every row's verdict with promptfoo's own, recorded in
// promptfoo-results.json by promptfoo 0.123.1 (README.md there says how to
// record them again).
func TestPromptfooParity(t *testing.T) {
	for _, interp := range []string{"node", "python3"} {
		if _, err := exec.LookPath(interp); err != nil {
			t.Skip(interp + " is not installed")
		}
	}
	configs, err := filepath.Glob("testdata/*/promptfooconfig.yaml")
	assert.NilError(t, err)
	assert.Assert(t, len(configs) >= 20)
	for _, config := range configs {
		name := filepath.Base(filepath.Dir(config))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			abs, err := filepath.Abs(config)
			assert.NilError(t, err)
			want := recorded(t, filepath.Join(filepath.Dir(abs), "promptfoo-results.json"))
			got := verdicts(t, abs)
			assert.DeepEqual(t, got, want)
			failing := 0
			for _, ok := range want {
				if !ok {
					failing++
				}
			}
			assert.Assert(t, failing > 0 && failing < len(want), "promptfoo passed %d of %d rows: a parity config needs rows that pass and rows that fail", len(want)-failing, len(want))
		})
	}
}

// recorded reads promptfoo's verdicts.
func recorded(t *testing.T, path string) map[string]bool {
	t.Helper()
	var res struct {
		Results []struct {
			TestIdx     int  `json:"testIdx"`
			PromptIdx   int  `json:"promptIdx"`
			ProviderIdx int  `json:"providerIdx"`
			Success     bool `json:"success"`
		} `json:"results"`
	}
	readJSON(t, path, &res)
	out := map[string]bool{}
	for _, r := range res.Results {
		out[row{r.TestIdx, r.PromptIdx, r.ProviderIdx}.String()] = r.Success
	}
	assert.Assert(t, len(out) > 0)
	return out
}

// verdicts imports the config at path and runs each project file the
// import wrote: the verdict of every row.
func verdicts(t *testing.T, path string) map[string]bool {
	t.Helper()
	dir := t.TempDir()
	r := run(t, dir, "import", "promptfoo", path, "--out", ".")
	assert.Equal(t, r.code, 0, "%s", r.out)
	var report struct {
		Providers []struct {
			Project string `json:"project"`
		} `json:"providers"`
		Tasks []struct {
			SuiteID   string `json:"suiteId"`
			TaskID    string `json:"taskId"`
			TestIdx   int    `json:"testIdx"`
			PromptIdx int    `json:"promptIdx"`
			Project   string `json:"project"`
		} `json:"tasks"`
	}
	readJSON(t, filepath.Join(dir, "import-report.json"), &report)
	assert.Assert(t, len(report.Providers) > 0)
	got := map[string]bool{}
	for p, provider := range report.Providers {
		out := fmt.Sprintf("out-%d", p)
		r := run(t, dir, "run", "--config", provider.Project, "--out", out, "--gate", "true", "--quiet")
		assert.Equal(t, r.code, 0, "%s", r.out)
		var res struct {
			Suites []struct {
				SuiteID string `json:"suiteId"`
				Tasks   []struct {
					ID     string `json:"taskId"`
					Passed bool   `json:"passed"`
					Status string `json:"status"`
				} `json:"tasks"`
			} `json:"suites"`
		}
		readJSON(t, filepath.Join(dir, out, "results.json"), &res)
		verdict := map[string]bool{}
		for _, s := range res.Suites {
			for _, task := range s.Tasks {
				assert.Check(t, task.Status != "error", "task %s of %s is an error", task.ID, provider.Project)
				verdict[s.SuiteID+" "+task.ID] = task.Passed
			}
		}
		for _, ref := range report.Tasks {
			if ref.Project != provider.Project {
				continue
			}
			v, ok := verdict[ref.SuiteID+" "+ref.TaskID]
			assert.Check(t, ok, "%s: no verdict for %s %s", provider.Project, ref.SuiteID, ref.TaskID)
			got[row{ref.TestIdx, ref.PromptIdx, p}.String()] = v
		}
	}
	return got
}

type result struct {
	code int
	out  string
}

// run runs the evalgate binary in dir, with CI's environment and none of
// GitHub's, under the test's deadline.
func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	ctx := waittest.Context(t)
	cmd := exec.CommandContext(ctx, evalgate, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "RUNNER_") || name == "CI" {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "CI=true", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	assert.Assert(t, ctx.Err() == nil, "evalgate %s did not end within its deadline\n%s", strings.Join(args, " "), out)
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else {
		assert.NilError(t, err)
	}
	return result{code: code, out: string(out)}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(data, v))
}
