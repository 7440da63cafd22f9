package judges

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/jsonpointer"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/jsonpatch"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

// Explanation says, for a check of a trial that failed, what it expected
// and what the agent gave: `expected to contain "delivered", got "Order
// A-17 is in transit."`. Unlike a check's reason it quotes the task and
// the agent, so it is for the person at the terminal (or the CI job log
// with --explain) only: never results.json or any other output.
type Explanation struct {
	Check string // the check's id, such as "match" or "rubric[1]"
	Kind  string // its kind, with a match's path: "contains at /status"
	// Expected and Got complete "expected …, got …"; Got is "" when the
	// expectation says it all ("a value at /status").
	Expected, Got string
	// Diff holds the differences of two JSON values, one a line, such as
	// `/status: expected "refunded", got "delivered"`; Note anything else
	// that explains (the judge's reason).
	Diff []string
	Note string
}

// Lines renders the explanation: its first line, then the diff and the
// note, each on its own line.
func (e *Explanation) Lines() []string {
	head := e.Check
	if e.Kind != "" && e.Kind != e.Check {
		head += " (" + e.Kind + ")"
	}
	head += ": expected " + e.Expected
	if e.Got != "" {
		head += ", got " + e.Got
	}
	lines := append([]string{head}, e.Diff...)
	if e.Note != "" {
		lines = append(lines, e.Note)
	}
	return lines
}

// Limits of what an explanation quotes.
const (
	maxShownRunes = 160 // of one value
	maxDiffLines  = 6   // of a JSON diff
)

// Explain explains each failed check of a trial: checks are its checks
// as scored, obs what it produced, and reasons the judge's reason for each
// judged criterion, by check id. It decides nothing again: it reads the
// checks' verdicts and describes what they compared, running no
// expression, pattern or schema of the suite and asking no program or
// judge, so an explanation costs no more than a walk over the output.
func Explain(t *suites.Task, obs *Observation, checks []results.Check, reasons map[string]string) []Explanation {
	x := explainer{t: t, obs: obs, reasons: reasons, out: decodeOutput(obs.Output)}
	var out []Explanation
	for i := range checks {
		if checks[i].Passed {
			continue
		}
		out = append(out, x.check(&checks[i]))
	}
	return out
}

type explainer struct {
	t       *suites.Task
	obs     *Observation
	out     any // the output, decoded; notJSON when it is not JSON
	reasons map[string]string
}

// check explains one failed check by its id: the match, the output
// schema, an end-state check, an assertion, a rubric criterion, a turn's
// check, or a check the runner adds.
func (x *explainer) check(c *results.Check) Explanation {
	e := &x.t.Expected
	if turn, id, ok := turnCheck(c.ID); ok && turn < len(x.t.Turns) && x.t.Turns[turn].Expect != nil {
		return x.turn(turn, id, c)
	}
	switch c.ID {
	case CheckMatch:
		if e.Match != nil {
			return x.match(e.Match)
		}
	case CheckOutputSchema:
		return Explanation{Check: c.ID, Expected: "output that satisfies outputSchema", Got: show(x.out)}
	case suites.CheckState, suites.CheckUnchanged, suites.CheckGoldState:
		return x.world(c)
	case "toolArgs":
		return x.toolArgs(c)
	case "replanLoop":
		return x.replanLoop(c)
	}
	for _, a := range e.Assert {
		if a.ID == c.ID {
			return x.assertion(a, c)
		}
	}
	for i := range e.Rubric {
		if cmp.Or(e.Rubric[i].ID, fmt.Sprintf("rubric[%d]", i)) == c.ID {
			return x.criterion(&e.Rubric[i], c)
		}
	}
	return Explanation{Check: c.ID, Kind: c.Kind, Expected: "the check to pass", Got: cmp.Or(c.Reason, "a fail")}
}

// turnCheck splits "turns[i].id" into i and id.
func turnCheck(id string) (turn int, rest string, ok bool) {
	s, ok := strings.CutPrefix(id, "turns[")
	if !ok {
		return 0, "", false
	}
	n, rest, ok := strings.Cut(s, "].")
	if !ok {
		return 0, "", false
	}
	turn, err := strconv.Atoi(n)
	return turn, rest, err == nil
}

