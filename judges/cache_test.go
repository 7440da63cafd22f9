package judges

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/chat"
)

func TestCache(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) {
		return 200, completion(verdicts(true, false), 1000, 100)
	})
	judge := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m", Pricing: chat.Pricing{InputPerMTok: 1, OutputPerMTok: 1}})
	dir := t.TempDir()
	c := &Cache{Dir: dir, Judge: judge}
	ctx := context.Background()

	first, err := c.Decide(ctx, rubricRequest("a", "b"))
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 1)
	assert.Assert(t, first.CostUsd > 0)

	// The same task again, with other timings and key order: a hit.
	again := rubricRequest("a", "b")
	again.Trace[0].StartMs, again.Trace[0].DurationMs = 900, 40
	again.Trace[0].Args = json.RawMessage(`{ "orderId" : "C-3" }`)
	hit, err := c.Decide(ctx, again)
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 1, "a cache hit calls nothing")
	assert.Equal(t, hit.CostUsd, 0.0, "a cache hit costs nothing")
	assert.Equal(t, hit.Tokens.Input+hit.Tokens.Output, int64(0))
	assert.DeepEqual(t, hit.Met, first.Met)
	assert.DeepEqual(t, hit.Reasons, first.Reasons)

	type miss struct {
		name   string
		change func(*RubricRequest)
	}
	for i, m := range []miss{
		{"another output", func(r *RubricRequest) { r.Output = json.RawMessage(`"Order C-3 is lost."`) }},
		{"another input", func(r *RubricRequest) { r.Input = json.RawMessage(`"Where is C-4?"`) }},
		{"another criterion", func(r *RubricRequest) { r.Criteria[1].Criterion = "c" }},
		{"another weight", func(r *RubricRequest) { r.Criteria[1].Weight = 0.9 }},
		{"another tool result", func(r *RubricRequest) { r.Trace[0].Result = json.RawMessage(`{"status":"lost"}`) }},
	} {
		req := rubricRequest("a", "b")
		m.change(req)
		_, err := c.Decide(ctx, req)
		assert.NilError(t, err)
		assert.Equal(t, f.callCount(), 2+i, "%s is a miss", m.name)
	}

	other := &Cache{Dir: dir, Judge: NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m", Samples: 3})}
	_, err = other.Decide(ctx, rubricRequest("a", "b"))
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 6+3, "another judge identity is a miss (three samples)")
}

func TestCacheIgnoresCorruptEntries(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) { return 200, completion(verdicts(true), 1, 1) })
	judge := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
	dir := t.TempDir()
	c := &Cache{Dir: dir, Judge: judge}
	req := rubricRequest("a")
	key := CacheKey(judge.Identity(), req)
	path := filepath.Join(dir, key[:2], key+".json")
	for i, content := range []string{`{"met":[tru`, `{"met":[true,false]}`, `[]`} {
		assert.NilError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		assert.NilError(t, os.WriteFile(path, []byte(content), 0o644))
		v, err := c.Decide(context.Background(), req)
		assert.NilError(t, err)
		assert.DeepEqual(t, v.Met, []bool{true})
		assert.Equal(t, f.callCount(), i+1, "entry %q is ignored", content)
	}
	// The corrupt entry was replaced by a good one.
	_, err := c.Decide(context.Background(), req)
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 3)
	left, err := filepath.Glob(filepath.Join(dir, key[:2], ".*.tmp"))
	assert.NilError(t, err)
	assert.Equal(t, len(left), 0, "no temporary files are left behind")
}

func TestCacheDoesNotKeepFailures(t *testing.T) {
	f, url := newFakeModel(t, func(n int, _ *chat.Request) (int, string) {
		if n == 1 {
			return 400, `{}`
		}
		return 200, completion(verdicts(false), 1, 1)
	})
	c := &Cache{Dir: t.TempDir(), Judge: NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})}
	_, err := c.Decide(context.Background(), rubricRequest("a"))
	assert.ErrorContains(t, err, "400")
	v, err := c.Decide(context.Background(), rubricRequest("a"))
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Met, []bool{false})
	assert.Equal(t, f.callCount(), 2)
}

