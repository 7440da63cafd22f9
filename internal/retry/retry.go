// Package retry is how evalgate tries an HTTP request again: a Transport,
// an http.RoundTripper, that sends a request once more when its answer
// says a later try may succeed, and Sleep, the one wait that gives way to
// a context. The GitHub client, the OpenAI-compatible agent and the judge
// each set a Policy: how often, how long to wait, and what is worth
// another try.
//
//	client := &http.Client{Transport: &retry.Transport{Policy: retry.Policy{
//		Attempts: 4,
//		Interval: retryInterval, // a variable, so tests can shrink it
//		MaxWait:  time.Minute,
//	}}}
//
// It is internal: the policies are evalgate's, not an API of their own.
package retry

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxWait caps a wait when Policy.MaxWait is 0.
const DefaultMaxWait = time.Minute

// Policy says how one caller retries.
type Policy struct {
	// Attempts is how often a request is tried in all; once when below 2.
	Attempts int
	// Interval is the wait before the first retry; it doubles with each
	// further retry.
	Interval time.Duration
	// MaxWait caps every wait, a Retry-After included; DefaultMaxWait
	// when 0.
	MaxWait time.Duration
	// Retryable says whether an attempt that got resp, or err, is worth
	// another: Temporary when nil. It is not asked once the request's
	// context has ended. It may read resp's body if it puts it back.
	Retryable func(req *http.Request, resp *http.Response, err error) bool
}

// Temporary is worth another try: a network error, or an answer whose
// status is TemporaryStatus.
func Temporary(_ *http.Request, resp *http.Response, err error) bool {
	return err != nil || TemporaryStatus(resp.StatusCode)
}

// TemporaryStatus is an answer's status that is worth another try: 429 or
// a 5xx; never another 4xx, which says the request itself is wrong.
func TemporaryStatus(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// Transport sends each request through Base as often as its Policy says.
// Between attempts it waits for the server's Retry-After when the answer
// gives one in the future, in seconds or as an HTTP date, else for the
// Policy's Interval, doubled with each retry; never longer than MaxWait.
// The request's body is sent again byte for byte, from GetBody when the
// request has one, else from a copy taken before the first attempt. The
// last attempt's answer, body unread, or its error is what RoundTrip
// returns, so the caller sees what the server last said.
type Transport struct {
	Base   http.RoundTripper // http.DefaultTransport when nil
	Policy Policy
}

var _ http.RoundTripper = (*Transport)(nil)

// sleep is the wait between attempts, a variable so tests can watch it.
var sleep = Sleep

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	retryable := t.Policy.Retryable
	if retryable == nil {
		retryable = Temporary
	}
	copied, err := bodyCopy(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	for attempt := 1; ; attempt++ {
		r, err := attemptRequest(req, attempt, copied)
		if err != nil {
			return nil, err
		}
		resp, err := base.RoundTrip(r)
		if attempt >= t.Policy.Attempts || ctx.Err() != nil || !retryable(r, resp, err) {
			return resp, err
		}
		wait := t.Policy.wait(attempt, resp)
		if resp != nil {
			// Drain what is left so the connection goes back to the pool.
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// bodyCopy reads the body of a request that has one but no GetBody, and
// closes it, as a RoundTripper must: each attempt then sends the copy.
// It is nil for any other request.
func bodyCopy(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return nil, nil
	}
	data, err := io.ReadAll(req.Body) // never nil, even when empty
	req.Body.Close()
	return data, err
}

// attemptRequest is the request of an attempt: req itself when it has no
// body or its body is still unread, else a copy of req whose body starts
// over, from the copy of bodyCopy or from GetBody. Each attempt reads a
// body of its own: a transport may go on reading the last one after
// RoundTrip returned.
func attemptRequest(req *http.Request, attempt int, copied []byte) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody || attempt == 1 && copied == nil {
		return req, nil
	}
	r := req.Clone(req.Context())
	if copied != nil {
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(copied)), nil }
	}
	var err error
	if r.Body, err = r.GetBody(); err != nil {
		return nil, err
	}
	return r, nil
}

// wait is how long to wait after attempt got resp (nil after a network
// error).
func (p Policy) wait(attempt int, resp *http.Response) time.Duration {
	limit := p.MaxWait
	if limit <= 0 {
		limit = DefaultMaxWait
	}
	if resp != nil {
		if d, ok := After(resp.Header.Get("Retry-After")); ok && d > 0 {
			return min(d, limit)
		}
	}
	d := p.Interval
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// After reads a Retry-After header: a number of seconds or an HTTP date
// (a date past is 0). ok is false when h is neither.
func After(h string) (d time.Duration, ok bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(h); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(min(s, 1<<31)) * time.Second, true
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// Sleep waits for d, or until ctx ends and returns its cause.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
