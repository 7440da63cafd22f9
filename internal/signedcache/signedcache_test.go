package signedcache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

type answer struct {
	Text string `json:"text"`
}

const key = "0123456789abcdef"

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c := &Cache{Dir: dir, Name: "test", Secret: "s3cret"}
	var got answer
	assert.Assert(t, !c.Get(key, &got), "an empty cache has nothing")
	c.Put(key, answer{Text: "hello"})
	assert.Assert(t, c.Get(key, &got))
	assert.Equal(t, got.Text, "hello")
	assert.Equal(t, c.Rejected(), 0)

	data, err := os.ReadFile(filepath.Join(dir, "01", key+".json"))
	assert.NilError(t, err)
	assert.Assert(t, !strings.Contains(string(data), "s3cret"), "the secret is not in the entry: %s", data)

	// Another cache's name, or another secret, does not believe it.
	for _, other := range []*Cache{{Dir: dir, Name: "other", Secret: "s3cret"}, {Dir: dir, Name: "test", Secret: "another"}} {
		assert.Assert(t, !other.Get(key, &got))
		assert.Equal(t, other.Rejected(), 1)
	}
}

// TestNoSecret: without a secret the cache reads and writes nothing, so
// an entry signed with anything a pull request could know is not
// believed, and not even counted.
func TestNoSecret(t *testing.T) {
	dir := t.TempDir()
	(&Cache{Dir: dir, Name: "test", Secret: "derivable"}).Put(key, answer{Text: "planted"})
	c := &Cache{Dir: dir, Name: "test"}
	assert.Assert(t, !c.Enabled())
	var got answer
	assert.Assert(t, !c.Get(key, &got))
	assert.Equal(t, c.Rejected(), 0)
	c.Put("fedcba9876543210", answer{Text: "x"})
	_, err := os.Stat(filepath.Join(dir, "fe"))
	assert.Assert(t, os.IsNotExist(err), "nothing written: %v", err)
}

// TestHostileEntries: entries that are not entries are misses, found
// without reading them: a link to /dev/zero, a link out of the folder to
// an entry signed there, a file over MaxEntryBytes, a key that would name
// a file elsewhere.
func TestHostileEntries(t *testing.T) {
	dir := t.TempDir()
	c := &Cache{Dir: dir, Name: "test", Secret: "s3cret"}
	path := filepath.Join(dir, "01", key+".json")
	assert.NilError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	var got answer

	assert.NilError(t, os.Symlink("/dev/zero", path))
	assert.Assert(t, !c.Get(key, &got))
	assert.NilError(t, os.Remove(path))

	elsewhere := &Cache{Dir: t.TempDir(), Name: "test", Secret: "s3cret"}
	elsewhere.Put(key, answer{Text: "outside"})
	assert.NilError(t, os.Symlink(filepath.Join(elsewhere.Dir, "01", key+".json"), path))
	assert.Assert(t, !c.Get(key, &got), "an entry reached through a link out of the folder")
	assert.NilError(t, os.Remove(path))

	f, err := os.Create(path)
	assert.NilError(t, err)
	assert.NilError(t, f.Truncate(MaxEntryBytes+1))
	assert.NilError(t, f.Close())
	assert.Assert(t, !c.Get(key, &got))
	assert.Equal(t, c.Rejected(), 0)

	c.Put("../../escape", answer{Text: "x"})
	assert.Assert(t, !c.Get("../../escape", &got))
	_, err = os.Stat(filepath.Join(filepath.Dir(dir), "escape.json"))
	assert.Assert(t, os.IsNotExist(err))

	// A well-formed entry with a value edited after signing is counted.
	assert.NilError(t, os.Remove(path))
	c.Put(key, answer{Text: "met"})
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	var e entry
	assert.NilError(t, json.Unmarshal(data, &e))
	e.Value = json.RawMessage(`{"text":"forged"}`)
	data, err = json.Marshal(e)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(path, data, 0o644))
	assert.Assert(t, !c.Get(key, &got))
	assert.Equal(t, c.Rejected(), 1)
}
