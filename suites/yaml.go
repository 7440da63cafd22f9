package suites

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/internal/yamlmap"
)

// yamlReader converts a yaml.Node tree into the position-keeping tree,
// accepting only what is a JSON value: string keys, scalars that are
// strings, numbers, booleans or null, sequences and mappings. Aliases and
// merge keys are expanded within a fixed budget, MaxAliasValues, so an
// alias bomb is an error rather than an out-of-memory crash.
type yamlReader struct {
	file    string
	errs    Errors
	walking map[*yaml.Node]bool // anchors being expanded, to catch cycles

	// expanded counts the values and merged keys built by expanding
	// aliases; outer is the outermost alias being expanded, nil outside
	// any, where a document over the budget is reported.
	expanded int
	outer    *yaml.Node
}

// expand counts n values built through an alias; false, after reporting
// it once, when the document is over the budget.
func (r *yamlReader) expand(n int) bool {
	if r.outer == nil {
		return true
	}
	if r.expanded += n; r.expanded <= MaxAliasValues {
		return true
	}
	if r.expanded-n <= MaxAliasValues {
		r.errorf(r.outer, "expanding this alias takes the values built through aliases past %d, the limit for a suite", MaxAliasValues)
	}
	return false
}

// enter notes that the alias n is being expanded; leave undoes it.
func (r *yamlReader) enter(n *yaml.Node) {
	r.walking[n.Alias] = true
	if r.outer == nil {
		r.outer = n
	}
}

func (r *yamlReader) leave(n *yaml.Node) {
	delete(r.walking, n.Alias)
	if r.outer == n {
		r.outer = nil
	}
}

// parseYAML reads a YAML file holding one document.
func parseYAML(file string, data []byte) (root *value, errs Errors) {
	defer func() {
		// yaml v3 has panicked on malformed input before; a suite file must
		// never crash the tool.
		if p := recover(); p != nil {
			root, errs = nil, Errors{{Pos: Pos{File: file}, Message: "could not parse YAML", Kind: ErrSyntax}}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, Errors{{Pos: Pos{File: file}, Message: "the file is empty; expected a suite object", Kind: ErrSyntax}}
		}
		return nil, Errors{yamlError(file, data, err)}
	}
	var next yaml.Node
	if err := dec.Decode(&next); err != io.EOF {
		if err != nil {
			return nil, Errors{yamlError(file, data, err)}
		}
		return nil, Errors{{
			Pos:     Pos{File: file, Line: next.Line, Col: next.Column},
			Message: "a suite file holds one YAML document; found a second one",
			Kind:    ErrSyntax,
		}}
	}
	r := &yamlReader{file: file, walking: map[*yaml.Node]bool{}}
	root = r.node(&doc, 0)
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	return root, nil
}

// yamlError turns a yaml v3 parse error into an Error at the line of the
// problem.
func yamlError(file string, data []byte, err error) *Error {
	line, msg := yamlmap.ErrorLine(data, err)
	return &Error{Pos: Pos{File: file, Line: line, Col: 1}, Message: msg, Kind: ErrSyntax}
}

func (r *yamlReader) errorf(n *yaml.Node, format string, args ...any) {
	r.errs = append(r.errs, &Error{
		Pos:     Pos{File: r.file, Line: n.Line, Col: n.Column},
		Message: fmt.Sprintf(format, args...),
		Kind:    ErrSyntax,
	})
}

// node converts n; it returns nil after recording an error.
func (r *yamlReader) node(n *yaml.Node, depth int) *value {
	if depth > maxDepth {
		r.errorf(n, "values are nested more than %d levels deep", maxDepth)
		return nil
	}
	if !r.expand(1) {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			r.errorf(n, "the file is empty; expected a suite object")
			return nil
		}
		return r.node(n.Content[0], depth)
	case yaml.AliasNode:
		if n.Alias == nil {
			r.errorf(n, "unknown anchor %q", n.Value)
			return nil
		}
		if r.walking[n.Alias] {
			r.errorf(n, "alias %q refers to a value that contains it", n.Value)
			return nil
		}
		r.enter(n)
		v := r.node(n.Alias, depth)
		r.leave(n)
		return v
	case yaml.SequenceNode:
		if tag := n.ShortTag(); tag != "!!seq" {
			r.errorf(n, "lists tagged %s are not JSON; expected a plain list", tag)
			return nil
		}
		v := &value{kind: kindArray, line: n.Line, col: n.Column, items: make([]*value, 0, len(n.Content))}
		for _, c := range n.Content {
			if it := r.node(c, depth+1); it != nil {
				v.items = append(v.items, it)
			}
		}
		return v
	case yaml.MappingNode:
		if tag := n.ShortTag(); tag != "!!map" {
			r.errorf(n, "mappings tagged %s are not JSON; expected a plain mapping", tag)
			return nil
		}
		v := &value{kind: kindObject, line: n.Line, col: n.Column}
		r.mapping(v, n, depth, true)
		return v
	case yaml.ScalarNode:
		return r.scalar(n)
	}
	r.errorf(n, "unexpected YAML node")
	return nil
}

