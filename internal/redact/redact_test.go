package redact

import (
	"encoding/json"
	"net/url"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestString(t *testing.T) {
	r := New("sk-test-0123456789", "", "  ", "short", "sk-test-0123456789-longer")
	for _, tc := range []struct {
		name, in, want string
	}{
		{"nothing", "could not reach the judge", "could not reach the judge"},
		{"URL password", "could not reach http://user:secret@127.0.0.1:9/v1: refused", "could not reach http://user:xxxxx@127.0.0.1:9/v1: refused"},
		{"quoted URL", `got "https://u:p%40ss@host/v1"`, `got "https://u:xxxxx@host/v1"`},
		{"at in password", "http://u:p@ss@host:1/x", "http://u:xxxxx@host:1/x"},
		{"empty password", "http://u:@host/", "http://u:xxxxx@host/"},
		{"user only", "http://user@host/v1", "http://user@host/v1"},
		{"no user", "http://127.0.0.1:9/v1 and ftp://h", "http://127.0.0.1:9/v1 and ftp://h"},
		{"two URLs", "a http://a:b@h/ b http://c:d@i", "a http://a:xxxxx@h/ b http://c:xxxxx@i"},
		{"at after path", "http://h/x@y:z", "http://h/x@y:z"},
		{"key", "401: Bearer sk-test-0123456789 is not valid", "401: Bearer [redacted] is not valid"},
		{"longer key first", "sk-test-0123456789-longer", "[redacted]"},
		{"short values are no secret", "a short answer", "a short answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Check(t, is.Equal(r.String(tc.in), tc.want))
		})
	}
	var none *Redactor
	assert.Check(t, is.Equal(none.String("http://u:p@h/ sk-test-0123456789"), "http://u:xxxxx@h/ sk-test-0123456789"))
}

// TestStringAgreesWithRedacted: a URL on its own reads as url.URL.Redacted
// writes it.
func TestStringAgreesWithRedacted(t *testing.T) {
	for _, raw := range []string{
		"http://user:secret@127.0.0.1:9/v1",
		"https://u:p%40ss@example.com/v1?x=1#f",
		"http://user@host/",
		"http://host:80",
	} {
		u, err := url.Parse(raw)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(New().String(raw), u.Redacted()), raw)
	}
}

func TestURLSecrets(t *testing.T) {
	assert.DeepEqual(t, URLSecrets("http://user:secret@127.0.0.1:9/v1"), []string{"secret", "dXNlcjpzZWNyZXQ="})
	assert.Check(t, is.Len(URLSecrets("http://user@host/"), 0))
	assert.Check(t, is.Len(URLSecrets("http://host/"), 0))
	assert.Check(t, is.Len(URLSecrets("::"), 0))
}

func TestJSON(t *testing.T) {
	r := New("sk-test-0123456789", `quote"d-secret`)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"untouched", `{"a": 1, "b": "x"}`, `{"a": 1, "b": "x"}`},
		{"string", `{"stderr": "key sk-test-0123456789\n"}`, `{"stderr":"key [redacted]\n"}`},
		{"escaped secret", `["x quote\"d-secret y"]`, `["x [redacted] y"]`},
		{"URL in a key and a value", `{"http://u:p@h/": "http:\/\/u:p@h\/"}`, `{"http://u:xxxxx@h/":"http://u:xxxxx@h/"}`},
		{"numbers stay", `{"n": 123456789012, "s": "sk-test-0123456789"}`, `{"n": 123456789012, "s":"[redacted]"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.JSON([]byte(tc.in))
			assert.Check(t, json.Valid(got), "%s", got)
			var gotV, wantV any
			assert.NilError(t, json.Unmarshal(got, &gotV))
			assert.NilError(t, json.Unmarshal([]byte(tc.want), &wantV))
			assert.Check(t, is.DeepEqual(gotV, wantV))
		})
	}
	same := []byte(`{"a": "b"}`)
	assert.Check(t, &r.JSON(same)[0] == &same[0], "nothing to redact: no copy")
}
