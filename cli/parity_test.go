package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestPromptfooParity imports each config of promptfoo/testdata/parity,
// runs it offline, and compares every test's verdict with promptfoo's own,
// recorded in promptfoo-results.json by promptfoo 0.123.1 (README there
// says how to record them again).
func TestPromptfooParity(t *testing.T) {
	for _, interp := range []string{"node", "python3"} {
		if _, err := exec.LookPath(interp); err != nil {
			t.Skip(interp + " is not installed")
		}
	}
	configs, err := filepath.Glob("../promptfoo/testdata/parity/*/promptfooconfig.yaml")
	assert.NilError(t, err)
	assert.Assert(t, len(configs) >= 13)
	for _, config := range configs {
		name := filepath.Base(filepath.Dir(config))
		t.Run(name, func(t *testing.T) {
			abs, err := filepath.Abs(config)
			assert.NilError(t, err)
			dir := t.TempDir()
			r := runCLI(t, dir, nil, "import", "promptfoo", abs, "--out", ".")
			assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			var report struct {
				Tasks []struct {
					TaskID    string `json:"taskId"`
					TestIdx   int    `json:"testIdx"`
					PromptIdx int    `json:"promptIdx"`
				} `json:"tasks"`
				Mapped []struct {
					Type string `json:"type"`
					To   string `json:"to"`
				} `json:"mapped"`
			}
			readJSON(t, filepath.Join(dir, "import-report.json"), &report)
			var want struct {
				Results []struct {
					TestIdx     int  `json:"testIdx"`
					PromptIdx   int  `json:"promptIdx"`
					ProviderIdx int  `json:"providerIdx"`
					Success     bool `json:"success"`
				} `json:"results"`
			}
			readJSON(t, filepath.Join(filepath.Dir(abs), "promptfoo-results.json"), &want)

			// Each provider has its project file, in the providers' order.
			var projects []string
			for _, m := range report.Mapped {
				if file, ok := strings.CutPrefix(m.To, "agent of "); ok && strings.HasPrefix(m.Type, "provider ") {
					projects = append(projects, file)
				}
			}
			got := map[string]string{}
			for p, project := range projects {
				out := fmt.Sprintf("out-%d", p)
				r = runCLI(t, dir, nil, "run", "--config", project, "--out", out, "--gate", "true")
				assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
				var res struct {
					Suites []struct {
						Tasks []struct {
							ID     string `json:"taskId"`
							Passed bool   `json:"passed"`
							Status string `json:"status"`
						} `json:"tasks"`
					} `json:"suites"`
				}
				readJSON(t, filepath.Join(dir, out, "results.json"), &res)
				verdict := map[string]string{}
				for _, task := range res.Suites[0].Tasks {
					assert.Assert(t, task.Status != "error", "task %s is an error", task.ID)
					verdict[task.ID] = fmt.Sprint(task.Passed)
				}
				for _, ref := range report.Tasks {
					got[fmt.Sprintf("provider %d, test %d, prompt %d", p, ref.TestIdx, ref.PromptIdx)] = verdict[ref.TaskID]
				}
			}
			wantV := map[string]string{}
			for _, w := range want.Results {
				wantV[fmt.Sprintf("provider %d, test %d, prompt %d", w.ProviderIdx, w.TestIdx, w.PromptIdx)] = fmt.Sprint(w.Success)
			}
			assert.Assert(t, len(wantV) > 0)
			assert.DeepEqual(t, got, wantV)
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(data, v))
}
