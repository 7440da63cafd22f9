package suites

import (
	"math/big"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// quickSchema answers one question about a value, allocating only for
// bounded numbers and property names: is it valid against a JSON Schema
// that uses only the few keywords the suite schema uses? Each task of a
// suite, and the suite with its first task, is checked with it first, and
// only what it does not find valid goes to the full validator, which finds
// and describes the problems. Schema validation took a quarter of the CPU of
// loading a suite, most of it making the generic copy of each task that
// the full validator works on (#6).
//
// Saying "valid" wrongly would let a bad task through, so a quickSchema
// knows few keywords and each one as draft 2020-12 defines it, and a schema
// using any other keyword has no quick form at all: compileQuick returns
// nil. FuzzQuickSchema compares its verdicts with the full validator's.
type quickSchema struct {
	always, never bool // the schemas true and false

	types    uint8 // the kinds allowed, a bit per valueKind; 0 allows all
	integers bool  // "integer": numbers with no fraction are allowed
	enum     []string
	ref      *quickSchema

	// Objects.
	properties    map[string]*quickSchema
	required      []string
	additional    *quickSchema // additionalProperties; nil allows any
	propertyNames *quickSchema

	// Arrays.
	items       *quickSchema
	minItems    int
	uniqueItems bool

	// Strings.
	minLength int
	pattern   *regexp.Regexp

	// Numbers.
	minimum, maximum *big.Rat
}

// quickAnnotations are keywords that say nothing about validity.
var quickAnnotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$defs": true, "title": true, "description": true,
	"examples": true, "default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// compileQuick builds the quick form of schema, whose "$ref"s resolve
// against root; nil when it uses a keyword or a form of one that the quick
// form does not know.
func compileQuick(root, schema *value) *quickSchema {
	c := &quickCompiler{root: root, refs: map[string]*quickSchema{}}
	q := c.compile(schema)
	if c.unknown {
		return nil
	}
	return q
}

type quickCompiler struct {
	root    *value
	refs    map[string]*quickSchema
	unknown bool
}

func (c *quickCompiler) compile(v *value) *quickSchema {
	q := &quickSchema{}
	switch v.kind {
	case kindBool:
		q.always, q.never = v.lit == "true", v.lit != "true"
		return q
	case kindObject:
	default:
		c.unknown = true
		return q
	}
	for _, f := range v.fields {
		switch val := f.val; f.key {
		case "type":
			c.types(q, val)
		case "enum":
			for _, e := range val.items {
				if e.kind != kindString {
					c.unknown = true
				}
				q.enum = append(q.enum, e.lit)
			}
			if val.kind != kindArray || len(q.enum) == 0 {
				c.unknown = true
			}
		case "$ref":
			q.ref = c.ref(val)
		case "properties":
			if val.kind != kindObject {
				c.unknown = true
			}
			q.properties = make(map[string]*quickSchema, len(val.fields))
			for _, p := range val.fields {
				q.properties[p.key] = c.compile(p.val)
			}
		case "required":
			for _, r := range val.items {
				if r.kind != kindString {
					c.unknown = true
				}
				q.required = append(q.required, r.lit)
			}
		case "additionalProperties":
			q.additional = c.compile(val)
		case "propertyNames":
			q.propertyNames = c.compile(val)
		case "items":
			q.items = c.compile(val)
		case "minItems":
			q.minItems = c.count(val)
		case "uniqueItems":
			q.uniqueItems = val.kind == kindBool && val.lit == "true"
			if val.kind != kindBool {
				c.unknown = true
			}
		case "minLength":
			q.minLength = c.count(val)
		case "pattern":
			re, err := regexp.Compile(val.lit)
			if val.kind != kindString || err != nil {
				c.unknown = true
			}
			q.pattern = re
		case "minimum", "maximum":
			r, ok := new(big.Rat).SetString(val.lit)
			if val.kind != kindNumber || !ok {
				c.unknown = true
			}
			if f.key == "minimum" {
				q.minimum = r
			} else {
				q.maximum = r
			}
		default:
			if !quickAnnotations[f.key] {
				c.unknown = true
			}
		}
	}
	return q
}

// types reads "type": one name or a list of them.
func (c *quickCompiler) types(q *quickSchema, v *value) {
	names := []*value{v}
	if v.kind == kindArray {
		names = v.items
	}
	for _, n := range names {
		k := slices.Index(kindNames[:], n.lit) // JSON Schema's type names
		switch {
		case n.kind != kindString:
			c.unknown = true
		case n.lit == "integer":
			q.integers = true
		case k >= 0:
			q.types |= 1 << k
		default:
			c.unknown = true
		}
	}
	if len(names) == 0 {
		c.unknown = true
	}
}

// ref resolves a "$ref" to a definition of the root schema.
func (c *quickCompiler) ref(v *value) *quickSchema {
	name, ok := strings.CutPrefix(v.lit, "#/$defs/")
	if v.kind != kindString || !ok || strings.ContainsAny(name, "/~%") {
		c.unknown = true
		return nil
	}
	if q, ok := c.refs[name]; ok {
		return q
	}
	def := c.root.get("$defs").get(name)
	if def == nil {
		c.unknown = true
		return nil
	}
	q := &quickSchema{}
	c.refs[name] = q // before compiling: a definition may refer to itself
	*q = *c.compile(def)
	return q
}

// count reads a non-negative integer keyword.
func (c *quickCompiler) count(v *value) int {
	n, ok := integer(v)
	if !ok || n < 0 || n > 1<<20 {
		c.unknown = true
	}
	return int(n)
}

// valid reports whether v is valid; false means "not known to be valid".
func (q *quickSchema) valid(v *value) bool {
	switch {
	case q == nil:
		return true
	case q.always:
		return true
	case q.never:
		return false
	}
	if q.types != 0 || q.integers {
		if q.types&(1<<v.kind) == 0 && !(q.integers && v.kind == kindNumber && isInteger(v.lit)) {
			return false
		}
	}
	if q.enum != nil && (v.kind != kindString || !slices.Contains(q.enum, v.lit)) {
		return false
	}
	if q.ref != nil && !q.ref.valid(v) {
		return false
	}
	switch v.kind {
	case kindObject:
		return q.validObject(v)
	case kindArray:
		if len(v.items) < q.minItems {
			return false
		}
		for _, it := range v.items {
			if !q.items.valid(it) {
				return false
			}
		}
		return !q.uniqueItems || uniqueStrings(v.items)
	case kindString:
		if q.minLength > 0 && utf8.RuneCountInString(v.lit) < q.minLength {
			return false
		}
		return q.pattern == nil || q.pattern.MatchString(v.lit)
	case kindNumber:
		if q.minimum == nil && q.maximum == nil {
			return true
		}
		r, ok := new(big.Rat).SetString(v.lit)
		return ok && (q.minimum == nil || r.Cmp(q.minimum) >= 0) && (q.maximum == nil || r.Cmp(q.maximum) <= 0)
	}
	return true
}

func (q *quickSchema) validObject(v *value) bool {
	for _, name := range q.required {
		if v.getField(name) == nil {
			return false
		}
	}
	for _, f := range v.fields {
		if q.propertyNames != nil && !q.propertyNames.valid(&value{kind: kindString, lit: f.key}) {
			return false
		}
		if p, ok := q.properties[f.key]; ok {
			if !p.valid(f.val) {
				return false
			}
		} else if !q.additional.valid(f.val) {
			return false
		}
	}
	return true
}

// isInteger reports whether a number literal has no fraction, as 1.0 and
// 1e2 do not.
func isInteger(lit string) bool {
	if !strings.ContainsAny(lit, ".eE") {
		return true
	}
	r, ok := new(big.Rat).SetString(lit)
	return ok && r.IsInt()
}

// uniqueStrings reports whether items are distinct strings; items of other
// kinds are left to the full validator, which compares JSON values.
func uniqueStrings(items []*value) bool {
	for i, a := range items {
		if a.kind != kindString {
			return false
		}
		for _, b := range items[:i] {
			if a.lit == b.lit {
				return false
			}
		}
	}
	return true
}
