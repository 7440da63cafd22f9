package jsonvalue

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := Decode([]byte(s))
	assert.NilError(t, err, "decode %s", s)
	return v
}

func TestEqual(t *testing.T) {
	type testCase struct {
		name string
		a, b string
		want bool
	}
	run := func(t *testing.T, tc testCase) {
		got := Equal(mustDecode(t, tc.a), mustDecode(t, tc.b))
		assert.Check(t, got == tc.want, "Equal(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
	}
	for _, tc := range []testCase{
		{name: "integer and decimal", a: `42`, b: `42.0`, want: true},
		{name: "exponent", a: `4.2e1`, b: `42`, want: true},
		{name: "different numbers", a: `42`, b: `42.5`, want: false},
		{name: "big integers exact", a: `12345678901234567890`, b: `12345678901234567891`, want: false},
		{name: "key order", a: `{"a":1,"b":[1,2]}`, b: `{"b":[1,2.0],"a":1}`, want: true},
		{name: "null is not missing", a: `{"a":null}`, b: `{}`, want: false},
		{name: "null equals null", a: `{"a":null}`, b: `{"a":null}`, want: true},
		{name: "string is not number", a: `"42"`, b: `42`, want: false},
		{name: "array order matters", a: `[1,2]`, b: `[2,1]`, want: false},
		{name: "bool", a: `true`, b: `true`, want: true},
		{name: "bool and null", a: `false`, b: `null`, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestSubset(t *testing.T) {
	type testCase struct {
		name   string
		sub, v string
		want   bool
	}
	run := func(t *testing.T, tc testCase) {
		got := Subset(mustDecode(t, tc.sub), mustDecode(t, tc.v))
		assert.Check(t, got == tc.want, "Subset(%s, %s) = %v, want %v", tc.sub, tc.v, got, tc.want)
	}
	for _, tc := range []testCase{
		{name: "extra keys allowed", sub: `{"a":1}`, v: `{"a":1.0,"b":2}`, want: true},
		{name: "missing key", sub: `{"c":1}`, v: `{"a":1}`, want: false},
		{name: "nested", sub: `{"o":{"x":"y"}}`, v: `{"o":{"x":"y","z":1},"p":2}`, want: true},
		{name: "nested mismatch", sub: `{"o":{"x":"n"}}`, v: `{"o":{"x":"y"}}`, want: false},
		{name: "arrays same length", sub: `[{"a":1}]`, v: `[{"a":1,"b":2}]`, want: true},
		{name: "arrays different length", sub: `[1]`, v: `[1,2]`, want: false},
		{name: "empty object matches any object", sub: `{}`, v: `{"a":1}`, want: true},
		{name: "object against scalar", sub: `{}`, v: `3`, want: false},
		{name: "null sub needs null", sub: `{"a":null}`, v: `{"a":0}`, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		`{"b": 1.0, "a": [true, null, "x"]}`: `{"a":[true,null,"x"],"b":1}`,
		`4.2e1`:                              `42`,
		`0.5`:                                `0.5`,
		`"a<b"`:                              `"a<b"`,
		`12345678901234567890`:               `12345678901234567890`,
	} {
		got := string(Canonical(mustDecode(t, in)))
		assert.Check(t, got == want, "Canonical(%s) = %s, want %s", in, got, want)
	}
}

func TestPointer(t *testing.T) {
	v := mustDecode(t, `{"a":{"b/c":[10,{"d~e":true}]},"":1}`)
	for ptr, want := range map[string]string{
		"":               `{"":1,"a":{"b/c":[10,{"d~e":true}]}}`,
		"/a/b~1c/0":      `10`,
		"/a/b~1c/1/d~0e": `true`,
		"/":              `1`,
	} {
		got, ok := Pointer(v, ptr)
		assert.Check(t, ok && string(Canonical(got)) == want, "Pointer(%q) = %s, %v; want %s", ptr, Canonical(got), ok, want)
	}
	for _, ptr := range []string{"/x", "/a/b~1c/2", "/a/b~1c/01", "a", "/a/b~1c/-1"} {
		_, ok := Pointer(v, ptr)
		assert.Check(t, !ok, "Pointer(%q) resolved, want missing", ptr)
	}
}

func TestDecodeRejectsTrailingData(t *testing.T) {
	for _, in := range []string{`1 2`, `{} {}`, `{"a":1} x`} {
		_, err := Decode([]byte(in))
		assert.Check(t, err != nil, "Decode(%q) succeeded, want error", in)
	}
}

func TestAppendString(t *testing.T) {
	inputs := []string{
		"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\x00\x01\x1f\x7f",
		"é ü 日本", "bad \xff utf8 \xc3", "line\u2028sep\u2029par", "<html> & 'q'",
	}
	for _, in := range inputs {
		t.Run(strconv.Quote(in), func(t *testing.T) {
			got := AppendString(nil, in)
			var back string
			err := json.Unmarshal(got, &back)
			assert.NilError(t, err, "%s is not a JSON string", got)
			want, _ := json.Marshal(in)
			var wantBack string
			_ = json.Unmarshal(want, &wantBack)
			assert.Check(t, back == wantBack, "AppendString(%q) decodes to %q, want %q", in, back, wantBack)
		})
	}
}

func TestMarshalFile(t *testing.T) {
	got, err := MarshalFile(map[string]any{"b": []int{1}, "a": "<x & y>"})
	assert.NilError(t, err)
	assert.Equal(t, string(got), "{\n  \"a\": \"<x & y>\",\n  \"b\": [\n    1\n  ]\n}\n")
	_, err = MarshalFile(func() {})
	assert.ErrorContains(t, err, "unsupported type")
}

func TestDepth(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{`1`, 0},
		{`"[[["`, 0},
		{`[]`, 1},
		{`{"a":[1,{"b":[]}]}`, 4},
		{`["\"[", ["]"]]`, 2},
		{`"\\"`, 0},
		{strings.Repeat("[", 300) + strings.Repeat("]", 300), 300},
	} {
		assert.Check(t, Depth([]byte(tc.text)) == tc.want, "Depth(%.40s) = %d, want %d", tc.text, Depth([]byte(tc.text)), tc.want)
	}
}

// TestAppendEncodedIsEncodingJSON checks AppendEncoded and AppendFloat
// against what encoding/json writes, with HTML escaping and without.
func TestAppendEncodedIsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain ascii 0-9", `q"uote\back`, "a<b>&c", "\b\f\n\r\t\x01\x7f", "é\u2028\u2029", "bad \xff utf-8", "😀"} {
		for _, html := range []bool{false, true} {
			var want strings.Builder
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			assert.NilError(t, enc.Encode(s))
			assert.Equal(t, string(AppendEncoded(nil, s, html)), strings.TrimSuffix(want.String(), "\n"), "%q, escapeHTML %v", s, html)
		}
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -2.5, 0.1, 1e-6, 1e-7, 123456789.125, 1e20, 1e21, -3e-300, math.MaxFloat64} {
		want, err := json.Marshal(f)
		assert.NilError(t, err)
		assert.Equal(t, string(AppendFloat(nil, f)), string(want), "%v", f)
	}
}

// TestSize: the length of a value as compact JSON, counted until past the
// limit.
func TestSize(t *testing.T) {
	for _, s := range []string{`null`, `true`, `"abc"`, `12.5`, `[]`, `{}`, `[1,"a",[true,null]]`, `{"a":{"b":[1,2]},"c":"d"}`} {
		v, err := Decode([]byte(s))
		assert.NilError(t, err)
		want := int64(len(Canonical(v)))
		assert.Check(t, is.Equal(Size(v, math.MaxInt64), want), s)
		assert.Check(t, Size(v, want-1) > want-1, s)
	}
}

// FuzzDecode checks that Decode reads every input as json.Decoder does:
// the same value, or the same error.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"id":"t0","answer":629,"text":"The sum of 627 and 2 is 629"}`,
		` [1, -2.5e+3, true, false, null, {}, [], ""] `,
		`"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud83d\u0041\udc00x"`,
		"\"\xff\xfe bad \xc3\x28 utf8\"",
		`{"a":1,"a":2}`, `1 2`, `{`, ``, ` `, `nul`, `[1,]`, `"\u12"`, `{"a":1}}`, `-0`, `0.5E-7`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, gotErr := Decode(data)
		want, wantErr := decodeWithDecoder(data)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("Decode(%q): error %v, json.Decoder %v", data, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q) = %#v, json.Decoder %#v", data, got, want)
		}
	})
}
