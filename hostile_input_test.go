package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/runner"
)

// hostileInputCases are the hostile corpus's cases of the files evalgate's
// inputs name and the structures they grow (docs/security.md, "One reader
// for every input file" and "Every structure an input grows has a
// budget"): results files given to merge, assess and trust that are not
// results, a CSV row of millions of cells, a scratch file a killed run
// left, a balance file whose latencies no shard can plan, a planted answer
// of the user simulator, and text XML forbids.
func hostileInputCases() []hostileCase {
	return []hostileCase{
		{
			name: "a shard whose results.json is a link to /dev/zero, merged", agent: "sleepy.sh",
			cmd:  []string{"merge", "--no-color", "--out", "merged"},
			args: []string{"shard-2"},
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.Mkdir(filepath.Join(dir, "shard-2"), 0o755))
				assert.NilError(t, os.Symlink("/dev/zero", filepath.Join(dir, "shard-2", "results.json")))
			},
			wantExit:   2,
			wantStderr: []string{`shard-2/results.json`, "expected a results file inside shard-2, got a path that leads outside it through a symbolic link (to /dev/zero)"},
		},
		{
			name: "a shard that is a link to /dev/zero, merged", agent: "sleepy.sh",
			cmd:  []string{"merge", "--no-color", "--out", "merged"},
			args: []string{"shard-1.json"},
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.Symlink("/dev/zero", filepath.Join(dir, "shard-1.json")))
			},
			wantExit:   2,
			wantStderr: []string{`shard-1.json`, "expected a results file (a regular file), found a character device"},
		},
		{
			name: "a results file of 10 GB, sparse, assessed", agent: "sleepy.sh",
			cmd:        []string{"assess"},
			args:       []string{"big.json"},
			setup:      func(t *testing.T, dir string) { sparseFile(t, filepath.Join(dir, "big.json"), 10<<30) },
			wantExit:   2,
			wantStderr: []string{"big.json", "the file is 10737418240 bytes, more than the 1 GiB a results file may hold"},
		},
		{
			name: "a run folder whose results.json is 10 GB, sparse, given to trust", agent: "sleepy.sh",
			cmd:  []string{"trust"},
			args: []string{"past"},
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.Mkdir(filepath.Join(dir, "past"), 0o755))
				sparseFile(t, filepath.Join(dir, "past", "results.json"), 10<<30)
			},
			wantExit:   2,
			wantStderr: []string{"past/results.json", "the file is 10737418240 bytes, more than the 1 GiB a results file may hold"},
		},
		{
			name: "a CSV dataset whose header is 32 million empty cells", agent: "sleepy.sh",
			setup: func(t *testing.T, dir string) {
				writeEvals(t, dir, "rows.yaml", "suiteId: hostile.evals.rows\nversion: 1.0.0\nmodes: [golden]\ndatasets:\n  - file: rows.csv\n"+
					"    task: {taskId: \"t-{row.id}\", input: \"{row.q}\", expected: {kind: golden, match: {strategy: exact, value: x}}}\n")
				writeEvals(t, dir, "rows.csv", "id,q"+strings.Repeat(",", 32_000_000)+"\n1,a\n")
			},
			wantExit:   2,
			wantStderr: []string{"rows.csv:1:1: the row has more than 10000 cells, the limit for a row"},
		},
		{
			name: "a scratch file a killed run left in the output folder", agent: "sleepy.sh", suite: "plain.yaml",
			env: map[string]string{"HOSTILE_SLEEP": "0"},
			setup: func(t *testing.T, dir string) {
				assert.NilError(t, os.Mkdir(filepath.Join(dir, "evalgate-out"), 0o755))
				// What a run killed with SIGKILL leaves: its trials' scratch file.
				assert.NilError(t, os.WriteFile(filepath.Join(dir, "evalgate-out", ".trials-2718281828.json"), []byte(`[{"trial":1}]`), 0o600))
			},
			wantExit: 0, outputs: true,
			check: func(t *testing.T, dir string, _ hostileResult) {
				left, err := filepath.Glob(filepath.Join(dir, "evalgate-out", ".trials-*.json"))
				assert.NilError(t, err)
				assert.Check(t, is.Len(left, 0), "the killed run's scratch file is still there")
			},
		},
		{
			name: "a balance file of latencies no shard can plan", agent: "sleepy.sh",
			env:  map[string]string{"HOSTILE_SLEEP": "0"},
			args: []string{"--shard", "1/2", "--balance", "history.json"},
			setup: func(t *testing.T, dir string) {
				var suite, tasks strings.Builder
				suite.WriteString("suiteId: hostile.evals.three\nversion: 1.0.0\nmodes: [golden]\ntasks:\n")
				for i := range 3 {
					fmt.Fprintf(&suite, "  - {taskId: t%d, input: ok, expected: {kind: golden, match: {strategy: contains, value: ok}}}\n", i)
					fmt.Fprintf(&tasks, "%s\n    {\"taskId\": \"t%d\", \"status\": \"passed\", \"score\": 1,\n     \"latencyMs\": 1000000000000}", map[bool]string{true: ",", false: ""}[i > 0], i)
				}
				writeEvals(t, dir, "three.yaml", suite.String())
				history := "{\"runId\": \"past\", \"suites\": [{\"suiteId\": \"hostile.evals.three\", \"tasks\": [" + tasks.String() + "]}]}\n"
				assert.NilError(t, os.WriteFile(filepath.Join(dir, "history.json"), []byte(history), 0o644))
			},
			// Sorted by latency, then id: t0 leads, its latencyMs on line 3.
			wantExit:   2,
			wantStderr: []string{"--balance history.json:3:19: /suites/0/tasks/0/latencyMs: the past latencies put more than 1e12 ms (some 30 years) on one shard"},
		},
		plantedSimulatorAnswer(),
		{
			name: "an organization whose name holds U+FFFE", agent: "sleepy.sh", suite: "plain.yaml",
			env:      map[string]string{"HOSTILE_SLEEP": "0"},
			config:   "assessment:\n  organization: \"acme\\uFFFE\\uFFFF corp\"\n",
			wantExit: 0, outputs: true,
			check: func(t *testing.T, dir string, _ hostileResult) {
				for _, name := range []string{"assessment.svg", "badge.svg", "junit.xml"} {
					dec := xml.NewDecoder(strings.NewReader(readOut(t, dir, name)))
					for {
						if _, err := dec.Token(); err != nil {
							assert.Check(t, is.Equal(err.Error(), "EOF"), "%s is not well-formed XML", name)
							break
						}
					}
				}
				assert.Check(t, is.Contains(readOut(t, dir, "assessment.svg"), "acme\uFFFD\uFFFD corp"))
			},
		},
	}
}

