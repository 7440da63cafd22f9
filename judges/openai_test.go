package judges

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/internal/waittest"
)

func init() { retryInterval = time.Millisecond }

// fakeModel is an OpenAI-compatible chat completions server on loopback. It
// parses every request as the real API would and answers from reply, which
// sees the 1-based call number and the parsed request.
type fakeModel struct {
	t     *testing.T
	reply func(call int, req *chat.Request) (status int, body string)

	mu          sync.Mutex
	calls       int
	requests    []*chat.Request
	auth        []string
	inflight    int
	maxInflight int
	// hold, when set, keeps each request in flight until hold(inflight)
	// returns, to observe the concurrency limit.
	hold func(inflight int) bool
}

func newFakeModel(t *testing.T, reply func(call int, req *chat.Request) (int, string)) (*fakeModel, string) {
	f := &fakeModel{t: t, reply: reply}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", f.serve)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv.URL + "/v1"
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		http.Error(w, `{"error":{"type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var req chat.Request
	if err := dec.Decode(&req); err != nil {
		f.t.Errorf("the judge sent a body the API would reject: %v", err)
		http.Error(w, `{"error":{"type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.requests = append(f.requests, &req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.inflight++
	f.maxInflight = max(f.maxInflight, f.inflight)
	f.mu.Unlock()
	if f.hold != nil {
		waittest.Poll(f.t, func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.hold(f.inflight)
		})
	}
	status, body := f.reply(n, &req)
	f.mu.Lock()
	f.inflight--
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

func (f *fakeModel) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// completion is a chat completion whose message content is content.
func completion(content string, in, out int64) string {
	b, _ := json.Marshal(map[string]any{
		"id":      "chatcmpl-1",
		"object":  "chat.completion",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
	return string(b)
}

// verdicts is the judge answer {"criteria":[...]} for met.
func verdicts(met ...bool) string {
	type entry struct {
		Met    bool   `json:"met"`
		Reason string `json:"reason"`
	}
	a := struct {
		Criteria []entry `json:"criteria"`
	}{}
	for i, m := range met {
		a.Criteria = append(a.Criteria, entry{Met: m, Reason: fmt.Sprintf("reason %d", i+1)})
	}
	b, _ := json.Marshal(a)
	return string(b)
}

func rubricRequest(criteria ...string) *RubricRequest {
	req := &RubricRequest{
		SuiteID: "acme.support.evals.replies",
		TaskID:  "t1",
		Input:   json.RawMessage(`"Where is my order C-3?"`),
		Output:  json.RawMessage(`"Order C-3 is in transit."`),
		Trace: []fixtures.Call{{ID: "c1", Name: "crm:lookup", Args: json.RawMessage(`{"orderId":"C-3"}`),
			Result: json.RawMessage(`{"status":"in-transit"}`), StartMs: 3, DurationMs: 1}},
	}
	for _, c := range criteria {
		req.Criteria = append(req.Criteria, RubricCriterion{Criterion: c, Weight: 0.5})
	}
	return req
}

func TestOpenAIRequestAndAnswer(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) {
		return 200, completion("```json\n"+verdicts(true, false)+"\n```", 1200, 80)
	})
	j := NewOpenAI(OpenAIOptions{
		BaseURL: url + "/", Model: "judge-model", APIKey: "sk-test",
		Pricing: chat.Pricing{InputPerMTok: 2.5, OutputPerMTok: 10},
	})
	v, err := j.Decide(context.Background(), rubricRequest("Names the order number.", "Gives the delivery date."))
	assert.NilError(t, err)

	want := &RubricVerdict{
		Met:     []bool{true, false},
		Reasons: []string{"reason 1", "reason 2"},
		CostUsd: (1200*2.5 + 80*10) / 1e6,
	}
	want.Tokens.Input, want.Tokens.Output = 1200, 80
	assert.Check(t, is.DeepEqual(want, v), "verdict")
	assert.Equal(t, f.callCount(), 1)
	req := f.requests[0]
	assert.Equal(t, req.Model, "judge-model")
	assert.Equal(t, *req.Temperature, 0.0)
	assert.Equal(t, req.ResponseFormat.Type, "json_object")
	assert.Equal(t, f.auth[0], "Bearer sk-test")
	assert.Equal(t, len(req.Messages), 2)
	assert.Equal(t, req.Messages[0].Role, "system")
	user := req.Messages[1].Text()
	for _, want := range []string{
		"1. Names the order number.\n", "2. Gives the delivery date.\n",
		"Where is my order C-3?", "Order C-3 is in transit.",
		`crm:lookup {"orderId":"C-3"} -> {"status":"in-transit"}`,
		"exactly 2 entries",
	} {
		assert.Assert(t, strings.Contains(user, want), "the prompt lacks %q:\n%s", want, user)
	}
}

func TestOpenAINoKeyNoAuthorization(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) { return 200, completion(verdicts(true), 1, 1) })
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
	_, err := j.Decide(context.Background(), rubricRequest("c"))
	assert.NilError(t, err)
	assert.Equal(t, f.auth[0], "")
}

func TestOpenAIVotes(t *testing.T) {
	type testCase struct {
		name    string
		samples int
		answers [][]bool // one per call
		want    []bool
	}
	run := func(t *testing.T, tc testCase) {
		f, url := newFakeModel(t, func(n int, _ *chat.Request) (int, string) {
			return 200, completion(verdicts(tc.answers[n-1]...), 100, 10)
		})
		j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m", Samples: tc.samples,
			Pricing: chat.Pricing{InputPerMTok: 1, OutputPerMTok: 1}})
		v, err := j.Decide(context.Background(), rubricRequest("a", "b", "c"))
		assert.NilError(t, err)
		assert.Check(t, is.DeepEqual(tc.want, v.Met), "met")
		assert.Equal(t, f.callCount(), tc.samples)
		assert.Equal(t, v.Tokens.Input, int64(100*tc.samples), "tokens add up over samples")
		assert.Equal(t, v.CostUsd, float64(110*tc.samples)/1e6, "cost adds up over samples")
	}
	testCases := []testCase{
		{name: "majority of three", samples: 3,
			answers: [][]bool{{true, false, true}, {true, true, false}, {false, false, false}},
			want:    []bool{true, false, false}},
		{name: "a tie of two is not met", samples: 2,
			answers: [][]bool{{true, false, true}, {false, true, true}},
			want:    []bool{false, false, true}},
		{name: "one sample", samples: 1, answers: [][]bool{{true, false, true}}, want: []bool{true, false, true}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestOpenAIRetries(t *testing.T) {
	type testCase struct {
		name            string
		statuses        []int // per call; 200 answers
		wantCalls       int
		wantErr         string // substring; "" for success
		wantUnavailable bool
	}
	run := func(t *testing.T, tc testCase) {
		f, url := newFakeModel(t, func(n int, _ *chat.Request) (int, string) {
			st := tc.statuses[min(n, len(tc.statuses))-1]
			if st != 200 {
				return st, `{"error":{"type":"server_error","code":"busy","message":"the prompt was: secret"}}`
			}
			return 200, completion(verdicts(true), 1, 1)
		})
		j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
		_, err := j.Decide(context.Background(), rubricRequest("c"))
		assert.Equal(t, f.callCount(), tc.wantCalls)
		if tc.wantErr == "" {
			assert.NilError(t, err)
			assert.NilError(t, j.Unavailable())
			return
		}
		assert.ErrorContains(t, err, tc.wantErr)
		assert.Assert(t, !strings.Contains(err.Error(), "secret"), "an API error message may quote the request: %v", err)
		assert.Equal(t, errors.Is(err, ErrUnavailable), tc.wantUnavailable)
		assert.Equal(t, j.Unavailable() != nil, tc.wantUnavailable)
	}
	testCases := []testCase{
		{name: "429 then 200 is retried", statuses: []int{429, 200}, wantCalls: 2},
		{name: "503 twice then 200", statuses: []int{503, 502, 200}, wantCalls: 3},
		{name: "500 every time gives up after four attempts", statuses: []int{500}, wantCalls: 4,
			wantErr: "after 4 attempts: the judge answered 500 Internal Server Error (server_error, busy)", wantUnavailable: true},
		{name: "400 is not retried", statuses: []int{400, 200}, wantCalls: 1,
			wantErr: "the judge answered 400 Bad Request (server_error, busy)"},
		{name: "422 is not retried", statuses: []int{422, 200}, wantCalls: 1, wantErr: "422"},
		{name: "401 is not retried and means unreachable", statuses: []int{401, 200}, wantCalls: 1,
			wantErr: "401 Unauthorized", wantUnavailable: true},
		{name: "404 (wrong model or URL) means unreachable", statuses: []int{404}, wantCalls: 1,
			wantErr: "404 Not Found", wantUnavailable: true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestOpenAINetworkErrorIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/v1"
	srv.Close() // nothing listens any more
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
	for range 2 {
		_, err := j.Decide(context.Background(), rubricRequest("c"))
		assert.Assert(t, errors.Is(err, ErrUnavailable), "got %v", err)
		assert.ErrorContains(t, err, "after 4 attempts: could not reach the judge")
	}
	assert.ErrorContains(t, j.Unavailable(), "the judge was unreachable for all 2 calls")
}

func TestOpenAIOneAnswerMeansAvailable(t *testing.T) {
	_, url := newFakeModel(t, func(n int, _ *chat.Request) (int, string) {
		if n == 1 {
			return 200, completion(verdicts(true), 1, 1)
		}
		return 401, `{}`
	})
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
	_, err := j.Decide(context.Background(), rubricRequest("c"))
	assert.NilError(t, err)
	_, err = j.Decide(context.Background(), rubricRequest("c"))
	assert.Assert(t, errors.Is(err, ErrUnavailable))
	assert.NilError(t, j.Unavailable(), "a judge that answered once was reachable")
}

func TestOpenAIBadAnswers(t *testing.T) {
	type testCase struct {
		name    string
		body    string
		wantErr string
	}
	run := func(t *testing.T, tc testCase) {
		_, url := newFakeModel(t, func(int, *chat.Request) (int, string) { return 200, tc.body })
		j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
		_, err := j.Decide(context.Background(), rubricRequest("a", "b"))
		assert.ErrorContains(t, err, tc.wantErr)
		assert.Assert(t, !errors.Is(err, ErrUnavailable), "a judge that answers is available")
		assert.NilError(t, j.Unavailable())
	}
	testCases := []testCase{
		{name: "wrong count", body: completion(verdicts(true), 1, 1), wantErr: "the judge answered 1 criteria, want 2"},
		{name: "prose", body: completion("Both are met.", 1, 1), wantErr: "did not answer with a JSON object"},
		{name: "no choices", body: `{"choices":[]}`, wantErr: "has no choices"},
		{name: "not JSON", body: `<html>`, wantErr: "could not read the judge's reply"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestOpenAIConcurrencyLimit(t *testing.T) {
	const limit = 3
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) { return 200, completion(verdicts(true), 1, 1) })
	reached := false
	// Hold the first requests until the limit is reached, so a judge that
	// ignored it would be seen with more in flight.
	f.hold = func(inflight int) bool {
		reached = reached || inflight >= limit
		return reached
	}
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m", Concurrency: limit, Samples: 2})
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := j.Decide(context.Background(), rubricRequest("c"))
			assert.Check(t, err)
		}()
	}
	wg.Wait()
	assert.Equal(t, f.callCount(), 24)
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Equal(t, f.maxInflight, limit)
}

func TestOpenAIIdentity(t *testing.T) {
	a := NewOpenAI(OpenAIOptions{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Samples: 3})
	assert.Equal(t, a.ID(), "openai:m")
	for name, b := range map[string]*OpenAI{
		"model":   NewOpenAI(OpenAIOptions{BaseURL: "http://127.0.0.1:1/v1", Model: "m2", Samples: 3}),
		"samples": NewOpenAI(OpenAIOptions{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Samples: 1}),
		"url":     NewOpenAI(OpenAIOptions{BaseURL: "http://127.0.0.1:2/v1", Model: "m", Samples: 3}),
	} {
		assert.Assert(t, a.Identity() != b.Identity(), "a different %s is a different judge", name)
	}
	same := NewOpenAI(OpenAIOptions{BaseURL: "http://127.0.0.1:1/v1/", Model: "m", Samples: 3, APIKey: "k", Concurrency: 9})
	assert.Equal(t, a.Identity(), same.Identity(), "key and concurrency do not change verdicts")
}
