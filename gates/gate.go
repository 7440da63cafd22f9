package gates

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/evalgate/evalgate/internal/exprmsg"
	"github.com/evalgate/evalgate/internal/limits"
	"github.com/evalgate/evalgate/internal/spelling"
	"github.com/evalgate/evalgate/results"
)

// scope is what a gate sees of the whole run or of one suite. The expr tags
// are the variable names README.md lists ("Gates and exit codes").
type scope struct {
	AggregateScore float64        `expr:"aggregateScore"`
	PassRate       float64        `expr:"passRate"`
	PassedCount    int            `expr:"passedCount"`
	TaskCount      int            `expr:"taskCount"`
	ErroredCount   int            `expr:"erroredCount"`
	TotalCostUsd   float64        `expr:"totalCostUsd"`
	AgentCostUsd   float64        `expr:"agentCostUsd"`
	JudgeCostUsd   float64        `expr:"judgeCostUsd"`
	UserCostUsd    float64        `expr:"userCostUsd"`
	P95LatencyMs   int            `expr:"p95LatencyMs"`
	Passed         bool           `expr:"passed"`
	Findings       findingCounts  `expr:"findings"`
	Regression     regressionVars `expr:"regression"`
}

type findingCounts struct {
	Critical int `expr:"critical"`
	High     int `expr:"high"`
	Medium   int `expr:"medium"`
	Low      int `expr:"low"`
}

type regressionVars struct {
	ScoreDelta            float64 `expr:"scoreDelta"`
	NewFailures           int     `expr:"newFailures"`
	NewConsistentFailures int     `expr:"newConsistentFailures"`
	Fixed                 int     `expr:"fixed"`
	PValue                float64 `expr:"pValue"`
	// NewFailuresNotFlaky are the newly failing tasks the history does
	// not know as flaky; newFailures without a history.
	NewFailuresNotFlaky int `expr:"newFailuresNotFlaky"`
}

// historyVars are what the run read of its history store (docs/history.md).
type historyVars struct {
	Runs int `expr:"runs"` // records in the window; 0 without a history
}

// env is the whole environment of a gate expression: the run's scope at the
// top level, and each suite's by id and as a list.
type env struct {
	scope
	Judge     judgeVars         `expr:"judge"`
	Trust     trustVars         `expr:"trust"`
	Suites    map[string]*scope `expr:"suites"`
	SuiteList []*scope          `expr:"suiteList"`

	Assessment assessmentVars `expr:"assessment"` // assessment.go
	History    historyVars    `expr:"history"`
}

// judgeVars let a gate require a calibrated judge before rubric scores
// count (docs/judges.md, "Calibrate a judge before letting it gate"):
// judge.calibrated && judge.agreement >= 0.8.
type judgeVars struct {
	Configured bool    `expr:"configured"`
	Calibrated bool    `expr:"calibrated"`
	Agreement  float64 `expr:"agreement"` // Spearman rho of the last calibration; 0 when none
}

// trustVars are the trust scorecard's figures (docs/trust.md), for gates such
// as trust.level >= 3; a run without a scorecard fails a gate reading them.
type trustVars struct {
	Score float64 `expr:"score"` // 0-100
	Level int     `expr:"level"` // 0-4, TL0 to TL4
}

// varTrust prefixes the trust variables.
const varTrust = "trust."

// errNoTrust is the error of a gate reading trust.* in a run without a
// trust scorecard.
const errNoTrust = "no trust scorecard in this run: add a trust: block to evalgate.yaml (or gate the output of evalgate trust)"

// Names of the variables that hold suites.
const (
	varSuites    = "suites"
	varSuiteList = "suiteList"
)

// Gate is one compiled gate expression.
type Gate struct {
	Expr    string // the source, as the user wrote it
	Default bool   // one of the default gates

	program *vm.Program
	// paths are the variables the expression reads, rendered as in the
	// source language: aggregateScore, findings.high, suites["x"].passed.
	paths []string
	// perSuite are the fields read of each element of suiteList inside a
	// predicate, such as ".passed" in all(suiteList, .passed).
	perSuite []string
	// suiteIDs are the literal keys of suites["..."] lookups.
	suiteIDs []string
}

