package suites

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"

	"github.com/evalgate/evalgate/internal/exprmsg"
	"github.com/evalgate/evalgate/internal/meter"
)

// Names of the variables an assert expression sees.
const (
	ExprOutput    = "output"
	ExprInput     = "input"
	ExprTrace     = "trace"
	ExprLatencyMs = "latencyMs"
	ExprCostUsd   = "costUsd"
	ExprToolCalls = "toolCalls"
	// ExprState and ExprInitialState are the world at the end of the
	// trial and at its start (docs/worlds.md); null when the task has none.
	ExprState        = "state"
	ExprInitialState = "initialState"
	// ExprArgs is the call's arguments, in the expressions of a stateful
	// fixture (require, result, $expr), which see it with state.
	ExprArgs = "args"
	// ExprSpans is the variable that trace.spans, trace.llmCalls and the
	// other members of TraceFields read (docs/otel.md): trace itself is
	// the list of tool calls, so CompileExpr points those members here.
	// No expression can name it.
	ExprSpans = "\x00spans"
)

// TraceFields are the members of trace that say what the agent's spans
// hold rather than index its tool calls: a map under ExprSpans with these
// keys (tokens a map of input and output).
var TraceFields = []string{"spans", "llmCalls", "toolCalls", "errors", "tokens", "durationMs"}

// spansPatch points trace.F, for F in TraceFields, at ExprSpans.
type spansPatch struct{}

