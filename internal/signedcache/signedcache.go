// Package signedcache is the one cache of model answers on disk: the
// judge's verdicts and the user simulator's messages. A re-run of an
// unchanged task asks nobody, costs nothing and gets the same answer.
//
// The cache lives in the project's folder, which on a pull request from a
// fork is the fork's, so every entry carries an HMAC-SHA256, under a
// secret, of the cache's name, its key and its value: an entry whose MAC
// does not verify (planted, written under another secret, or by an older
// evalgate) is ignored, counted (Rejected) and replaced. The secret is
// EVALGATE_CACHE_KEY, else the API key of the model whose answers the
// cache holds, never a value derived from what a pull request can read;
// with no secret at all nothing is read or written, since no entry could
// be told from a planted one (docs/security.md, "Judge verdicts cannot
// be planted in the cache").
package signedcache

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"sync/atomic"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/inputfile"
)

// MaxEntryBytes bounds an entry: an answer of the largest a model may give
// (16 MiB, chat.DefaultMaxAnswerBytes), with room for its escapes. A
// larger one is not written, and one read is ignored.
const MaxEntryBytes = 32 << 20

// entryFile is the kind of input an entry is (internal/inputfile): read
// only inside the cache's folder.
var entryFile = inputfile.Kind{What: "a cache entry", Limit: MaxEntryBytes}

// Cache is a folder of signed entries, each a JSON value under a key (a
// hex hash the caller computes). The zero Cache, or one without a Secret,
// reads and writes nothing. Its methods may be called from several
// goroutines.
type Cache struct {
	// Dir is the cache's folder; entries are Dir/ab/abcd....json.
	Dir string
	// Name tells the caches apart ("judge", "user"): it is signed with
	// every entry, so an entry of one is not an entry of another.
	Name string
	// Secret is what the entries are signed with; "" disables the cache.
	Secret string

	rejected atomic.Int64
}

// entry is one entry as written: the value, as the bytes that were
// signed, and the MAC.
type entry struct {
	Value json.RawMessage `json:"value"`
	MAC   string          `json:"mac"`
}

// Enabled reports whether the cache reads and writes entries: it has a
// folder and a secret.
func (c *Cache) Enabled() bool { return c != nil && c.Dir != "" && c.Secret != "" }

// Get decodes the entry under key into v and reports whether there was
// one to believe. A missing or unreadable entry is a miss; a well-formed
// one whose MAC does not verify is a miss that is counted (Rejected).
func (c *Cache) Get(key string, v any) bool {
	if !c.Enabled() {
		return false
	}
	path, ok := c.path(key)
	if !ok {
		return false
	}
	data, err := entryFile.ReadIn(c.Dir, path)
	if err != nil {
		return false
	}
	var e entry
	if json.Unmarshal(data, &e) != nil {
		return false
	}
	got, err := hex.DecodeString(e.MAC)
	if err != nil || !hmac.Equal(got, c.mac(key, e.Value)) {
		c.rejected.Add(1)
		return false
	}
	return json.Unmarshal(e.Value, v) == nil
}

// Put writes v under key, atomically: a reader never sees half an entry,
// and writers of one key leave one whole entry. A cache that cannot be
// written only costs a new question next time, so problems are ignored.
func (c *Cache) Put(key string, v any) {
	if !c.Enabled() {
		return
	}
	path, ok := c.path(key)
	if !ok {
		return
	}
	value, err := json.Marshal(v)
	if err != nil {
		return
	}
	data, err := json.Marshal(entry{Value: value, MAC: hex.EncodeToString(c.mac(key, value))})
	if err != nil || len(data) > MaxEntryBytes {
		return
	}
	_ = atomicfile.WriteFile(path, data, 0o644, 0o755)
}

// Rejected is how many entries this cache ignored because their MAC did
// not verify.
func (c *Cache) Rejected() int { return int(c.rejected.Load()) }

// mac is the HMAC-SHA256 under the secret of the cache's name, the key
// and the value's bytes.
func (c *Cache) mac(key string, value []byte) []byte {
	m := hmac.New(sha256.New, []byte(c.Secret))
	m.Write([]byte("evalgate cache v2\x00"))
	m.Write([]byte(c.Name))
	m.Write([]byte{0})
	m.Write([]byte(key))
	m.Write([]byte{0})
	m.Write(value)
	return m.Sum(nil)
}

// path is where the entry of key is; false for a key that is not a hash
// (it names the file).
func (c *Cache) path(key string) (string, bool) {
	if len(key) < 3 {
		return "", false
	}
	for i := 0; i < len(key); i++ {
		if b := key[i]; !('0' <= b && b <= '9' || 'a' <= b && b <= 'f') {
			return "", false
		}
	}
	return filepath.Join(c.Dir, key[:2], key+".json"), true
}
