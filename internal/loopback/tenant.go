package loopback

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/evalgate/evalgate/internal/inputfile"
)

// Resource is what a Quota bounds.
type Resource uint8

// The resources of a quota.
const (
	Requests Resource = iota // HTTP requests, counted by the Server
	Bytes                    // request body bytes, counted by the Server as they are read
	Sessions                 // sessions a protocol opens, counted by its handler
	Spans                    // spans a receiver keeps, counted by its handler
	numResources
)

var resourceNames = [numResources]string{"requests", "bytes", "sessions", "spans"}

func (r Resource) String() string {
	if r < numResources {
		return resourceNames[r]
	}
	return fmt.Sprintf("resource %d", r)
}

// Quota bounds what one tenant may use in its life; a field left 0 takes
// DefaultQuota's.
type Quota struct {
	Requests int64
	Bytes    int64
	Sessions int64
	Spans    int64
}

// DefaultQuota is a tenant's quota where its Quota leaves a field 0. An
// MCP client opens one or two sessions a trial, and an SDK session holds
// about 15 KB until the trial ends.
var DefaultQuota = Quota{Requests: 10_000, Bytes: 64 << 20, Sessions: 100, Spans: 10_000}

func (q Quota) withDefaults() Quota {
	q.Requests = orDefault(q.Requests, DefaultQuota.Requests)
	q.Bytes = orDefault(q.Bytes, DefaultQuota.Bytes)
	q.Sessions = orDefault(q.Sessions, DefaultQuota.Sessions)
	q.Spans = orDefault(q.Spans, DefaultQuota.Spans)
	return q
}

func (q Quota) limit(r Resource) int64 {
	switch r {
	case Requests:
		return q.Requests
	case Bytes:
		return q.Bytes
	case Sessions:
		return q.Sessions
	case Spans:
		return q.Spans
	}
	return 0
}

// QuotaError is a tenant's first refusal: the resource that went over,
// and its quota. Its text holds nothing a client sent.
type QuotaError struct {
	Resource Resource
	Limit    int64
}

func (e *QuotaError) Error() string { return "over the quota of " + e.Quota() }

// Quota is the bound that was reached, as people read it: "100 sessions",
// "16 MiB of requests".
func (e *QuotaError) Quota() string {
	if e.Resource == Bytes {
		return inputfile.Size(e.Limit) + " of requests"
	}
	return fmt.Sprintf("%d %s", e.Limit, e.Resource)
}

// Option sets up a tenant.
type Option func(*Tenant)

// WhenOver calls f with the tenant's first QuotaError, once, as it
// happens: a server whose client must not go on (an MCP trial) ends the
// trial there.
func WhenOver(f func(*QuotaError)) Option {
	return func(t *Tenant) { t.whenOver = f }
}

// Tenant is what one trial is served: a path of its own under its Server,
// a quota, and a life that ends with Close or with the context it was
// opened with.
type Tenant struct {
	// URL is the tenant's address: http://127.0.0.1:PORT/<64 hex digits>.
	URL string

	s        *Server
	token    string
	handler  http.Handler
	quota    Quota
	whenOver func(*QuotaError)
	ctx      context.Context // ends when the tenant closes
	cancel   context.CancelFunc
	requests sync.WaitGroup // requests in progress, for Close
	busy     atomic.Int64   // the same, for Busy
	once     sync.Once

	used    [numResources]atomic.Int64
	refused [numResources]atomic.Int64
	over    atomic.Pointer[QuotaError]
}

// tenantKey is the context key of the Tenant a request reached.
type tenantKey struct{}

// TenantOf is the tenant whose request ctx belongs to, or nil.
func TenantOf(ctx context.Context) *Tenant {
	t, _ := ctx.Value(tenantKey{}).(*Tenant)
	return t
}

// Context ends when the tenant closes.
func (t *Tenant) Context() context.Context { return t.ctx }

// Take charges n of r to the tenant's quota. Over it, nothing is charged:
// the refusal is counted (Refused), the first one is the tenant's Over
// and goes to its WhenOver, and the error is a *QuotaError.
func (t *Tenant) Take(r Resource, n int64) error {
	if n <= 0 || r >= numResources {
		return nil
	}
	limit := t.quota.limit(r)
	for {
		used := t.used[r].Load()
		if used+n > limit {
			t.refused[r].Add(n)
			qe := &QuotaError{Resource: r, Limit: limit}
			if t.over.CompareAndSwap(nil, qe) && t.whenOver != nil {
				t.whenOver(qe)
			}
			return qe
		}
		if t.used[r].CompareAndSwap(used, used+n) {
			return nil
		}
	}
}

// Used is how much of r the tenant has taken.
func (t *Tenant) Used(r Resource) int64 {
	if r >= numResources {
		return 0
	}
	return t.used[r].Load()
}

// Refused is how much of r the quota refused: spans dropped, say.
func (t *Tenant) Refused(r Resource) int64 {
	if r >= numResources {
		return 0
	}
	return t.refused[r].Load()
}

// Over is the tenant's first refusal, nil while it has kept to its quota.
func (t *Tenant) Over() *QuotaError { return t.over.Load() }

// Busy reports whether a request of the tenant is in progress.
func (t *Tenant) Busy() bool { return t.busy.Load() > 0 }

// Close stops serving the tenant: its path is 404 from now on, the
// requests in progress see their context end and their connections
// closed, and Close returns once their handlers have.
func (t *Tenant) Close() {
	t.once.Do(func() {
		t.s.mu.Lock()
		delete(t.s.tenants, t.token)
		t.s.mu.Unlock()
		t.cancel()
	})
	t.requests.Wait()
}

// Refuse answers a request the quota refused: 429 with the error's text.
func Refuse(w http.ResponseWriter, err error) {
	http.Error(w, err.Error(), http.StatusTooManyRequests)
}

// quotaBody charges what is read of a request's body to its tenant.
type quotaBody struct {
	io.ReadCloser
	t *Tenant
}

func (b *quotaBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		if qerr := b.t.Take(Bytes, int64(n)); qerr != nil {
			return 0, qerr
		}
	}
	return n, err
}