// mapping adds the pairs of n to v. Explicit keys are added first and win
// over merged ones (<<), and a duplicate explicit key is an error.
func (r *yamlReader) mapping(v *value, n *yaml.Node, depth int, explicit bool) {
	var merges []*yaml.Node
	var seen map[string]int
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, val)
			continue
		}
		key, ok := r.key(k)
		if !ok {
			continue
		}
		if prev := findKey(v.fields, &seen, key); prev != nil {
			if explicit {
				r.errorf(k, "duplicate key %q; first defined at line %d", key, prev.keyLine)
			}
			continue
		}
		fv := r.node(val, depth+1)
		if fv == nil {
			continue
		}
		v.fields = append(v.fields, field{key: key, keyLine: k.Line, keyCol: k.Column, val: fv})
	}
	for _, m := range merges {
		r.merge(v, m, depth)
	}
}

// merge adds the keys of a merge source (a mapping, an alias of one, or a
// sequence of those) that v does not have yet.
func (r *yamlReader) merge(v *value, m *yaml.Node, depth int) {
	src := m
	if src.Kind == yaml.AliasNode && src.Alias != nil {
		if r.walking[src.Alias] {
			r.errorf(m, "alias %q refers to a value that contains it", m.Value)
			return
		}
		r.enter(src)
		defer r.leave(src)
		src = src.Alias
	}
	switch src.Kind {
	case yaml.MappingNode:
		if !r.expand(len(src.Content) / 2) {
			return
		}
		merged := &value{kind: kindObject, fields: v.fields}
		r.mapping(merged, src, depth, false)
		v.fields = merged.fields
	case yaml.SequenceNode:
		if m.Kind == yaml.SequenceNode {
			for _, c := range src.Content {
				r.merge(v, c, depth)
			}
			return
		}
		fallthrough
	default:
		r.errorf(m, "a merge key (<<) needs a mapping or a list of mappings")
	}
}

// key returns the string a mapping key stands for. Keys must be strings,
// as in JSON.
func (r *yamlReader) key(k *yaml.Node) (string, bool) {
	n := k
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		r.errorf(k, "a key must be a string, not a list or a mapping")
		return "", false
	}
	switch n.ShortTag() {
	case "!!str":
		return n.Value, true
	case "!!int", "!!float", "!!bool", "!!null", "!!timestamp":
		r.errorf(k, "key %s is not a string; quote it (%q) to use it as a key", n.Value, n.Value)
		return "", false
	}
	r.errorf(k, "key with tag %s is not a string", n.ShortTag())
	return "", false
}

// scalar converts a scalar to a JSON string, number, boolean or null.
func (r *yamlReader) scalar(n *yaml.Node) *value {
	v := &value{line: n.Line, col: n.Column}
	switch tag := n.ShortTag(); tag {
	case "!!str", "!!timestamp": // a date stays the text the author wrote
		v.kind, v.lit = kindString, n.Value
	case "!!null":
		v.kind = kindNull
	case "!!bool":
		b, ok := yamlBool(n.Value)
		if !ok {
			r.errorf(n, "%q is not a boolean; expected true or false", n.Value)
			return nil
		}
		v.kind, v.lit = kindBool, strconv.FormatBool(b)
	case "!!int", "!!float":
		lit, ok := jsonNumber(n.Value)
		if !ok {
			r.errorf(n, "%s is not a number JSON can hold", n.Value)
			return nil
		}
		v.kind, v.lit = kindNumber, lit
	case "!!binary":
		r.errorf(n, "binary values are not JSON; write the base64 text as a string")
		return nil
	default:
		r.errorf(n, "values tagged %s are not JSON; expected a string, number, boolean or null", tag)
		return nil
	}
	return v
}

func yamlBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "yes", "on", "y":
		return true, true
	case "false", "no", "off", "n":
		return false, true
	}
	return false, false
}

// jsonNumber returns a YAML number as a JSON number literal: as written when
// it already is one (42.0 stays 42.0), else normalized (0x1F is 31, +1 is
// 1, 1_000 is 1000). Infinity and NaN are not JSON.
func jsonNumber(s string) (string, bool) {
	if isJSONNumber(s) {
		return s, true
	}
	plain := strings.TrimPrefix(strings.ReplaceAll(s, "_", ""), "+")
	if isJSONNumber(plain) {
		return plain, true
	}
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return strconv.FormatInt(i, 10), true
	}
	if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return strconv.FormatUint(u, 10), true
	}
	f, err := strconv.ParseFloat(plain, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	lit := strconv.FormatFloat(f, 'g', -1, 64)
	return lit, isJSONNumber(lit)
}
