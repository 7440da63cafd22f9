package judges

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/limits"
	"github.com/evalgate/evalgate/internal/meter"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// tolerance absorbs float rounding in cost sums, so that 0.1+0.2 is within
// a limit of 0.3.
const tolerance = 1e-9

// checker decides the checks of one observation inside an Executor: m is
// the meter its regular expressions and expressions spend through, progs
// runs its program checks (nil: they fail as unsupported). It builds the
// expression environment once, on the first expression, and reuses one
// VM for every expression.
type checker struct {
	m     *meter.Meter
	progs *Programs
	obs   *Observation
	out   any
	env   map[string]any
	vm    vm.VM
	// judges are the calls to check programs it made.
	judges []results.JudgeCall
}

// check decides one assertion, negate applied.
func (r *checker) check(c *suites.Check) (results.Check, error) {
	res := results.Check{ID: c.ID, Kind: c.Kind, Weight: c.Weight}
	reason, err := r.reason(c)
	if err != nil {
		return res, err
	}
	res.Reason = reason
	res.Passed = reason == ""
	return negate(c, res), nil
}

// reason returns "" when the check holds, else why it does not. The
// error is a check that could not decide: a *CheckError (a regular
// expression over the caps is one, whatever the kind that ran it), or
// the meter's context's error once it has ended.
func (r *checker) reason(c *suites.Check) (string, error) {
	kind, ok := checkKinds[c.Kind]
	if !ok {
		return ReasonUnsupported, nil
	}
	reason, err := kind(r, c)
	if overCaps(err) {
		return "", &CheckError{ID: c.ID, Message: capsMessage(err)}
	}
	return reason, err
}

// checkKinds decides each kind of assertion: the reason an assertion of
// that kind fails ("" when it holds), or why it could not decide. A new
// kind of check is one entry here; the Executor it runs in gives it the
// trial's deadline, the run's context and the caps of its meter, without
// code of its own.
var checkKinds = map[string]func(r *checker, c *suites.Check) (string, error){
	suites.CheckExpr:          (*checker).expr,
	suites.CheckToolCalled:    (*checker).toolCalled,
	suites.CheckToolNotCalled: (*checker).toolNotCalled,
	suites.CheckToolOrder:     (*checker).toolOrder,
	suites.CheckMaxToolCalls: func(r *checker, c *suites.Check) (string, error) {
		return limit(len(r.obs.Trace) <= c.MaxToolCalls), nil
	},
	suites.CheckMaxLatencyMs: func(r *checker, c *suites.Check) (string, error) {
		return limit(r.obs.LatencyMs <= c.MaxLatencyMs), nil
	},
	suites.CheckMaxCostUsd: func(r *checker, c *suites.Check) (string, error) {
		return limit(r.obs.CostUsd <= c.MaxCostUsd+tolerance), nil
	},
	suites.CheckExec:   (*checker).program,
	suites.CheckTrace:  (*checker).trace,
	suites.CheckEvents: (*checker).events,
}

func (r *checker) toolCalled(c *suites.Check) (string, error) {
	var want any
	if len(c.Args) > 0 {
		v, err := jsonvalue.Decode(c.Args)
		if err != nil {
			return ReasonNotCalled, nil
		}
		want = v
	}
	for _, call := range r.obs.Trace {
		if call.Name != c.Tool {
			continue
		}
		if want == nil {
			return "", nil
		}
		if args, err := jsonvalue.Decode(call.Args); err == nil && jsonvalue.Subset(want, args) {
			return "", nil
		}
	}
	return ReasonNotCalled, nil
}

func (r *checker) toolNotCalled(c *suites.Check) (string, error) {
	for _, call := range r.obs.Trace {
		if call.Name == c.Tool {
			return ReasonCalled, nil
		}
	}
	return "", nil
}

func (r *checker) toolOrder(c *suites.Check) (string, error) {
	return order(c.Order, func(name string) int { return firstCall(r.obs.Trace, name) }, ReasonNotCalled), nil
}

// order is the reason an order check fails: missing when first (the
// index of a name's first occurrence) finds one of names nowhere,
// out-of-order when their first occurrences do not come in that order;
// "" when it holds.
func order(names []string, first func(string) int, missing string) string {
	last := -1
	inOrder := true
	for _, name := range names {
		i := first(name)
		if i < 0 {
			return missing
		}
		if i <= last {
			inOrder = false
		}
		last = i
	}
	if !inOrder {
		return ReasonOutOfOrder
	}
	return ""
}

// program asks the check's program, through the run's Programs.
func (r *checker) program(c *suites.Check) (string, error) {
	if r.progs == nil {
		return ReasonUnsupported, nil
	}
	call := results.JudgeCall{Kind: results.JudgeProgram, Checks: []string{c.ID}, Start: time.Now(), Outcome: results.JudgeErrored, Score: -1}
	ck, err := r.progs.run(r.m.Context(), c, r.obs)
	call.Duration = time.Since(call.Start)
	if err == nil {
		call.Outcome = results.JudgeFailed
		if ck.Passed {
			call.Outcome = results.JudgePassed
		}
	}
	r.judges = append(r.judges, call)
	if err != nil {
		return "", err
	}
	return ck.Reason, nil
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

// expr runs an expression check: the program Check.ExprProgram gives,
// with the environment built once per observation and the expression's
// literals.
// A pattern the expression computes over the caps, or a match over the
// cost budget, is a *limits.Error; the meter's end stops it.
func (r *checker) expr(c *suites.Check) (string, error) {
	if _, bad := r.out.(notJSON); bad {
		return ReasonInvalidJSON, nil
	}
	program, literals, err := c.ExprProgram()
	if err != nil {
		return ReasonExprError, nil
	}
	env := r.exprEnv()
	env[suites.ExprLiterals] = literals
	got, err := r.vm.Run(program, env)
	if err != nil {
		switch {
		case meter.Stopped(err):
			return "", r.m.Err()
		case overCaps(err):
			return "", &limits.Error{Message: "in its expression, " + capsMessage(err)}
		// Programs compiled with expr.AsBool end in a conversion to bool,
		// which fails with this message, and only it, on any other value.
		case strings.Contains(err.Error(), "invalid operation: bool("):
			return ReasonNotBool, nil
		}
		return ReasonExprError, nil
	}
	if ok, isBool := got.(bool); !isBool {
		return ReasonNotBool, nil
	} else if !ok {
		return ReasonMismatch, nil
	}
	return "", nil
}

// exprEnv returns the variables an expression sees (see the package
// documentation), building them on first use.
func (r *checker) exprEnv() map[string]any {
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

		"state":          plain(r.obs.State),
		"initialState":   plain(r.obs.InitialState),
		suites.ExprSpans: spansVar(r.obs.Spans),

		suites.ExprMeter:    r.m,
		suites.ExprLiterals: nil, // each expression's own: see expr
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