func (spansPatch) Visit(node *ast.Node) {
	m, ok := (*node).(*ast.MemberNode)
	if !ok {
		return
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	if !ok || id.Value != ExprTrace {
		return
	}
	if p, ok := m.Property.(*ast.StringNode); ok && slices.Contains(TraceFields, p.Value) {
		m.Node = &ast.IdentifierNode{Value: ExprSpans}
	}
}

// exprEnv declares the variables, all dynamically typed: their types are
// known only when a trial has run, and an unknown name is a compile error.
var exprEnv = types.Map{
	ExprOutput:    types.Any,
	ExprInput:     types.Any,
	ExprTrace:     types.Any,
	ExprLatencyMs: types.Any,
	ExprCostUsd:   types.Any,
	ExprToolCalls: types.Any,

	ExprState:        types.Any,
	ExprInitialState: types.Any,
	ExprSpans:        types.Any,

	meter.Var:    types.Any,
	ExprLiterals: types.Any,
}

// ExprMeter is the variable under which a compiled expression finds the
// *meter.Meter it spends through (see CompileExpr); no expression can
// name it.
const ExprMeter = meter.Var

// worldEnv declares the variables of a stateful fixture's expressions.
var worldEnv = types.Map{ExprState: types.Any, ExprArgs: types.Any, meter.Var: types.Any}

// worldConfigs recycle the compiler configurations of a stateful
// fixture's expressions: booleans (require) and values (result, $expr).
var worldConfigs = [2]sync.Pool{
	{New: func() any { return worldConfig(true) }},
	{New: func() any { return worldConfig(false) }},
}

func worldConfig(boolean bool) *conf.Config {
	c := conf.CreateNew()
	expr.Env(worldEnv)(c)
	if boolean {
		expr.AsBool()(c)
	}
	meter.Declare(c)
	c.Check()
	return c
}

// CompileWorldExpr compiles an expression of a stateful fixture, over the
// variables state (the world, decoded as output is) and args (the call's
// arguments). A require expression is boolean and must yield true or
// false; a result or $expr expression yields any JSON value.
func CompileWorldExpr(src string, boolean bool) (*vm.Program, error) {
	if err := exprLimit(src); err != nil {
		return nil, err
	}
	pool := &worldConfigs[0]
	if !boolean {
		pool = &worldConfigs[1]
	}
	cfg := pool.Get().(*conf.Config)
	defer pool.Put(cfg)
	tree, err := checker.ParseCheck(src, cfg)
	if err != nil {
		return nil, err
	}
	if err := metered(tree, cfg); err != nil {
		return nil, err
	}
	return compiler.Compile(tree, cfg)
}

// metered makes a checked tree spend through the meter its environment
// holds under ExprMeter (meter.Patch) and checks it again. Every program
// CompileExpr and CompileWorldExpr return is metered: a pattern that
// `matches` computes while it runs is held to the same caps as a literal
// one, and the program stops when its meter's context ends
// (docs/security.md, "One check executor").
func metered(tree *parser.Tree, cfg *conf.Config) error {
	meter.Patch(&tree.Node)
	_, err := checker.Check(tree, cfg)
	return err
}

// exprConfigs recycles compiler configurations. expr.Compile builds a new
// one per call (the builtin table, the environment's types), which costs
// more than compiling a short assertion; a configuration caches the types
// it has seen and so is used by one goroutine at a time.
var exprConfigs = sync.Pool{New: func() any {
	c := conf.CreateNew()
	expr.Env(exprEnv)(c)
	expr.AsBool()(c)
	meter.Declare(c)
	c.Check()
	return c
}}

// CompileExpr compiles an assert expression (expr-lang) that must yield a
// boolean. The judges package runs the program with expr.Run and an
// environment of type map[string]any holding exactly these variables:
//
//   - output: the agent's output as a JSON value: a string when it is a
//     JSON string, else map[string]any, []any, float64, bool or nil.
//   - input: the task input, decoded the same way.
//   - trace: the tool calls in order, a []any of map[string]any with the
//     keys "name" (string), "args" and "result" (JSON values decoded as
//     above) and "isError" (bool).
//   - trace.spans, trace.llmCalls, trace.toolCalls, trace.errors,
//     trace.tokens.input, trace.tokens.output, trace.durationMs: what the
//     spans the agent sent through OpenTelemetry hold (float64s; 0 when
//     the run received none), read from ExprSpans.
//   - latencyMs: the trial's latency in milliseconds (float64).
//   - costUsd: the trial's cost in US dollars (float64).
//   - toolCalls: the number of tool calls (int).
//   - state, initialState: the task's world at the end of the trial and
//     at its start, decoded as output is; nil when the task has none.
//   - ExprMeter: the *meter.Meter of the trial's checks, which the
//     program's `matches` and loops spend through; without it they run
//     within the caps but cannot be stopped.
//
// expr's operators and builtins (contains, matches, startsWith, in, len,
// fromJSON, all, any, filter, ...) stay available. A name that is neither a
// variable nor a builtin is a compile error.
//
// An expression over MaxExprBytes or MaxExprNesting is refused before it is
// parsed.
func CompileExpr(src string) (*vm.Program, error) {
	if err := exprLimit(src); err != nil {
		return nil, err
	}
	cfg := exprConfigs.Get().(*conf.Config)
	defer exprConfigs.Put(cfg)
	p, _, err := compileWith(src, cfg)
	return p, err
}

// checkExpr parses and type-checks an expression without building its
// program: the loader's check of every expression.
//
// expr's checker validates the pattern of `x matches "literal"` by
// compiling it, which costs more than the rest of the check together. The
// pattern is valid exactly when it parses (regexp.Compile fails only when
// regexp/syntax.Parse does), so the check parses each literal pattern and
// hides it from the checker. When either finds a problem, expr's own check
// runs to report the very error it reports.
//
// An expression over the limits (exprLimit), or with a literal pattern
// over them (regexLimit), is a *limitError, found before the expression
// or the pattern is parsed.
func checkExpr(src string) error {
	_, err := checkExprNodes(src)
	return err
}

// checkExprNodes is checkExpr that also returns the number of nodes of
// the expression's parse tree, what its check costs (MaxExprNodes).
func checkExprNodes(src string) (int, error) {
	if err := exprLimit(src); err != nil {
		return 0, err
	}
	cfg := exprConfigs.Get().(*conf.Config)
	defer exprConfigs.Put(cfg)
	_, nodes, err := checkTree(src, cfg, true)
	return nodes, err
}

// checkTree parses and type-checks src as checker.ParseCheck does, and
// returns its tree and the number of its nodes. Each literal pattern of a
// `matches` is parsed rather than compiled while the tree is checked
// (checkExpr says why), and is in the tree again afterwards. When either
// finds a problem, expr's own check runs to report the very error it
// reports. With limits, a literal pattern over the limits is a
// *limitError, found before the pattern is parsed; without, the tree
// goes to expr's own check, as when CompileExpr's patterns were compiled
// by its checker, and such a pattern fails when it is matched.
func checkTree(src string, cfg *conf.Config, limits bool) (*parser.Tree, int, error) {
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil {
		return nil, 0, err
	}
	var patterns literalPatterns
	ast.Walk(&tree.Node, &patterns)
	switch {
	case patterns.limit != nil && limits:
		return nil, patterns.nodes, patterns.limit
	case patterns.limit == nil && !patterns.bad:
		_, err := new(checker.Checker).PatchAndCheck(tree, cfg)
		patterns.restore()
		if err == nil {
			return tree, patterns.nodes, nil
		}
	}
	tree, err = checker.ParseCheck(src, cfg)
	return tree, patterns.nodes, err
}

// literalPatterns parses the literal pattern of each `matches` it visits
// and makes it a constant, which the checker types as a string without
// compiling it. A pattern over the limits is not parsed: limit says why.
type literalPatterns struct {
	bad    bool
	limit  *limitError
	nodes  int // the nodes visited
	hidden []hiddenPattern
}

// hiddenPattern is a `matches` whose literal pattern was made a constant.
type hiddenPattern struct {
	node    *ast.BinaryNode
	literal ast.Node
}

// restore puts the literal patterns back in the tree.
func (p *literalPatterns) restore() {
	for _, h := range p.hidden {
		h.node.Right = h.literal
	}
}

func (p *literalPatterns) Visit(node *ast.Node) {
	p.nodes++
	b, ok := (*node).(*ast.BinaryNode)
	if !ok || b.Operator != "matches" {
		return
	}
	if s, ok := b.Right.(*ast.StringNode); ok {
		switch le, parsed := regexLimit(s.Value); {
		case le != nil:
			if p.limit == nil {
				p.limit = &limitError{Message: "the pattern of matches: " + le.Message}
			}
		case !parsed:
			p.bad = true
		}
		p.hidden = append(p.hidden, hiddenPattern{b, s})
		b.Right = &ast.ConstantNode{Value: s.Value}
	}
}

// ExprProgram returns the check's compiled expression and the values of
// its literals: the caller runs the program with literals under
// ExprLiterals in its environment (nil when it has none), and drops both.
// The program is Program when set. Every expression is type-checked when
// the suite loads. One that several checks of a suite share is compiled
// when the first of their trials asks, and the others get that
// compilation for as long as a trial still holds it. Any other is
// compiled by its shape (compileShape): the expressions of a suite's
// tasks that differ only in their literals, as a dataset's do, share one
// program. So a suite of many tasks neither holds a compiled program per
// expression for the whole run nor compiles one per trial.
func (c *Check) ExprProgram() (*vm.Program, []any, error) {
	switch {
	case c.Program != nil:
		return c.Program, nil, nil
	case c.Kind != CheckExpr || c.Expr == "":
		return nil, nil, errors.New("not an expression check")
	case c.shared != nil:
		return c.shared.program()
	}
	return compileShape(c.Expr)
}

// ExprLiterals is the variable under which a program of ExprProgram
// finds the values of its expression's literals (a []any); no
// expression can name it.
const ExprLiterals = "\x00literals"

// shapes holds the programs compileShape made, by shape, weakly: the
// trials running at once, or one after the other before the collector
// finds it unused, share one program; an entry goes with its program.
// tokens holds what compileShape learnt of each tokens' shape it compiled
// (tokenShape), as long as one of its programs is in m.
var shapes struct {
	mu     sync.Mutex
	m      map[string]weak.Pointer[vm.Program]
	tokens map[string]*tokenShape
}

// compileShape compiles src with its string and number literals read
// from ExprLiterals, and returns that program and the literals' values.
// The program is compiled once for every expression of the same shape
// (src with its literals taken out) and shared while a trial holds it;
// literals says which literals stay in the shape. Where the shape does
// not compile as the expression would, src is compiled as it is.
//
// An expression whose tokens have the shape of one compiled before
// (shapeTokens) is not parsed: its literals' values are read from its
// tokens, as the parser reads them, and the program is looked up by
// its tokens' shape and the literals that stay in it.
func compileShape(src string) (*vm.Program, []any, error) {
	if err := exprLimit(src); err != nil {
		return nil, nil, err
	}
	toks, lexed := lexShape(src)
	if lexed {
		if p, values, ok := toks.lookup(); ok {
			return p, values, nil
		}
	}
	return parseShape(src, toks, lexed)
}

// parseShape is compileShape the long way: src is parsed, and the shape
// of its tokens, when lexed, learnt from the parse.
func parseShape(src string, toks shapeTokens, lexed bool) (*vm.Program, []any, error) {
	cfg := exprConfigs.Get().(*conf.Config)
	defer exprConfigs.Put(cfg)
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil {
		return compileWith(src, cfg)
	}
	lits := literals{names: map[ast.Node]bool{}}
	ast.Walk(&tree.Node, &lits)
	if lits.bad {
		return compileWith(src, cfg)
	}
	lits.replace = true
	ast.Walk(&tree.Node, &lits)
	var ts *tokenShape
	if lexed {
		ts = toks.learn(&lits)
	}
	key := "\x01" + tree.Node.String()
	if ts != nil {
		key = string(toks.programKey(ts))
	}
	shapes.mu.Lock()
	p := shapes.m[key].Value()
	shapes.mu.Unlock()
	if p != nil {
		return p, lits.values, nil
	}
	if _, err := new(checker.Checker).PatchAndCheck(tree, cfg); err != nil {
		return compileWith(src, cfg)
	}
	if p, err = compileTree(tree, cfg); err != nil {
		return compileWith(src, cfg)
	}
	shapes.mu.Lock()
	defer shapes.mu.Unlock()
	if q := shapes.m[key].Value(); q != nil {
		return q, lits.values, nil
	}
	if shapes.m == nil {
		shapes.m = map[string]weak.Pointer[vm.Program]{}
		shapes.tokens = map[string]*tokenShape{}
	}
	if ts != nil {
		switch known := shapes.tokens[ts.key]; {
		case known == nil:
			shapes.tokens[ts.key] = ts
		case !known.sameShape(ts):
			return p, lits.values, nil // never so: the parser reads no literal's value
		default:
			ts = known
		}
		ts.programs++
	}
	w := weak.Make(p)
	shapes.m[key] = w
	runtime.AddCleanup(p, func(key string) {
		shapes.mu.Lock()
		defer shapes.mu.Unlock()
		if shapes.m[key] != w {
			return
		}
		delete(shapes.m, key)
		if ts != nil {
			if ts.programs--; ts.programs == 0 && shapes.tokens[ts.key] == ts {
				delete(shapes.tokens, ts.key)
			}
		}
	}, key)
	return p, lits.values, nil
}

// compileWith is CompileExpr with the configuration cfg.
func compileWith(src string, cfg *conf.Config) (*vm.Program, []any, error) {
	tree, _, err := checkTree(src, cfg, false)
	if err != nil {
		return nil, nil, err
	}
	p, err := compileTree(tree, cfg)
	return p, nil, err
}

// compileTree points trace's span fields at ExprSpans (spansPatch),
// meters, optimizes and compiles a checked tree.
func compileTree(tree *parser.Tree, cfg *conf.Config) (*vm.Program, error) {
	ast.Walk(&tree.Node, spansPatch{})
	if err := metered(tree, cfg); err != nil {
		return nil, err
	}
	if err := optimizer.Optimize(&tree.Node, cfg); err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, fe.Bind(tree.Source)
		}
		return nil, err
	}
	return compiler.Compile(tree, cfg)
}

