package judges

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/internal/signedcache"
)

func TestCache(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) {
		return 200, completion(verdicts(true, false), 1000, 100)
	})
	judge := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m", Pricing: chat.Pricing{InputPerMTok: 1, OutputPerMTok: 1}})
	dir := t.TempDir()
	c := &Cache{Dir: dir, Judge: judge, Key: "cache-secret"}
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

	other := &Cache{Dir: dir, Judge: NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m", Samples: 3}), Key: "cache-secret"}
	_, err = other.Decide(ctx, rubricRequest("a", "b"))
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 6+3, "another judge identity is a miss (three samples)")
}

func TestCacheIgnoresCorruptEntries(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) { return 200, completion(verdicts(true), 1, 1) })
	judge := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
	dir := t.TempDir()
	c := &Cache{Dir: dir, Judge: judge, Key: "cache-secret"}
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
	c := &Cache{Dir: t.TempDir(), Judge: NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"}), Key: "cache-secret"}
	_, err := c.Decide(context.Background(), rubricRequest("a"))
	assert.ErrorContains(t, err, "400")
	v, err := c.Decide(context.Background(), rubricRequest("a"))
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Met, []bool{false})
	assert.Equal(t, f.callCount(), 2)
}

// TestCacheRejectsPlantedEntries is docs/security.md "Judge verdicts cannot be
// planted": an entry at the right path, well-formed, saying every criterion
// is met, but whose MAC is missing or not made with the cache's key, is
// ignored and counted; the judge is asked and its verdict replaces it.
func TestCacheRejectsPlantedEntries(t *testing.T) {
	const secret = "cache-secret-0123456789"
	type testCase struct {
		name string
		// plant writes the planted entry, saying met, at path for key.
		plant func(t *testing.T, judge Identified, dir, key, path string)
	}
	planted := &cacheEntry{Met: []bool{true}, Reasons: []string{"planted"}}
	// signed writes an entry as a cache under secret would, for key.
	signed := func(t *testing.T, dir, secret, key string, e *cacheEntry) {
		(&signedcache.Cache{Dir: dir, Name: "judge", Secret: secret}).Put(key, e)
	}
	raw := func(content string) func(*testing.T, Identified, string, string, string) {
		return func(t *testing.T, _ Identified, _, _, path string) {
			assert.NilError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			assert.NilError(t, os.WriteFile(path, []byte(content), 0o644))
		}
	}
	run := func(t *testing.T, tc testCase) {
		f, url := newFakeModel(t, func(int, *chat.Request) (int, string) { return 200, completion(verdicts(false), 1, 1) })
		judge := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
		dir := t.TempDir()
		req := rubricRequest("a")
		key := CacheKey(judge.Identity(), req)
		tc.plant(t, judge, dir, key, filepath.Join(dir, key[:2], key+".json"))

		c := &Cache{Dir: dir, Judge: judge, Key: secret}
		v, err := c.Decide(context.Background(), req)
		assert.NilError(t, err)
		assert.DeepEqual(t, v.Met, []bool{false})
		assert.Equal(t, f.callCount(), 1, "the planted entry was not believed")
		assert.Equal(t, c.Rejected(), 1)

		// The judge's verdict replaced it: the next run is a hit.
		again := &Cache{Dir: dir, Judge: judge, Key: secret}
		v, err = again.Decide(context.Background(), req)
		assert.NilError(t, err)
		assert.DeepEqual(t, v.Met, []bool{false})
		assert.Equal(t, f.callCount(), 1, "the judge's own entry is reused")
		assert.Equal(t, again.Rejected(), 0)
	}
	testCases := []testCase{
		{name: "no MAC", plant: raw(`{"value":{"met":[true],"reasons":["planted"]}}`)},
		{name: "as before entries were signed by one cache", plant: raw(`{"met":[true],"reasons":["planted"]}`)},
		{name: "not hex", plant: raw(`{"value":{"met":[true],"reasons":["planted"]},"mac":"not a mac"}`)},
		{name: "made with another key", plant: func(t *testing.T, _ Identified, dir, key, _ string) {
			signed(t, dir, "guessed", key, planted)
		}},
		{name: "made with the key evalgate once derived from the config", plant: func(t *testing.T, judge Identified, dir, key, _ string) {
			sum := sha256.Sum256([]byte("evalgate judge cache key without a secret\x00" + judge.Identity()))
			signed(t, dir, string(sum[:]), key, planted)
		}},
		{name: "made with the right key for another request", plant: func(t *testing.T, _ Identified, dir, key, path string) {
			other := strings.Repeat("0", len(key))
			signed(t, dir, secret, other, planted)
			assert.NilError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			assert.NilError(t, os.Rename(filepath.Join(dir, other[:2], other+".json"), path))
		}},
		{name: "made with the right key for another verdict", plant: func(t *testing.T, _ Identified, dir, key, path string) {
			signed(t, dir, secret, key, &cacheEntry{Met: []bool{false}, Reasons: []string{"planted"}})
			data, err := os.ReadFile(path)
			assert.NilError(t, err)
			assert.NilError(t, os.WriteFile(path, []byte(strings.Replace(string(data), "false", "true", 1)), 0o644))
		}},
		{name: "made by the user simulator's cache under the right key", plant: func(t *testing.T, _ Identified, dir, key, _ string) {
			(&signedcache.Cache{Dir: dir, Name: "user", Secret: secret}).Put(key, planted)
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

	// Without a key no entry could be told from a planted one: nothing is
	// read or written, and every request is asked.
	none := &Cache{Dir: t.TempDir(), Judge: judge}
	assert.Assert(t, !none.Enabled())
	_, err = none.Decide(ctx, rubricRequest("a"))
	assert.NilError(t, err)
	_, err = (&Cache{Dir: none.Dir, Judge: judge}).Decide(ctx, rubricRequest("a"))
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 4, "a cache without a key asks every time")
	written, err := os.ReadDir(none.Dir)
	assert.NilError(t, err)
	assert.Equal(t, len(written), 0, "a cache without a key writes nothing")
	// Nor does it read: an entry the keyless cache would once have
	// believed is not even counted.
	(&signedcache.Cache{Dir: none.Dir, Name: "judge", Secret: "x"}).Put(CacheKey(judge.Identity(), rubricRequest("a")), &cacheEntry{Met: []bool{false}})
	_, err = (&Cache{Dir: none.Dir, Judge: judge}).Decide(ctx, rubricRequest("a"))
	assert.NilError(t, err)
	assert.Equal(t, f.callCount(), 5)
}
