package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/evalgate/evalgate/internal/retry"
)

// DefaultMaxAnswerBytes caps an answer's body when Options.MaxAnswerBytes
// is 0.
const DefaultMaxAnswerBytes = 16 << 20

// Client posts chat completions to one OpenAI-compatible API, retrying as
// its policy says. Build it with NewClient; one Client serves any number
// of requests at once.
type Client struct {
	url    string
	apiKey string
	http   *http.Client
	limit  int64
}

// Options configure NewClient.
type Options struct {
	BaseURL string // e.g. http://127.0.0.1:8000/v1; /chat/completions is appended
	APIKey  string // sent as a bearer token; none when empty
	// HTTP sends the requests; http.DefaultClient when nil. Its Transport
	// makes each attempt.
	HTTP *http.Client
	// MaxAnswerBytes caps an answer's body; DefaultMaxAnswerBytes when 0.
	MaxAnswerBytes int64
	// Retry says how often and after how long a request is tried again;
	// once, when it is the zero Policy. Its hook sees each answer read
	// whole, with ContentLength the bytes read: more than MaxAnswerBytes
	// when it is cut.
	Retry retry.Policy
}

// NewClient returns a client for the API at o.BaseURL.
func NewClient(o Options) *Client {
	hc := http.Client{}
	if o.HTTP != nil {
		hc = *o.HTTP
	}
	limit := o.MaxAnswerBytes
	if limit <= 0 {
		limit = DefaultMaxAnswerBytes
	}
	hc.Transport = &retry.Transport{
		Base:   &answerTransport{base: hc.Transport, limit: limit},
		Policy: o.Retry,
	}
	return &Client{
		url:    strings.TrimSuffix(o.BaseURL, "/") + "/chat/completions",
		apiKey: o.APIKey,
		http:   &hc,
		limit:  limit,
	}
}

// URL is the endpoint the client posts to.
func (c *Client) URL() string { return c.url }

// Answer is what an API answered one request, read whole.
type Answer struct {
	StatusCode int
	Status     string // e.g. "503 Service Unavailable"
	// Body is the answer's body; when TooLarge, only its first bytes, one
	// more than the cap.
	Body     []byte
	TooLarge bool
}

// Decode reads the body as a chat completion. Token counts out of range
// (negative, or above MaxTokens) are an error: a hostile or broken server
// cannot make costs negative or infinite.
func (a *Answer) Decode() (*Response, error) {
	var resp Response
	if err := json.Unmarshal(a.Body, &resp); err != nil {
		return nil, err
	}
	if resp.Usage != nil && !resp.Usage.inRange() {
		return nil, ErrUsageOutOfRange
	}
	return &resp, nil
}

// Rejected reports whether the API refused the request's credentials (401
// Unauthorized, 403 Forbidden): a missing, wrong or revoked key, which no
// retry mends and which every request meets alike. Judges and agents say
// so in those words rather than as an API that cannot be reached.
func (a *Answer) Rejected() bool {
	return a.StatusCode == http.StatusUnauthorized || a.StatusCode == http.StatusForbidden
}

// ErrorKind names the type and code of an OpenAI-style error body, such as
// "server_error, busy", never its message, which may quote the request;
// "" when the body says neither.
func (a *Answer) ErrorKind() string {
	var e struct {
		Error struct {
			Type string `json:"type"`
			Code any    `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(a.Body, &e) != nil {
		return ""
	}
	var parts []string
	if e.Error.Type != "" {
		parts = append(parts, e.Error.Type)
	}
	if c, ok := e.Error.Code.(string); ok && c != "" {
		parts = append(parts, c)
	}
	return strings.Join(parts, ", ")
}

// RequestError is a request that could not be built: a base URL that is
// not one.
type RequestError struct{ Err error }

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// ReadError is a connection that failed while an answer was read.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Post sends payload, a Request's JSON, and returns the answer whatever its
// status: the last one when the retry policy ran out. An error is the
// context's, a *RequestError, or the network's on the last attempt,
// *ReadError when it broke the answer.
func (c *Client) Post(ctx context.Context, payload []byte) (*Answer, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(payload))
	if err != nil {
		return nil, &RequestError{err}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		var read *ReadError
		if errors.As(err, &read) {
			return nil, read
		}
		return nil, err
	}
	defer resp.Body.Close()
	var data []byte
	if b, ok := resp.Body.(*answerBody); ok {
		data = b.data // read whole within the attempt: see answerTransport
	} else if data, err = io.ReadAll(resp.Body); err != nil {
		return nil, &ReadError{err}
	}
	return &Answer{
		StatusCode: resp.StatusCode,
		Status:     resp.Status,
		Body:       data,
		TooLarge:   int64(len(data)) > c.limit,
	}, nil
}

// answerTransport reads each answer whole, up to one byte over the cap,
// as part of its attempt: a connection that breaks mid-answer is then an
// error the retry transport above can retry, and what bounds an attempt
// below it ends once the answer is in.
type answerTransport struct {
	base  http.RoundTripper // http.DefaultTransport when nil
	limit int64
}

func (t *answerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, t.limit+1))
	// Drain what is left so the connection goes back to the pool.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err != nil {
		return nil, &ReadError{err}
	}
	body := &answerBody{data: data}
	body.Reset(data)
	resp.Body, resp.ContentLength = body, int64(len(data))
	return resp, nil
}

// answerBody is an answer read whole.
type answerBody struct {
	bytes.Reader
	data []byte
}

func (*answerBody) Close() error { return nil }
