package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/judges"
)

func TestChat(t *testing.T) {
	type testCase struct {
		name   string
		method string
		path   string
		body   string
		status int
		want   string // a substring of the reply
	}
	m := &mock{}
	srv := httptest.NewServer(m.routes())
	defer srv.Close()
	run := func(t *testing.T, tc testCase) {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		assert.NilError(t, err)
		resp, err := srv.Client().Do(req)
		assert.NilError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		assert.NilError(t, err)
		assert.Equal(t, resp.StatusCode, tc.status, string(body))
		assert.Assert(t, strings.Contains(string(body), tc.want), string(body))
	}
	for _, tc := range []testCase{
		{
			name: "task", method: "POST", path: "/v1/chat/completions", status: 200,
			body: `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"task t7: add 627 2"}]}`,
			want: `"content":"{\"id\":\"t7\",\"answer\":629,\"text\":\"The sum of 627 and 2 is 629\"}"`,
		},
		{
			name: "parts", method: "POST", path: "/chat/completions", status: 200,
			body: `{"messages":[{"role":"user","content":[{"type":"text","text":"task t1: add 1 2"}]}]}`,
			want: `\"answer\":3,`,
		},
		{
			name: "echo", method: "POST", path: "/v1/completions", status: 200,
			body: `{"prompt":"hello"}`,
			want: `"content":"{\"echo\":\"hello\"}"`,
		},
		{name: "bad json", method: "POST", path: "/v1/chat/completions", body: `{`, status: 400, want: "could not read the request"},
		{name: "get", method: "GET", path: "/v1/chat/completions", status: 405, want: ""},
		{
			name: "evalgate judge", method: "POST", path: "/v1/chat/completions", status: 200,
			body: `{"messages":[{"role":"system","content":"be strict"},{"role":"user","content":` + jsonString(evalgatePrompt) + `}]}`,
			want: `"content":"{\"criteria\":[{\"met\":true,`,
		},
		{
			name: "promptfoo llm-rubric", method: "POST", path: "/v1/chat/completions", status: 200,
			body: `{"messages":[{"role":"system","content":"grade"},{"role":"user","content":` + jsonString(promptfooPrompt) + `}]}`,
			want: `"content":"{\"reason\":\"the \\\"answer\\\" field has another value\",\"pass\":false,\"score\":0}"`,
		},
		{name: "stats", method: "GET", path: "/stats", status: 200, want: `{"requests":6,"agent":2,"judge":1,"llmRubric":1,"met":2,"unmet":2}`},
		{name: "reset", method: "POST", path: "/reset", status: 200, want: "ok"},
		{name: "stats after reset", method: "GET", path: "/stats", status: 200, want: `{"requests":0,"agent":0,"judge":0,"llmRubric":0,"met":0,"unmet":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestNewServer(t *testing.T) {
	type testCase struct {
		addr string
		want string // error substring; "" for none
	}
	run := func(t *testing.T, tc testCase) {
		_, err := newServer(tc.addr)
		if tc.want == "" {
			assert.NilError(t, err)
			return
		}
		assert.ErrorContains(t, err, tc.want)
	}
	for _, tc := range []testCase{
		{addr: "127.0.0.1:18080"},
		{addr: "[::1]:18080"},
		{addr: "localhost:0"},
		{addr: "0.0.0.0:18080", want: "loopback only"},
		{addr: "192.168.1.4:80", want: "loopback only"},
		{addr: "18080", want: "could not read address"},
	} {
		t.Run(tc.addr, func(t *testing.T) { run(t, tc) })
	}
}

// evalgatePrompt is the user message of evalgate's judge.openai for a task
// with three criteria, the last of them wrong.
const evalgatePrompt = "## Task input\ntask t7: add 627 2\n\n## Agent output\n" +
	`{"id":"t7","answer":629,"text":"The sum of 627 and 2 is 629"}` + "\n\n## Criteria (3)\n" +
	"1. The output's \"id\" field is \"t7\".\n2. The output's \"answer\" field is 629.\n3. The output's \"answer\" field is 630.\n" +
	"\nAnswer with {\"criteria\": [...]} holding exactly 3 entries."

// promptfooPrompt is the user message of promptfoo 0.123.1's llm-rubric
// (its DEFAULT_GRADING_PROMPT), the output shown as compact JSON.
const promptfooPrompt = "<Output>\n" + `{"id":"t7","answer":629,"text":"The sum of 627 and 2 is 629"}` +
	"\n</Output>\n<Rubric>\nThe output's \"answer\" field is 630.\n</Rubric>"

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestParseJudge(t *testing.T) {
	type testCase struct {
		name     string
		prompt   string
		kind     judgeKind
		output   string
		criteria []string
	}
	out := `{"id":"t7","answer":629,"text":"The sum of 627 and 2 is 629"}`
	run := func(t *testing.T, tc testCase) {
		kind, output, criteria := parseJudge(tc.prompt)
		assert.Equal(t, kind, tc.kind)
		assert.Equal(t, output, tc.output)
		assert.DeepEqual(t, criteria, tc.criteria)
	}
	for _, tc := range []testCase{
		{name: "evalgate", prompt: evalgatePrompt, kind: evalgateJudge, output: out, criteria: []string{
			`The output's "id" field is "t7".`, `The output's "answer" field is 629.`, `The output's "answer" field is 630.`,
		}},
		{name: "promptfoo", prompt: promptfooPrompt, kind: promptfooRubric, output: out, criteria: []string{`The output's "answer" field is 630.`}},
		{name: "task", prompt: "task t7: add 627 2", kind: notJudge},
		{name: "fewer criteria than announced", prompt: "## Agent output\nx\n\n## Criteria (2)\n1. a\n", kind: notJudge},
		{name: "no count", prompt: "## Agent output\nx\n\n## Criteria (two)\n1. a\n", kind: notJudge},
		{name: "rubric unclosed", prompt: "<Output>\nx\n</Output>\n<Rubric>\na", kind: notJudge},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestVerdict(t *testing.T) {
	type testCase struct {
		name      string
		output    string
		criterion string
		met       bool
		reason    string
	}
	out := `{"id":"t7","answer":629,"text":"The sum of 627 and 2 is 629"}`
	run := func(t *testing.T, tc testCase) {
		met, reason := Verdict(tc.output, tc.criterion)
		assert.Equal(t, met, tc.met)
		assert.Equal(t, reason, tc.reason)
	}
	for _, tc := range []testCase{
		{name: "string", output: out, criterion: `The output's "id" field is "t7".`, met: true, reason: `the "id" field has that value`},
		{name: "number", output: out, criterion: `The output's "answer" field is 629.`, met: true, reason: `the "answer" field has that value`},
		{name: "number as float", output: out, criterion: `The output's "answer" field is 629.0.`, met: true, reason: `the "answer" field has that value`},
		{name: "sentence", output: out, criterion: `The output's "text" field is "The sum of 627 and 2 is 629".`, met: true, reason: `the "text" field has that value`},
		{name: "wrong value", output: out, criterion: `The output's "answer" field is 630.`, reason: `the "answer" field has another value`},
		{name: "wrong type", output: out, criterion: `The output's "answer" field is "629".`, reason: `the "answer" field has another value`},
		{name: "no field", output: out, criterion: `The output's "sum" field is 629.`, reason: `the output has no "sum" field`},
		{name: "not json", output: "629", criterion: `The output's "answer" field is 629.`, reason: "the output is not a JSON object"},
		{name: "bad value", output: out, criterion: `The output's "answer" field is six.`, reason: "the criterion's value is not JSON"},
		{name: "other form", output: out, criterion: "Is polite.", reason: "no rule for this criterion"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestEvalgateJudge asks evalgate's own OpenAI-compatible judge, over HTTP,
// for the verdicts of one task: the mock must answer in the format it reads.
func TestEvalgateJudge(t *testing.T) {
	m := &mock{}
	srv := httptest.NewServer(m.routes())
	defer srv.Close()
	j := judges.NewOpenAI(judges.OpenAIOptions{BaseURL: srv.URL + "/v1", Model: "mock-judge", Client: srv.Client()})
	v, err := j.Decide(t.Context(), &judges.RubricRequest{
		TaskID: "t7",
		Input:  json.RawMessage(`"task t7: add 627 2"`),
		Output: json.RawMessage(jsonString(`{"id":"t7","answer":629,"text":"The sum of 627 and 2 is 629"}`)),
		Criteria: []judges.RubricCriterion{
			{Criterion: `The output's "id" field is "t7".`, Weight: 1},
			{Criterion: `The output's "answer" field is 630.`, Weight: 1},
			{Criterion: `The output's "text" field is "The sum of 627 and 2 is 629".`, Weight: 1},
		},
	})
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Met, []bool{true, false, true})
	assert.Equal(t, m.judge.Load(), int64(1))
	assert.Equal(t, m.unmet.Load(), int64(1))
}