// defaultExprs are the gates that hold when none are configured (README.md,
// "Gates and exit codes").
var defaultExprs = []string{
	"all(suiteList, .passed)",
	"findings.critical + findings.high == 0",
}

// Defaults returns the default gates: every suite's openwop `passed` is
// true, and the run has no critical or high finding.
func Defaults() []*Gate {
	gs := make([]*Gate, len(defaultExprs))
	for i, src := range defaultExprs {
		g, err := compile(src)
		if err != nil {
			// The sources are constants covered by the tests; a gate that did
			// not compile fails in Evaluate with its error rather than panic.
			g = &Gate{Expr: src}
		}
		g.Default = true
		gs[i] = g
	}
	return gs
}

// Compile compiles gate expressions against the gate variables. A syntax
// error, an unknown variable or a result that is not a boolean is an error;
// every bad gate is reported, in a CompileErrors.
func Compile(exprs []string) ([]*Gate, error) {
	gs := make([]*Gate, 0, len(exprs))
	var errs CompileErrors
	for i, src := range exprs {
		g, err := compile(src)
		if err != nil {
			err.Index = i
			errs = append(errs, err)
			continue
		}
		gs = append(gs, g)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return gs, nil
}

// CompileError is a gate expression that does not compile.
type CompileError struct {
	Index   int    // the gate's place in the list given to Compile
	Expr    string // the expression as written
	Line    int    // where in Expr the problem is, from 1; 0 when it is the whole expression
	Col     int    // from 1
	Message string // what is wrong, in the gate's terms
}

// Error renders the error as `gate "EXPR": column C: MESSAGE`; an
// expression over limits.ExprBytes is shown by its start.
func (e *CompileError) Error() string {
	expr := strconv.Quote(e.Expr)
	if len(e.Expr) > limits.ExprBytes {
		expr = strconv.Quote(e.Expr[:80]) + "..."
	}
	if w := e.Where(); w != "" {
		return fmt.Sprintf("gate %s: %s: %s", expr, w, e.Message)
	}
	return fmt.Sprintf("gate %s: %s", expr, e.Message)
}

// Where is the problem's place in the expression: "column 7", "line 2,
// column 3" in an expression of several lines, or "" for the whole
// expression.
func (e *CompileError) Where() string {
	switch {
	case e.Line == 0:
		return ""
	case e.Line == 1 && !strings.Contains(e.Expr, "\n"):
		return fmt.Sprintf("column %d", e.Col)
	}
	return fmt.Sprintf("line %d, column %d", e.Line, e.Col)
}

// CompileErrors are the gates of a list that do not compile, in order.
type CompileErrors []*CompileError

// Error renders one error per line.
func (es CompileErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func compile(src string) (*Gate, *CompileError) {
	if strings.TrimSpace(src) == "" {
		return nil, &CompileError{Expr: src, Message: "the expression is empty"}
	}
	// Before expr-lang sees it: half a million nested parentheses, which
	// fit in a config file, overflowed its parser's stack.
	if err := limits.Expr(src, "gates"); err != nil {
		return nil, &CompileError{Expr: src, Message: err.Error()}
	}
	program, err := expr.Compile(src, append(tierOptions(), expr.Env(env{}), expr.AsBool())...)
	if err != nil {
		return nil, compileError(src, err)
	}
	if err := checkTierNames(src, program.Node()); err != nil {
		return nil, err
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, compileError(src, err)
	}
	g := &Gate{Expr: src, program: program}
	g.collect(tree.Node)
	return g, nil
}

// compileError turns an expr compile error into a CompileError: its
// position apart, its message in the gate's terms, and a suggestion for a
// misspelt name.
func compileError(src string, err error) *CompileError {
	e := &CompileError{Expr: src}
	e.Message, e.Line, e.Col = message(err)
	return e
}

// collect records the variable paths an expression reads.
func (g *Gate) collect(root ast.Node) {
	v := &pathVisitor{inner: map[ast.Node]bool{}, inSuitePredicate: predicateMarker{}}
	ast.Walk(&root, v)
	seen := map[string]bool{}
	for _, n := range v.candidates {
		if v.inner[n] {
			continue // part of a longer path
		}
		p, ok := pathOf(n)
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		switch {
		case strings.HasPrefix(p, "#"):
			if v.inSuitePredicate[n] {
				g.perSuite = append(g.perSuite, strings.TrimPrefix(p, "#"))
			}
		case p != varSuiteList:
			g.paths = append(g.paths, p)
		}
	}
	for _, m := range v.members {
		if id, ok := m.Node.(*ast.IdentifierNode); ok && id.Value == varSuites {
			if key, ok := m.Property.(*ast.StringNode); ok && !slices.Contains(g.suiteIDs, key.Value) {
				g.suiteIDs = append(g.suiteIDs, key.Value)
			}
		}
	}
}

// pathVisitor gathers identifiers and member accesses, marks those that are
// the base of a longer member access, and the nodes inside a predicate over
// suiteList.
type pathVisitor struct {
	candidates       []ast.Node
	members          []*ast.MemberNode
	inner            map[ast.Node]bool
	inSuitePredicate predicateMarker
}

func (v *pathVisitor) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		v.candidates = append(v.candidates, n)
	case *ast.MemberNode:
		v.candidates = append(v.candidates, n)
		v.members = append(v.members, n)
		v.inner[n.Node] = true
	case *ast.BuiltinNode:
		if len(n.Arguments) < 2 {
			return
		}
		if id, ok := n.Arguments[0].(*ast.IdentifierNode); !ok || id.Value != varSuiteList {
			return
		}
		if pred, ok := n.Arguments[1].(*ast.PredicateNode); ok {
			ast.Walk(&pred.Node, v.inSuitePredicate)
		}
	}
}

