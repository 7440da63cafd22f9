package suites

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/jsonpointer"
	"github.com/evalgate/evalgate/jsonvalue"
)

func TestTemplate(t *testing.T) {
	args, err := jsonvalue.Decode([]byte(`{"id":"A/1~x","n":3,"ok":true,"list":["a","b"],"obj":{"k":"v"},"nil":null}`))
	assert.NilError(t, err)
	type testCase struct {
		name, text string
		pointer    bool
		want       string // rendered text
		value      string // Value as canonical JSON, when set
		parseErr   string
		renderErr  string
	}
	run := func(t *testing.T, tc testCase) {
		tpl, err := ParseTemplate(tc.text)
		if tc.parseErr != "" {
			assert.Error(t, err, tc.parseErr)
			return
		}
		assert.NilError(t, err)
		got, err := tpl.Render(args, tc.pointer)
		if tc.renderErr != "" {
			assert.Error(t, err, tc.renderErr)
			return
		}
		assert.NilError(t, err)
		assert.Equal(t, got, tc.want)
		if tc.value != "" {
			v, err := tpl.Value(args)
			assert.NilError(t, err)
			assert.Equal(t, string(jsonvalue.Canonical(v)), tc.value)
		}
	}
	for _, tc := range []testCase{
		{name: "literal", text: "/orders", want: "/orders", value: `"/orders"`},
		{name: "pointer escapes the argument", text: "/orders/{args.id}/status", pointer: true, want: "/orders/A~11~0x/status"},
		{name: "string keeps it", text: "order {args.id}", want: "order A/1~x"},
		{name: "number as text", text: "n={args.n}", want: "n=3", value: `"n=3"`},
		{name: "whole placeholder keeps the type", text: "{args.n}", want: "3", value: `3`},
		{name: "whole object", text: "{args.obj}", renderErr: `argument "obj" is an object or an array, which has no text to put in "{args.obj}"`},
		{name: "into an array", text: "{args.list.1}", want: "b"},
		{name: "into an object", text: "{args.obj.k}!", want: "v!"},
		{name: "boolean", text: "{args.ok}?", want: "true?"},
		{name: "null", text: "x{args.nil}", renderErr: `argument "nil" is null, which has no text to put in "x{args.nil}"`},
		{name: "missing argument", text: "/orders/{args.orderId}", renderErr: `missing argument "orderId"`},
		{name: "missing part", text: "{args.obj.z}", renderErr: `argument "obj" has no "z"`},
		{name: "canary stays", text: "{{canary}} {args.n}", want: "{{canary}} 3"},
		{name: "JSON text stays", text: `{} { "a": 1 }`, want: `{} { "a": 1 }`},
		{name: "typo", text: "/orders/{arg.orderId}", parseErr: `unknown placeholder "{arg.orderId}": expected {args.NAME}, such as {args.orderId}, or {args.NAME.0} for a part of an argument`},
		{name: "bare args", text: "{args}", parseErr: `unknown placeholder "{args}": expected {args.NAME}, such as {args.orderId}, or {args.NAME.0} for a part of an argument`},
		{name: "unclosed", text: "/orders/{args.id", parseErr: `placeholder "{args.id" has no closing "}"`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func FuzzTemplate(f *testing.F) {
	f.Add("/orders/{args.id}/x", `{"id":"a/b"}`)
	f.Add("{args.n.0}{{canary}}{", `{"n":[1]}`)
	f.Fuzz(func(t *testing.T, text, argsJSON string) {
		tpl, err := ParseTemplate(text)
		if err != nil {
			return
		}
		args, err := jsonvalue.Decode([]byte(argsJSON))
		if err != nil {
			return
		}
		got, err := tpl.Render(args, true)
		if err != nil || !jsonpointer.Valid(tpl.sample()) {
			return
		}
		// A rendered pointer has the template's segments: an argument
		// never adds one.
		if a, b := countSlash(got), countSlash(tpl.sample()); a != b {
			t.Fatalf("%q rendered %q: %d segments, the template has %d", text, got, a, b)
		}
	})
}

func countSlash(s string) (n int) {
	for i := range len(s) {
		if s[i] == '/' {
			n++
		}
	}
	return n
}
