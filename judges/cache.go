package judges

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

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
// is a SHA-256 of the judge's Identity, the criteria with their weights, the
// input, the output and the tool trace (names, arguments, results; not
// timings), each JSON value in canonical form. Entries are written
// atomically (a temporary file renamed into place); an unreadable or
// malformed entry is ignored and overwritten. Failed decisions are never
// cached.
type Cache struct {
	Dir   string // DefaultCacheDir when ""
	Judge Identified
}

var _ Rubric = (*Cache)(nil)

// cacheEntry is one cached verdict. It holds the judge's reasons, so the
// cache is as private as transcripts are.
type cacheEntry struct {
	Met     []bool   `json:"met"`
	Reasons []string `json:"reasons"`
}

// Decide answers from the cache when it can, else asks the judge and
// stores its verdict. A cached verdict costs 0 and has no tokens.
func (c *Cache) Decide(ctx context.Context, req *RubricRequest) (*RubricVerdict, error) {
	path := c.path(CacheKey(c.Judge.Identity(), req))
	if e, ok := readEntry(path, len(req.Criteria)); ok {
		return &RubricVerdict{Met: e.Met, Reasons: e.Reasons}, nil
	}
	v, err := c.Judge.Decide(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(v.Met) == len(req.Criteria) {
		// A cache that cannot be written only costs a re-ask next time.
		_ = writeEntry(path, &cacheEntry{Met: v.Met, Reasons: v.Reasons})
	}
	return v, nil
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

func readEntry(path string, want int) (*cacheEntry, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || len(e.Met) != want {
		return nil, false
	}
	if len(e.Reasons) != want {
		e.Reasons = make([]string, want)
	}
	return &e, true
}

// writeEntry writes e to path atomically, so a reader never sees half an
// entry and concurrent writers of the same key leave one whole entry.
func writeEntry(path string, e *cacheEntry) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("could not create the judge cache %q: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".entry-*")
	if err != nil {
		return fmt.Errorf("could not write to the judge cache %q: %w", dir, err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("could not write to the judge cache %q: %w", dir, firstErr(werr, cerr))
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("could not write to the judge cache %q: %w", dir, err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