// predicateMarker marks the member accesses of a predicate body.
type predicateMarker map[ast.Node]bool

func (m predicateMarker) Visit(node *ast.Node) {
	if n, ok := (*node).(*ast.MemberNode); ok {
		m[n] = true
	}
}

// pathOf renders an identifier or a chain of constant member accesses on
// one: aggregateScore, findings.high, suites["a.evals.b"].passed, or
// "#.passed" for a member of the predicate's current element.
func pathOf(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return n.Value, true
	case *ast.PointerNode:
		if n.Name != "" {
			return "", false
		}
		return "#", true
	case *ast.MemberNode:
		base, ok := pathOf(n.Node)
		if !ok {
			return "", false
		}
		key, ok := n.Property.(*ast.StringNode)
		if !ok {
			return "", false
		}
		if base == varSuites {
			return base + "[" + strconv.Quote(key.Value) + "]", true
		}
		return base + "." + key.Value, true
	}
	return "", false
}

// Evaluate runs every gate against the run. regression.* comes from
// run.Regression, or is scoreDelta 0, newFailures 0, newConsistentFailures
// 0, fixed 0, pValue 1 without a baseline. A gate that cannot be evaluated, such as one naming a
// suite the run does not have, fails with an error message.
func Evaluate(gs []*Gate, run *results.Run) []results.Gate {
	e := newEnv(run)
	vars := map[string]any{}
	flatten("", reflect.ValueOf(e).Elem(), vars)
	out := make([]results.Gate, len(gs))
	var machine vm.VM
	for i, g := range gs {
		r := results.Gate{Expr: g.Expr, Default: g.Default}
		r.Values = g.values(run, vars)
		if r.Error = g.assessmentMissing(run); r.Error == "" {
			r.Passed, r.Error = g.run(&machine, e)
		} else {
			r.Values = nil // zeros that no assessment measured
		}
		if run.Trust == nil && g.readsTrust() {
			r.Passed, r.Error, r.Values = false, errNoTrust, nil
		}
		out[i] = r
	}
	return out
}

// readsTrust reports whether the gate reads a trust.* variable.
func (g *Gate) readsTrust() bool {
	for _, p := range g.paths {
		if strings.HasPrefix(p, varTrust) {
			return true
		}
	}
	return false
}

