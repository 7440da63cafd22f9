package suites

import (
	"bytes"
)

// shape describes where the openwop v1 fields are, so that everything else
// can be found (openwopWalk) or removed (ExportOpenWOP).
type shape struct {
	fields map[string]*shape // an object: its openwop keys; a nil shape is a value kept whole
	items  *shape            // an array: the shape of each item
}

var (
	matchShape = &shape{fields: map[string]*shape{"strategy": nil, "value": nil}}
	taskShape  = &shape{fields: map[string]*shape{
		"taskId": nil,
		"input":  nil,
		"expected": {fields: map[string]*shape{
			"kind":   nil,
			"match":  matchShape,
			"rubric": {items: &shape{fields: map[string]*shape{"criterion": nil, "weight": nil}}},
		}},
		"fixtures": {fields: map[string]*shape{
			"toolResponses": {items: &shape{fields: map[string]*shape{"tool": nil, "response": nil}}},
			"memorySeed":    nil,
		}},
	}}
	suiteShape = &shape{fields: map[string]*shape{
		"$schema":       nil,
		"suiteId":       nil,
		"version":       nil,
		"targetAgentId": nil,
		"modes":         nil,
		"allowedModels": nil,
		"thresholds":    nil,
		"tasks":         {items: taskShape},
	}}
	// openwopStrategies are the match strategies openwop v1 defines.
	openwopStrategies = map[string]bool{StrategyExact: true, StrategyContains: true, StrategyJSONMatch: true}
)

// owWalker walks a suite tree along the openwop shape.
type owWalker struct {
	build bool     // build the portable copy
	exts  []string // extension fields, in document order
	lost  []string // what the portable copy leaves out
}

// openwopWalk returns the pointers of the extensions used in root, in
// document order, what a portable copy leaves out, and, with build, that
// copy.
func openwopWalk(root *value, build bool) (portable *value, exts, lost []string) {
	w := &owWalker{build: build}
	portable = w.walk(root, suiteShape, "")
	return portable, w.exts, w.lost
}

// walk returns v (or, when building, its portable copy); nil means v goes
// away entirely.
func (w *owWalker) walk(v *value, sh *shape, ptr string) *value {
	switch {
	case sh == nil:
		return v
	case sh.items != nil && v.kind == kindArray:
		out := v
		if w.build {
			out = &value{kind: kindArray, line: v.line, col: v.col}
		}
		for i, it := range v.items {
			if c := w.walk(it, sh.items, pointerIndex(ptr, i)); c != nil && w.build {
				out.items = append(out.items, c)
			}
		}
		return out
	case sh.fields != nil && v.kind == kindObject:
		if sh == matchShape {
			return w.match(v, ptr)
		}
		out := v
		if w.build {
			out = &value{kind: kindObject, line: v.line, col: v.col}
		}
		for _, f := range v.fields {
			child, ok := sh.fields[f.key]
			if !ok {
				fp := pointer(ptr, f.key)
				w.exts = append(w.exts, fp)
				w.lost = append(w.lost, fp)
				continue
			}
			if child == nil && !w.build {
				continue // a value kept whole: nothing to look at
			}
			if c := w.walk(f.val, child, pointer(ptr, f.key)); c != nil && w.build {
				f.val = c
				out.fields = append(out.fields, f)
			}
		}
		return out
	}
	return v
}

// match walks a match. A match with an extension that changes what it
// compares (a strategy, a path, case folding) cannot be kept in part: it
// goes whole. An extension that changes nothing (ignoreCase: false,
// path: "") is only stripped.
func (w *owWalker) match(v *value, ptr string) *value {
	lost := len(w.lost)
	drop := false
	for _, f := range v.fields {
		fp := pointer(ptr, f.key)
		switch {
		case f.key == "value":
		case f.key == "strategy":
			if f.val.kind == kindString && !openwopStrategies[f.val.lit] {
				w.exts = append(w.exts, fp)
				drop = true
			}
		case f.key == "ignoreCase" && f.val.kind == kindBool && f.val.lit == "false",
			f.key == "path" && f.val.kind == kindString && f.val.lit == "":
			w.exts = append(w.exts, fp)
			w.lost = append(w.lost, fp)
		default:
			w.exts = append(w.exts, fp)
			drop = true
		}
	}
	if drop {
		w.lost = append(w.lost[:lost], ptr)
		return nil
	}
	if !w.build || len(w.lost) == lost {
		return v
	}
	out := &value{kind: kindObject, line: v.line, col: v.col}
	for _, f := range v.fields {
		if f.key == "strategy" || f.key == "value" {
			out.fields = append(out.fields, f)
		}
	}
	return out
}

// Portable reports why a suite file is not strictly openwop-portable: its
// syntax errors, or every difference from the strict openwop v1 schema
// (extension fields, extension strategies). An empty result means any
// openwop runner accepts the file unchanged.
func Portable(path string, data []byte) Errors {
	root, errs := parseTree(path, data)
	if errs != nil {
		return errs.sort()
	}
	return openwopSchema.validate(path, root).sort()
}

// ExportOpenWOP returns the suite without its evalgate extensions, as JSON
// indented by two spaces with keys in source order, and the JSON pointers
// of what it left out. A match that uses an extension (regex, json-subset
// or json-schema, a path, ignoreCase: true) is left out whole. The file must be a
// valid suite; otherwise err is its Errors.
func ExportOpenWOP(path string, data []byte) (out []byte, lost []string, err error) {
	if _, errs := parse(path, data); len(errs) > 0 {
		return nil, nil, errs.sort()
	}
	root, _ := parseTree(path, data)
	portable, _, lost := openwopWalk(root, true)
	var b bytes.Buffer
	portable.write(&b, "", "  ")
	b.WriteByte('\n')
	return b.Bytes(), lost, nil
}
