package action

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// DefaultAPIURL is GitHub.com's REST API.
const DefaultAPIURL = "https://api.github.com"

// Retry timing; tests shrink them.
var (
	// retryInterval is the first wait before retrying a 5xx or a secondary
	// rate limit without Retry-After; it doubles on each attempt.
	retryInterval = 2 * time.Second
	// maxRetryWait caps any wait, Retry-After included.
	maxRetryWait = 60 * time.Second
)

// maxAttempts is how often one request is tried in all.
const maxAttempts = 4

// NewClient returns a go-github client for apiURL (GITHUB_API_URL; the
// REST root as the runner gives it, e.g. https://ghes.example.com/api/v3)
// that authenticates with token and retries 5xx answers and secondary rate
// limits. httpClient may be nil.
func NewClient(httpClient *http.Client, apiURL, token string) (*github.Client, error) {
	hc := &http.Client{Timeout: 60 * time.Second}
	if httpClient != nil {
		c := *httpClient
		hc = &c
	}
	hc.Transport = &retryTransport{base: hc.Transport}
	client := github.NewClient(hc)
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	base, err := url.Parse(strings.TrimSuffix(apiURL, "/") + "/")
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("could not use GitHub API URL %q: expected an http(s) URL", apiURL)
	}
	client.BaseURL = base
	if token != "" {
		client = client.WithAuthToken(token)
	}
	return client, nil
}

// retryTransport retries what is worth retrying: 5xx answers, 429, and the
// 403 of a secondary rate limit (one with Retry-After or that says so).
// Waits honour Retry-After, capped by maxRetryWait, else back off from
// retryInterval. Retrying below go-github keeps its client-side rate-limit
// bookkeeping out of the way.
type retryTransport struct {
	base http.RoundTripper
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	wait := retryInterval
	for attempt := 1; ; attempt++ {
		r := req
		if attempt > 1 && req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, fmt.Errorf("could not retry %s %s: the request body cannot be replayed", req.Method, req.URL.Path)
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(req.Context())
			r.Body = body
		}
		resp, err := base.RoundTrip(r)
		if err != nil {
			// A network error is retried for reads only: a write may have
			// happened before the connection broke.
			if attempt >= maxAttempts || req.Method != http.MethodGet || req.Context().Err() != nil {
				return nil, err
			}
		} else {
			d, retry := retryDelay(resp, wait)
			if !retry || attempt >= maxAttempts {
				return resp, nil
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			_ = resp.Body.Close()
			wait = d
		}
		timer := time.NewTimer(min(wait, maxRetryWait))
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
		wait = retryInterval << attempt
	}
}

// retryDelay says whether resp is worth retrying and after how long; when
// it is not, the body is left readable.
func retryDelay(resp *http.Response, backoff time.Duration) (time.Duration, bool) {
	after, hasAfter := retryAfter(resp.Header.Get("Retry-After"))
	switch {
	case resp.StatusCode >= 500:
		if hasAfter {
			return after, true
		}
		return backoff, true
	case resp.StatusCode == http.StatusTooManyRequests:
		if hasAfter {
			return after, true
		}
		return backoff, true
	case resp.StatusCode == http.StatusForbidden:
		if hasAfter {
			return after, true
		}
		// Peek at the body for the secondary rate limit message, then put
		// it back for go-github's error.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		if bytes.Contains(bytes.ToLower(body), []byte("secondary rate limit")) {
			return backoff, true
		}
	}
	return 0, false
}

// retryAfter parses a Retry-After header in seconds or as an HTTP date.
func retryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// statusOf returns the HTTP status of a go-github error, or 0.
func statusOf(err error) int {
	var (
		er *github.ErrorResponse
		ab *github.AbuseRateLimitError
		rl *github.RateLimitError
	)
	switch {
	case errors.As(err, &er) && er.Response != nil:
		return er.Response.StatusCode
	case errors.As(err, &ab) && ab.Response != nil:
		return ab.Response.StatusCode
	case errors.As(err, &rl) && rl.Response != nil:
		return rl.Response.StatusCode
	}
	return 0
}

// IsPermissionError reports whether err is GitHub refusing the token: 403
// or 404, as a read-only token on a fork pull request gets.
func IsPermissionError(err error) bool {
	s := statusOf(err)
	return s == http.StatusForbidden || s == http.StatusNotFound
}