func (g *Gate) run(machine *vm.VM, e *env) (passed bool, errMsg string) {
	if g.program == nil {
		return false, "the gate is not compiled"
	}
	for _, id := range g.suiteIDs {
		if _, ok := e.Suites[id]; !ok {
			return false, fmt.Sprintf("no suite %q in this run", id)
		}
	}
	got, err := machine.Run(g.program, e)
	if err != nil {
		msg, line, col := message(err)
		if line > 0 {
			msg += fmt.Sprintf(" (%d:%d)", line, col)
		}
		return false, "could not evaluate: " + msg
	}
	ok, isBool := got.(bool)
	if !isBool {
		return false, "the expression did not produce true or false"
	}
	return ok, ""
}

// values picks the variables the gate read out of the run's flattened
// variables; nil when it read none.
func (g *Gate) values(run *results.Run, vars map[string]any) map[string]any {
	vals := map[string]any{}
	for _, p := range g.paths {
		if v, ok := vars[p]; ok {
			vals[p] = v
		}
	}
	for _, field := range g.perSuite {
		for i := range run.Suites {
			p := varSuites + "[" + strconv.Quote(run.Suites[i].ID) + "]" + field
			if v, ok := vars[p]; ok {
				vals[p] = v
			}
		}
	}
	if len(vals) == 0 {
		return nil
	}
	return vals
}

// newEnv builds the gate variables of a run.
func newEnv(run *results.Run) *env {
	e := &env{Suites: make(map[string]*scope, len(run.Suites))}
	noBaseline := regressionVars{PValue: 1}
	reg := noBaseline
	if r := run.Regression; r != nil {
		reg = regressionVars{ScoreDelta: r.ScoreDelta, NewFailures: r.NewFailures,
			NewConsistentFailures: r.NewConsistentFailures, Fixed: r.Fixed, PValue: r.PValue}
	}
	reg.NewFailuresNotFlaky = reg.NewFailures
	if h := run.History; h != nil {
		reg.NewFailuresNotFlaky = h.NewFailuresNotFlaky
		e.History = historyVars{Runs: h.Runs}
	}
	e.scope = newScope(run.Stats, reg)
	e.Assessment = newAssessmentVars(run.Assessment)
	if j := run.Judge; j != nil {
		e.Judge = judgeVars{Configured: true, Calibrated: j.Calibrated}
		if j.Agreement != nil {
			e.Judge.Agreement = *j.Agreement
		}
	}
	if t := run.Trust; t != nil {
		e.Trust = trustVars{Score: t.Score, Level: t.Level}
	}
	e.Passed = true
	for i := range run.Suites {
		s := &run.Suites[i]
		suiteReg := noBaseline
		if r := s.Regression; r != nil {
			suiteReg = regressionVars{ScoreDelta: r.ScoreDelta, NewFailures: r.NewFailures,
				NewConsistentFailures: r.NewConsistentFailures, Fixed: r.Fixed, PValue: r.PValue}
		}
		suiteReg.NewFailuresNotFlaky = suiteReg.NewFailures
		if h := run.History.Suite(s.ID); h != nil {
			suiteReg.NewFailuresNotFlaky = h.NewFailuresNotFlaky
		}
		sc := newScope(s.Stats, suiteReg)
		sc.Passed = s.Passed
		e.Passed = e.Passed && s.Passed
		e.Suites[s.ID] = &sc
		e.SuiteList = append(e.SuiteList, &sc)
	}
	return e
}

func newScope(st results.Stats, reg regressionVars) scope {
	return scope{
		AggregateScore: st.AggregateScore,
		PassRate:       st.PassRate,
		PassedCount:    st.PassedCount,
		TaskCount:      st.TaskCount,
		ErroredCount:   st.ErroredCount,
		TotalCostUsd:   st.TotalCostUsd,
		AgentCostUsd:   st.AgentCostUsd,
		JudgeCostUsd:   st.JudgeCostUsd,
		UserCostUsd:    st.UserCostUsd,
		P95LatencyMs:   int(st.P95LatencyMs),
		Findings: findingCounts{Critical: st.Findings.Critical, High: st.Findings.High,
			Medium: st.Findings.Medium, Low: st.Findings.Low},
		Regression: reg,
	}
}

