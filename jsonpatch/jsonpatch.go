// Package jsonpatch applies JSON Patch documents (RFC 6902) to JSON values
// decoded by jsonvalue.Decode, all operations or none.
//
// It is what a stateful fixture's effect runs on the world of a trial
// (docs/worlds.md). It works on decoded values, not on bytes, so a trial's
// world is decoded once and patched call after call; the test operation
// compares as every check does (jsonvalue.Equal: 1 equals 1.0); and an
// error says which operation failed and why without quoting any value.
//
//	doc, _ := jsonvalue.Decode([]byte(`{"orders":{"A-1":{"status":"paid"}}}`))
//	doc, err := jsonpatch.Apply(doc, []jsonpatch.Op{
//		{Op: jsonpatch.Test, Path: "/orders/A-1/status", Value: "paid"},
//		{Op: jsonpatch.Replace, Path: "/orders/A-1/status", Value: "refunded"},
//	})
package jsonpatch

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/jsonpointer"
	"github.com/evalgate/evalgate/jsonvalue"
)

// The operations of RFC 6902.
const (
	Add     = "add"
	Remove  = "remove"
	Replace = "replace"
	Move    = "move"
	Copy    = "copy"
	Test    = "test"
)

// Ops lists the operations in the RFC's order.
var Ops = []string{Add, Remove, Replace, Move, Copy, Test}

// Op is one operation. Value is a decoded JSON value (add, replace, test);
// From is the source pointer (move, copy).
type Op struct {
	Op    string
	Path  string
	From  string
	Value any
}

// Error is why an operation could not be applied. It names the operation
// and its pointers, never a value.
type Error struct {
	Index int    // of the operation in the patch
	Op    string // the operation
	Path  string
	// Failed is true for a test operation whose value differs: the
	// precondition did not hold, the patch itself is sound.
	Failed bool
	// TooLarge is true for an operation that would take the document
	// past the limit of ApplyWithin.
	TooLarge bool
	Reason   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Op, quotePointer(e.Path), e.Reason)
}

func quotePointer(p string) string {
	if p == "" {
		return `"" (the whole document)`
	}
	return strconv.Quote(p)
}

// Apply applies ops to doc in order and returns the patched document. It
// is atomic: doc itself is never modified, and when an operation fails no
// operation takes effect and the error is an *Error.
func Apply(doc any, ops []Op) (any, error) {
	return ApplyWithin(doc, ops, -1)
}

// ApplyWithin is Apply for a document that may be at most limit bytes
// as JSON (jsonvalue.Size); no limit when it is negative. An operation
// that would take the document past the limit fails with an *Error
// whose TooLarge is set, and none takes effect. The count follows each
// operation, what it adds and what it drops, so it costs what the values
// it adds and drops cost to read; an operation is measured once it is
// applied, and may at most double the document.
func ApplyWithin(doc any, ops []Op, limit int64) (any, error) {
	if len(ops) == 0 {
		return doc, nil
	}
	var size int64
	if limit >= 0 {
		size = jsonvalue.Size(doc, math.MaxInt64)
	}
	out := Clone(doc)
	for i, op := range ops {
		var e *Error
		var ch change
		if out, e = apply(out, op, &ch); e != nil {
			e.Index = i
			return doc, e
		}
		if limit < 0 {
			continue
		}
		if ch.added != nil {
			size += jsonvalue.Size(*ch.added, math.MaxInt64)
		}
		if ch.dropped != nil {
			size -= jsonvalue.Size(*ch.dropped, math.MaxInt64)
		}
		if size > limit {
			return doc, &Error{Index: i, Op: op.Op, Path: op.Path, TooLarge: true,
				Reason: fmt.Sprintf("the document would grow past %d bytes", limit)}
		}
	}
	return out, nil
}

// change is what one operation put into a document and took out of it,
// a value moved within it aside: ApplyWithin counts it.
type change struct {
	added, dropped *any
}

// Clone returns a deep copy of a decoded JSON value.
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Clone(e)
		}
		return out
	}
	return v
}

// Get returns the value at ptr in doc.
func Get(doc any, ptr string) (any, error) {
	toks, err := jsonpointer.Tokens(ptr)
	if err != nil {
		return nil, err
	}
	cur := doc
	for i, t := range toks {
		next, ok := child(cur, t)
		if !ok {
			return nil, fmt.Errorf("no value at %s", quotePointer(jsonpointer.Join(toks[:i+1])))
		}
		cur = next
	}
	return cur, nil
}

func child(v any, tok string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		e, ok := x[tok]
		return e, ok
	case []any:
		i, ok := index(tok, len(x)-1)
		if !ok {
			return nil, false
		}
		return x[i], true
	}
	return nil, false
}

// index parses an array index no greater than max: digits, no leading zero.
func index(tok string, max int) (int, bool) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' {
		return 0, false
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i > max {
		return 0, false
	}
	return i, true
}