// turn explains a failed check of a conversation's turn against the
// agent's answer to it: the reply, or the final output for the last turn.
func (x *explainer) turn(turn int, id string, c *results.Check) Explanation {
	inner := &explainer{t: &suites.Task{Expected: *x.t.Turns[turn].Expect}, obs: x.obs, reasons: x.reasons, out: x.out}
	switch i := turn + 1; {
	case c.Reason == ReasonNotReached:
		return Explanation{Check: c.ID, Kind: c.Kind, Expected: fmt.Sprintf("an answer to turn %d", i), Got: "none: the conversation ended before it"}
	case i < len(x.obs.Replies):
		inner.out = decodeOutput(x.obs.Replies[i])
	}
	one := *c
	one.ID = id
	e := inner.check(&one)
	e.Check = c.ID
	return e
}

// match explains a failed golden match.
func (x *explainer) match(m *suites.Match) Explanation {
	e := Explanation{Check: CheckMatch, Kind: m.Strategy}
	out := x.out
	if _, bad := out.(notJSON); bad {
		e.Expected, e.Got = "a JSON value", "output that is not JSON"
		return e
	}
	parsed := false
	if m.Path != "" {
		e.Kind += " at " + m.Path
		v, ok := parseString(out)
		if !ok {
			e.Expected, e.Got = "JSON with a value at "+m.Path, show(out)
			return e
		}
		if out, ok = jsonvalue.Pointer(v, m.Path); !ok {
			e.Expected, e.Got = "a value at "+m.Path, show(v)
			return e
		}
		parsed = true
	}
	ignoring := ""
	if m.IgnoreCase {
		ignoring = " (ignoring case)"
	}
	want, err := jsonvalue.Decode(m.Value)
	if err != nil {
		want = nil
	}
	switch m.Strategy {
	case suites.StrategyRegex:
		e.Expected, e.Got = "to match /"+cut(jsonvalue.Text(want))+"/"+ignoring, show(jsonvalue.Text(out))
		return e
	case suites.StrategyJSONSchema:
		e.Expected = "JSON that satisfies the schema"
	case suites.StrategyExact:
		e.Expected, e.Got = "exactly "+show(want)+ignoring, show(out)
		return e
	case suites.StrategyContains:
		e.Expected, e.Got = "to contain "+show(jsonvalue.Text(want))+ignoring, show(out)
		return e
	case suites.StrategyJSONMatch:
		e.Expected = "JSON equal to " + show(want)
	case suites.StrategyJSONSubset:
		e.Expected = "JSON containing " + show(want)
	default:
		e.Expected, e.Got = "a match by "+m.Strategy, show(out)
		return e
	}
	// The JSON strategies parse a string output first.
	if !parsed {
		v, ok := parseString(out)
		if !ok {
			e.Got = show(out) + ", which is not JSON"
			return e
		}
		out = v
	}
	e.Got = show(out)
	if m.Strategy != suites.StrategyJSONSchema {
		e.Diff = jsonDiff(want, out, m.Strategy == suites.StrategyJSONSubset)
	}
	return e
}

// world explains a failed end-state check from the world the trial left.
func (x *explainer) world(c *results.Check) Explanation {
	e := Explanation{Check: c.ID}
	if c.Reason == ReasonNoWorld {
		e.Expected, e.Got = "a world to check", "none: the task has no state"
		return e
	}
	final := decodeOutput(x.obs.State)
	switch c.ID {
	case suites.CheckState:
		want, _ := jsonvalue.Decode(x.t.Expected.State)
		e.Expected = "the world to contain " + show(want)
		e.Got = show(final)
		e.Diff = jsonDiff(want, final, true)
	case suites.CheckUnchanged:
		initial := decodeOutput(x.obs.InitialState)
		e.Expected = "no change at " + strings.Join(x.t.Expected.Unchanged, ", ")
		for _, p := range x.t.Expected.Unchanged {
			a, errA := jsonpatch.Get(initial, p)
			b, errB := jsonpatch.Get(final, p)
			switch {
			case errA == nil && errB != nil:
				e.Diff = append(e.Diff, fmt.Sprintf("%s: was %s, is gone", p, show(a)))
			case errA != nil && errB == nil:
				e.Diff = append(e.Diff, fmt.Sprintf("%s: was not there, is %s", p, show(b)))
			case errA == nil && !jsonvalue.Equal(a, b):
				e.Diff = append(e.Diff, fmt.Sprintf("%s: was %s, is %s", p, show(a), show(b)))
			}
		}
		e.Got = words.Count(len(e.Diff), "change", "changes")
		e.Diff = capLines(e.Diff)
	case suites.CheckGoldState:
		gold := decodeOutput(x.obs.GoldState)
		e.Expected = "the world the goldCalls leave"
		e.Got = "another"
		e.Diff = jsonDiff(withoutPointers(gold, x.t.Expected.GoldIgnore), withoutPointers(final, x.t.Expected.GoldIgnore), false)
	}
	return e
}

