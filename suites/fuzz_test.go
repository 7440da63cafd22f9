package suites

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/jsonpointer"
)

// goTypeHints are fragments that only a leaked Go type or a formatting
// mistake would put in a message.
var goTypeHints = []string{"map[", "[]interface", "interface {}", "json.Number", "<nil>", "%!", "*big.Rat", "0x"}

// FuzzParse checks that Parse never panics, that every error is well
// formed, and that an accepted file exports to a portable one.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"ok", "err"} {
		for _, pattern := range []string{"*.json", "*.yaml", "*.yml"} {
			files, _ := filepath.Glob(filepath.Join("testdata", dir, pattern))
			for _, file := range files {
				data, err := os.ReadFile(file)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(data, filepath.Ext(file) != ".json")
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, yaml bool) {
		path := "fuzz.json"
		if yaml {
			path = "fuzz.yaml"
		}
		s, err := Parse(path, data)
		if err == nil {
			assert.Assert(t, s != nil && s.ID != "" && len(s.Tasks) != 0, "accepted a suite without id or tasks: %+v", s)
			out, _, err := ExportOpenWOP(path, data, false)
			assert.NilError(t, err, "could not export an accepted suite")
			if out == nil {
				return // every task was scored by extensions only
			}
			errs := Portable("export.json", out)
			assert.Assert(t, len(errs) <= 0, "export is not portable:\n%v\n%s", errs, out)
			_, err = Parse("export.json", out)
			assert.NilError(t, err, "export does not parse: %v\n%s", err, out)
			return
		}
		assert.Assert(t, s == nil, "a suite returned with errors")
		var errs Errors
		assert.Assert(t, errors.As(err, &errs) && len(errs) != 0, "error is not a list of errors: %v", err)
		for _, e := range errs {
			switch {
			case e.Kind == ErrSyntax, e.Kind == ErrSchema, e.Kind == ErrSemantic:
			case e.Kind == ErrIO && strings.HasSuffix(e.Pointer, "/file"): // a dataset that cannot be read
			default:
				t.Fatalf("bad kind: %v", e)
			}
			// A dataset's problems are in its file.
			inFile := e.Pos.File == path || strings.HasPrefix(e.Pos.File, "testdata")
			assert.Assert(t, e.Message != "" && inFile && jsonpointer.Valid(e.Pointer), "malformed error: %#v", e)
			for _, h := range goTypeHints {
				if strings.Contains(e.Message, h) {
					assert.Assert(t, strings.Contains(string(data), h), "message leaks %q: %v", h, e)
				}
			}
		}
	})
}

// FuzzJSONString compares the reader's strings with encoding/json's: the
// same text for every string both accept, and no string accepted by one
// only.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`plain`, `a\"b\\c\/d\b\f\n\r\t`, `\u00e9\u20AC`, `\ud83d\ude00`, `\ud83d`, `\ud83dx`, `\ud83d\u0041`,
		`\udc00\ud800`, "caf\xc3\xa9", "bad \xff\xfe utf8", "\xed\xa0\x80", `\u12`, `\uzzzz`, `\x`, "tab\there"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		tok := `"` + body + `"`
		var want string
		wantErr := json.Unmarshal([]byte(tok), &want)
		r := &jsonReader{data: []byte(tok), line: 1, col: 1}
		got, err := r.string()
		if err == nil && r.i != len(tok) {
			return // the string ended at a quote inside body: not one token
		}
		assert.Assert(t, (err == nil) == (wantErr == nil), "%q: reader says %v, encoding/json says %v", tok, err, wantErr)
		if err == nil {
			assert.Assert(t, got == want, "%q: reader reads %q, encoding/json %q", tok, got, want)
		}
	})
}
