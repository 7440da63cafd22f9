package judges

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"

	"github.com/evalgate/evalgate/internal/signedcache"
	"github.com/evalgate/evalgate/jsonvalue"
)

// DefaultCacheDir is where judge verdicts are cached, relative to the
// project's folder: evalgate.yaml's, or the working directory without one.
const DefaultCacheDir = ".evalgate/cache/judge"

// Identified is a rubric judge that can say what it is: a content-free ID
// for results.json and an Identity that changes whenever its verdicts
// could (used for cache keys and calibrations).
type Identified interface {
	Rubric
	ID() string
	Identity() string
}

var (
	_ Identified = (*OpenAI)(nil)
	_ Identified = (*Exec)(nil)
)

// Cache is a rubric judge that remembers verdicts on disk, so a re-run of an
// unchanged task asks nobody, costs nothing and gets the same score. The key
// is a SHA-256 of the judge's Identity, the criteria with their weights and
// scales (a graded criterion's levels and descriptors), the
// input, the output and the tool trace (names, arguments, results; not
// timings), each JSON value in canonical form. Entries are written
// atomically (a temporary file renamed into place); an unreadable or
// malformed entry is ignored and overwritten. Failed decisions are never
// cached.
//
// Entries are signed under Key (internal/signedcache, shared with the user
// simulator's cache). The cache lives in the repository's folder, which on
// a pull request from a fork is the fork's: an entry whose MAC does not
// verify (planted, written under another key, or by an older evalgate) is
// ignored like a corrupt one, the judge is asked again, and the entry is
// counted (Rejected).
type Cache struct {
	Dir   string // DefaultCacheDir when ""
	Judge Identified
	// Key is the secret the entries are signed with. Without one, no entry
	// could be told from a planted one: nothing is read or written, and
	// every criterion is asked.
	Key string

	once  sync.Once
	store *signedcache.Cache
}

var _ Rubric = (*Cache)(nil)

// cacheEntry is one cached verdict. It holds the judge's reasons, so the
// cache is as private as transcripts are.
type cacheEntry struct {
	Met     []bool   `json:"met"`
	Levels  []int    `json:"levels,omitempty"` // graded criteria only (RubricVerdict.Levels)
	Reasons []string `json:"reasons"`
}

// Decide answers from the cache when it can, else asks the judge and
// stores its verdict. A cached verdict costs 0 and has no tokens.
func (c *Cache) Decide(ctx context.Context, req *RubricRequest) (*RubricVerdict, error) {
	key := CacheKey(c.Judge.Identity(), req)
	var e cacheEntry
	if c.entries().Get(key, &e) && len(e.Met) == len(req.Criteria) && levelsFit(e.Levels, req.Criteria) {
		if len(e.Reasons) != len(e.Met) {
			e.Reasons = make([]string, len(e.Met))
		}
		return &RubricVerdict{Met: e.Met, Levels: e.Levels, Reasons: e.Reasons}, nil
	}
	v, err := c.Judge.Decide(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(v.Met) == len(req.Criteria) {
		c.entries().Put(key, &cacheEntry{Met: v.Met, Levels: v.Levels, Reasons: v.Reasons})
	}
	return v, nil
}

// Rejected is how many entries this cache ignored because their MAC did
// not verify.
func (c *Cache) Rejected() int { return c.entries().Rejected() }

// Enabled reports whether the cache reads and writes entries: whether it
// has a Key.
func (c *Cache) Enabled() bool { return c.entries().Enabled() }

// entries is the signed store of the cache's folder.
func (c *Cache) entries() *signedcache.Cache {
	c.once.Do(func() {
		c.store = &signedcache.Cache{Dir: cmp.Or(c.Dir, DefaultCacheDir), Name: "judge", Secret: c.Key}
	})
	return c.store
}

// CacheKey is the cache key of req for the judge with the given identity.
func CacheKey(identity string, req *RubricRequest) string {
	type keyed struct {
		Identity string            `json:"identity"`
		Criteria []RubricCriterion `json:"criteria"`
		Input    json.RawMessage   `json:"input"`
		Output   json.RawMessage   `json:"output"`
		Trace    []judgeTrace      `json:"trace"`
	}
	trace := traceForJudge(req.Trace)
	for i := range trace {
		trace[i].Args = canonical(trace[i].Args)
		trace[i].Result = canonical(trace[i].Result)
	}
	data, _ := json.Marshal(keyed{ // raw JSON made canonical above always encodes
		Identity: identity,
		Criteria: req.Criteria,
		Input:    canonical(req.Input),
		Output:   canonical(req.Output),
		Trace:    trace,
	})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// canonical renders a JSON value so that equal values hash alike; a value
// that is not JSON is kept as a JSON string of its bytes.
func canonical(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	d, err := jsonvalue.Decode(v)
	if err != nil {
		s, _ := json.Marshal(string(v))
		return s
	}
	return jsonvalue.Canonical(d)
}

// levelsFit reports whether a cached entry's levels answer criteria: none
// when no criterion is graded, else one per criterion, each on its scale.
func levelsFit(levels []int, criteria []RubricCriterion) bool {
	if !graded(criteria) {
		return levels == nil
	}
	if len(levels) != len(criteria) {
		return false
	}
	for i, c := range criteria {
		if c.Scale != nil && (levels[i] < c.Scale.Min || levels[i] > c.Scale.Max) {
			return false
		}
	}
	return true
}
