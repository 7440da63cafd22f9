package judges

import (
	"encoding/json"
	"strings"

	"github.com/expr-lang/expr/vm"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// tolerance absorbs float rounding in cost sums, so that 0.1+0.2 is within
// a limit of 0.3.
const tolerance = 1e-9

// RunCheck decides one assertion against an observation. out is the output
// as jsonvalue.Decode returns it; RunCheck never modifies it. The rubric
// judge uses it for a criterion decided by an assertion.
func RunCheck(c *suites.Check, obs *Observation, out any) results.Check {
	r := runner{obs: obs, out: out}
	return negate(c, r.run(c))
}

// runner decides the assertions of one observation. It builds the
// expression environment once, on the first expression, and reuses one VM
// for every expression.
type runner struct {
	obs *Observation
	out any
	env map[string]any
	vm  vm.VM
}

func (r *runner) run(c *suites.Check) results.Check {
	res := results.Check{ID: c.ID, Kind: c.Kind, Weight: c.Weight}
	res.Reason = r.reason(c)
	res.Passed = res.Reason == ""
	return res
}

// reason returns "" when the check passes, else why it does not.
func (r *runner) reason(c *suites.Check) string {
	trace := r.obs.Trace
	switch c.Kind {
	case suites.CheckExpr:
		return r.expr(c)
	case suites.CheckToolCalled:
		var want any
		if len(c.Args) > 0 {
			v, err := jsonvalue.Decode(c.Args)
			if err != nil {
				return ReasonNotCalled
			}
			want = v
		}
		for _, call := range trace {
			if call.Name != c.Tool {
				continue
			}
			if want == nil {
				return ""
			}
			if args, err := jsonvalue.Decode(call.Args); err == nil && jsonvalue.Subset(want, args) {
				return ""
			}
		}
		return ReasonNotCalled
	case suites.CheckToolNotCalled:
		for _, call := range trace {
			if call.Name == c.Tool {
				return ReasonCalled
			}
		}
		return ""
	case suites.CheckToolOrder:
		last := -1
		inOrder := true
		for _, name := range c.Order {
			first := firstCall(trace, name)
			if first < 0 {
				return ReasonNotCalled
			}
			if first <= last {
				inOrder = false
			}
			last = first
		}
		if !inOrder {
			return ReasonOutOfOrder
		}
		return ""
	case suites.CheckMaxToolCalls:
		return limit(len(trace) <= c.MaxToolCalls)
	case suites.CheckMaxLatencyMs:
		return limit(r.obs.LatencyMs <= c.MaxLatencyMs)
	case suites.CheckMaxCostUsd:
		return limit(r.obs.CostUsd <= c.MaxCostUsd+tolerance)
	}
	return ReasonUnsupported
}

// firstCall returns the index of the first call of the named tool, or -1.
func firstCall(trace []fixtures.Call, name string) int {
	for i, call := range trace {
		if call.Name == name {
			return i
		}
	}
	return -1
}

func limit(ok bool) string {
	if ok {
		return ""
	}
	return ReasonOverLimit
}

// expr runs an expression check. The program is the one the suite loader
// compiled for an expression several checks share, else compiled now and
// dropped after the run; the environment is built once per observation.
func (r *runner) expr(c *suites.Check) string {
	if _, bad := r.out.(notJSON); bad {
		return ReasonInvalidJSON
	}
	program, err := c.ExprProgram()
	if err != nil {
		return ReasonExprError
	}
	got, err := r.vm.Run(program, r.exprEnv())
	if err != nil {
		// Programs compiled with expr.AsBool end in a conversion to bool,
		// which fails with this message, and only it, on any other value.
		if strings.Contains(err.Error(), "invalid operation: bool(") {
			return ReasonNotBool
		}
		return ReasonExprError
	}
	if ok, isBool := got.(bool); !isBool {
		return ReasonNotBool
	} else if !ok {
		return ReasonMismatch
	}
	return ""
}

// exprEnv returns the variables an expression sees (see the package
// documentation), building them on first use.
func (r *runner) exprEnv() map[string]any {
	if r.env != nil {
		return r.env
	}
	trace := make([]any, len(r.obs.Trace))
	for i, call := range r.obs.Trace {
		trace[i] = map[string]any{
			"name":    call.Name,
			"args":    plain(call.Args),
			"result":  plain(call.Result),
			"isError": call.IsError,
		}
	}
	r.env = map[string]any{
		"output":    plainCopy(r.out),
		"input":     plain(r.obs.Input),
		"trace":     trace,
		"latencyMs": float64(r.obs.LatencyMs),
		"costUsd":   r.obs.CostUsd,
		"toolCalls": len(r.obs.Trace),

		"state":        plain(r.obs.State),
		"initialState": plain(r.obs.InitialState),
	}
	return r.env
}

// plain decodes a JSON value into Go's ordinary JSON types; nil when it is
// absent or not JSON.
func plain(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return nil
	}
	return jsonvalue.Plain(v)
}

// plainCopy is v with numbers as float64, leaving v itself untouched
// (jsonvalue.Plain converts objects and arrays in place).
func plainCopy(v any) any {
	switch v.(type) {
	case map[string]any, []any:
		return plain(jsonvalue.Canonical(v))
	}
	return jsonvalue.Plain(v)
}
