package action

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/evalgate/evalgate/internal/retry"
)

// DefaultAPIURL is GitHub.com's REST API.
const DefaultAPIURL = "https://api.github.com"

// Retry timing; tests shrink them.
var (
	// retryInterval is the first wait before retrying a 5xx or a secondary
	// rate limit without Retry-After; it doubles on each attempt.
	retryInterval = 2 * time.Second
	// maxRetryWait caps any wait, Retry-After included.
	maxRetryWait = retry.DefaultMaxWait
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
	// Retrying below go-github keeps its client-side rate-limit bookkeeping
	// out of the way.
	hc.Transport = retryTransport(hc.Transport)
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

// retryTransport sends GitHub requests through base (http.DefaultTransport
// when nil), retrying what is retryable.
func retryTransport(base http.RoundTripper) *retry.Transport {
	return &retry.Transport{
		Base: base,
		Policy: retry.Policy{
			Attempts:  maxAttempts,
			Interval:  retryInterval,
			MaxWait:   maxRetryWait,
			Retryable: retryable,
		},
	}
}

// retryable is what is worth retrying against GitHub: 5xx answers, 429,
// and the 403 of a secondary rate limit (one with Retry-After or that says
// so). A network error is retried for reads only: a write may have
// happened before the connection broke.
func retryable(req *http.Request, resp *http.Response, err error) bool {
	switch {
	case err != nil:
		return req.Method == http.MethodGet
	case resp.StatusCode == http.StatusForbidden:
		return secondaryRateLimit(resp)
	}
	return retry.Temporary(req, resp, err)
}

// secondaryRateLimit reports whether a 403 is GitHub's secondary rate
// limit, leaving its body readable for go-github's error.
func secondaryRateLimit(resp *http.Response) bool {
	if _, ok := retry.After(resp.Header.Get("Retry-After")); ok {
		return true
	}
	// Peek at the body for the message, then put it back.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	return bytes.Contains(bytes.ToLower(body), []byte("secondary rate limit"))
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