// literals finds the literals of an expression that stay in its shape (a
// first walk), then replaces every other string and number literal with a
// read of its value from ExprLiterals (a second walk, with replace),
// collecting the values in order. A literal stays where it names
// something (a member, as in `x.name` or `x["name"]`, or an object's key)
// and where expr's optimizer reads it (an array's items, and the operands
// of `in` and `..`, which it turns into a set or a range check). The
// first walk also compiles each literal pattern of `matches` once, as the
// compile of the expression as it is does (meter.Patch): its value is the
// compiled pattern, and one that does not compile within the caps is bad
// (the expression is then compiled as it is). ast.Walk visits a node's
// children before the node, hence the two walks.
type literals struct {
	replace  bool
	bad      bool // a literal pattern that does not compile within the caps
	names    map[ast.Node]bool
	patterns map[ast.Node]*meter.Regexp // the literal patterns, compiled
	values   []any
	raw      []any // each value's literal (a pattern as written)
	at       []int // where each value's literal starts (file.Location.From)
}

func (l *literals) Visit(node *ast.Node) {
	var v any
	switch n := (*node).(type) {
	case *ast.MemberNode:
		l.names[n.Property] = true
		return
	case *ast.PairNode:
		l.names[n.Key] = true
		return
	case *ast.ArrayNode:
		for _, e := range n.Nodes {
			l.names[e] = true
		}
		return
	case *ast.BinaryNode:
		switch n.Operator {
		case "..", "in":
			l.names[n.Left], l.names[n.Right] = true, true
		case "matches":
			if s, ok := n.Right.(*ast.StringNode); ok && !l.replace {
				re, err := meter.Compile(s.Value)
				if err != nil {
					l.bad = true
					return
				}
				if l.patterns == nil {
					l.patterns = map[ast.Node]*meter.Regexp{}
				}
				l.patterns[s] = re
			}
		}
		return
	case *ast.StringNode:
		v = n.Value
	case *ast.IntegerNode:
		v = n.Value
	case *ast.FloatNode:
		v = n.Value
	default:
		return
	}
	if !l.replace || l.names[*node] {
		return
	}
	re, isPattern := l.patterns[*node]
	at := (*node).Location()
	i := &ast.IntegerNode{Value: len(l.values)}
	i.SetLocation(at)
	id := &ast.IdentifierNode{Value: ExprLiterals}
	id.SetLocation(at)
	read := &ast.MemberNode{Node: id, Property: i}
	read.SetLocation(at)
	*node = read
	l.raw = append(l.raw, v)
	l.at = append(l.at, at.From)
	if isPattern {
		l.values = append(l.values, re)
	} else {
		l.values = append(l.values, v)
	}
}

// sharedExpr is an expression several checks of a suite share. Its
// compilation (compileShape's) is held weakly: the trials running at
// once, or one after the other before the collector finds it unused,
// share it without parsing the expression again, and a suite whose tasks
// share thousands of expressions (a large dataset's repeated answers)
// does not keep them all for the whole run (#6).
type sharedExpr struct {
	src string
	mu  sync.Mutex
	c   weak.Pointer[compiled]
	err error // the compile error, kept: it does not change
}

// compiled is a program and the literals it runs with.
type compiled struct {
	p        *vm.Program
	literals []any
}

func (e *sharedExpr) program() (*vm.Program, []any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c := e.c.Value(); c != nil {
		return c.p, c.literals, nil
	}
	if e.err != nil {
		return nil, nil, e.err
	}
	p, literals, err := compileShape(e.src)
	if err != nil {
		e.err = err
		return nil, nil, err
	}
	e.c = weak.Make(&compiled{p, literals})
	return p, literals, nil
}

// exprFailure says why checkExpr refused an expression: the limit it is
// over, or the compile error.
func exprFailure(err error) string {
	var le *limitError
	if errors.As(err, &le) {
		return le.Message
	}
	return "expression does not compile: " + exprmsg.WithPlace(err, nil)
}
