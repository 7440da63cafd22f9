package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Ranges of the numbers a results file may hold. A run writes nothing
// outside them; a file read back (a baseline, a shard to merge) that does
// was written by hand or by something else, and its sums and deltas could
// overflow into values no JSON can hold.
const (
	MaxCostUsd   = 1e9  // per figure
	MaxLatencyMs = 1e12 // about 30 years
	MaxCount     = 1e12 // tokens, tool calls and the counts of tasks and findings
)

// NumberError is a number of a results file out of its range: Pointer is
// the JSON pointer of the field.
type NumberError struct {
	Pointer string
	Got     float64
	Want    string
}

func (e *NumberError) Error() string {
	return fmt.Sprintf("%s: expected %s, got %s", e.Pointer, e.Want, strconv.FormatFloat(e.Got, 'g', -1, 64))
}

// Check reports the first number of the run out of its range: a score or a
// pass rate outside 0..1, a cost, latency, token or count that is negative
// or absurdly large, anything not finite. It is what Read and the
// baseline reader ask of a file before comparing with it.
func (r *Run) Check() error {
	// A first pass only looks: pointers are built, for the message, by a
	// second pass once a problem is known to be there. A results file of
	// 200,000 tasks has millions of numbers and, nearly always, no problem.
	if (&checker{}).run(r) == nil {
		return nil
	}
	if err := (&checker{where: true}).run(r); err != nil {
		return err
	}
	return nil
}

// run checks r, and returns the first problem.
func (c *checker) run(r *Run) *NumberError {
	c.assessment(r.Assessment)
	c.stats("", &r.Stats)
	r.Trust.check(c)
	r.History.check(c)
	if r.Shard != nil {
		c.latency("", "/shard/plannedMs", r.Shard.PlannedMs)
	}
	for i, sh := range r.Shards {
		p := c.at("/shards/%d", i)
		c.latency(p, "/plannedMs", sh.PlannedMs)
		c.latency(p, "/wallMs", sh.WallMs)
	}
	for i := range r.Suites {
		c.suite(c.at("/suites/%d", i), &r.Suites[i])
	}
	return c.err
}

// CheckTask checks the figures of one task at the JSON pointer ptr, for a
// reader of another format (an openwop EvalSummary).
func CheckTask(ptr string, score, costUsd float64, latencyMs int64) error {
	c := &checker{}
	c.score(ptr, "/score", score)
	c.cost(ptr, "/costUsd", costUsd)
	c.latency(ptr, "/latencyMs", latencyMs)
	if c.err != nil {
		return c.err
	}
	return nil
}

// checker keeps the first problem found. Without where, it does not build
// the JSON pointers of what it checks (at gives ""), and a problem's
// pointer is only its last part.
type checker struct {
	err   *NumberError
	where bool
}