// flatten records every scalar variable under its path, as pathOf renders
// it: the struct fields by their expr names and the suites map by key.
func flatten(prefix string, v reflect.Value, vars map[string]any) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			flatten(prefix, v.Elem(), vars)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name := f.Tag.Get("expr")
			switch {
			case f.Anonymous:
				flatten(prefix, v.Field(i), vars)
			case name == "" || name == varSuiteList:
			case prefix == "":
				flatten(name, v.Field(i), vars)
			default:
				flatten(prefix+"."+name, v.Field(i), vars)
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			flatten(prefix+"["+strconv.Quote(iter.Key().String())+"]", iter.Value(), vars)
		}
	default:
		vars[prefix] = v.Interface()
	}
}

// message turns an expr error into a one-line message in the user's terms
// (internal/exprmsg) and where in the gate it is; for an unknown variable
// or field it adds the nearest name (or the list of them).
func message(err error) (msg string, line, col int) {
	first, _, _ := strings.Cut(err.Error(), "\n")
	if rest, ok := strings.CutPrefix(first, "reflect: "); ok {
		// The one reflection failure a well-typed gate can meet: a field of
		// the nil suite a computed suites[key] returns for a missing key.
		_, pos, _ := strings.Cut(rest, " (")
		msg = "a suites[...] lookup names a suite not in this run"
		if pos != "" {
			msg += " (" + pos
		}
		return msg, 0, 0
	}
	msg, line, col = exprmsg.Message(err, ourTypes)
	if name, ok := strings.CutPrefix(msg, "unknown name "); ok {
		return fmt.Sprintf("unknown name %q; %s", name, suggest(name, "the variables are", variableNames(reflect.TypeFor[env]()))), line, col
	}
	if rest, ok := strings.CutPrefix(msg, "type "); ok {
		typ, field, _ := strings.Cut(rest, " has no field ")
		if t, known := fieldTypes[typ]; known && field != "" {
			return fmt.Sprintf("%s has no field %q; %s", typ, field, suggest(field, "its fields are", variableNames(t))), line, col
		}
	}
	return msg, line, col
}

// fieldTypes are the types whose fields a gate reads, by the name messages
// give them.
var fieldTypes = map[string]reflect.Type{
	"findings":   reflect.TypeFor[findingCounts](),
	"regression": reflect.TypeFor[regressionVars](),
	"judge":      reflect.TypeFor[judgeVars](),
	"trust":      reflect.TypeFor[trustVars](),
	"suite":      reflect.TypeFor[scope](),
}

// suggest returns "did you mean X?" for the name closest to a misspelt one,
// or the list of names when none is close.
func suggest(name, listIntro string, names []string) string {
	if near := nearest(name, names); near != "" {
		return "did you mean " + near + "?"
	}
	return listIntro + " " + strings.Join(names, ", ")
}

// nearest returns the name closest to s: the same but for case, or within
// an edit distance of a third of its length (at least 1); "" when none is.
func nearest(s string, names []string) string {
	return spelling.Nearest(s, names, max(1, len(s)/3))
}

// ourTypes names the gates' Go types in messages.
func ourTypes(msg string) string {
	return typeNames.Replace(assessmentTypeNames.Replace(msg))
}

var typeNames = strings.NewReplacer(
	"map[string]*gates.scope", "suites",
	"[]*gates.scope", "suiteList",
	"*gates.scope", "suite",
	"gates.scope", "suite",
	"gates.findingCounts", "findings",
	"gates.regressionVars", "regression",
	"gates.judgeVars", "judge",
	"gates.trustVars", "trust",
	"gates.env", "gate variables",
)

// variableNames lists the variables (expr names) of a struct type, sorted.
func variableNames(typ reflect.Type) []string {
	var names []string
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				add(f.Type)
				continue
			}
			names = append(names, f.Tag.Get("expr"))
		}
	}
	add(typ)
	slices.Sort(names)
	return names
}
