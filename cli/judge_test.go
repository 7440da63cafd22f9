package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/retry"
	"github.com/evalgate/evalgate/results"
)

// rubricSuite has two rubric tasks mixing judged criteria with assert ones
// whose text the judge must never see (SECRET-ASSERT).
const rubricSuite = `suiteId: acme.support.evals.rubric
version: 1.0.0
modes: [rubric]
thresholds: {passScore: 0.5}
tasks:
  - taskId: weighted
    input: "Refund A-17 please"
    expected:
      kind: rubric
      rubric:
        - {criterion: 'Says "refund".', weight: 0.5}
        - {criterion: 'Says "sorry".', weight: 0.3}
        - criterion: SECRET-ASSERT stays short.
          weight: 0.2
          assert: {expr: 'len(output) < 100'}
  - taskId: heavier-miss
    input: {question: "Where is A-17?"}
    expected:
      kind: rubric
      rubric:
        - criterion: SECRET-ASSERT calls no tools.
          weight: 0.5
          assert: {toolNotCalled: "crm:lookup"}
        - {criterion: 'Says "order".', weight: 0.25}
        - {criterion: 'Says "tomorrow".', weight: 0.75}
`

// rubricProject writes a project with a plain agent and the rubric suite;
// judge is the config's judge block.
func rubricProject(t *testing.T, judge string) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evalgate.yaml":     "suites: [evals/]\nagent:\n  plain: [sh, agent.sh]\nout: out\n" + judge,
		"evals/rubric.yaml": rubricSuite,
		"agent.sh":          "cat > /dev/null\necho 'We will refund your order.'\n",
	})
	return dir
}

func resultsOf(t *testing.T, path string) *results.Run {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	var run results.Run
	assert.NilError(t, json.Unmarshal(data, &run))
	return &run
}

func taskScores(run *results.Run) map[string]float64 {
	out := map[string]float64{}
	for _, s := range run.Suites {
		for _, tk := range s.Tasks {
			out[tk.ID] = tk.Score
		}
	}
	return out
}

// readLines reads a JSON Lines file the judge appended to, sorted.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	assert.NilError(t, err)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	sort.Strings(lines)
	return lines
}

// TestExecJudgeGetsOnlyJudgedCriteria is the done-when test: a judge written
// outside the project from docs/judges.md alone gets exactly the judged criteria,
// never the assert ones, and the task scores follow the weights.
func TestExecJudgeGetsOnlyJudgedCriteria(t *testing.T) {
	judge, err := os.ReadFile(filepath.Join(testdata, "rubric", "judge.py"))
	assert.NilError(t, err)
	dir := rubricProject(t, "judge:\n  exec: [python3, judge.py, received.jsonl]\n")
	writeFiles(t, dir, map[string]string{"judge.py": string(judge)})

	// An exec judge has no API key: the cache is signed with
	// EVALGATE_CACHE_KEY, and without it keeps nothing.
	keyed := map[string]string{"EVALGATE_CACHE_KEY": "cache-secret-0123456789"}
	res := runCLI(t, dir, keyed, "run", "--config", "evalgate.yaml")
	assert.Equal(t, res.code, ExitPass, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)

	want := []string{
		`{"criteria": [{"criterion": "Says \"order\".", "weight": 0.25}, {"criterion": "Says \"tomorrow\".", "weight": 0.75}], "input": {"question": "Where is A-17?"}, "output": "We will refund your order.", "trace": []}`,
		`{"criteria": [{"criterion": "Says \"refund\".", "weight": 0.5}, {"criterion": "Says \"sorry\".", "weight": 0.3}], "input": "Refund A-17 please", "output": "We will refund your order.", "trace": []}`,
	}
	assert.Check(t, is.DeepEqual(want, readLines(t, filepath.Join(dir, "received.jsonl"))), "what the judge received")
	run := resultsOf(t, filepath.Join(dir, "out", "results.json"))
	// weighted: (0.5·1 + 0.3·0 + 0.2·1) / 1.0; heavier-miss: (0.5·1 + 0.25·1 + 0.75·0) / 1.5.
	wantScores := map[string]float64{"weighted": 0.7, "heavier-miss": 0.5}
	assert.Check(t, is.DeepEqual(wantScores, taskScores(run), cmp.Comparer(func(a, b float64) bool { return fmt.Sprintf("%.9f", a) == fmt.Sprintf("%.9f", b) })), "task scores")
	assert.DeepEqual(t, run.Judge, &results.JudgeInfo{ID: "exec:python3 judge.py received.jsonl"})
	checks := run.Suites[0].Tasks[0].Trials[0].Checks
	for _, c := range checks {
		assert.Equal(t, c.Judged, c.ID != "rubric[2]", "check %s", c.ID)
	}

	// A re-run of the unchanged tasks asks nobody and scores the same.
	res = runCLI(t, dir, keyed, "run", "--config", "evalgate.yaml")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	assert.Equal(t, len(readLines(t, filepath.Join(dir, "received.jsonl"))), 2, "the cache answered")
	assert.DeepEqual(t, taskScores(resultsOf(t, filepath.Join(dir, "out", "results.json"))), taskScores(run))

	// --no-cache asks again.
	res = runCLI(t, dir, keyed, "run", "--config", "evalgate.yaml", "--no-cache")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	assert.Equal(t, len(readLines(t, filepath.Join(dir, "received.jsonl"))), 4)
}