// assertion explains a failed assertion (c is its result).
func (x *explainer) assertion(a *suites.Check, c *results.Check) Explanation {
	e := x.positive(a)
	e.Check = c.ID
	if a.Negate {
		e.Expected = "not " + e.Expected
		e.Got = x.got(a)
		e.Note = ""
	}
	return e
}

// positive explains what an assertion checks, and why it did not hold.
func (x *explainer) positive(a *suites.Check) Explanation {
	e := Explanation{Kind: a.Kind, Got: x.got(a)}
	switch a.Kind {
	case suites.CheckExpr:
		e.Expected = "`" + cut(a.Expr) + "` to hold"
	case suites.CheckToolCalled:
		e.Expected = "a call to " + a.Tool
		if len(a.Args) > 0 {
			args, _ := jsonvalue.Decode(a.Args)
			e.Expected += " with arguments containing " + show(args)
		}
	case suites.CheckToolNotCalled:
		e.Expected = "no call to " + a.Tool
	case suites.CheckToolOrder:
		e.Expected = "calls in the order " + strings.Join(a.Order, ", ")
	case suites.CheckMaxToolCalls:
		e.Expected = "at most " + words.Count(a.MaxToolCalls, "tool call", "tool calls")
	case suites.CheckMaxLatencyMs:
		e.Expected = fmt.Sprintf("at most %d ms", a.MaxLatencyMs)
	case suites.CheckMaxCostUsd:
		e.Expected = "at most $" + strconv.FormatFloat(a.MaxCostUsd, 'f', -1, 64)
	case suites.CheckExec:
		e.Expected = fmt.Sprintf("the program %q to pass the output", strings.Join(a.Exec, " "))
	case suites.CheckTrace:
		e.Expected = traceExpected(a.Trace)
	case suites.CheckEvents:
		e.Expected = "spans or span events named " + cut(strings.Join(a.Events, ", "))
	default:
		e.Expected = "the check to pass"
	}
	return e
}

// got is what an assertion looked at: the output for an expression or a
// program, the calls for the tool checks, the figure for a limit.
func (x *explainer) got(a *suites.Check) string {
	trace := x.obs.Trace
	switch a.Kind {
	case suites.CheckToolCalled, suites.CheckToolNotCalled:
		return callList(trace, a.Tool)
	case suites.CheckToolOrder:
		names := make([]string, len(trace))
		for i, c := range trace {
			names[i] = c.Name
		}
		if len(names) == 0 {
			return "no tool calls"
		}
		return cut(strings.Join(names, ", "))
	case suites.CheckMaxToolCalls:
		return strconv.Itoa(len(trace))
	case suites.CheckMaxLatencyMs:
		return fmt.Sprintf("%d ms", x.obs.LatencyMs)
	case suites.CheckMaxCostUsd:
		return "$" + strconv.FormatFloat(x.obs.CostUsd, 'f', -1, 64)
	case suites.CheckTrace, suites.CheckEvents:
		return spanList(x.obs.Spans)
	}
	return show(x.out)
}

