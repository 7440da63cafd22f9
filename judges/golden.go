package judges

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// Reasons a check fails; see the package documentation.
const (
	ReasonMismatch      = "mismatch"
	ReasonInvalidJSON   = "invalid-json"
	ReasonPathMissing   = "path-missing"
	ReasonNotCalled     = "not-called"
	ReasonCalled        = "called"
	ReasonOutOfOrder    = "out-of-order"
	ReasonOverLimit     = "over-limit"
	ReasonSchemaInvalid = "schema-invalid"
	ReasonExprError     = "expr-error"
	ReasonNotBool       = "not-bool"
	ReasonUnsupported   = "unsupported"
	// ReasonChanged: a part of the world that must stay as it was changed
	// (check "unchanged").
	ReasonChanged = "changed"
	// ReasonNoWorld: an end-state check of a trial that has no world.
	ReasonNoWorld = "no-world"
	// ReasonNotReached: the conversation ended before this turn was
	// answered.
	ReasonNotReached = "not-reached"
)

// Ids (and kind, for the schema) of the checks that are not assertions.
const (
	CheckMatch        = "match"
	CheckOutputSchema = "outputSchema"
)

// Observation is what one trial of a task produced, as the checks see it.
type Observation struct {
	Input     json.RawMessage // the task input, a JSON value
	Output    json.RawMessage // the agent's final output, a JSON value
	Trace     []fixtures.Call
	LatencyMs int64
	CostUsd   float64
	// Vars is the row the task was made from (suites.Task.Vars), which
	// program checks get; nil for other tasks.
	Vars json.RawMessage
	// State and InitialState are the task's world at the end of the trial
	// and at its start, JSON values; nil when the task has none.
	State        json.RawMessage
	InitialState json.RawMessage
	// GoldState is the world the task's goldCalls leave, replayed on a
	// fresh copy of the initial world; nil without goldCalls.
	GoldState json.RawMessage
	// Replies are the agent's answers before its final output in a
	// conversation (see runner.Outcome.Replies).
	Replies []json.RawMessage
	// ReplyCalls is how many tool calls were made before each reply; a
	// turn's checks see only those. Nil: every check sees the whole trace.
	ReplyCalls []int
}

// notJSON stands for an output that is not a JSON value, so that every check
// reading the output fails with ReasonInvalidJSON instead of guessing.
type notJSON struct{}

// Golden runs a task's deterministic checks against one observation: the
// match (id "match", kind = the strategy), the end-state checks (ids and
// kinds "state" and "unchanged"), each assertion (its own id and kind) and
// the output schema (id and kind "outputSchema"), in that order.
// A rubric task gets only the output schema check; its criteria, including
// those decided by an assertion (see RunCheck), are judged elsewhere.
// schemaValid is nil when the task declares no output schema.
func Golden(t *suites.Task, obs *Observation) (checks []results.Check, schemaValid *bool) {
	checks, schemaValid, _ = GoldenContext(context.Background(), t, obs, nil)
	return checks, schemaValid
}

// GoldenContext is Golden with the run's program checks: each exec
// assertion asks its program through progs, under ctx. Without progs an
// exec assertion fails with ReasonUnsupported. The error, a *CheckError
// or ctx's, is a program check that could not decide: the trial is an
// error of kind check.
func GoldenContext(ctx context.Context, t *suites.Task, obs *Observation, progs *Programs) (checks []results.Check, schemaValid *bool, err error) {
	var out any = notJSON{}
	if v, err := jsonvalue.Decode(obs.Output); err == nil {
		out = v
	}
	e := &t.Expected
	if e.Kind != suites.KindRubric {
		if e.Match != nil {
			checks = append(checks, matchCheck(e.Match, out))
		}
		checks = append(checks, worldChecks(e, obs)...)
		r := runner{obs: obs, out: out}
		for _, c := range e.Assert {
			ck := r.run(c)
			if c.Kind == suites.CheckExec && progs != nil {
				if ck, err = progs.run(ctx, c, obs); err != nil {
					return nil, nil, err
				}
			}
			checks = append(checks, negate(c, ck))
		}
	}
	if e.OutputSchema != nil || len(e.OutputSchemaRaw) > 0 {
		c := results.Check{ID: CheckOutputSchema, Kind: CheckOutputSchema, Weight: 1}
		c.Reason = ReasonInvalidJSON
		if v, ok := parseString(out); ok {
			c.Reason = validate(e.OutputSchema, e.OutputSchemaRaw, v)
		}
		c.Passed = c.Reason == ""
		checks = append(checks, c)
		schemaValid = &c.Passed
	}
	checks = append(checks, turnChecks(t, obs)...)
	return checks, schemaValid, nil
}

// ReasonNegated is the reason a negated check fails: what it checks held.
const ReasonNegated = "negated"

// negate turns the result of a check with negate: true around.
func negate(c *suites.Check, ck results.Check) results.Check {
	if !c.Negate {
		return ck
	}
	ck.Passed = !ck.Passed
	ck.Reason = ""
	if !ck.Passed {
		ck.Reason = ReasonNegated
	}
	return ck
}