// at formats a pointer when the checker says where, else "".
func (c *checker) at(format string, args ...any) string {
	if !c.where {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// in checks that x is from lo to hi. The pointer is ptr+field, joined
// only for a problem: a file of 200,000 tasks has millions of numbers.
func (c *checker) in(ptr, field string, x, lo, hi float64, want string) {
	if c.err == nil && (math.IsNaN(x) || x < lo || x > hi) {
		c.err = &NumberError{Pointer: ptr + field, Got: x, Want: want}
	}
}

func (c *checker) score(ptr, field string, x float64) {
	c.in(ptr, field, x, 0, 1, "a number from 0 to 1")
}

func (c *checker) cost(ptr, field string, x float64) {
	c.in(ptr, field, x, 0, MaxCostUsd, "a cost in US dollars from 0 to 1e9")
}

func (c *checker) latency(ptr, field string, x int64) {
	c.in(ptr, field, float64(x), 0, MaxLatencyMs, "a latency in milliseconds from 0 to 1e12")
}

func (c *checker) count(ptr, field string, x int64) {
	c.in(ptr, field, float64(x), 0, MaxCount, "a whole number from 0 to 1e12")
}

func (c *checker) stats(ptr string, s *Stats) {
	c.score(ptr, "/aggregateScore", s.AggregateScore)
	c.score(ptr, "/passRate", s.PassRate)
	c.count(ptr, "/passedCount", int64(s.PassedCount))
	c.count(ptr, "/taskCount", int64(s.TaskCount))
	c.count(ptr, "/erroredCount", int64(s.ErroredCount))
	c.cost(ptr, "/totalCostUsd", s.TotalCostUsd)
	c.cost(ptr, "/agentCostUsd", s.AgentCostUsd)
	c.cost(ptr, "/judgeCostUsd", s.JudgeCostUsd)
	c.cost(ptr, "/userCostUsd", s.UserCostUsd)
	c.latency(ptr, "/p95LatencyMs", s.P95LatencyMs)
	c.count(ptr, "/findings/critical", int64(s.Findings.Critical))
	c.count(ptr, "/findings/high", int64(s.Findings.High))
	c.count(ptr, "/findings/medium", int64(s.Findings.Medium))
	c.count(ptr, "/findings/low", int64(s.Findings.Low))
}

func (c *checker) suite(ptr string, s *Suite) {
	c.score(ptr, "/thresholds/passScore", s.Thresholds.PassScore)
	if s.Thresholds.MaxCostUsd != nil {
		c.cost(ptr, "/thresholds/maxCostUsd", *s.Thresholds.MaxCostUsd)
	}
	if s.Thresholds.MaxP95LatencyMs != nil {
		c.latency(ptr, "/thresholds/maxP95LatencyMs", *s.Thresholds.MaxP95LatencyMs)
	}
	c.count(ptr, "/trials", int64(s.Trials))
	if s.Tools != nil {
		c.count(ptr, "/tools/declared", int64(s.Tools.Declared))
		c.count(ptr, "/tools/withSchema", int64(s.Tools.WithSchema))
		c.count(ptr, "/tools/sideEffect", int64(s.Tools.SideEffect))
	}
	c.stats(ptr, &s.Stats)
	for i := range s.Tasks {
		c.task(c.at("%s/tasks/%d", ptr, i), &s.Tasks[i])
	}
}

func (c *checker) task(ptr string, t *Task) {
	c.score(ptr, "/score", t.Score)
	c.score(ptr, "/passScore", t.PassScore)
	c.count(ptr, "/trialsPassed", int64(t.TrialsPassed))
	c.latency(ptr, "/latencyMs", t.LatencyMs)
	c.cost(ptr, "/costUsd", t.CostUsd)
	c.cost(ptr, "/agentCostUsd", t.AgentCostUsd)
	c.cost(ptr, "/judgeCostUsd", t.JudgeCostUsd)
	c.cost(ptr, "/userCostUsd", t.UserCostUsd)
	c.tokens(ptr, "/tokens", t.Tokens)
	c.count(ptr, "/toolCalls", int64(t.ToolCalls))
	for i, l := range t.Levels {
		c.count(c.at("%s/levels/%d/criterion", ptr, i), "", int64(l.Criterion))
		c.in(c.at("%s/levels/%d/level", ptr, i), "", float64(l.Level), -MaxScaleBound, MaxScaleBound, "a whole number from -1e6 to 1e6")
	}
	for i := range t.Trials {
		tr := &t.Trials[i]
		p := c.at("%s/trials/%d", ptr, i)
		c.score(p, "/score", tr.Score)
		c.latency(p, "/latencyMs", tr.LatencyMs)
		c.cost(p, "/agentCostUsd", tr.AgentCostUsd)
		c.cost(p, "/judgeCostUsd", tr.JudgeCostUsd)
		c.cost(p, "/userCostUsd", tr.UserCostUsd)
		c.tokens(p, "/tokens", tr.Tokens)
		c.count(p, "/toolCalls", int64(tr.ToolCalls))
		for j, u := range tr.Tools {
			q := c.at("%s/tools/%d", p, j)
			c.count(q, "/calls", int64(u.Calls))
			c.count(q, "/matched", int64(u.Matched))
			c.count(q, "/errors", int64(u.Errors))
			c.count(q, "/repeats", int64(u.Repeats))
			c.count(q, "/maxSame", int64(u.MaxSame))
			c.count(q, "/schemaViolations", int64(u.SchemaViolations))
			c.count(q, "/sideEffectRepeats", int64(u.SideEffectRepeats))
		}
		for j := range tr.Checks {
			c.level(c.at("%s/checks/%d", p, j), &tr.Checks[j])
		}
	}
}

// MaxScaleBound bounds the ends of a graded criterion's scale.
const MaxScaleBound = 1e6

// level checks a graded criterion: a scale whose ends are in range and
// the right way round, a level on it, a criterion index.
func (c *checker) level(ptr string, k *Check) {
	if k.Criterion != nil {
		c.count(ptr, "/criterion", int64(*k.Criterion))
	}
	if k.Scale == nil {
		if k.Level != nil && c.err == nil {
			c.err = &NumberError{Pointer: ptr + "/level", Got: float64(*k.Level), Want: "no level on a check without a scale"}
		}
		return
	}
	c.in(ptr, "/scale/min", float64(k.Scale.Min), -MaxScaleBound, MaxScaleBound, "a whole number from -1e6 to 1e6")
	c.in(ptr, "/scale/max", float64(k.Scale.Max), float64(k.Scale.Min)+1, MaxScaleBound, "a whole number above scale/min, up to 1e6")
	if k.Level != nil {
		c.in(ptr, "/level", float64(*k.Level), float64(k.Scale.Min), float64(k.Scale.Max), fmt.Sprintf("a level from %d to %d", k.Scale.Min, k.Scale.Max))
	}
}

func (c *checker) tokens(ptr, field string, t Tokens) {
	// Looked at before the pointer is joined, as in.
	if t.Input < 0 || t.Output < 0 || t.Input > MaxCount || t.Output > MaxCount {
		c.count(ptr+field, "/input", t.Input)
		c.count(ptr+field, "/output", t.Output)
	}
}

// DecodeError says why encoding/json could not decode a results file, in
// JSON's words: where, and what it found instead of what.
func DecodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("not JSON: %s at byte %d", syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		want := "another type"
		if typ.Type != nil {
			want = jsonType(typ.Type.Kind().String())
		}
		if typ.Field == "" {
			return fmt.Errorf("expected %s, got %s", want, typ.Value)
		}
		return fmt.Errorf("%s: expected %s, got %s", typ.Field, want, typ.Value)
	}
	return err
}

// jsonType names a Go kind as the JSON value that decodes to it.
func jsonType(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"):
		return "a whole number that fits in 64 bits"
	case strings.HasPrefix(kind, "float"):
		return "a number that fits in 64 bits"
	case kind == "string":
		return "a string"
	case kind == "bool":
		return "true or false"
	case kind == "slice", kind == "array":
		return "a list"
	case kind == "struct", kind == "map":
		return "an object"
	}
	return "another type"
}