func apply(doc any, op Op, ch *change) (any, *Error) {
	fail := func(format string, args ...any) *Error {
		return &Error{Op: op.Op, Path: op.Path, Reason: fmt.Sprintf(format, args...)}
	}
	toks, err := jsonpointer.Tokens(op.Path)
	if err != nil {
		return doc, fail("%v", err)
	}
	switch op.Op {
	case Add, Replace:
		v := Clone(op.Value)
		ch.added = &v
		return put(doc, toks, v, op.Op == Add, fail, ch)
	case Remove:
		if toks == nil {
			return doc, fail("the whole document cannot be removed")
		}
		got, doc, e := take(doc, toks, fail)
		ch.dropped = &got
		return doc, e
	case Test:
		got, err := Get(doc, op.Path)
		if err != nil {
			return doc, fail("%v", err)
		}
		if !jsonvalue.Equal(got, op.Value) {
			e := fail("the value differs from the one the test expects")
			e.Failed = true
			return doc, e
		}
		return doc, nil
	case Move, Copy:
		from, err := jsonpointer.Tokens(op.From)
		if err != nil {
			return doc, fail("from: %v", err)
		}
		if op.Op == Move && len(from) < len(toks) && strings.HasPrefix(op.Path, op.From+"/") {
			return doc, fail("a value cannot move into itself (from %s)", quotePointer(op.From))
		}
		var v any
		if op.Op == Copy {
			got, err := Get(doc, op.From)
			if err != nil {
				return doc, fail("from: %v", err)
			}
			v = Clone(got)
			ch.added = &v
		} else {
			if op.From == op.Path {
				if _, err := Get(doc, op.From); err != nil {
					return doc, fail("from: %v", err)
				}
				return doc, nil
			}
			if from == nil {
				return doc, fail("the whole document cannot be moved")
			}
			var e *Error
			if v, doc, e = take(doc, from, fail); e != nil {
				e.Reason = "from: " + e.Reason
				return doc, e
			}
		}
		return put(doc, toks, v, true, fail, ch)
	}
	return doc, fail("unknown operation; expected one of %s", strings.Join(Ops, ", "))
}

// put sets the value at toks: add (insert into an array, create or set a
// member) or replace (the target must exist). It returns the new document
// and records in ch the value it replaced.
func put(doc any, toks []string, v any, add bool, fail func(string, ...any) *Error, ch *change) (any, *Error) {
	if toks == nil {
		ch.dropped = &doc
		return v, nil
	}
	return edit(doc, toks, fail, func(parent any, last string) (any, *Error) {
		switch x := parent.(type) {
		case map[string]any:
			old, ok := x[last]
			if !ok && !add {
				return parent, fail("no value at %s", quotePointer(jsonpointer.Join(toks)))
			}
			if ok {
				ch.dropped = &old
			}
			x[last] = v
			return x, nil
		case []any:
			if add {
				i := len(x)
				if last != "-" {
					var ok bool
					if i, ok = index(last, len(x)); !ok {
						return parent, fail("%q is not an index of the array (0 to %d, or \"-\" to append)", last, len(x))
					}
				}
				x = append(x, nil)
				copy(x[i+1:], x[i:])
				x[i] = v
				return x, nil
			}
			i, ok := index(last, len(x)-1)
			if !ok {
				return parent, fail("no value at %s", quotePointer(jsonpointer.Join(toks)))
			}
			old := x[i]
			ch.dropped = &old
			x[i] = v
			return x, nil
		}
		return parent, fail("%s is neither an object nor an array", quotePointer(jsonpointer.Join(toks[:len(toks)-1])))
	})
}

// take removes the value at toks and returns it with the new document.
func take(doc any, toks []string, fail func(string, ...any) *Error) (any, any, *Error) {
	var got any
	doc, e := edit(doc, toks, fail, func(parent any, last string) (any, *Error) {
		switch x := parent.(type) {
		case map[string]any:
			v, ok := x[last]
			if !ok {
				break
			}
			got = v
			delete(x, last)
			return x, nil
		case []any:
			i, ok := index(last, len(x)-1)
			if !ok {
				break
			}
			got = x[i]
			return append(x[:i], x[i+1:]...), nil
		}
		return parent, fail("no value at %s", quotePointer(jsonpointer.Join(toks)))
	})
	return got, doc, e
}

// edit walks to the parent of the last token and lets leaf change it,
// storing what leaf returns (an array may have grown or shrunk) in place.
func edit(node any, toks []string, fail func(string, ...any) *Error, leaf func(parent any, last string) (any, *Error)) (any, *Error) {
	var walk func(node any, depth int) (any, *Error)
	walk = func(node any, depth int) (any, *Error) {
		if depth == len(toks)-1 {
			return leaf(node, toks[depth])
		}
		next, ok := child(node, toks[depth])
		if !ok {
			return node, fail("no value at %s", quotePointer(jsonpointer.Join(toks[:depth+1])))
		}
		changed, e := walk(next, depth+1)
		if e != nil {
			return node, e
		}
		switch x := node.(type) {
		case map[string]any:
			x[toks[depth]] = changed
		case []any:
			i, _ := index(toks[depth], len(x)-1)
			x[i] = changed
		}
		return node, nil
	}
	return walk(node, 0)
}