// fakeJudgeModel is an OpenAI-compatible judge on loopback: it parses each
// request and answers met for the criteria that quote a word the output
// holds.
type fakeJudgeModel struct {
	t      *testing.T
	status int // answered instead of 200 when set
	// busy answers the first request 429 with a Retry-After, when set.
	busy func() (retryAfter string)
	// lying answers met for every criterion, when set.
	lying atomic.Bool

	mu       sync.Mutex
	requests int
	prompts  []string
	auth     []string
	// busyAt is when the 429 was answered, againAt when its prompt came
	// again.
	busyAt, againAt time.Time
	busyPrompt      string
}

// count is how many requests the judge got.
func (f *fakeJudgeModel) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

func (f *fakeJudgeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model       string   `json:"model"`
		Temperature *float64 `json:"temperature"`
		Messages    []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		ResponseFormat struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var prompt string
	if len(req.Messages) == 2 {
		prompt = req.Messages[1].Content
	}
	f.mu.Lock()
	f.requests++
	first := f.requests == 1
	if !first && prompt == f.busyPrompt && f.againAt.IsZero() {
		f.againAt = time.Now()
	}
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if first && f.busy != nil {
		w.Header().Set("Retry-After", f.busy())
		f.mu.Lock()
		f.busyAt, f.busyPrompt = time.Now(), prompt
		f.mu.Unlock()
		http.Error(w, `{"error":{"type":"rate_limit_exceeded"}}`, http.StatusTooManyRequests)
		return
	}
	if f.status != 0 {
		http.Error(w, `{"error":{"type":"invalid_api_key"}}`, f.status)
		return
	}
	if req.Temperature == nil || *req.Temperature != 0 || req.ResponseFormat.Type != "json_object" || req.Model != "grader" || len(req.Messages) != 2 {
		f.t.Errorf("unexpected judge request: %+v", req)
	}
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	f.mu.Unlock()
	_, output, _ := strings.Cut(prompt, "## Agent output\n")
	output, criteria, _ := strings.Cut(output, "\n\n## Criteria")
	var verdicts []map[string]any
	for _, line := range strings.Split(criteria, "\n") {
		if _, c, ok := strings.Cut(line, ". Says \""); ok {
			word, _, _ := strings.Cut(c, "\"")
			verdicts = append(verdicts, map[string]any{"met": f.lying.Load() || strings.Contains(output, word), "reason": "r"})
		}
	}
	content, _ := json.Marshal(map[string]any{"criteria": verdicts})
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "```json\n" + string(content) + "\n```"}}},
		"usage":   map[string]any{"prompt_tokens": 1000, "completion_tokens": 100},
	})
}

