package yamlmap

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"gotest.tools/v3/assert"
)

// read reads src with the keys of a small file, and returns its problems,
// one a line.
func read(t *testing.T, naming Naming, src string) string {
	t.Helper()
	root, err := Parse("f.yaml", []byte(src))
	if err != nil {
		return err.Error()
	}
	r := &Reader{File: "f.yaml", Kind: "k", Naming: naming, Root: "file"}
	var at Field
	var name string
	var n int
	var on bool
	var tags []string
	r.Fields(root, at, Keys{
		"name": func(v *yaml.Node) { r.NonEmpty(v, at.Key("name"), &name) },
		"on":   func(v *yaml.Node) { r.Bool(v, at.Key("on"), &on) },
		"tags": func(v *yaml.Node) { r.Strs(v, at.Key("tags"), &tags) },
		"limits": func(v *yaml.Node) {
			limits := at.Key("limits")
			r.Fields(v, limits, Keys{
				"count": func(v *yaml.Node) { r.Int(v, limits.Key("count"), 1, &n) },
			})
		},
	})
	return r.Errs.Error()
}

func TestReader(t *testing.T) {
	for _, tc := range []struct {
		name, src            string
		byPointer, bySetting string
	}{
		{"a misspelt key names the nearest",
			"nmae: x\n",
			`f.yaml:1:1: /nmae: unknown key "nmae"; did you mean "name"? [k]`,
			`f.yaml:1:1: file: unknown key "nmae"; did you mean "name"? [k]`},
		{"an unknown key lists the known ones",
			"limits: {quota: 3}\n",
			`f.yaml:1:10: /limits/quota: unknown key "quota"; expected one of "count" [k]`,
			`f.yaml:1:10: limits: unknown key "quota"; expected one of "count" [k]`},
		{"a key set twice",
			"on: true\non: false\n",
			`f.yaml:2:1: /on: key "on" is set twice [k]`,
			`f.yaml:2:1: file: key "on" is set twice [k]`},
		{"not a mapping lists the keys",
			"limits: 3\n",
			`f.yaml:1:9: /limits: expected a mapping with the keys "count" [k]`,
			`f.yaml:1:9: limits: expected a mapping with the keys "count" [k]`},
		{"each value's own expectation",
			"name: ' '\non: yes please\ntags: [a, [b]]\nlimits: {count: 0}\n",
			"f.yaml:1:7: /name: expected a non-empty string [k]\n" +
				"f.yaml:2:5: /on: expected true or false [k]\n" +
				"f.yaml:3:11: /tags: expected a list of strings [k]\n" +
				"f.yaml:4:17: /limits/count: expected an integer >= 1 [k]",
			"f.yaml:1:7: name: expected a non-empty string [k]\n" +
				"f.yaml:2:5: on: expected true or false [k]\n" +
				"f.yaml:3:11: tags: expected a list of strings [k]\n" +
				"f.yaml:4:17: limits.count: expected an integer >= 1 [k]"},
		{"a syntax error at its line, without a kind",
			"name: x\ntags: [a\n",
			`f.yaml:2:1: invalid YAML: did not find expected ',' or ']'`,
			`f.yaml:2:1: invalid YAML: did not find expected ',' or ']'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, read(t, ByPointer, tc.src), tc.byPointer)
			assert.Equal(t, read(t, BySetting, tc.src), tc.bySetting)
		})
	}
}

func TestField(t *testing.T) {
	f := Field{}.Key("agent").Key("env").Key("A/B")
	assert.Equal(t, f, Field{Pointer: "/agent/env/A~1B", Setting: "agent.env.A/B"})
	assert.Equal(t, Field{}.Key("suites").Index(2), Field{Pointer: "/suites/2", Setting: "suites[2]"})
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# nothing\n"} {
		root, err := Parse("f.yaml", []byte(src))
		assert.NilError(t, err)
		assert.Assert(t, root == nil)
	}
}

// FuzzErrorLine checks that a syntax error is placed on a line of the
// file, counted as YAML counts lines.
func FuzzErrorLine(f *testing.F) {
	for _, s := range []string{"a: [\n", "a: b\n  c: d\n", "\"x\\q\"", "a: *nope\n", "a:\r  - b\r c", "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc yaml.Node
		err := func() (err error) {
			defer func() {
				if recover() != nil {
					err = nil // yaml v3's own panics are not this function's
				}
			}()
			return yaml.Unmarshal(data, &doc)
		}()
		if err == nil {
			return
		}
		line, msg := ErrorLine(data, err)
		assert.Assert(t, line >= 1 && line <= len(lineStarts(data)), "line %d of %d: %s", line, len(lineStarts(data)), msg)
		assert.Assert(t, msg != "" && !strings.HasPrefix(msg, "yaml: "), "%q", msg)
	})
}
