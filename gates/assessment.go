package gates

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/results"
)

// The assessment's gate variables (docs/assessment.md):
// assessment.performance.{score,tier} and assessment.capability.{score,tier}.
// A tier is a string of a type of its own per axis, whose comparison operators
// are overloaded to compare ranks: `assessment.performance.tier >=
// "Proficient"` holds for Proficient, Expert and Elite, never by string order.
// A tier name the axis does not have is a compile error.
type assessmentVars struct {
	Performance performanceVars `expr:"performance"`
	Capability  capabilityVars  `expr:"capability"`
}

type performanceVars struct {
	Score float64         `expr:"score"`
	Tier  performanceTier `expr:"tier"`
}

type capabilityVars struct {
	Score float64        `expr:"score"`
	Tier  capabilityTier `expr:"tier"`
}

type (
	performanceTier string
	capabilityTier  string
)

// assessmentTypeNames name the assessment's types in messages, as
// typeNames does the others'.
var assessmentTypeNames = strings.NewReplacer(
	"gates.assessmentVars", "assessment",
	"gates.performanceVars", "assessment.performance",
	"gates.capabilityVars", "assessment.capability",
	"gates.performanceTier", "tier",
	"gates.capabilityTier", "tier",
)

// The assessment's types whose fields a gate reads, added to fieldTypes
// for the "has no field" suggestions.
func init() {
	fieldTypes["assessment"] = reflect.TypeFor[assessmentVars]()
	fieldTypes["assessment.performance"] = reflect.TypeFor[performanceVars]()
	fieldTypes["assessment.capability"] = reflect.TypeFor[capabilityVars]()
}

// varAssessment is the variable that holds the assessment.
const varAssessment = "assessment"

// tierOperators are the comparisons of tiers, each an expr function the
// operator is overloaded with.
var tierOperators = map[string]func(a, b int) bool{
	"==": func(a, b int) bool { return a == b },
	"!=": func(a, b int) bool { return a != b },
	"<":  func(a, b int) bool { return a < b },
	"<=": func(a, b int) bool { return a <= b },
	">":  func(a, b int) bool { return a > b },
	">=": func(a, b int) bool { return a >= b },
}

// tierFunction names the function an operator on tiers becomes.
func tierFunction(op string) string {
	return "tier" + strings.NewReplacer("==", "Eq", "!=", "Ne", "<=", "Le", ">=", "Ge", "<", "Lt", ">", "Gt").Replace(op)
}

// tierOptions are the compile options that make tiers compare by rank.
func tierOptions() []expr.Option {
	var opts []expr.Option
	for op, cmp := range tierOperators {
		name := tierFunction(op)
		opts = append(opts,
			expr.Function(name, func(params ...any) (any, error) {
				a, errA := tierRank(params[0])
				b, errB := tierRank(params[1])
				if errA != nil {
					return nil, errA
				}
				if errB != nil {
					return nil, errB
				}
				return cmp(a, b), nil
			},
				new(func(performanceTier, string) bool), new(func(string, performanceTier) bool), new(func(performanceTier, performanceTier) bool),
				new(func(capabilityTier, string) bool), new(func(string, capabilityTier) bool), new(func(capabilityTier, capabilityTier) bool)),
			expr.Operator(op, name))
	}
	return opts
}

// tierRank is the rank of a tier value or of a tier name; a plain string is
// the name of a tier of the axis of the other operand, which the compile
// check made sure of, so its rank is looked up on both axes.
func tierRank(v any) (int, error) {
	axis, name := "", ""
	switch t := v.(type) {
	case performanceTier:
		axis, name = assess.Performance, string(t)
	case capabilityTier:
		axis, name = assess.Capability, string(t)
	case string:
		name = t
	}
	for _, a := range assess.Axes {
		if axis != "" && a != axis {
			continue
		}
		if tier, ok := assess.LookupTier(a, name); ok {
			return tier.Rank, nil
		}
	}
	return 0, fmt.Errorf("no tier %q", name)
}

// checkTierNames reports a comparison of an axis's tier with a string that
// is not one of that axis's tier names, in the compiled tree.
func checkTierNames(src string, root ast.Node) *CompileError {
	var bad *CompileError
	ast.Find(root, func(n ast.Node) bool {
		call, ok := n.(*ast.CallNode)
		if !ok || len(call.Arguments) != 2 || bad != nil {
			return false
		}
		id, ok := call.Callee.(*ast.IdentifierNode)
		if !ok || !strings.HasPrefix(id.Value, "tier") {
			return false
		}
		for i, arg := range call.Arguments {
			s, ok := arg.(*ast.StringNode)
			if !ok {
				continue
			}
			axis := axisOf(call.Arguments[1-i].Type())
			if _, known := assess.LookupTier(axis, s.Value); !known && axis != "" {
				line, col := position(src, s.Location().From)
				bad = &CompileError{Expr: src, Line: line, Col: col,
					Message: fmt.Sprintf("unknown %s tier %q; the tiers are %s", axis, s.Value, assess.TierNames(axis))}
			}
		}
		return false
	})
	return bad
}

func axisOf(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[performanceTier]():
		return assess.Performance
	case reflect.TypeFor[capabilityTier]():
		return assess.Capability
	}
	return ""
}

// newAssessmentVars are the gate variables of a run's assessment.
func newAssessmentVars(a *results.Assessment) assessmentVars {
	var v assessmentVars
	if a == nil {
		return v
	}
	if a.Performance.Score != nil {
		v.Performance = performanceVars{Score: *a.Performance.Score, Tier: performanceTier(a.Performance.Tier)}
	}
	if a.Capability.Score != nil {
		v.Capability = capabilityVars{Score: *a.Capability.Score, Tier: capabilityTier(a.Capability.Tier)}
	}
	return v
}

// assessmentMissing says why a gate reading the assessment cannot be
// evaluated: the run has none, or the axis it reads has no composite; ""
// when it can.
func (g *Gate) assessmentMissing(run *results.Run) string {
	for _, p := range g.paths {
		rest, ok := strings.CutPrefix(p, varAssessment)
		if !ok || (rest != "" && rest[0] != '.') {
			continue
		}
		if run.Assessment == nil {
			return "no assessment: add assessment: to evalgate.yaml"
		}
		for _, axis := range assess.Axes {
			ax := run.Assessment.Performance
			if axis == assess.Capability {
				ax = run.Assessment.Capability
			}
			if strings.HasPrefix(rest, "."+axis) && ax.Score == nil {
				return fmt.Sprintf("no %s composite: none of its dimensions could be measured (assessment.json says why)", axis)
			}
		}
	}
	return ""
}

// position is the line and column, from 1, of byte offset off in src.
func position(src string, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	before := src[:off]
	return strings.Count(before, "\n") + 1, off - strings.LastIndexByte(before, '\n')
}
