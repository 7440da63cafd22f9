package loopback

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The bounds of a Server whose Limits leave them 0.
const (
	// DefaultReadHeaderTimeout bounds reading a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading a whole request, its body
	// included: a client that announces a body and sends part of it is
	// cut off here, not waited for.
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout bounds how long a kept-alive connection waits
	// for its next request.
	DefaultIdleTimeout = 30 * time.Second
	// DefaultMaxHeaderBytes bounds a request's headers.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxBodyBytes bounds one request's body.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultMaxConns bounds the connections open at once; the next one
	// waits to be accepted until one closes.
	DefaultMaxConns = 512
)

// Limits bound every connection and request of a Server; a field left 0
// takes its default.
type Limits struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	MaxBodyBytes      int64
	MaxConns          int
}

func (l Limits) withDefaults() Limits {
	l.ReadHeaderTimeout = orDefault(l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	l.ReadTimeout = orDefault(l.ReadTimeout, DefaultReadTimeout)
	l.IdleTimeout = orDefault(l.IdleTimeout, DefaultIdleTimeout)
	l.MaxHeaderBytes = orDefault(l.MaxHeaderBytes, DefaultMaxHeaderBytes)
	l.MaxBodyBytes = orDefault(l.MaxBodyBytes, DefaultMaxBodyBytes)
	l.MaxConns = orDefault(l.MaxConns, DefaultMaxConns)
	return l
}

// Server is one listener on 127.0.0.1, at a port the system picks, serving
// its tenants each at a path of its own; any other path, a closed
// tenant's included, is 404 with an empty body, so one tenant's address
// says nothing about another's.
type Server struct {
	limits Limits
	ln     net.Listener
	http   *http.Server
	base   string // http://127.0.0.1:port/

	mu      sync.Mutex
	tenants map[string]*Tenant
}

// Listen starts a Server on a free loopback port.
func Listen(limits Limits) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("could not listen on 127.0.0.1: %w", err)
	}
	s := &Server{limits: limits.withDefaults(), base: "http://" + ln.Addr().String() + "/", tenants: map[string]*Tenant{}}
	s.ln = newLimitListener(ln, s.limits.MaxConns)
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.limits.ReadHeaderTimeout,
		ReadTimeout:       s.limits.ReadTimeout,
		IdleTimeout:       s.limits.IdleTimeout,
		MaxHeaderBytes:    s.limits.MaxHeaderBytes,
		// A request knows its connection, to close it when its tenant
		// ends (ServeHTTP).
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	go s.http.Serve(s.ln) //nolint:errcheck // ends with ErrServerClosed on Close
	return s, nil
}

// Close closes the tenants still open, each once its requests have ended,
// then the listener and every connection. It waits on no client.
func (s *Server) Close() error {
	s.mu.Lock()
	open := make([]*Tenant, 0, len(s.tenants))
	for _, t := range s.tenants {
		open = append(open, t)
	}
	s.mu.Unlock()
	for _, t := range open {
		t.Close()
	}
	return s.http.Close()
}

// connKey is the context key of a request's connection.
type connKey struct{}

// ServeHTTP routes a request to the tenant its path names, under the
// tenant's quota and lifetime.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token, rest, sub := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	s.mu.Lock()
	t := s.tenants[token]
	if t != nil {
		t.requests.Add(1)
	}
	s.mu.Unlock()
	if t == nil {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	defer t.requests.Done()
	t.busy.Add(1)
	defer t.busy.Add(-1)
	if err := t.Take(Requests, 1); err != nil {
		Refuse(w, err)
		return
	}
	// When the tenant ends, so does the request: its context, and its
	// connection, so that a client holding the request open (a body that
	// never comes, an answer never read) cannot hold the tenant's end.
	ctx, cancel := context.WithCancel(r.Context())
	conn, _ := r.Context().Value(connKey{}).(net.Conn)
	stop := context.AfterFunc(t.ctx, func() {
		cancel()
		if conn != nil {
			conn.Close()
		}
	})
	defer func() {
		stop()
		cancel()
	}()

	r = r.WithContext(context.WithValue(ctx, tenantKey{}, t))
	u := *r.URL
	u.Path, u.RawPath = "", ""
	if sub {
		u.Path = "/" + rest
	}
	r.URL = &u
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &quotaBody{ReadCloser: http.MaxBytesReader(w, r.Body, s.limits.MaxBodyBytes), t: t}
	}
	t.handler.ServeHTTP(w, r)
}

// Open serves h as a new tenant under quota q, until the tenant is closed
// or ctx ends, whichever comes first. h sees the tenant's requests with
// the path under Tenant.URL ("" for the URL itself) and the tenant in
// their context; their bodies are capped per request and counted against
// q.Bytes.
func (s *Server) Open(ctx context.Context, h http.Handler, q Quota, opts ...Option) (*Tenant, error) {
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	t := &Tenant{URL: s.base + token, s: s, token: token, handler: h, quota: q.withDefaults()}
	for _, o := range opts {
		o(t)
	}
	t.ctx, t.cancel = context.WithCancel(ctx)
	s.mu.Lock()
	s.tenants[token] = t
	s.mu.Unlock()
	context.AfterFunc(t.ctx, t.Close)
	return t, nil
}

func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("could not make a random address: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// limitListener accepts at most n connections at once: the next waits in
// Accept until one closes.
type limitListener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
