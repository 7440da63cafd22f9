package runner

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/internal/signedcache"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// echoAgent replies to the input and to every user line with what it
// read, over evalgate/1.
const echoAgent = `read task; echo '{"type":"reply","output":"How can I help?"}'
while read line; do echo "{\"type\":\"reply\",\"output\":\"noted: $(printf '%s' "$line" | sed 's/.*"content":"//; s/"}$//')\"}"; done`

// TestSimulatedUser plays an open conversation against a loopback model:
// the turn order the model sees, the stop rule, maxTurns, the cost kept
// apart, and the cache that replays an unchanged conversation for free.
func TestSimulatedUser(t *testing.T) {
	type testCase struct {
		name        string
		maxTurns    int
		replies     []reply
		wantOutput  string
		wantReplies int
		wantAsked   int // requests to the model
	}
	pricing := chat.Pricing{InputPerMTok: 1, OutputPerMTok: 2}
	run := func(t *testing.T, tc testCase) {
		m := newFakeModel(t, tc.replies...)
		sim := &Simulator{
			Model:    &OpenAI{BaseURL: m.srv.URL + "/v1", Model: "user-model", Client: NewHTTPClient(1), Pricing: pricing},
			CacheDir: filepath.Join(t.TempDir(), "cache"),
			CacheKey: "secret",
		}
		user := &suites.SimulatedUser{Instructions: "You want order A-1 refunded.", MaxTurns: tc.maxTurns}
		trial := func() (*Outcome, *Request) {
			req := testRequest(`"Hello"`)
			req.sim = &simulation{sim: sim, user: user}
			out := (&Exec{Command: []string{"sh", "-c", echoAgent}}).Run(context.Background(), req, nil)
			assert.Assert(t, out.Err == nil && out.Fatal == nil, "err %+v fatal %v", out.Err, out.Fatal)
			return out, req
		}
		out, req := trial()
		assert.Equal(t, string(out.Output), tc.wantOutput)
		assert.Equal(t, len(out.Replies), tc.wantReplies)
		assert.Equal(t, len(m.requests()), tc.wantAsked)
		assert.Equal(t, out.Usage.CostUsd, 0.0, "the simulator's cost is not the agent's")
		wantCost := float64(tc.wantAsked) * (10*1 + 5*2) / 1e6
		assert.Assert(t, math.Abs(req.sim.usage.CostUsd-wantCost) < 1e-12, "simulator cost %v, want %v", req.sim.usage.CostUsd, wantCost)

		// The same conversation again: every answer comes from the cache.
		again, req := trial()
		assert.DeepEqual(t, again.Output, out.Output)
		assert.DeepEqual(t, again.Replies, out.Replies)
		assert.Equal(t, len(m.requests()), tc.wantAsked, "a replay asks the model nothing")
		assert.Equal(t, req.sim.usage.CostUsd, 0.0)
	}
	for _, tc := range []testCase{
		{
			name:     "until the user says stop",
			maxTurns: 5,
			replies: []reply{
				{body: completion("It is order A-1.", nil, 10, 5)},
				{body: completion("Thanks. "+StopToken, nil, 10, 5)},
			},
			wantOutput: `"noted: It is order A-1."`, wantReplies: 1, wantAsked: 2,
		},
		{
			name:     "until maxTurns",
			maxTurns: 1,
			replies:  []reply{{body: completion("It is order A-1.", nil, 10, 5)}},
			// The reply to the one simulated message is the output; the model is
			// not asked again.
			wantOutput: `"noted: It is order A-1."`, wantReplies: 1, wantAsked: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestSimulatorTurnOrder checks the conversation as the simulator's model
// sees it: its instructions in the system prompt, its own messages as the
// assistant's, the agent's as the user's.
func TestSimulatorTurnOrder(t *testing.T) {
	m := newFakeModel(t, reply{body: completion("It is order A-1.", nil, 1, 1)}, reply{body: completion(StopToken, nil, 1, 1)})
	sim := &Simulator{Model: &OpenAI{BaseURL: m.srv.URL + "/v1", Model: "user-model", Client: NewHTTPClient(1)}}
	req := testRequest(`"Hello"`)
	req.sim = &simulation{sim: sim, user: &suites.SimulatedUser{Instructions: "You want order A-1 refunded."}}
	out := (&Exec{Command: []string{"sh", "-c", echoAgent}}).Run(context.Background(), req, nil)
	assert.Assert(t, out.Err == nil, "%+v", out.Err)
	reqs := m.requests()
	assert.Equal(t, len(reqs), 2)
	var got [][2]string
	for _, msg := range messages(t, reqs[1]) {
		got = append(got, [2]string{msg["role"].(string), msg["content"].(string)})
	}
	assert.Equal(t, got[0][0], "system")
	assert.Assert(t, len(got[0][1]) > 0 && got[0][1][len(got[0][1])-len("You want order A-1 refunded."):] == "You want order A-1 refunded.")
	assert.DeepEqual(t, got[1:], [][2]string{
		{"assistant", "Hello"},
		{"user", "How can I help?"},
		{"assistant", "It is order A-1."},
		{"user", "noted: It is order A-1."},
	})
}

func TestSimulatorMissingOrFailing(t *testing.T) {
	req := testRequest(`"Hello"`)
	req.sim = &simulation{user: &suites.SimulatedUser{Instructions: "x"}}
	out := (&Exec{Command: []string{"sh", "-c", echoAgent}}).Run(context.Background(), req, nil)
	assert.Assert(t, out.Err != nil)
	assert.Equal(t, out.Err.Kind, results.ErrSimulator)
	assert.Equal(t, out.Err.Message, "the task is an open conversation (user), and no user simulator is configured (user.simulator in evalgate.yaml)")

	withFastRetries(t)
	m := newFakeModel(t, reply{status: 400, body: `{"error":{"message":"bad"}}`})
	req = testRequest(`"Hello"`)
	req.sim = &simulation{sim: &Simulator{Model: &OpenAI{BaseURL: m.srv.URL + "/v1", Model: "user-model", Client: NewHTTPClient(1)}}, user: &suites.SimulatedUser{Instructions: "x"}}
	out = (&Exec{Command: []string{"sh", "-c", echoAgent}}).Run(context.Background(), req, nil)
	assert.Assert(t, out.Err != nil)
	assert.Equal(t, out.Err.Kind, results.ErrSimulator)
	assert.Equal(t, out.Err.Message, "the user simulator gave no answer")
}

// TestSimulatorCacheRejectsForgedEntries: the simulator's cache is the
// judge's (internal/signedcache), keyed by a secret only: an entry not
// signed under the run's secret is not believed, and without a secret
// nothing is read or written, so an entry signed with what the config
// tells (the model's address and name) is never believed either.
func TestSimulatorCacheRejectsForgedEntries(t *testing.T) {
	type testCase struct {
		name         string
		secret       string // the simulator's
		plant        func(t *testing.T, dir, key, path string)
		wantRejected int
	}
	run := func(t *testing.T, tc testCase) {
		m := newFakeModel(t, reply{body: completion(StopToken, nil, 1, 1)})
		dir := t.TempDir()
		sim := &Simulator{Model: &OpenAI{BaseURL: m.srv.URL + "/v1", Model: "user-model", Client: NewHTTPClient(1)}, CacheDir: dir, CacheKey: tc.secret}
		convo := []string{"Hello", "How can I help?"}
		key := sim.AnswerKey("x", convo)
		tc.plant(t, dir, key, filepath.Join(dir, key[:2], key+".json"))
		msg, done, _, err := sim.Next(context.Background(), "x", convo)
		assert.NilError(t, err)
		assert.Assert(t, done && msg == "", "the model was asked, not the planted entry")
		assert.Equal(t, sim.Rejected(), tc.wantRejected)
		assert.Equal(t, len(m.requests()), 1)
	}
	planted := simAnswer{Message: "planted"}
	for _, tc := range []testCase{
		{name: "a MAC that is not the secret's", secret: "secret", wantRejected: 1, plant: func(t *testing.T, _, _, path string) {
			forged, _ := json.Marshal(map[string]any{"value": planted, "mac": "00"})
			assert.NilError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			assert.NilError(t, os.WriteFile(path, forged, 0o644))
		}},
		{name: "signed under another secret", secret: "secret", wantRejected: 1, plant: func(t *testing.T, dir, key, _ string) {
			(&signedcache.Cache{Dir: dir, Name: "user", Secret: "guessed"}).Put(key, planted)
		}},
		{name: "no secret: an entry signed with what the config tells", secret: "", wantRejected: 0, plant: func(t *testing.T, dir, key, _ string) {
			(&signedcache.Cache{Dir: dir, Name: "user", Secret: "evalgate user simulator cache key without a secret\x00user-model"}).Put(key, planted)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
