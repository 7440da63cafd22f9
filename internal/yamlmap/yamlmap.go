// Package yamlmap is the one reader of evalgate's own YAML files
// (evalgate.yaml, .evalgate/trust.yaml): it reads a document into nodes,
// gives each known key's value to its reader, and reports every problem
// as the one positioned error (internal/diag): the file, line and column,
// the field, what was expected and, for a misspelt key, the key it was
// most likely meant to be (internal/spelling). A syntax error is placed at
// the line of the problem (ErrorLine).
//
//	r := &yamlmap.Reader{File: path, Kind: "trust"}
//	root, err := yamlmap.Parse(path, data)
//	...
//	r.Fields(root, yamlmap.Field{}, yamlmap.Keys{
//		"owner": func(v *yaml.Node) { r.NonEmpty(v, yamlmap.Field{}.Key("owner"), &owner) },
//	})
//	return r.Errs.Err()
//
// Suite files are read otherwise: into a tree their JSON Schema validates
// (package suites), which uses ErrorLine too.
package yamlmap

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/jsonpointer"
	"github.com/evalgate/evalgate/internal/spelling"
)

// Parse reads data, the content of file, as YAML, and returns the root
// node of its document; nil for an empty document. A syntax error is
// diag.Errors holding one error at the line of the problem.
func Parse(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := ErrorLine(data, err)
		return nil, diag.Errors{{Pos: diag.Pos{File: file, Line: line, Col: 1}, Message: "invalid YAML: " + msg}}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// Field is a place in a document: the JSON pointer of a value
// (/attestations/0/date) and the name of the setting it is
// (agent.openai.model, suites[0]). The zero Field is the document's root.
type Field struct {
	Pointer string
	Setting string
}

// Key is the field of the member key of f.
func (f Field) Key(key string) Field {
	setting := key
	if f.Setting != "" {
		setting = f.Setting + "." + key
	}
	return Field{Pointer: jsonpointer.Append(f.Pointer, key), Setting: setting}
}

// Index is the field of item i of f.
func (f Field) Index(i int) Field {
	return Field{Pointer: jsonpointer.AppendIndex(f.Pointer, i), Setting: f.Setting + "[" + strconv.Itoa(i) + "]"}
}

// Naming is how a problem names its field.
type Naming int

const (
	// ByPointer names a field by its JSON pointer, as suite files are named:
	// `trust.yaml:4:44: /attestations/0/date: expected a date ...`; a
	// problem with a key is at the key's own pointer.
	ByPointer Naming = iota
	// BySetting names a field by its setting in the message, as the docs
	// and the flags name evalgate.yaml's settings:
	// `evalgate.yaml:3:5: agent.openai: unknown key "modle"; ...`; a
	// problem with a key is at the mapping that holds it.
	BySetting
)

// Keys are the known keys of a mapping, each with the reader of its value.
type Keys map[string]func(v *yaml.Node)

// Reader reads the fields of one file and collects every problem found,
// in the order found.
type Reader struct {
	File   string
	Kind   string // the kind every problem carries (diag.Error.Kind); "" for none
	Naming Naming
	// Root names the document's root when Naming is BySetting ("config").
	Root string
	Errs diag.Errors
}

// Errorf records a problem with the value n of field at.
func (r *Reader) Errorf(n *yaml.Node, at Field, format string, args ...any) {
	r.ErrorfAt(r.Pos(n), at, format, args...)
}

// ErrorfAt records a problem with field at, found at pos: inside the
// field's value, such as a place in an expression.
func (r *Reader) ErrorfAt(pos diag.Pos, at Field, format string, args ...any) {
	e := &diag.Error{Pos: pos, Message: fmt.Sprintf(format, args...), Kind: r.Kind}
	if r.Naming == ByPointer {
		e.Pointer = at.Pointer
	} else {
		e.Message = cmp.Or(at.Setting, r.Root) + ": " + e.Message
	}
	r.Errs = append(r.Errs, e)
}

// Pos is where n is in the file.
func (r *Reader) Pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: r.File, Line: n.Line, Col: n.Column}
}

// Fields gives the value of each key of the mapping n, the field at, to
// its reader in keys, once per key, in the document's order. It reports n
// when it is not a mapping, and a key that is not one of keys (naming the
// nearest one, or else every one) or is set a second time.
func (r *Reader) Fields(n *yaml.Node, at Field, keys Keys) {
	if n.Kind != yaml.MappingNode {
		r.Errorf(n, at, "expected a mapping with the keys %s", quoted(keys))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		read, ok := keys[k.Value]
		switch {
		case !ok:
			names := slices.Sorted(maps.Keys(keys))
			if near := spelling.Nearest(k.Value, names, max(1, len(k.Value)/3)); near != "" {
				r.keyErrorf(k, at, "unknown key %q; did you mean %q?", k.Value, near)
			} else {
				r.keyErrorf(k, at, "unknown key %q; expected one of %s", k.Value, quoted(keys))
			}
		case seen[k.Value]:
			r.keyErrorf(k, at, "key %q is set twice", k.Value)
		default:
			seen[k.Value] = true
			read(v)
		}
	}
}

// keyErrorf records a problem with the key k of the mapping at.
func (r *Reader) keyErrorf(k *yaml.Node, at Field, format string, args ...any) {
	if r.Naming == ByPointer {
		at = at.Key(k.Value)
	}
	r.Errorf(k, at, format, args...)
}

// quoted lists the keys, quoted, in order.
func quoted(keys Keys) string {
	names := slices.Sorted(maps.Keys(keys))
	for i, k := range names {
		names[i] = strconv.Quote(k)
	}
	return strings.Join(names, ", ")
}

// Has reports whether the mapping n has the key.
func Has(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

// isNull reports whether n is null: `~`, `null` or nothing.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// Str reads a string, which may be empty, into dst.
func (r *Reader) Str(n *yaml.Node, at Field, dst *string) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		r.Errorf(n, at, "expected a string")
		return
	}
	*dst = n.Value
}

// NonEmpty reads a string holding more than white space into dst.
func (r *Reader) NonEmpty(n *yaml.Node, at Field, dst *string) {
	if n.Kind != yaml.ScalarNode || isNull(n) || strings.TrimSpace(n.Value) == "" {
		r.Errorf(n, at, "expected a non-empty string")
		return
	}
	*dst = n.Value
}

// Bool reads true or false into dst.
func (r *Reader) Bool(n *yaml.Node, at Field, dst *bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		r.Errorf(n, at, "expected true or false")
		return
	}
	*dst = n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
}

// Strs reads a string or a list of strings into dst; a string is a list
// of one.
func (r *Reader) Strs(n *yaml.Node, at Field, dst *[]string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if !isNull(n) {
			*dst = []string{n.Value}
			return
		}
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				r.Errorf(e, at, "expected a list of strings")
				return
			}
			out = append(out, e.Value)
		}
		*dst = out
		return
	}
	r.Errorf(n, at, "expected a string or a list of strings")
}

// Int reads an integer of at least min into dst.
func (r *Reader) Int(n *yaml.Node, at Field, min int, dst *int) {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < min {
		r.Errorf(n, at, "expected an integer >= %d", min)
		return
	}
	*dst = v
}

// Float reads a number of at least 0 into dst.
func (r *Reader) Float(n *yaml.Node, at Field, dst *float64) {
	v, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 {
		r.Errorf(n, at, "expected a number >= 0")
		return
	}
	*dst = v
}