// turnChecks scores the replies of a conversation: each turn's expect
// against the agent's answer to that turn and the tool calls made until
// then, its checks named "turns[i].<id>". A turn the conversation never reached fails every one
// of its checks with the reason not-reached.
func turnChecks(t *suites.Task, obs *Observation) []results.Check {
	var checks []results.Check
	for k, turn := range t.Turns {
		if turn.Expect == nil {
			continue
		}
		one := &suites.Task{Expected: *turn.Expect}
		var got []results.Check
		switch i := k + 1; {
		case i < len(obs.Replies):
			o := *obs
			o.Output = obs.Replies[i]
			if i < len(obs.ReplyCalls) && obs.ReplyCalls[i] <= len(obs.Trace) {
				o.Trace = obs.Trace[:obs.ReplyCalls[i]]
			}
			got, _ = Golden(one, &o)
		case i == len(obs.Replies):
			got, _ = Golden(one, obs)
		default:
			if m := turn.Expect.Match; m != nil {
				got = append(got, results.Check{ID: CheckMatch, Kind: m.Strategy, Weight: 1})
			}
			for _, c := range turn.Expect.Assert {
				got = append(got, results.Check{ID: c.ID, Kind: c.Kind, Weight: c.Weight})
			}
			for j := range got {
				got[j].Reason = ReasonNotReached
			}
		}
		for _, c := range got {
			c.ID = suites.TurnCheckID(k, c.ID)
			checks = append(checks, c)
		}
	}
	return checks
}

// Score is the weighted mean of the checks: Σ weight·passed / Σ weight, and
// 0 when the weights sum to 0. A graded criterion counts as the share of
// its scale it reached, (level − min)/(max − min).
func Score(checks []results.Check) float64 {
	var total, passed float64
	for _, c := range checks {
		total += c.Weight
		passed += c.Weight * c.Fraction()
	}
	if total == 0 {
		return 0
	}
	return passed / total
}

// matchCheck runs a golden match against the decoded output.
func matchCheck(m *suites.Match, out any) results.Check {
	c := results.Check{ID: CheckMatch, Kind: m.Strategy, Weight: 1}
	c.Reason = match(m, out)
	c.Passed = c.Reason == ""
	return c
}

// match returns "" when out matches, else the reason it does not.
func match(m *suites.Match, out any) string {
	if _, bad := out.(notJSON); bad {
		return ReasonInvalidJSON
	}
	parsed := false
	if m.Path != "" {
		var ok bool
		if out, ok = parseString(out); !ok {
			return ReasonInvalidJSON
		}
		if out, ok = jsonvalue.Pointer(out, m.Path); !ok {
			return ReasonPathMissing
		}
		parsed = true
	}
	if m.Strategy == suites.StrategyRegex {
		re := m.Regexp
		if re == nil {
			re = compileRegexp(m)
		}
		return verdict(re != nil && re.MatchString(jsonvalue.Text(out)))
	}
	if m.Strategy == suites.StrategyJSONSchema {
		if !parsed {
			var ok bool
			if out, ok = parseString(out); !ok {
				return ReasonInvalidJSON
			}
		}
		return validate(m.Schema, m.Value, out)
	}
	want, err := jsonvalue.Decode(m.Value)
	if err != nil {
		return ReasonMismatch
	}
	switch m.Strategy {
	case suites.StrategyExact:
		a, outStr := out.(string)
		b, wantStr := want.(string)
		if !outStr || !wantStr {
			a, b = string(jsonvalue.Canonical(out)), string(jsonvalue.Canonical(want))
		}
		if m.IgnoreCase {
			return verdict(strings.EqualFold(a, b))
		}
		return verdict(a == b)
	case suites.StrategyContains:
		a, b := jsonvalue.Text(out), jsonvalue.Text(want)
		if m.IgnoreCase {
			a, b = strings.ToLower(a), strings.ToLower(b)
		}
		return verdict(strings.Contains(a, b))
	case suites.StrategyJSONMatch, suites.StrategyJSONSubset:
		if !parsed {
			var ok bool
			if out, ok = parseString(out); !ok {
				return ReasonInvalidJSON
			}
		}
		if m.Strategy == suites.StrategyJSONMatch {
			return verdict(jsonvalue.Equal(out, want))
		}
		return verdict(jsonvalue.Subset(want, out))
	}
	return ReasonUnsupported
}

// parseString parses a string output as JSON; any other value is returned as
// it is. It reports false when the string is not JSON or the output was not
// a JSON value to begin with.
func parseString(v any) (any, bool) {
	if _, bad := v.(notJSON); bad {
		return nil, false
	}
	s, ok := v.(string)
	if !ok {
		return v, true
	}
	parsed, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		return nil, false
	}
	return parsed, true
}

// compileRegexp compiles a regex match the suite loader left uncompiled
// (a task built in code); nil when the value is not a valid pattern.
func compileRegexp(m *suites.Match) *regexp.Regexp {
	var src string
	if err := json.Unmarshal(m.Value, &src); err != nil {
		return nil
	}
	if m.IgnoreCase {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil
	}
	return re
}

// validate checks v against a JSON Schema: the compiled one, else raw
// compiled now (a task built in code).
func validate(schema *jsonschema.Schema, raw json.RawMessage, v any) string {
	if schema == nil {
		schema = compileSchema(raw)
		if schema == nil {
			return ReasonSchemaInvalid
		}
	}
	if schema.Validate(v) != nil {
		return ReasonSchemaInvalid
	}
	return ""
}

// compileSchema compiles a JSON Schema document; nil when it is not one.
func compileSchema(raw json.RawMessage) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	const url = "urn:evalgate:schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil
	}
	return s
}

// verdict turns a comparison into a reason: "" for a match.
func verdict(ok bool) string {
	if ok {
		return ""
	}
	return ReasonMismatch
}
