package jsonpointer

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{"": true, "/": true, "/a/0": true, "/a~0b~1c": true, "a": false, "/a~": false, "/a~2": false} {
		assert.Equal(t, Valid(s), want, "%q", s)
	}
	assert.Equal(t, Append("/x", "a/b~c"), "/x/a~1b~0c")
	assert.Equal(t, AppendIndex("/tasks", 3), "/tasks/3")
	assert.Equal(t, Join([]string{"tasks", "0", "a/b"}), "/tasks/0/a~1b")
	assert.Equal(t, Join(nil), "")
}

func TestEscape(t *testing.T) {
	toks, err := Tokens("/" + Escape("a/b~c") + "/x")
	assert.NilError(t, err)
	assert.DeepEqual(t, toks, []string{"a/b~c", "x"})
	// "~01" is "~" then "1", never "/": "~1" is unescaped first.
	assert.Equal(t, Unescape("~01"), "~1")
}

func TestTokensErrors(t *testing.T) {
	for ptr, want := range map[string]string{
		"a":    `a JSON pointer starts with "/"`,
		"/a~":  `"~" in a JSON pointer is followed by 0 or 1 ("~0" is "~", "~1" is "/")`,
		"/a~2": `"~" in a JSON pointer is followed by 0 or 1 ("~0" is "~", "~1" is "/")`,
	} {
		_, err := Tokens(ptr)
		assert.Error(t, err, want, "%q", ptr)
	}
	toks, err := Tokens("")
	assert.NilError(t, err)
	assert.Assert(t, toks == nil)
}

// FuzzTokens checks that a pointer split and joined again is itself, and
// that tokens joined and split again are themselves.
func FuzzTokens(f *testing.F) {
	f.Add("/a~1b/~0/0", "x/~y")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, ptr, key string) {
		toks, err := Tokens(ptr)
		if Valid(ptr) != (err == nil) {
			t.Fatalf("Valid(%q) = %v, Tokens: %v", ptr, Valid(ptr), err)
		}
		if err == nil && Join(toks) != ptr {
			t.Fatalf("Join(Tokens(%q)) = %q", ptr, Join(toks))
		}
		got, err := Tokens(Append(AppendIndex("/k", 0), key) + "/")
		assert.NilError(t, err)
		assert.DeepEqual(t, got, []string{"k", "0", key, ""})
	})
}
