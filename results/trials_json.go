package results

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/evalgate/evalgate/jsonvalue"
)

// appendTrials appends trials to b as indentEncoder.encode(&trials, prefix)
// renders them, byte for byte, without reflection: a large merge spills
// 200,000 tasks' trials, and encoding them through encoding/json and its
// indentation took a seventh of its time. The fields are written in the
// order and with the omitempty rules of their struct tags;
// TestAppendTrialsIsEncodingJSON keeps the two in step.
func appendTrials(b []byte, trials []Trial, prefix string) ([]byte, error) {
	w := jsonWriter{b: b, prefix: prefix}
	if trials == nil {
		return append(w.b, "null"...), nil
	}
	w.open('[')
	for i := range trials {
		w.item()
		w.trial(&trials[i])
	}
	w.close(']')
	return w.b, w.err
}

// taskPrefix is where a task's lines start in results.json.
const taskPrefix = "        "

// appendTask appends t to b as indentEncoder.encode(t, taskPrefix) renders
// it, byte for byte, without reflection (a merge writes 200,000 tasks);
// trials, when not nil, is the JSON of its trials (a Spill's bytes), and
// is written in place of t.Trials. TestAppendTaskIsEncodingJSON keeps the
// two in step.
func appendTask(b []byte, t *Task, trials []byte) ([]byte, error) {
	w := jsonWriter{b: b, prefix: taskPrefix}
	w.open('{')
	w.key("taskId")
	w.string(t.ID)
	w.key("file")
	w.string(t.File)
	w.key("line")
	w.int(int64(t.Line))
	w.key("kind")
	w.string(t.Kind)
	w.optStrings("tags", t.Tags)
	if m := t.Metadata; m != nil {
		w.key("metadata")
		w.open('{')
		w.optString("domain", m.Domain)
		w.optInt("complexity", int64(m.Complexity))
		w.optIntPtr("autonomyLevel", m.AutonomyLevel)
		w.optString("category", m.Category)
		w.close('}')
	}
	w.key("status")
	w.string(t.Status)
	w.optString("errorKind", t.ErrorKind)
	w.optString("errorMessage", t.ErrorMessage)
	w.key("score")
	w.float(t.Score)
	w.key("passScore")
	w.float(t.PassScore)
	w.key("passed")
	w.bool(t.Passed)
	w.key("passAtK")
	w.bool(t.PassAtK)
	w.key("trialsPassed")
	w.int(int64(t.TrialsPassed))
	w.key("latencyMs")
	w.int(t.LatencyMs)
	w.key("costUsd")
	w.float(t.CostUsd)
	w.key("agentCostUsd")
	w.float(t.AgentCostUsd)
	w.key("judgeCostUsd")
	w.float(t.JudgeCostUsd)
	w.optFloat("userCostUsd", t.UserCostUsd)
	w.key("tokens")
	w.tokens(t.Tokens)
	w.key("toolCalls")
	w.int(int64(t.ToolCalls))
	w.optBool("schemaValid", t.SchemaValid)
	w.optStrings("failedChecks", t.FailedChecks)
	if len(t.Levels) > 0 {
		w.key("levels")
		w.open('[')
		for _, l := range t.Levels {
			w.item()
			w.open('{')
			w.key("check")
			w.string(l.Check)
			w.key("criterion")
			w.int(int64(l.Criterion))
			w.key("level")
			w.int(int64(l.Level))
			w.close('}')
		}
		w.close(']')
	}
	if len(t.Findings) > 0 {
		w.key("findings")
		w.findings(t.Findings)
	}
	w.optInt("linesAfterFinal", int64(t.LinesAfterFinal))
	w.optStrings("faults", t.Faults)
	w.optBool("idempotent", t.Idempotent)
	w.key("trials")
	switch {
	case trials != nil:
		w.b = append(w.b, trials...)
	case t.Trials == nil:
		w.b = append(w.b, "null"...)
	default:
		w.open('[')
		for i := range t.Trials {
			w.item()
			w.trial(&t.Trials[i])
		}
		w.close(']')
	}
	w.close('}')
	return w.b, w.err
}

// optStrings writes a list of strings unless it is empty.
func (w *jsonWriter) optStrings(k string, list []string) {
	if len(list) == 0 {
		return
	}
	w.key(k)
	w.open('[')
	for _, s := range list {
		w.item()
		w.string(s)
	}
	w.close(']')
}

func (w *jsonWriter) tokens(t Tokens) {
	w.open('{')
	w.key("input")
	w.int(t.Input)
	w.key("output")
	w.int(t.Output)
	w.close('}')
}

func (w *jsonWriter) findings(list []Finding) {
	w.open('[')
	for _, f := range list {
		w.item()
		w.open('{')
		w.key("kind")
		w.string(f.Kind)
		w.key("severity")
		w.string(f.Severity)
		w.close('}')
	}
	w.close(']')
}

