package judges

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
	left, err := filepath.Glob(filepath.Join(dir, key[:2], ".entry-*"))
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
