package runner

import (
	"context"
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/suites"
)

// TestOpenAIConversation: the OpenAI-compatible driver appends each
// scripted turn as a user message after the model's reply, and the reply
// to the last turn is the output.
func TestOpenAIConversation(t *testing.T) {
	m := newFakeModel(t,
		reply{body: completion("Which order?", nil, 10, 2)},
		reply{body: completion("", [][2]string{{"crm_lookup", `{"orderId":"A-17"}`}}, 20, 4)},
		reply{body: completion("A-17 is delivered. Refund it?", nil, 30, 6)},
		reply{body: completion("Refunded.", nil, 40, 8)},
	)
	agent := &OpenAI{BaseURL: m.srv.URL + "/v1", Model: "gpt-test", Client: NewHTTPClient(1), MaxTurns: 2}
	req := &Request{
		SuiteID: "acme.support.evals.refunds", TaskID: "talk", Trial: 1, Mode: "golden",
		Input: json.RawMessage(`"I need a refund"`),
		Tools: supportTools,
		Turns: []json.RawMessage{json.RawMessage(`"Order A-17."`), json.RawMessage(`{"confirm":true}`)},
	}
	sess := fixtures.NewSession(supportFixtures(), fixtures.Options{})
	out := agent.Run(context.Background(), req, sess)
	assert.Assert(t, out.Err == nil && out.Fatal == nil, "Run: err %v, fatal %v", out.Err, out.Fatal)
	assert.Equal(t, string(out.Output), `"Refunded."`)
	assert.DeepEqual(t, out.Replies, []json.RawMessage{json.RawMessage(`"Which order?"`), json.RawMessage(`"A-17 is delivered. Refund it?"`)})
	assert.Equal(t, out.Usage.InputTokens, int64(100))

	reqs := m.requests()
	assert.Equal(t, len(reqs), 4)
	var roles, contents []string
	for _, msg := range messages(t, reqs[3]) {
		roles = append(roles, msg["role"].(string))
		c, _ := msg["content"].(string)
		contents = append(contents, c)
	}
	assert.DeepEqual(t, roles, []string{"user", "assistant", "user", "assistant", "tool", "assistant", "user"})
	assert.Equal(t, contents[1], "Which order?")
	assert.Equal(t, contents[2], "Order A-17.")
	assert.Equal(t, contents[5], "A-17 is delivered. Refund it?")
	assert.Equal(t, contents[6], `{"confirm":true}`, "a turn that is not a string is sent as JSON")
}

// TestExecConversation: over evalgate/1, a reply gets the next turn as a
// user line; a reply when no turn is left is the final output; a final
// ends the conversation whatever turns are left.
func TestExecConversation(t *testing.T) {
	type testCase struct {
		name        string
		script      string
		turns       []string
		wantOutput  string
		wantReplies []string
	}
	run := func(t *testing.T, tc testCase) {
		req := testRequest(`"hi"`)
		for _, u := range tc.turns {
			req.Turns = append(req.Turns, json.RawMessage(u))
		}
		e := &Exec{Command: []string{"sh", "-c", tc.script}}
		out := e.Run(context.Background(), req, nil)
		assert.Assert(t, out.Err == nil && out.Fatal == nil, "Run: err %+v, fatal %v", out.Err, out.Fatal)
		assert.Equal(t, string(out.Output), tc.wantOutput)
		var replies []string
		for _, r := range out.Replies {
			replies = append(replies, string(r))
		}
		assert.DeepEqual(t, replies, tc.wantReplies)
	}
	// echo: answers every line it reads with a reply quoting its type and
	// the user's content.
	const echo = `read task; echo '{"type":"reply","output":"first"}'
while read line; do echo "{\"type\":\"reply\",\"output\":$(printf '%s' "$line" | sed 's/.*"content"://; s/}$//')}"; done`
	for _, tc := range []testCase{
		{name: "a reply without turns is the final output", script: echo, wantOutput: `"first"`},
		{name: "each turn answered", script: echo, turns: []string{`"one"`, `{"n":2}`}, wantOutput: `{"n":2}`, wantReplies: []string{`"first"`, `"one"`}},
		{name: "final ends it early", script: `read task; echo '{"type":"final","output":"bye"}'`, turns: []string{`"one"`}, wantOutput: `"bye"`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestOpenAIWorld: a model's tool calls change the trial's world through
// the same stateful fixtures, and the end-state checks score it.
func TestOpenAIWorld(t *testing.T) {
	m := newFakeModel(t,
		reply{body: completion("", [][2]string{{"refund_order", `{"orderId":"A-2"}`}}, 10, 2)},
		reply{body: completion("Your order is refunded.", nil, 10, 2)},
	)
	suite := loadSuite(t, `suiteId: acme.t.evals.openai-world
version: 1.0.0
modes: [golden]
tools: [{name: refund_order}]
fixtures:
  state: {orders: {A-1: {status: delivered}, A-2: {status: delivered}}}
  toolResponses:
    - tool: refund_order
      effect: [{op: replace, path: "/orders/{args.orderId}/status", value: refunded}]
      from: /orders/{args.orderId}
tasks:
  - taskId: t
    input: Refund A-1.
    expected:
      kind: golden
      match: {strategy: contains, value: refunded}
      state: {orders: {A-1: {status: refunded}}}
      unchanged: [/orders/A-2]
`)
	agent := &OpenAI{BaseURL: m.srv.URL + "/v1", Model: "gpt-test", Client: NewHTTPClient(1)}
	got, err := Run(t.Context(), Plan([]*suites.Suite{suite}, Selection{}), Options{Agent: agent, Scorer: scored()})
	assert.NilError(t, err)
	reasons := map[string]string{}
	for _, c := range got[0].Tasks[0].Trials[0].Checks {
		reasons[c.ID] = c.Reason
	}
	assert.DeepEqual(t, reasons, map[string]string{"match": "", "state": "mismatch", "unchanged": "changed"})
}