// traceExpected says what a trace check expects.
func traceExpected(tc *suites.TraceCheck) string {
	what := "spans"
	if m := tc.Span; m != nil {
		var sel []string
		for _, f := range []struct{ key, val string }{{"name", m.Name}, {"operation", m.Operation}, {"tool", m.Tool}, {"model", m.Model}} {
			if f.val != "" {
				sel = append(sel, f.key+" "+strconv.Quote(f.val))
			}
		}
		what = "spans of " + strings.Join(sel, ", ")
	}
	parts := []string{what + " numbering " + tc.Count.String()}
	if tc.MaxDurationMs > 0 {
		parts = append(parts, "each at most "+strconv.FormatFloat(tc.MaxDurationMs, 'f', -1, 64)+" ms")
	}
	if tc.NoErrors {
		parts = append(parts, "none in error")
	}
	if len(tc.Events) > 0 {
		parts = append(parts, "with the events "+strings.Join(tc.Events, ", "))
	}
	if len(tc.Order) > 0 {
		parts = append(parts, "in the order "+strings.Join(tc.Order, ", "))
	}
	return cut(strings.Join(parts, "; "))
}

// spanList names the spans the agent sent, in the order they started.
func spanList(tr *traces.Trace) string {
	if tr == nil {
		return "no spans: the run did not receive the agent's (set agent.otel: true or pass --otel)"
	}
	if len(tr.Spans) == 0 {
		return "no spans"
	}
	names := make([]string, 0, min(len(tr.Spans), 20))
	for i := range tr.Spans[:min(len(tr.Spans), 20)] {
		sp := &tr.Spans[i]
		n := sp.Name
		if len(sp.Events) > 0 {
			n += " [" + strings.Join(sp.Events, ", ") + "]"
		}
		if sp.IsError() {
			n += " (error)"
		}
		names = append(names, n)
	}
	return cut(strings.Join(names, "; "))
}

// callList lists the calls of a trace: those of tool when there are any,
// with their arguments, else every tool called.
func callList(trace []fixtures.Call, tool string) string {
	var calls []string
	for _, c := range trace {
		if c.Name == tool {
			args, _ := jsonvalue.Decode(c.Args)
			calls = append(calls, c.Name+" "+show(args))
		}
	}
	if len(calls) > 0 {
		return cut(strings.Join(calls, "; "))
	}
	if len(trace) == 0 {
		return "no tool calls"
	}
	names := map[string]int{}
	var order []string
	for _, c := range trace {
		if names[c.Name] == 0 {
			order = append(order, c.Name)
		}
		names[c.Name]++
	}
	for i, n := range order {
		if names[n] > 1 {
			order[i] = fmt.Sprintf("%s ×%d", n, names[n])
		}
	}
	return "calls to " + cut(strings.Join(order, ", ")) + " only"
}

// criterion explains a rubric criterion that was not met: by its
// assertion, or by the judge's verdict and reason.
func (x *explainer) criterion(cr *suites.Criterion, c *results.Check) Explanation {
	if cr.Assert != nil && cr.Scale == nil {
		e := x.assertion(cr.Assert, c)
		e.Kind = "criterion, " + cr.Assert.Kind
		e.Note = "criterion: " + strconv.Quote(cut(cr.Criterion))
		return e
	}
	e := Explanation{Check: c.ID, Kind: "criterion", Expected: "to meet " + strconv.Quote(cut(cr.Criterion)), Got: show(x.out)}
	if c.Scale != nil && c.Level != nil {
		e.Expected = fmt.Sprintf("level %d of %d on %s", c.Scale.Max, c.Scale.Max, strconv.Quote(cut(cr.Criterion)))
		e.Got = fmt.Sprintf("level %d, for %s", *c.Level, show(x.out))
	}
	if r := x.reasons[c.ID]; r != "" {
		e.Note = "the judge: " + strconv.Quote(cut(r))
	}
	return e
}

// toolArgs explains the runner's toolArgs check: the calls whose
// arguments broke their tool's inputSchema.
func (x *explainer) toolArgs(c *results.Check) Explanation {
	var bad []string
	for _, call := range x.obs.Trace {
		if call.ArgsInvalid {
			args, _ := jsonvalue.Decode(call.Args)
			bad = append(bad, call.Name+" "+show(args))
		}
	}
	return Explanation{Check: c.ID, Expected: "arguments that satisfy each tool's inputSchema", Got: cut(strings.Join(bad, "; "))}
}

