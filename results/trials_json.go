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
// indentation took a seventh of its time. The code that writes each
// struct is generated from it (codec_gen.go, results/internal/codecgen);
// TestAppendTrialsIsEncodingJSON keeps the two in step.
func appendTrials(b []byte, trials []Trial, prefix string) ([]byte, error) {
	w := jsonWriter{b: b, prefix: prefix}
	w.encodeTrialList(trials)
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
	w := jsonWriter{b: b, prefix: taskPrefix, trials: trials}
	w.encodeTask(t)
	return w.b, w.err
}

// taskTrials writes a task's trials, or the JSON appendTask was given for
// them.
func (w *jsonWriter) taskTrials(list []Trial) {
	if w.trials != nil {
		w.b = append(w.b, w.trials...)
		return
	}
	w.encodeTrialList(list)
}

// strings writes a list of strings: null when nil.
func (w *jsonWriter) strings(list []string) {
	if list == nil {
		w.null()
		return
	}
	w.open('[')
	for _, s := range list {
		w.item()
		w.string(s)
	}
	w.close(']')
}

// jsonWriter writes JSON as encoding/json's Encoder does with
// SetIndent(prefix, "  ") and SetEscapeHTML(false), but for the first
// line's prefix and the final newline, which the caller places. This
// file holds how it writes JSON; what it writes, a method for each struct
// a task holds (encodeTask, encodeTrial...), is generated from the
// structs into codec_gen.go (results/internal/codecgen).
type jsonWriter struct {
	b      []byte
	prefix string
	counts []int // per open object or list, the members or items written
	err    error
	trials []byte // the JSON of the task's trials, if given (appendTask)
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

// key starts a member named k, which needs no escaping.
func (w *jsonWriter) key(k string) {
	w.item()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':', ' ')
}

func (w *jsonWriter) int(i int64) { w.b = strconv.AppendInt(w.b, i, 10) }

func (w *jsonWriter) bool(v bool) { w.b = strconv.AppendBool(w.b, v) }

func (w *jsonWriter) null() { w.b = append(w.b, "null"...) }

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
