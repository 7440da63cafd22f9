package judges

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/meter"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
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
	// The reasons of the trace and events checks (docs/otel.md).
	ReasonNoTrace      = "no-trace"      // the run received no spans: agent.otel is off
	ReasonSpanCount    = "span-count"    // the selected spans are not as many as count says
	ReasonSpanError    = "span-error"    // a selected span ended in error
	ReasonSpanMissing  = "span-missing"  // a span the order names is not there
	ReasonMissingEvent = "missing-event" // an event named is not there
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
	Input  json.RawMessage // the task input, a JSON value
	Output json.RawMessage // the agent's final output, a JSON value
	Trace  []fixtures.Call
	// Spans is what the agent sent through OpenTelemetry (docs/otel.md);
	// nil when the run did not receive it.
	Spans     *traces.Trace
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

// golden runs a task's deterministic checks (see Executor.Golden).
func (r *checker) golden(t *suites.Task) (checks []results.Check, schemaValid *bool, err error) {
	e := &t.Expected
	if e.Kind != suites.KindRubric {
		if e.Match != nil {
			ck, err := r.matchCheck(e.Match)
			if err != nil {
				return nil, nil, err
			}
			checks = append(checks, ck)
		}
		checks = append(checks, worldChecks(e, r.obs)...)
		for _, c := range e.Assert {
			ck, err := r.check(c)
			if err != nil {
				return nil, nil, err
			}
			checks = append(checks, ck)
		}
	}
	if e.OutputSchema != nil || len(e.OutputSchemaRaw) > 0 {
		c := results.Check{ID: CheckOutputSchema, Kind: CheckOutputSchema, Weight: 1}
		c.Reason = ReasonInvalidJSON
		if v, ok := parseString(r.out); ok {
			c.Reason = validate(e.OutputSchema, e.OutputSchemaRaw, v)
		}
		c.Passed = c.Reason == ""
		checks = append(checks, c)
		schemaValid = &c.Passed
	}
	turns, err := r.turnChecks(t)
	if err != nil {
		return nil, nil, err
	}
	return append(checks, turns...), schemaValid, nil
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
// then, its checks named "turns[i].<id>" (a program check among them
// fails as unsupported). A turn the conversation never reached fails every one
// of its checks with the reason not-reached.
func (r *checker) turnChecks(t *suites.Task) ([]results.Check, error) {
	var checks []results.Check
	obs := r.obs
	for k, turn := range t.Turns {
		if turn.Expect == nil {
			continue
		}
		one := &suites.Task{Expected: *turn.Expect}
		var got []results.Check
		var err error
		switch i := k + 1; {
		case i < len(obs.Replies):
			o := *obs
			o.Output = obs.Replies[i]
			if i < len(obs.ReplyCalls) && obs.ReplyCalls[i] <= len(obs.Trace) {
				o.Trace = obs.Trace[:obs.ReplyCalls[i]]
			}
			reply := &checker{m: r.m, obs: &o, out: decodeOutput(o.Output)}
			got, _, err = reply.golden(one)
		case i == len(obs.Replies):
			final := &checker{m: r.m, obs: obs, out: r.out}
			got, _, err = final.golden(one)
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
		if err != nil {
			return nil, err
		}
		for _, c := range got {
			c.ID = suites.TurnCheckID(k, c.ID)
			checks = append(checks, c)
		}
	}
	return checks, nil
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
func (r *checker) matchCheck(m *suites.Match) (results.Check, error) {
	c := results.Check{ID: CheckMatch, Kind: m.Strategy, Weight: 1}
	reason, err := r.match(m)
	if err != nil {
		if overCaps(err) {
			return c, &CheckError{ID: CheckMatch, Message: "its regular expression: " + capsMessage(err)}
		}
		return c, err
	}
	c.Reason = reason
	c.Passed = c.Reason == ""
	return c, nil
}

// match returns "" when the output matches, else the reason it does not.
func (r *checker) match(m *suites.Match) (string, error) {
	out := r.out
	if _, bad := out.(notJSON); bad {
		return ReasonInvalidJSON, nil
	}
	parsed := false
	if m.Path != "" {
		var ok bool
		if out, ok = parseString(out); !ok {
			return ReasonInvalidJSON, nil
		}
		if out, ok = jsonvalue.Pointer(out, m.Path); !ok {
			return ReasonPathMissing, nil
		}
		parsed = true
	}
	if m.Strategy == suites.StrategyRegex {
		re := m.Regexp
		if re == nil {
			re = compileRegexp(m)
		}
		if re == nil {
			return ReasonMismatch, nil
		}
		ok, err := r.m.Match(re, jsonvalue.Text(out))
		if err != nil {
			return "", err
		}
		return verdict(ok), nil
	}
	if m.Strategy == suites.StrategyJSONSchema {
		if !parsed {
			var ok bool
			if out, ok = parseString(out); !ok {
				return ReasonInvalidJSON, nil
			}
		}
		return validate(m.Schema, m.Value, out), nil
	}
	want, err := jsonvalue.Decode(m.Value)
	if err != nil {
		return ReasonMismatch, nil
	}
	switch m.Strategy {
	case suites.StrategyExact:
		a, outStr := out.(string)
		b, wantStr := want.(string)
		if !outStr || !wantStr {
			a, b = string(jsonvalue.Canonical(out)), string(jsonvalue.Canonical(want))
		}
		if m.IgnoreCase {
			return verdict(strings.EqualFold(a, b)), nil
		}
		return verdict(a == b), nil
	case suites.StrategyContains:
		a, b := jsonvalue.Text(out), jsonvalue.Text(want)
		if m.IgnoreCase {
			a, b = strings.ToLower(a), strings.ToLower(b)
		}
		return verdict(strings.Contains(a, b)), nil
	case suites.StrategyJSONMatch, suites.StrategyJSONSubset:
		if !parsed {
			var ok bool
			if out, ok = parseString(out); !ok {
				return ReasonInvalidJSON, nil
			}
		}
		if m.Strategy == suites.StrategyJSONMatch {
			return verdict(jsonvalue.Equal(out, want)), nil
		}
		return verdict(jsonvalue.Subset(want, out)), nil
	}
	return ReasonUnsupported, nil
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
// (a task built in code), within the caps; nil when the value is not a
// valid pattern within them.
func compileRegexp(m *suites.Match) *meter.Regexp {
	var src string
	if err := json.Unmarshal(m.Value, &src); err != nil {
		return nil
	}
	if m.IgnoreCase {
		src = "(?i)" + src
	}
	re, err := meter.Compile(src)
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
	c.UseRegexpEngine(suites.SchemaRegexp)
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
