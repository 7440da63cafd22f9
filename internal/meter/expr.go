package meter

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/conf"

	"github.com/evalgate/evalgate/internal/limits"
)

// Var is the variable under which an expression patched by Patch finds
// its meter: the caller puts the *Meter in the environment it runs the
// program with, and declares Var (of any type) to the checker. No
// expression can name it: it is not an identifier.
const Var = "\x00meter"

// The functions Patch calls, named so that no expression can call them.
const (
	fnMatches = "\x00matches"
	fnStep    = "\x00step"
)

// Declare adds the functions Patch calls to the configuration that
// compiles the patched tree.
func Declare(c *conf.Config) {
	expr.Function(fnMatches, matches, new(func(any, any, any) bool))(c)
	expr.Function(fnStep, step, new(func(any, any) any))(c)
}

// Patch rewrites a checked expression so that it spends through the
// meter in Var: each `a matches b` becomes a call that compiles b with
// Compile (a literal pattern once, here) and matches it with Match, and
// the body of each predicate (the {…} of all, any, filter, map, reduce,
// ...) first looks at the meter, so a loop stops when its context ends.
// The tree must be checked again (checker.Check, with a configuration
// that Declare set up) before it is compiled. A literal pattern that
// Compile refuses is left to fail when the expression runs.
func Patch(node *ast.Node) {
	ast.Walk(node, patcher{})
}

type patcher struct{}

func (patcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		if n.Operator != "matches" {
			return
		}
		right := n.Right
		if s, ok := right.(*ast.StringNode); ok {
			if re, err := Compile(s.Value); err == nil {
				right = &ast.ConstantNode{Value: re}
			}
		}
		call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: fnMatches}, Arguments: []ast.Node{meterNode(), n.Left, right}}
		ast.Patch(node, call)
	case *ast.PredicateNode:
		if c, ok := n.Node.(*ast.CallNode); ok {
			if id, ok := c.Callee.(*ast.IdentifierNode); ok && id.Value == fnStep {
				return // patched already
			}
		}
		body := n.Node
		n.Node = &ast.CallNode{Callee: &ast.IdentifierNode{Value: fnStep}, Arguments: []ast.Node{meterNode(), body}}
		n.Node.SetLocation(body.Location())
	}
}

func meterNode() ast.Node { return &ast.IdentifierNode{Value: Var} }

// meterOf is the meter an expression was given; nil when it was given
// none (its matches then run without a context).
func meterOf(v any) *Meter {
	m, _ := v.(*Meter)
	return m
}

// matches is `a matches b`: false when either is nil, as expr-lang has
// it; b a pattern compiled already or a string compiled now.
func matches(params ...any) (any, error) {
	m, a, b := meterOf(params[0]), params[1], params[2]
	if isNil(a) || isNil(b) {
		return false, nil
	}
	text, ok := a.(string)
	if !ok {
		return nil, fmt.Errorf("matches needs a string on its left, not %s", kind(a))
	}
	var re *Regexp
	switch p := b.(type) {
	case *Regexp:
		re = p
	case string:
		var err error
		if re, err = m.Compile(p); err != nil {
			return nil, within("the pattern of a matches: ", err)
		}
	default:
		return nil, fmt.Errorf("matches needs a string pattern on its right, not %s", kind(b))
	}
	ok, err := m.Match(re, text)
	return ok, within("a matches: ", err)
}

// within says where in an expression a cap was passed: a *limits.Error
// gets what comes first; other errors are returned as they are.
func within(where string, err error) error {
	if le, ok := errors.AsType[*limits.Error](err); ok {
		return &limits.Error{Message: where + le.Message}
	}
	return err
}

// step is a predicate's body: its value, once the meter has been looked
// at.
func step(params ...any) (any, error) {
	if err := meterOf(params[0]).Err(); err != nil {
		return nil, err
	}
	return params[1], nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Func, reflect.Chan:
		return r.IsNil()
	}
	return false
}

// kind names a value's type in the words of JSON.
func kind(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case float64, int:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "this value"
}

// Stopped reports whether err, from running a patched program, is its
// meter's context ending rather than a failure of the expression.
func Stopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