func TestOpenAIJudgeThroughTheRun(t *testing.T) {
	fake := &fakeJudgeModel{t: t}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	dir := rubricProject(t, fmt.Sprintf(`judge:
  openai:
    baseURL: %s/v1
    model: grader
    apiKeyEnv: JUDGE_KEY
    pricing: {inputPerMTok: 1, outputPerMTok: 10}
  samples: 3
  concurrency: 2
`, srv.URL))
	res := runCLI(t, dir, map[string]string{"JUDGE_KEY": "sk-judge"}, "run", "--config", "evalgate.yaml")
	assert.Equal(t, res.code, ExitPass, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)

	assert.Equal(t, len(fake.prompts), 6, "two tasks, three samples each")
	for i, p := range fake.prompts {
		assert.Assert(t, !strings.Contains(p, "SECRET-ASSERT"), "an assert criterion reached the judge")
		assert.Assert(t, strings.Contains(p, `1. Says "`) && strings.Contains(p, `2. Says "`), "prompt lacks the criteria:\n%s", p)
		assert.Equal(t, fake.auth[i], "Bearer sk-judge")
	}
	run := resultsOf(t, filepath.Join(dir, "out", "results.json"))
	assert.Equal(t, fmt.Sprintf("%.3f %.3f", taskScores(run)["weighted"], taskScores(run)["heavier-miss"]), "0.700 0.500")
	// Six calls of 1000 + 100 tokens at $1 and $10 per million.
	assert.Equal(t, fmt.Sprintf("%.4f", run.JudgeCostUsd), "0.0120")
	assert.Equal(t, fmt.Sprintf("%.4f", run.TotalCostUsd), fmt.Sprintf("%.4f", run.AgentCostUsd+run.JudgeCostUsd))
	assert.DeepEqual(t, run.Judge, &results.JudgeInfo{ID: "openai:grader"})
}

// TestOpenAIJudgeRateLimited checks that a judge API asking to wait, with
// Retry-After as an HTTP date, gets the request again once that time has
// come, and the run goes on as if nothing happened.
func TestOpenAIJudgeRateLimited(t *testing.T) {
	fake := &fakeJudgeModel{t: t, busy: func() string {
		return time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	dir := rubricProject(t, fmt.Sprintf("judge:\n  openai: {baseURL: %s/v1, model: grader}\n  concurrency: 1\n", srv.URL))
	res := runCLI(t, dir, nil, "run", "--config", "evalgate.yaml")
	assert.Equal(t, res.code, ExitPass, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	assert.Equal(t, fake.requests, 3, "two tasks, and the one answered 429 again")
	assert.Equal(t, len(fake.prompts), 2)
	// The date has a whole second's resolution: the judge waited two to
	// three seconds, more than the one second of backoff it would wait
	// without the date, and less than the minute a wait is capped at, which
	// a date it misread would come to.
	waited := fake.againAt.Sub(fake.busyAt)
	assert.Assert(t, waited >= 2*time.Second && waited < retry.DefaultMaxWait, "the judge waited %v", waited)
	run := resultsOf(t, filepath.Join(dir, "out", "results.json"))
	assert.Equal(t, fmt.Sprintf("%.3f %.3f", taskScores(run)["weighted"], taskScores(run)["heavier-miss"]), "0.700 0.500")
}

func TestJudgeUnreachable(t *testing.T) {
	refuse := &fakeJudgeModel{t: t, status: http.StatusUnauthorized}
	srv := httptest.NewServer(refuse)
	defer srv.Close()
	type testCase struct {
		name       string
		judge      string
		wantCode   int
		wantStderr string
	}
	run := func(t *testing.T, tc testCase) {
		dir := rubricProject(t, tc.judge)
		res := runCLI(t, dir, nil, "run", "--config", "evalgate.yaml", "--no-cache")
		assert.Equal(t, res.code, tc.wantCode, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
		assert.Assert(t, strings.Contains(res.stderr, tc.wantStderr), "stderr:\n%s", res.stderr)
	}
	testCases := []testCase{
		{
			name:       "exec judge that cannot start",
			judge:      "judge:\n  exec: [./no-such-judge]\n",
			wantCode:   ExitRunError,
			wantStderr: "judge unreachable: the judge was unreachable for all 2 calls",
		},
		{
			name:       "model API refusing the key",
			judge:      fmt.Sprintf("judge:\n  openai: {baseURL: %s/v1, model: grader}\n", srv.URL),
			wantCode:   ExitRunError,
			wantStderr: "401 Unauthorized (invalid_api_key)",
		},
		{
			name:     "no judge: the tasks are errors, never passes",
			judge:    "",
			wantCode: ExitGateFail,
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