// plantedSimulatorAnswer is a user simulator with its own API key, no
// judge and no EVALGATE_CACHE_KEY, whose cache holds an answer planted
// under the key evalgate once derived from the simulator's address and
// model, which anyone who reads evalgate.yaml can compute: the answer is
// not believed, and the model is asked.
func plantedSimulatorAnswer() hostileCase {
	var asked atomic.Int32
	var heard atomic.Bool // a request to the model held the planted answer
	const model, instructions = "user-model", "You want order A-1 refunded."
	return hostileCase{
		name: "a planted answer in the user simulator's cache", agent: "talker.sh", exec: true,
		env: map[string]string{"SIM_KEY": "sim-secret-0123456789"},
		setup: func(t *testing.T, dir string) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				if body, err := io.ReadAll(r.Body); err != nil || bytes.Contains(body, []byte("planted")) {
					heard.Store(true)
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"id": "c", "model": %q, "choices": [{"index": 0, "message": {"role": "assistant", "content": %q}}], "usage": {"prompt_tokens": 10, "completion_tokens": 1}}`, model, runner.StopToken)
			}))
			t.Cleanup(srv.Close)
			baseURL := srv.URL + "/v1"
			f, err := os.OpenFile(filepath.Join(dir, "evalgate.yaml"), os.O_APPEND|os.O_WRONLY, 0)
			assert.NilError(t, err)
			_, err = fmt.Fprintf(f, "user:\n  simulator: {baseURL: %s, model: %s, apiKeyEnv: SIM_KEY}\n", baseURL, model)
			assert.NilError(t, err)
			assert.NilError(t, f.Close())
			writeEvals(t, dir, "open.yaml", "suiteId: hostile.evals.open\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: open\n    input: Hi\n"+
				"    user: {instructions: \""+instructions+"\", maxTurns: 2}\n    expected: {kind: golden, match: {strategy: exact, value: \"How can I help?\"}}\n")

			// The answer to the agent's first reply, planted as evalgate
			// once signed it without a secret.
			sim := &runner.Simulator{Model: &runner.OpenAI{BaseURL: baseURL, Model: model}}
			key := sim.AnswerKey(instructions, []string{"Hi", "How can I help?"})
			m := hmac.New(sha256.New, []byte("evalgate user simulator cache key without a secret\x00"+baseURL+"\x00"+model))
			fmt.Fprintf(m, "evalgate user simulator cache v1\x00%s\x00%t\x00%s", key, false, "planted")
			entry, err := json.Marshal(map[string]any{"message": "planted", "done": false, "mac": hex.EncodeToString(m.Sum(nil))})
			assert.NilError(t, err)
			path := filepath.Join(dir, filepath.FromSlash(runner.DefaultSimulatorCacheDir), key[:2], key+".json")
			assert.NilError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			assert.NilError(t, os.WriteFile(path, entry, 0o644))
		},
		wantExit: 0, outputs: true,
		check: func(t *testing.T, dir string, _ hostileResult) {
			assert.Check(t, is.Equal(asked.Load(), int32(1)), "the simulator's model is asked once, and says stop")
			assert.Check(t, !heard.Load(), "the planted answer was believed: the agent was told it")
			assert.Check(t, !strings.Contains(readOut(t, dir, "results.json"), "planted"), "the planted answer reached the run")
		},
	}
}

// sparseFile makes a file of size bytes that takes no room on disk.
func sparseFile(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	assert.NilError(t, err)
	assert.NilError(t, f.Truncate(size))
	assert.NilError(t, f.Close())
}
