package judges

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/evalgate/evalgate/internal/atomicfile"
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
// Each entry carries an HMAC-SHA256, under Key, of its cache key and its
// verdict. The cache lives in the repository's folder, which on a pull
// request from a fork is the fork's: an entry whose MAC does not verify
// (planted, written under another key, or from before entries had one) is
// ignored like a corrupt one, the judge is asked again, and the entry is
// counted (Rejected).
type Cache struct {
	Dir   string // DefaultCacheDir when ""
	Judge Identified
	// Key is the secret the entries' MACs are made with. When empty, a key
	// derived from the judge's Identity is used: it tells entries of another
	// judge apart, but anyone who can read the config can compute it, so it
	// protects against nothing planted on purpose.
	Key string

	rejected atomic.Int64
}

var _ Rubric = (*Cache)(nil)

// cacheEntry is one cached verdict. It holds the judge's reasons, so the
// cache is as private as transcripts are.
type cacheEntry struct {
	Met     []bool   `json:"met"`
	Levels  []int    `json:"levels,omitempty"` // graded criteria only (RubricVerdict.Levels)
	Reasons []string `json:"reasons"`
	MAC     string   `json:"mac,omitempty"` // hex HMAC-SHA256 of the key and the verdict (entryMAC)
}

// Decide answers from the cache when it can, else asks the judge and
// stores its verdict. A cached verdict costs 0 and has no tokens.
func (c *Cache) Decide(ctx context.Context, req *RubricRequest) (*RubricVerdict, error) {
	key := CacheKey(c.Judge.Identity(), req)
	path := c.path(key)
	macKey := c.macKey()
	e, status := readEntry(path, key, macKey, req.Criteria)
	switch status {
	case entryOK:
		return &RubricVerdict{Met: e.Met, Levels: e.Levels, Reasons: e.Reasons}, nil
	case entryForged:
		c.rejected.Add(1)
	}
	v, err := c.Judge.Decide(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(v.Met) == len(req.Criteria) {
		e := &cacheEntry{Met: v.Met, Levels: v.Levels, Reasons: v.Reasons}
		e.MAC = entryMAC(macKey, key, e)
		// A cache that cannot be written only costs a re-ask next time.
		_ = writeEntry(path, e)
	}
	return v, nil
}

// Rejected is how many entries this cache ignored because their MAC did
// not verify.
func (c *Cache) Rejected() int { return int(c.rejected.Load()) }

// macKey is Key, else a key derived from the judge's Identity.
func (c *Cache) macKey() []byte {
	if c.Key != "" {
		return []byte(c.Key)
	}
	sum := sha256.Sum256([]byte("evalgate judge cache key without a secret\x00" + c.Judge.Identity()))
	return sum[:]
}

// entryMAC is the hex HMAC-SHA256 under macKey of the cache key and the
// verdict of e (its met, levels and reasons, as JSON), so an entry moved to
// another key's file fails too. An entry without levels is signed as
// before levels existed.
func entryMAC(macKey []byte, key string, e *cacheEntry) string {
	verdict, _ := json.Marshal(struct { // bools, numbers and strings always encode
		Met     []bool   `json:"met"`
		Levels  []int    `json:"levels,omitempty"`
		Reasons []string `json:"reasons"`
	}{e.Met, e.Levels, e.Reasons})
	m := hmac.New(sha256.New, macKey)
	m.Write([]byte("evalgate judge cache v1\x00"))
	m.Write([]byte(key))
	m.Write([]byte{0})
	m.Write(verdict)
	return hex.EncodeToString(m.Sum(nil))
}

func (c *Cache) path(key string) string {
	dir := c.Dir
	if dir == "" {
		dir = DefaultCacheDir
	}
	return filepath.Join(dir, key[:2], key+".json")
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

// entryStatus is what readEntry found.
type entryStatus int

const (
	entryMissing entryStatus = iota // no entry, or one that is not a verdict for this request
	entryForged                     // a well-formed entry whose MAC does not verify
	entryOK
)

func readEntry(path, key string, macKey []byte, criteria []RubricCriterion) (*cacheEntry, entryStatus) {
	want := len(criteria)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, entryMissing
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || len(e.Met) != want || !levelsFit(e.Levels, criteria) {
		return nil, entryMissing
	}
	got, err := hex.DecodeString(e.MAC)
	wantMAC, _ := hex.DecodeString(entryMAC(macKey, key, &e))
	if err != nil || !hmac.Equal(got, wantMAC) {
		return nil, entryForged
	}
	if len(e.Reasons) != want {
		e.Reasons = make([]string, want)
	}
	return &e, entryOK
}

// writeEntry writes e to path atomically and durably, so a reader never
// sees half an entry and concurrent writers of the same key leave one
// whole entry.
func writeEntry(path string, e *cacheEntry) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, data, 0o644, 0o755); err != nil {
		return fmt.Errorf("could not write to the judge cache %q: %w", filepath.Dir(path), err)
	}
	return nil
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