func (w *jsonWriter) trial(t *Trial) {
	w.open('{')
	w.key("trial")
	w.int(int64(t.Trial))
	w.key("status")
	w.string(t.Status)
	w.optString("errorKind", t.ErrorKind)
	w.optString("errorMessage", t.ErrorMessage)
	w.key("score")
	w.float(t.Score)
	w.key("passed")
	w.bool(t.Passed)
	w.key("latencyMs")
	w.int(t.LatencyMs)
	w.key("agentCostUsd")
	w.float(t.AgentCostUsd)
	w.key("judgeCostUsd")
	w.float(t.JudgeCostUsd)
	w.optFloat("userCostUsd", t.UserCostUsd)
	w.key("tokens")
	w.tokens(t.Tokens)
	w.key("toolCalls")
	w.int(int64(t.ToolCalls))
	w.optBool("schemaValid", t.SchemaValid)
	if len(t.Tools) > 0 {
		w.key("tools")
		w.open('[')
		for i := range t.Tools {
			w.item()
			w.toolUse(&t.Tools[i])
		}
		w.close(']')
	}
	w.key("checks")
	if t.Checks == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.open('[')
		for i := range t.Checks {
			w.item()
			w.check(&t.Checks[i])
		}
		w.close(']')
	}
	if len(t.Findings) > 0 {
		w.key("findings")
		w.findings(t.Findings)
	}
	w.optInt("linesAfterFinal", int64(t.LinesAfterFinal))
	w.optTrue("usageReported", t.UsageReported)
	w.close('}')
}

func (w *jsonWriter) toolUse(u *ToolUse) {
	w.open('{')
	w.key("name")
	w.string(u.Name)
	w.key("calls")
	w.int(int64(u.Calls))
	w.key("matched")
	w.int(int64(u.Matched))
	w.key("errors")
	w.int(int64(u.Errors))
	w.key("repeats")
	w.int(int64(u.Repeats))
	w.key("maxSame")
	w.int(int64(u.MaxSame))
	w.optInt("schemaViolations", int64(u.SchemaViolations))
	w.optInt("sideEffectRepeats", int64(u.SideEffectRepeats))
	w.close('}')
}

func (w *jsonWriter) check(c *Check) {
	w.open('{')
	w.key("id")
	w.string(c.ID)
	w.key("kind")
	w.string(c.Kind)
	w.key("weight")
	w.float(c.Weight)
	w.key("passed")
	w.bool(c.Passed)
	w.optString("reason", c.Reason)
	w.optTrue("judged", c.Judged)
	w.optIntPtr("criterion", c.Criterion)
	w.optIntPtr("level", c.Level)
	if c.Scale != nil {
		w.key("scale")
		w.open('{')
		w.key("min")
		w.int(int64(c.Scale.Min))
		w.key("max")
		w.int(int64(c.Scale.Max))
		w.close('}')
	}
	w.close('}')
}

// jsonWriter writes JSON as encoding/json's Encoder does with
// SetIndent(prefix, "  ") and SetEscapeHTML(false), but for the first
// line's prefix and the final newline, which the caller places.
type jsonWriter struct {
	b      []byte
	prefix string
	counts []int // per open object or list, the members or items written
	err    error
}

func (w *jsonWriter) newline() {
	w.b = append(w.b, '\n')
	w.b = append(w.b, w.prefix...)
	n := 2 * len(w.counts)
	for n > len(spaces) {
		w.b = append(w.b, spaces...)
		n -= len(spaces)
	}
	w.b = append(w.b, spaces[:n]...)
}

// spaces indent: one append a line rather than one a level.
const spaces = "                                "

func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.counts = append(w.counts, 0)
}

// close ends the innermost object or list; an empty one stays "{}" or "[]".
func (w *jsonWriter) close(c byte) {
	n := w.counts[len(w.counts)-1]
	w.counts = w.counts[:len(w.counts)-1]
	if n > 0 {
		w.newline()
	}
	w.b = append(w.b, c)
}

// item starts the next member or item of the innermost object or list.
func (w *jsonWriter) item() {
	if w.counts[len(w.counts)-1] > 0 {
		w.b = append(w.b, ',')
	}
	w.counts[len(w.counts)-1]++
	w.newline()
}

// The opt methods write a member only when its value is not its zero
// value, as encoding/json's omitempty does.

func (w *jsonWriter) optString(k, s string) {
	if s != "" {
		w.key(k)
		w.string(s)
	}
}

func (w *jsonWriter) optFloat(k string, f float64) {
	if f != 0 {
		w.key(k)
		w.float(f)
	}
}

func (w *jsonWriter) optInt(k string, i int64) {
	if i != 0 {
		w.key(k)
		w.int(i)
	}
}

func (w *jsonWriter) optIntPtr(k string, i *int) {
	if i != nil {
		w.key(k)
		w.int(int64(*i))
	}
}

func (w *jsonWriter) optBool(k string, b *bool) {
	if b != nil {
		w.key(k)
		w.bool(*b)
	}
}

func (w *jsonWriter) optTrue(k string, b bool) {
	if b {
		w.key(k)
		w.bool(true)
	}
}

// key starts a member named k, which needs no escaping.
func (w *jsonWriter) key(k string) {
	w.item()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':', ' ')
}

func (w *jsonWriter) int(i int64) { w.b = strconv.AppendInt(w.b, i, 10) }

func (w *jsonWriter) bool(v bool) { w.b = strconv.AppendBool(w.b, v) }

// float writes f as encoding/json does (jsonvalue.AppendFloat); NaN and
// the infinities, which it refuses, are an error.
func (w *jsonWriter) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if w.err == nil {
			w.err = &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
		}
		w.b = append(w.b, '0')
		return
	}
	w.b = jsonvalue.AppendFloat(w.b, f)
}

// string writes s as encoding/json does without HTML escaping.
func (w *jsonWriter) string(s string) { w.b = jsonvalue.AppendEncoded(w.b, s, false) }
