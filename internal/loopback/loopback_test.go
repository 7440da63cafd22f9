package loopback

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/waittest"
)

// dummy is a server of a protocol of its own, built on a Server the way
// the MCP server is and any later one will be, with no code for deadlines,
// quotas or shutdown: it reads each body whole, opens a "session" for a
// POST to /session and answers with what it read.
type dummy struct {
	reading chan struct{} // a handler has started reading a body
	errs    chan error    // what each body read ended with
}

func newDummy() *dummy {
	return &dummy{reading: make(chan struct{}, 16), errs: make(chan error, 16)}
}

func (d *dummy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := TenantOf(r.Context())
	if t == nil {
		http.Error(w, "no tenant", http.StatusInternalServerError)
		return
	}
	signal(d.reading, struct{}{})
	body, err := io.ReadAll(r.Body)
	signal(d.errs, err)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.URL.Path == "/session" {
		if err := t.Take(Sessions, 1); err != nil {
			Refuse(w, err)
			return
		}
	}
	fmt.Fprintf(w, "%s read %d bytes", r.URL.Path, len(body))
}

// signal sends v unless c is full: a test that does not wait for it does
// not hold the handler.
func signal[T any](c chan T, v T) {
	select {
	case c <- v:
	default:
	}
}

func listen(t *testing.T, l Limits) *Server {
	t.Helper()
	srv, err := Listen(l)
	assert.NilError(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv
}

func openDummy(t *testing.T, srv *Server, q Quota, opts ...Option) (*Tenant, *dummy) {
	t.Helper()
	d := newDummy()
	tn, err := srv.Open(t.Context(), d, q, opts...)
	assert.NilError(t, err)
	t.Cleanup(tn.Close)
	return tn, d
}

func post(t *testing.T, u, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(u, "text/plain", strings.NewReader(body))
	assert.NilError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	assert.NilError(t, err)
	return resp.StatusCode, string(b)
}

// holdRequest sends a request's headers, announcing a body of 1,000 bytes,
// and 10 of them, then sends nothing more: what a client holding a request
// open does. It returns the connection.
func holdRequest(t *testing.T, u string) net.Conn {
	t.Helper()
	pu, err := url.Parse(u)
	assert.NilError(t, err)
	c, err := net.Dial("tcp", pu.Host)
	assert.NilError(t, err)
	t.Cleanup(func() { c.Close() })
	_, err = fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n0123456789", pu.Path, pu.Host)
	assert.NilError(t, err)
	return c
}

// waitClosed waits, under the test's deadline, for the server to end c:
// its answer, if any, then EOF or a reset.
func waitClosed(t *testing.T, c net.Conn) {
	t.Helper()
	if deadline, ok := waittest.Deadline(t); ok {
		assert.NilError(t, c.SetReadDeadline(deadline))
	}
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	assert.Check(t, !errors.As(err, &ne) || !ne.Timeout(), "the server held the connection: %v", err)
}

func TestPathsOfNoTenantAreNotFound(t *testing.T) {
	srv := listen(t, Limits{})
	tn, _ := openDummy(t, srv, Quota{})
	closed, _ := openDummy(t, srv, Quota{})
	closed.Close()
	base := strings.TrimSuffix(tn.URL, tn.token)
	for _, u := range []string{base, base + "x", tn.URL[:len(tn.URL)-1], closed.URL, closed.URL + "/session", strings.ToUpper(tn.URL)} {
		status, body := post(t, u, "hi")
		assert.Check(t, is.Equal(status, http.StatusNotFound), u)
		assert.Check(t, is.Equal(body, ""), u)
	}
	status, body := post(t, tn.URL, "hi")
	assert.Check(t, is.Equal(status, http.StatusOK))
	assert.Check(t, is.Equal(body, " read 2 bytes"))
	status, body = post(t, tn.URL+"/session", "hi")
	assert.Check(t, is.Equal(status, http.StatusOK))
	assert.Check(t, is.Equal(body, "/session read 2 bytes"))
}

// TestDeadlines: a client that sends part of its headers, part of its
// body, or nothing after a request is cut off by the server's deadlines;
// the dummy's handler, reading the body, gets an error.
func TestDeadlines(t *testing.T) {
	srv := listen(t, Limits{ReadHeaderTimeout: 2 * time.Second, ReadTimeout: 2 * time.Second, IdleTimeout: 2 * time.Second})
	tn, d := openDummy(t, srv, Quota{})
	pu, err := url.Parse(tn.URL)
	assert.NilError(t, err)

	t.Run("headers that never end", func(t *testing.T) {
		c, err := net.Dial("tcp", pu.Host)
		assert.NilError(t, err)
		defer c.Close()
		_, err = fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\n", pu.Path, pu.Host)
		assert.NilError(t, err)
		waitClosed(t, c)
	})
	t.Run("a body that never comes", func(t *testing.T) {
		c := holdRequest(t, tn.URL)
		<-d.reading
		assert.Check(t, <-d.errs != nil, "the handler read a body that was never sent")
		waitClosed(t, c)
	})
	t.Run("an idle connection", func(t *testing.T) {
		c, err := net.Dial("tcp", pu.Host)
		assert.NilError(t, err)
		defer c.Close()
		_, err = fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 2\r\n\r\nhi", pu.Path, pu.Host)
		assert.NilError(t, err)
		<-d.reading
		assert.NilError(t, <-d.errs)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		assert.NilError(t, err)
		resp.Body.Close()
		assert.Check(t, is.Equal(resp.StatusCode, http.StatusOK))
		waitClosed(t, c)
	})
}

// TestBodyCap: a body over the server's cap reaches the handler as a read
// error, as one within it reaches it whole.
func TestBodyCap(t *testing.T) {
	srv := listen(t, Limits{MaxBodyBytes: 100})
	tn, d := openDummy(t, srv, Quota{})
	status, body := post(t, tn.URL, strings.Repeat("x", 100))
	assert.Check(t, is.Equal(status, http.StatusOK))
	assert.Check(t, is.Equal(body, " read 100 bytes"))
	<-d.reading
	assert.NilError(t, <-d.errs)
	status, _ = post(t, tn.URL, strings.Repeat("x", 101))
	assert.Check(t, is.Equal(status, http.StatusBadRequest))
	<-d.reading
	_, over := errors.AsType[*http.MaxBytesError](<-d.errs)
	assert.Check(t, over, "the body over the cap was read")
}

// TestQuota: each resource of a tenant's quota is refused past its bound,
// the first refusal is reported once, and another tenant of the server
// keeps its own quota.
func TestQuota(t *testing.T) {
	type testCase struct {
		name  string
		quota Quota
		send  func(t *testing.T, tn *Tenant) (status int)
		want  QuotaError
	}
	run := func(t *testing.T, tc testCase) {
		srv := listen(t, Limits{})
		var reported []*QuotaError
		var mu sync.Mutex
		tn, _ := openDummy(t, srv, tc.quota, WhenOver(func(e *QuotaError) {
			mu.Lock()
			defer mu.Unlock()
			reported = append(reported, e)
		}))
		other, _ := openDummy(t, srv, tc.quota)
		for range 2 {
			assert.Check(t, is.Equal(tc.send(t, tn), http.StatusTooManyRequests))
		}
		assert.Assert(t, tn.Over() != nil)
		assert.Check(t, is.DeepEqual(*tn.Over(), tc.want))
		assert.Check(t, tn.Refused(tc.want.Resource) > 0)
		mu.Lock()
		assert.Check(t, is.Len(reported, 1))
		mu.Unlock()

		status, _ := post(t, other.URL, "hi")
		assert.Check(t, is.Equal(status, http.StatusOK), "another tenant keeps its own quota")
		assert.Check(t, other.Over() == nil)
	}
	for _, tc := range []testCase{
		{
			name: "requests", quota: Quota{Requests: 3},
			send: func(t *testing.T, tn *Tenant) int {
				for tn.Used(Requests) < 3 {
					post(t, tn.URL, "hi")
				}
				status, _ := post(t, tn.URL, "hi")
				return status
			},
			want: QuotaError{Resource: Requests, Limit: 3},
		},
		{
			name: "bytes", quota: Quota{Bytes: 10},
			send: func(t *testing.T, tn *Tenant) int {
				status, _ := post(t, tn.URL, strings.Repeat("x", 11))
				if status == http.StatusBadRequest {
					status = http.StatusTooManyRequests // the dummy answers a failed read with 400
				}
				return status
			},
			want: QuotaError{Resource: Bytes, Limit: 10},
		},
		{
			name: "sessions, counted by the dummy's handler", quota: Quota{Sessions: 2},
			send: func(t *testing.T, tn *Tenant) int {
				for tn.Used(Sessions) < 2 {
					post(t, tn.URL+"/session", "")
				}
				status, _ := post(t, tn.URL+"/session", "")
				return status
			},
			want: QuotaError{Resource: Sessions, Limit: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestQuotaErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  QuotaError
		want string
	}{
		{QuotaError{Resource: Sessions, Limit: 100}, "over the quota of 100 sessions"},
		{QuotaError{Resource: Requests, Limit: 10_000}, "over the quota of 10000 requests"},
		{QuotaError{Resource: Bytes, Limit: 16 << 20}, "over the quota of 16 MiB of requests"},
		{QuotaError{Resource: Bytes, Limit: 1500}, "over the quota of 1500 bytes of requests"},
		{QuotaError{Resource: Spans, Limit: 10_000}, "over the quota of 10000 spans"},
	} {
		assert.Check(t, is.Equal(tc.err.Error(), tc.want))
	}
}

// TestCloseWaitsOnNoClient: a client holds a request open in the middle
// of its body; closing its tenant, or the ctx the tenant was opened with,
// or the whole server, ends the request at once, well before any read
// deadline, and its path is 404 from then on.
func TestCloseWaitsOnNoClient(t *testing.T) {
	type testCase struct {
		name string
		end  func(srv *Server, tn *Tenant, cancel context.CancelFunc)
	}
	run := func(t *testing.T, tc testCase) {
		// Deadlines far beyond the test's: only Close can end the request.
		srv := listen(t, Limits{ReadHeaderTimeout: time.Hour, ReadTimeout: time.Hour, IdleTimeout: time.Hour})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		d := newDummy()
		tn, err := srv.Open(ctx, d, Quota{})
		assert.NilError(t, err)
		c := holdRequest(t, tn.URL)
		<-d.reading

		closed := make(chan struct{})
		go func() {
			tc.end(srv, tn, cancel)
			tn.Close()
			close(closed)
		}()
		waittest.Receive(t, "Close, which must not wait on the client", closed)
		assert.Check(t, <-d.errs != nil)
		waitClosed(t, c)
		if tc.name != "the server closes" {
			status, body := post(t, tn.URL, "hi")
			assert.Check(t, is.Equal(status, http.StatusNotFound))
			assert.Check(t, is.Equal(body, ""))
		}
	}
	for _, tc := range []testCase{
		{name: "the tenant closes", end: func(_ *Server, tn *Tenant, _ context.CancelFunc) { tn.Close() }},
		{name: "the tenant's context ends", end: func(_ *Server, _ *Tenant, cancel context.CancelFunc) { cancel() }},
		{name: "the server closes", end: func(srv *Server, _ *Tenant, _ context.CancelFunc) { srv.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestConnectionCap: past MaxConns connections, the next is accepted only
// once one closes.
func TestConnectionCap(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	assert.NilError(t, err)
	ln := newLimitListener(inner, 2)
	defer ln.Close()
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		assert.NilError(t, err)
		defer c.Close()
	}
	first := <-accepted
	<-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted while two were open")
	default:
	}
	first.Close()
	waittest.Receive(t, "the third connection to be accepted once one closed", accepted).Close()
}