// replanLoop explains the runner's replanLoop check: the calls repeated
// the most.
func (x *explainer) replanLoop(c *results.Check) Explanation {
	count := map[string]int{}
	var keys []string
	for _, call := range x.obs.Trace {
		args, _ := jsonvalue.Decode(call.Args)
		k := call.Name + " " + show(args)
		if count[k] == 0 {
			keys = append(keys, k)
		}
		count[k]++
	}
	sort.SliceStable(keys, func(i, j int) bool { return count[keys[i]] > count[keys[j]] })
	var got []string
	for _, k := range keys {
		if count[k] > 1 {
			got = append(got, fmt.Sprintf("%s ×%d", k, count[k]))
		}
	}
	return Explanation{Check: c.ID, Kind: c.Kind, Expected: "no call made again and again", Got: cut(strings.Join(got, "; "))}
}

// jsonDiff lists where got differs from want, one difference a line, at
// most maxDiffLines of them: a value that differs, a key or an element
// missing, and, unless subset (want need only be contained in got), a key
// got has that want does not.
func jsonDiff(want, got any, subset bool) []string {
	var lines []string
	more := 0
	add := func(format string, args ...any) {
		if len(lines) == maxDiffLines {
			more++
			return
		}
		lines = append(lines, fmt.Sprintf(format, args...))
	}
	var walk func(path string, w, g any)
	walk = func(path string, w, g any) {
		at := cmp.Or(path, "/")
		switch wv := w.(type) {
		case map[string]any:
			gv, ok := g.(map[string]any)
			if !ok {
				add("%s: expected an object, got %s", at, show(g))
				return
			}
			for _, k := range slices.Sorted(maps.Keys(wv)) {
				p := jsonpointer.Append(path, k)
				if v, ok := gv[k]; ok {
					walk(p, wv[k], v)
				} else {
					add("%s: missing, expected %s", p, show(wv[k]))
				}
			}
			if !subset {
				for _, k := range slices.Sorted(maps.Keys(gv)) {
					if _, ok := wv[k]; !ok {
						add("%s: not expected, got %s", jsonpointer.Append(path, k), show(gv[k]))
					}
				}
			}
		case []any:
			gv, ok := g.([]any)
			if !ok {
				add("%s: expected an array, got %s", at, show(g))
				return
			}
			if len(wv) != len(gv) {
				add("%s: expected %d elements, got %d", at, len(wv), len(gv))
			}
			for i := range min(len(wv), len(gv)) {
				walk(jsonpointer.AppendIndex(path, i), wv[i], gv[i])
			}
		default:
			if !jsonvalue.Equal(w, g) {
				add("%s: expected %s, got %s", at, show(w), show(g))
			}
		}
	}
	walk("", want, got)
	if more > 0 {
		lines = append(lines, "… and "+words.Count(more, "more difference", "more differences"))
	}
	return lines
}

// show renders a value an explanation quotes: a string quoted, anything
// else as JSON, cut to maxShownRunes.
func show(v any) string {
	switch x := v.(type) {
	case notJSON:
		return "output that is not JSON"
	case string:
		if len(x) <= 4*maxShownRunes {
			return cut(strconv.Quote(x))
		}
		// Quoted only as far as it is shown.
		end := 4 * maxShownRunes
		for end > 0 && !utf8.RuneStart(x[end]) {
			end--
		}
		q := []rune(strconv.Quote(x[:end]))
		return fmt.Sprintf("%s… (%d bytes in all)", string(q[:min(len(q), maxShownRunes-1)]), len(x))
	}
	return cut(string(jsonvalue.Canonical(v)))
}

// cut shortens s to maxShownRunes, saying how long it was.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxShownRunes {
		return s
	}
	r := []rune(s)
	return fmt.Sprintf("%s… (%d bytes in all)", string(r[:maxShownRunes-1]), len(s))
}

// capLines keeps the first maxDiffLines lines, saying how many more.
func capLines(lines []string) []string {
	if len(lines) <= maxDiffLines {
		return lines
	}
	more := len(lines) - maxDiffLines
	return append(lines[:maxDiffLines:maxDiffLines], fmt.Sprintf("… and %d more", more))
}
