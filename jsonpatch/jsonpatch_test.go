package jsonpatch

import (
	"encoding/json"
	"errors"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/jsonvalue"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(s))
	assert.NilError(t, err, s)
	return v
}

// ops decodes a JSON Patch document.
func ops(t *testing.T, s string) []Op {
	t.Helper()
	var raw []struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		From  string          `json:"from"`
		Value json.RawMessage `json:"value"`
	}
	assert.NilError(t, json.Unmarshal([]byte(s), &raw))
	out := make([]Op, len(raw))
	for i, r := range raw {
		out[i] = Op{Op: r.Op, Path: r.Path, From: r.From}
		if r.Value != nil {
			out[i].Value = decode(t, string(r.Value))
		}
	}
	return out
}

// TestApply runs the examples of RFC 6902, appendix A, and the edges
// around them.
func TestApply(t *testing.T) {
	type testCase struct {
		name, doc, patch string
		want             string // the patched document; "" when it fails
		err              string
		failed           bool
	}
	run := func(t *testing.T, tc testCase) {
		doc := decode(t, tc.doc)
		before := string(jsonvalue.Canonical(doc))
		got, err := Apply(doc, ops(t, tc.patch))
		assert.Equal(t, string(jsonvalue.Canonical(doc)), before, "the input changed")
		if tc.err != "" {
			assert.Error(t, err, tc.err)
			var pe *Error
			assert.Assert(t, asError(err, &pe))
			assert.Equal(t, pe.Failed, tc.failed)
			return
		}
		assert.NilError(t, err)
		assert.Assert(t, jsonvalue.Equal(got, decode(t, tc.want)), "got %s", jsonvalue.Canonical(got))
	}
	for _, tc := range []testCase{
		{name: "A.1 add a member", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/baz","value":"qux"}]`, want: `{"baz":"qux","foo":"bar"}`},
		{name: "A.2 add an array element", doc: `{"foo":["bar","baz"]}`, patch: `[{"op":"add","path":"/foo/1","value":"qux"}]`, want: `{"foo":["bar","qux","baz"]}`},
		{name: "A.3 remove a member", doc: `{"baz":"qux","foo":"bar"}`, patch: `[{"op":"remove","path":"/baz"}]`, want: `{"foo":"bar"}`},
		{name: "A.4 remove an array element", doc: `{"foo":["bar","qux","baz"]}`, patch: `[{"op":"remove","path":"/foo/1"}]`, want: `{"foo":["bar","baz"]}`},
		{name: "A.5 replace", doc: `{"baz":"qux","foo":"bar"}`, patch: `[{"op":"replace","path":"/baz","value":"boo"}]`, want: `{"baz":"boo","foo":"bar"}`},
		{name: "A.6 move a member", doc: `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`, patch: `[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`, want: `{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`},
		{name: "A.7 move an array element", doc: `{"foo":["all","grass","cows","eat"]}`, patch: `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`, want: `{"foo":["all","cows","eat","grass"]}`},
		{name: "A.8 test passes", doc: `{"baz":"qux","foo":["a",2,"c"]}`, patch: `[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`, want: `{"baz":"qux","foo":["a",2,"c"]}`},
		{name: "A.9 test fails", doc: `{"baz":"qux"}`, patch: `[{"op":"test","path":"/baz","value":"bar"}]`, err: `test "/baz": the value differs from the one the test expects`, failed: true},
		{name: "A.10 add a nested member", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`, want: `{"foo":"bar","child":{"grandchild":{}}}`},
		{name: "A.12 add to a missing parent", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/baz/bat","value":"qux"}]`, err: `add "/baz/bat": no value at "/baz"`},
		{name: "A.14 escapes", doc: `{"/":9,"~1":10}`, patch: `[{"op":"test","path":"/~01","value":10}]`, want: `{"/":9,"~1":10}`},
		{name: "A.15 test compares types", doc: `{"/":9,"~1":10}`, patch: `[{"op":"test","path":"/~01","value":"10"}]`, err: `test "/~01": the value differs from the one the test expects`, failed: true},
		{name: "A.16 append an array", doc: `{"foo":["bar"]}`, patch: `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`, want: `{"foo":["bar",["abc","def"]]}`},
		{name: "numbers by value", doc: `{"n":1}`, patch: `[{"op":"test","path":"/n","value":1.0}]`, want: `{"n":1}`},
		{name: "copy", doc: `{"a":{"b":[1]}}`, patch: `[{"op":"copy","from":"/a","path":"/c"},{"op":"add","path":"/c/b/-","value":2}]`, want: `{"a":{"b":[1]},"c":{"b":[1,2]}}`},
		{name: "replace the whole document", doc: `{"a":1}`, patch: `[{"op":"replace","path":"","value":[1]}]`, want: `[1]`},
		{name: "all or none", doc: `{"a":1}`, patch: `[{"op":"replace","path":"/a","value":2},{"op":"remove","path":"/b"}]`, err: `remove "/b": no value at "/b"`},
		{name: "replace a missing member", doc: `{"a":1}`, patch: `[{"op":"replace","path":"/b","value":2}]`, err: `replace "/b": no value at "/b"`},
		{name: "index past the end", doc: `{"a":[1]}`, patch: `[{"op":"add","path":"/a/2","value":2}]`, err: `add "/a/2": "2" is not an index of the array (0 to 1, or "-" to append)`},
		{name: "leading zero", doc: `{"a":[1,2]}`, patch: `[{"op":"remove","path":"/a/01"}]`, err: `remove "/a/01": no value at "/a/01"`},
		{name: "bad escape", doc: `{}`, patch: `[{"op":"add","path":"/a~2","value":1}]`, err: `add "/a~2": "~" in a JSON pointer is followed by 0 or 1 ("~0" is "~", "~1" is "/")`},
		{name: "no leading slash", doc: `{}`, patch: `[{"op":"add","path":"a","value":1}]`, err: `add "a": a JSON pointer starts with "/"`},
		{name: "move into itself", doc: `{"a":{"b":{}}}`, patch: `[{"op":"move","from":"/a","path":"/a/b/c"}]`, err: `move "/a/b/c": a value cannot move into itself (from "/a")`},
		{name: "move from missing", doc: `{"a":1}`, patch: `[{"op":"move","from":"/x","path":"/y"}]`, err: `move "/y": from: no value at "/x"`},
		{name: "into a scalar", doc: `{"a":1}`, patch: `[{"op":"add","path":"/a/b","value":1}]`, err: `add "/a/b": "/a" is neither an object nor an array`},
		{name: "remove the root", doc: `{"a":1}`, patch: `[{"op":"remove","path":""}]`, err: `remove "" (the whole document): the whole document cannot be removed`},
		{name: "unknown op", doc: `{}`, patch: `[{"op":"merge","path":"/a"}]`, err: `merge "/a": unknown operation; expected one of add, remove, replace, move, copy, test`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	*target = e
	return ok
}

func TestApplyKeepsValues(t *testing.T) {
	// An added value is copied: changing the patched document later never
	// changes the patch, so one op serves every call.
	value := decode(t, `{"n":1}`)
	patch := []Op{{Op: Add, Path: "/x", Value: value}}
	doc, err := Apply(decode(t, `{}`), patch)
	assert.NilError(t, err)
	doc.(map[string]any)["x"].(map[string]any)["n"] = "changed"
	assert.Equal(t, string(jsonvalue.Canonical(value)), `{"n":1}`)
}

func FuzzApply(f *testing.F) {
	f.Add(`{"a":[1,2,{"b":null}]}`, "add", "/a/1", "/a/0", `3`)
	f.Add(`{"a":{"b":1}}`, "move", "/c", "/a/b", `null`)
	f.Add(`[1]`, "remove", "/0", "", `null`)
	f.Fuzz(func(t *testing.T, doc, op, path, from, value string) {
		d, err := jsonvalue.Decode([]byte(doc))
		if err != nil {
			return
		}
		v, err := jsonvalue.Decode([]byte(value))
		if err != nil {
			return
		}
		before := string(jsonvalue.Canonical(d))
		got, err := Apply(d, []Op{{Op: op, Path: path, From: from, Value: v}})
		if after := string(jsonvalue.Canonical(d)); after != before {
			t.Fatalf("the input changed: %s -> %s", before, after)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		_ = jsonvalue.Canonical(got)
	})
}

// TestApplyWithin: a patch that would take the document past its limit
// fails whole, and what an operation replaces or removes is counted out.
func TestApplyWithin(t *testing.T) {
	doc := `{"a":["xxxxxxxx"],"b":"yyyyyyyyyyyyyyyy"}` // 41 bytes
	cases := []struct {
		name  string
		patch string
		limit int64
		over  int // the index of the operation over the limit; -1 for none
	}{
		{"a copy into itself, until too large", `[{"op":"copy","from":"/a","path":"/a/-"},{"op":"copy","from":"/a","path":"/a/-"},{"op":"copy","from":"/a","path":"/a/-"}]`, 70, 1},
		{"no limit", `[{"op":"copy","from":"/a","path":"/a/-"},{"op":"copy","from":"/a","path":"/a/-"}]`, -1, -1},
		{"a replace by a value as large", `[{"op":"replace","path":"/b","value":"zzzzzzzzzzzzzzzz"}]`, 41, -1},
		{"a remove, then an add of what it freed", `[{"op":"remove","path":"/b"},{"op":"add","path":"/c","value":"zzzzzzzzzzzzzzzz"}]`, 41, -1},
		{"a move", `[{"op":"move","from":"/b","path":"/c"}]`, 41, -1},
		{"a move over a member", `[{"op":"move","from":"/a","path":"/b"},{"op":"add","path":"/d","value":"zzzzzz"}]`, 41, -1},
		{"the whole document replaced", `[{"op":"replace","path":"","value":{"big":"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}}]`, 41, 0},
		{"an add past the limit", `[{"op":"add","path":"/c","value":"z"}]`, 41, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := decode(t, doc)
			got, err := ApplyWithin(before, ops(t, tc.patch), tc.limit)
			assert.DeepEqual(t, before, decode(t, doc)) // never modified
			if tc.over < 0 {
				assert.NilError(t, err)
				if tc.limit >= 0 {
					assert.Check(t, jsonvalue.Size(got, tc.limit) <= tc.limit)
				}
				return
			}
			var e *Error
			assert.Assert(t, errors.As(err, &e), "%v", err)
			assert.Check(t, e.TooLarge && e.Index == tc.over, "%+v", e)
			assert.Check(t, is.Contains(e.Error(), "would grow past"))
			assert.DeepEqual(t, got, before)
		})
	}
}
