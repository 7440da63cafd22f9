package retry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/waittest"
)

// answer is one scripted answer of the fake server.
type answer struct {
	status     int    // 200 when 0
	retryAfter string // the Retry-After header, when set
	hangUp     bool   // close the connection without answering
}

// server is an HTTP server on 127.0.0.1 that answers from a script, one
// answer per request (the last one repeats), and records every body.
type server struct {
	url    string
	mu     sync.Mutex
	bodies []string
}

func newServer(t *testing.T, script ...answer) *server {
	s := &server{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		a := script[min(n, len(script)-1)]
		if a.hangUp {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.WriteHeader(max(a.status, http.StatusOK))
		_, _ = io.WriteString(w, "answer "+string(rune('1'+n)))
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// watchWaits replaces the wait between attempts with one that only
// records how long it would have been.
func watchWaits(t *testing.T) *[]time.Duration {
	var waits []time.Duration
	old := sleep
	sleep = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	t.Cleanup(func() { sleep = old })
	return &waits
}

func TestTransport(t *testing.T) {
	future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	type testCase struct {
		name      string
		script    []answer
		policy    Policy
		body      func() io.Reader // the request's body; none when nil
		wantCalls int
		wantWaits []time.Duration
		// wantStatus is the status RoundTrip returns; 0 for an error.
		wantStatus int
		wantBody   string // the returned answer's body, unread until then
	}
	policy := Policy{Attempts: 4, Interval: time.Second, MaxWait: time.Minute}
	run := func(t *testing.T, tc testCase) {
		waits := watchWaits(t)
		s := newServer(t, tc.script...)
		var body io.Reader
		if tc.body != nil {
			body = tc.body()
		}
		req, err := http.NewRequest(http.MethodPost, s.url, body)
		assert.NilError(t, err)
		resp, err := (&Transport{Policy: tc.policy}).RoundTrip(req)
		if tc.wantStatus == 0 {
			assert.Assert(t, err != nil, "got %v", resp)
		} else {
			assert.NilError(t, err)
			assert.Equal(t, resp.StatusCode, tc.wantStatus)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, string(b), tc.wantBody)
		}
		reqs := s.requests()
		assert.Equal(t, len(reqs), tc.wantCalls)
		assert.Check(t, is.DeepEqual(tc.wantWaits, *waits), "waits")
		if tc.body != nil {
			want, _ := io.ReadAll(tc.body())
			for i, got := range reqs {
				assert.Equal(t, got, string(want), "body of attempt %d", i+1)
			}
		}
	}
	testCases := []testCase{
		{
			name:       "a 200 is tried once",
			script:     []answer{{}},
			policy:     policy,
			wantCalls:  1,
			wantStatus: 200, wantBody: "answer 1",
		},
		{
			name:       "429 then 200",
			script:     []answer{{status: 429}, {}},
			policy:     policy,
			wantCalls:  2,
			wantWaits:  []time.Duration{time.Second},
			wantStatus: 200, wantBody: "answer 2",
		},
		{
			name:       "500 every time exhausts the attempts, backing off, and returns the last answer",
			script:     []answer{{status: 500}},
			policy:     policy,
			wantCalls:  4,
			wantWaits:  []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
			wantStatus: 500, wantBody: "answer 4",
		},
		{
			name:       "the backoff is capped",
			script:     []answer{{status: 503}},
			policy:     Policy{Attempts: 4, Interval: time.Second, MaxWait: 3 * time.Second},
			wantCalls:  4,
			wantWaits:  []time.Duration{time.Second, 2 * time.Second, 3 * time.Second},
			wantStatus: 503, wantBody: "answer 4",
		},
		{
			name:       "400 is not retried, nor is any 4xx but 429",
			script:     []answer{{status: 400}, {}},
			policy:     policy,
			wantCalls:  1,
			wantStatus: 400, wantBody: "answer 1",
		},
		{
			name:       "Retry-After in seconds replaces the backoff",
			script:     []answer{{status: 429, retryAfter: "7"}, {status: 503, retryAfter: " 3 "}, {}},
			policy:     policy,
			wantCalls:  3,
			wantWaits:  []time.Duration{7 * time.Second, 3 * time.Second},
			wantStatus: 200, wantBody: "answer 3",
		},
		{
			name:       "a huge Retry-After is capped",
			script:     []answer{{status: 429, retryAfter: "999999999999"}, {status: 429, retryAfter: future}, {}},
			policy:     policy,
			wantCalls:  3,
			wantWaits:  []time.Duration{time.Minute, time.Minute},
			wantStatus: 200, wantBody: "answer 3",
		},
		{
			name: "a Retry-After that is absent, zero, past or not one backs off",
			script: []answer{{status: 503}, {status: 503, retryAfter: "0"}, {status: 503, retryAfter: past},
				{status: 503, retryAfter: "soon"}, {}},
			policy:     Policy{Attempts: 5, Interval: time.Second, MaxWait: time.Minute},
			wantCalls:  5,
			wantWaits:  []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second},
			wantStatus: 200, wantBody: "answer 5",
		},
		{
			name:       "a connection closed without an answer is retried",
			script:     []answer{{hangUp: true}, {hangUp: true}, {}},
			policy:     policy,
			wantCalls:  3,
			wantWaits:  []time.Duration{time.Second, 2 * time.Second},
			wantStatus: 200, wantBody: "answer 3",
		},
		{
			name:      "a network error on the last attempt is the error",
			script:    []answer{{hangUp: true}},
			policy:    Policy{Attempts: 2, Interval: time.Second},
			wantCalls: 2,
			wantWaits: []time.Duration{time.Second},
		},
		{
			name:       "one attempt when Attempts is 0",
			script:     []answer{{status: 500}},
			policy:     Policy{Interval: time.Second},
			wantCalls:  1,
			wantStatus: 500, wantBody: "answer 1",
		},
		{
			name:       "the body is sent again byte for byte, from GetBody",
			script:     []answer{{status: 502}, {status: 502}, {}},
			policy:     policy,
			body:       func() io.Reader { return strings.NewReader(`{"model":"m","messages":["é \u0000"]}`) },
			wantCalls:  3,
			wantWaits:  []time.Duration{time.Second, 2 * time.Second},
			wantStatus: 200, wantBody: "answer 3",
		},
		{
			name:   "a body without GetBody is copied and sent again byte for byte",
			script: []answer{{status: 502}, {status: 502}, {}},
			policy: policy,
			// A reader NewRequest does not know gets no GetBody.
			body: func() io.Reader {
				return io.MultiReader(strings.NewReader(strings.Repeat("x", 100<<10)), strings.NewReader("end"))
			},
			wantCalls:  3,
			wantWaits:  []time.Duration{time.Second, 2 * time.Second},
			wantStatus: 200, wantBody: "answer 3",
		},
		{
			name:   "the policy's hook decides what else is retried",
			script: []answer{{status: 403, retryAfter: "5"}, {}},
			policy: Policy{Attempts: 4, Interval: time.Second, Retryable: func(req *http.Request, resp *http.Response, err error) bool {
				return Temporary(req, resp, err) || resp.StatusCode == http.StatusForbidden
			}},
			wantCalls:  2,
			wantWaits:  []time.Duration{5 * time.Second},
			wantStatus: 200, wantBody: "answer 2",
		},
		{
			name:   "the policy's hook may refuse a network error",
			script: []answer{{hangUp: true}, {}},
			policy: Policy{Attempts: 4, Interval: time.Second, Retryable: func(req *http.Request, resp *http.Response, err error) bool {
				return err == nil && Temporary(req, resp, err)
			}},
			wantCalls: 1,
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestTransportCancelDuringWait checks that a context that ends while the
// transport waits ends the wait at once, with the context's error.
func TestTransportCancelDuringWait(t *testing.T) {
	// The server asks for an hour, which the policy allows: the wait ends
	// only with the context, cancelled once the server has answered.
	s := newServer(t, answer{status: 429, retryAfter: "3600"})
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	assert.NilError(t, err)
	waittest.Then(t, func() bool { return len(s.requests()) == 1 }, cancel)
	resp, err := (&Transport{Policy: Policy{Attempts: 4, Interval: time.Second, MaxWait: 2 * time.Hour}}).RoundTrip(req)
	assert.Assert(t, resp == nil)
	assert.Assert(t, errors.Is(err, context.Canceled), "got %v", err)
	assert.Equal(t, len(s.requests()), 1)
}

func TestAfter(t *testing.T) {
	type testCase struct {
		header string
		want   time.Duration
		// date: the header is this date, and want is its distance from
		// the moment After ran.
		date   time.Time
		wantOK bool
	}
	past := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	soon := time.Now().Add(30 * time.Second).UTC().Truncate(time.Second)
	testCases := []testCase{
		{header: "", wantOK: false},
		{header: "120", want: 2 * time.Minute, wantOK: true},
		{header: " 3 ", want: 3 * time.Second, wantOK: true},
		{header: "0", want: 0, wantOK: true},
		{header: "-1", wantOK: false},
		{header: "1.5", wantOK: false},
		{header: "soon", wantOK: false},
		{header: past.Format(http.TimeFormat), date: past, wantOK: true},
		{header: soon.Format(http.TimeFormat), date: soon, wantOK: true},
	}
	for _, tc := range testCases {
		t.Run(tc.header, func(t *testing.T) {
			before := time.Now()
			got, ok := After(tc.header)
			after := time.Now()
			assert.Equal(t, ok, tc.wantOK)
			if tc.date.IsZero() {
				assert.Equal(t, got, tc.want, "After(%q)", tc.header)
				return
			}
			least, most := max(tc.date.Sub(after), 0), max(tc.date.Sub(before), 0)
			assert.Assert(t, got >= least && got <= most, "After(%q) = %v, want %v to %v", tc.header, got, least, most)
		})
	}
}

func TestSleep(t *testing.T) {
	assert.NilError(t, Sleep(context.Background(), time.Millisecond))

	cause := errors.New("the run was interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	assert.Equal(t, Sleep(ctx, time.Hour), cause) // and returns, before the hour
}