// TestCacheRejectsPlantedEntries is DESIGN §17 "Verdicts cannot be
// planted": an entry at the right path, well-formed, saying every criterion
// is met, but whose MAC is missing or not made with the cache's key, is
// ignored and counted; the judge is asked and its verdict replaces it.
func TestCacheRejectsPlantedEntries(t *testing.T) {
	const secret = "cache-secret-0123456789"
	type testCase struct {
		name string
		key  string // the cache's Key
		mac  func(judge Identified, key string, e *cacheEntry) string
	}
	run := func(t *testing.T, tc testCase) {
		f, url := newFakeModel(t, func(int, *chat.Request) (int, string) { return 200, completion(verdicts(false), 1, 1) })
		judge := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
		dir := t.TempDir()
		req := rubricRequest("a")
		key := CacheKey(judge.Identity(), req)
		path := filepath.Join(dir, key[:2], key+".json")
		planted := &cacheEntry{Met: []bool{true}, Reasons: []string{"planted"}}
		planted.MAC = tc.mac(judge, key, planted)
		data, err := json.Marshal(planted)
		assert.NilError(t, err)
		assert.NilError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		assert.NilError(t, os.WriteFile(path, data, 0o644))

		c := &Cache{Dir: dir, Judge: judge, Key: tc.key}
		v, err := c.Decide(context.Background(), req)
		assert.NilError(t, err)
		assert.DeepEqual(t, v.Met, []bool{false})
		assert.Equal(t, f.callCount(), 1, "the planted entry was not believed")
		assert.Equal(t, c.Rejected(), 1)

		// The judge's verdict replaced it: the next run is a hit.
		again := &Cache{Dir: dir, Judge: judge, Key: tc.key}
		v, err = again.Decide(context.Background(), req)
		assert.NilError(t, err)
		assert.DeepEqual(t, v.Met, []bool{false})
		assert.Equal(t, f.callCount(), 1, "the judge's own entry is reused")
		assert.Equal(t, again.Rejected(), 0)
	}
	derived := func(judge Identified, key string, e *cacheEntry) string {
		return entryMAC((&Cache{Judge: judge}).macKey(), key, e)
	}
	testCases := []testCase{
		{name: "no MAC (as before entries had one)", key: secret,
			mac: func(Identified, string, *cacheEntry) string { return "" }},
		{name: "no MAC, no secret", key: "",
			mac: func(Identified, string, *cacheEntry) string { return "" }},
		{name: "not hex", key: secret,
			mac: func(Identified, string, *cacheEntry) string { return "not a mac" }},
		{name: "made with another key", key: secret,
			mac: func(_ Identified, key string, e *cacheEntry) string { return entryMAC([]byte("guessed"), key, e) }},
		{name: "made with the key anyone can derive from the config", key: secret, mac: derived},
		{name: "made with the right key for another request", key: secret,
			mac: func(_ Identified, _ string, e *cacheEntry) string { return entryMAC([]byte(secret), "0123", e) }},
		{name: "made with the right key for another verdict", key: secret,
			mac: func(_ Identified, key string, _ *cacheEntry) string {
				return entryMAC([]byte(secret), key, &cacheEntry{Met: []bool{false}, Reasons: []string{"planted"}})
			}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestCacheKey checks that entries written under a key are reused under the
// same key, with no request to the judge, and rejected under another.
func TestCacheKey(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) { return 200, completion(verdicts(true), 1, 1) })
	judge := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
	dir := t.TempDir()
	ctx := context.Background()

	first := &Cache{Dir: dir, Judge: judge, Key: "key-one-0123456789"}
	_, err := first.Decide(ctx, rubricRequest("a"))
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 1)
	key := CacheKey(judge.Identity(), rubricRequest("a"))
	data, err := os.ReadFile(filepath.Join(dir, key[:2], key+".json"))
	assert.NilError(t, err)
	assert.Assert(t, !strings.Contains(string(data), "key-one"), "the key is not in the entry: %s", data)

	same := &Cache{Dir: dir, Judge: judge, Key: "key-one-0123456789"}
	v, err := same.Decide(ctx, rubricRequest("a"))
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Met, []bool{true})
	assert.Equal(t, f.callCount(), 1, "the same key reuses the entry")
	assert.Equal(t, same.Rejected(), 0)

	other := &Cache{Dir: dir, Judge: judge, Key: "key-two-0123456789"}
	_, err = other.Decide(ctx, rubricRequest("a"))
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 2, "another key asks again")
	assert.Equal(t, other.Rejected(), 1)

	// Without a key, entries are bound to the judge's identity.
	none := &Cache{Dir: t.TempDir(), Judge: judge}
	_, err = none.Decide(ctx, rubricRequest("a"))
	assert.NilError(t, err)
	_, err = (&Cache{Dir: none.Dir, Judge: judge}).Decide(ctx, rubricRequest("a"))
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 3, "a cache without a key still caches")
}
