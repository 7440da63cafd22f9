package results

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"
)

// taskReader decodes a task of results.json as json.Unmarshal decodes it
// into a Task, without reflection: a merge reads 200,000 tasks, and
// encoding/json took half of its time (#19). It knows the shapes Write
// writes and refuses, with errShape, anything else that json.Unmarshal
// might read differently: a key it does not know or in another case, a
// key twice, a null, a value of another type. ReadSpilling then reads the
// file again with Read, so the two can only differ in speed;
// FuzzReadTask holds them to that.
//
// This file holds how it reads JSON; what it reads, a method for each
// struct a task holds (decodeTask, decodeTrial...), is generated from the
// structs into codec_gen.go (results/internal/codecgen).
//
// Its methods return zero values once err is set: a decoding is checked
// once, at its end.
type taskReader struct {
	b   []byte
	i   int
	err error
	// names holds the strings most tasks repeat (statuses, check ids and
	// kinds, file names) so that 200,000 tasks share them.
	names map[string]string
	// trialBuf and checks are reused from task to task: a merge keeps
	// the trials of few tasks, and the others' would be garbage at once.
	// checkBuf is the buffer of the trial being read.
	trialBuf []Trial
	checks   [][]Check
	checkBuf []Check
	// rawTrials is where the last task's trials are in its bytes, and
	// escaped says whether encoding/json read one of its strings (an
	// escape, bytes that are not ASCII): see leanReader.spillTrials.
	rawTrials [2]int
	escaped   bool
	cut       bool // the bytes ended before the task: see short
}

// maxNames bounds names: task ids, which are all different, would fill it.
const maxNames = 4096

// readTask decodes the task data starts with into t, and returns how many
// bytes it took, or errCut when data ends before the task does. The
// trials are the reader's, and are overwritten by the next readTask: a
// caller that keeps them calls keepTrials.
func (r *taskReader) readTask(data []byte, t *Task) (int, error) {
	r.b, r.i, r.err = data, 0, nil
	r.rawTrials, r.escaped, r.cut = [2]int{}, false, false
	r.decodeTask(t)
	if r.err != nil && r.cut {
		return 0, errCut
	}
	return r.i, r.err
}

// errCut is a task the bytes given ended in the middle of.
var errCut = errors.New("a task cut short")

// keepTrials gives t trials of its own, in place of the reader's.
func keepTrials(t *Task) {
	t.Trials = slices.Clone(t.Trials)
	for i := range t.Trials {
		t.Trials[i].Checks = slices.Clone(t.Trials[i].Checks)
	}
}

// short reports whether the bytes end before i, and notes that they did:
// the task may go on after them (stream.decode then gives more).
func (r *taskReader) short(i int) bool {
	if i < len(r.b) {
		return false
	}
	r.cut = true
	return true
}

func (r *taskReader) fail() {
	if r.err == nil {
		r.err = errShape
	}
}

// ws skips white space.
func (r *taskReader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ':
			// Indentation, eight spaces at a time: most of the bytes
			// of an indented file are spaces.
			if r.i+8 <= len(r.b) && binary.LittleEndian.Uint64(r.b[r.i:]) == spaces8 {
				r.i += 8
			} else {
				r.i++
			}
		case '\n', '\t', '\r':
			r.i++
		default:
			return
		}
	}
}

// open reads c, the start of an object or a list.
func (r *taskReader) open(c byte) {
	if r.ws(); r.err == nil && !r.short(r.i) && r.b[r.i] == c {
		r.i++
		return
	}
	r.fail()
}

// next reports whether the object or list that is open has an nth
// member or item (counted from 0), reading the comma before it; when it
// has not, it reads the closing c.
func (r *taskReader) next(n int, c byte) bool {
	if r.ws(); r.err != nil || r.short(r.i) {
		r.fail()
		return false
	}
	if r.b[r.i] == c {
		r.i++
		return false
	}
	if n > 0 {
		if r.b[r.i] != ',' {
			r.fail()
			return false
		}
		r.i++
	}
	return true
}

// key reads a member's name and its colon. A name with an escape is
// refused: encoding/json would unescape it, and Write writes none.
func (r *taskReader) key() []byte {
	r.ws()
	if r.err != nil || r.short(r.i) || r.b[r.i] != '"' {
		r.fail()
		return nil
	}
	start := r.i + 1
	end := start
	for end < len(r.b) && r.b[end] != '"' && r.b[end] != '\\' {
		end++
	}
	if r.short(end) || r.b[end] != '"' {
		r.fail()
		return nil
	}
	r.i = end + 1
	r.ws()
	if r.short(r.i) || r.b[r.i] != ':' {
		r.fail()
		return nil
	}
	r.i++
	return r.b[start:end]
}

// once reports whether the member bit of seen is new; a member twice is
// refused, since encoding/json would merge the two.
func (r *taskReader) once(seen *uint64, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		r.fail()
		return false
	}
	*seen |= 1 << bit
	return true
}

const spaces8 = 0x2020202020202020

// str reads a string; shared says to keep one copy of it for the tasks.
func (r *taskReader) str(shared bool) string {
	r.ws()
	if r.err != nil || r.short(r.i) || r.b[r.i] != '"' {
		r.fail()
		return ""
	}
	start := r.i + 1
	end := start
	for end < len(r.b) {
		c := r.b[end]
		if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		end++
	}
	if end < len(r.b) && r.b[end] == '"' {
		r.i = end + 1
		raw := r.b[start:end]
		if !shared {
			return string(raw)
		}
		if s, ok := r.names[string(raw)]; ok {
			return s
		}
		s := string(raw)
		if len(r.names) < maxNames {
			if r.names == nil {
				r.names = map[string]string{}
			}
			r.names[s] = s
		}
		return s
	}
	// Escapes, control characters and anything not ASCII are left to
	// encoding/json, whose reading (U+FFFD for invalid UTF-8, surrogate
	// pairs) is the one to match. They are rare in results files.
	for end < len(r.b) && r.b[end] != '"' {
		if r.b[end] == '\\' {
			end++
		}
		end++
	}
	if r.short(end) {
		r.fail()
		return ""
	}
	r.escaped = true
	var s string
	if json.Unmarshal(r.b[start-1:end+1], &s) != nil {
		r.fail()
		return ""
	}
	r.i = end + 1
	return s
}

// number reads a number as JSON writes one, and returns it.
func (r *taskReader) number() []byte {
	r.ws()
	start := r.i
	i := r.i
	if i < len(r.b) && r.b[i] == '-' {
		i++
	}
	digits := func() bool {
		from := i
		for i < len(r.b) && r.b[i] >= '0' && r.b[i] <= '9' {
			i++
		}
		return i > from
	}
	switch {
	case i < len(r.b) && r.b[i] == '0':
		i++
	case !digits():
		r.short(i)
		r.fail()
		return nil
	}
	if i < len(r.b) && r.b[i] == '.' {
		i++
		if !digits() {
			r.short(i)
			r.fail()
			return nil
		}
	}
	if i < len(r.b) && (r.b[i] == 'e' || r.b[i] == 'E') {
		i++
		if i < len(r.b) && (r.b[i] == '+' || r.b[i] == '-') {
			i++
		}
		if !digits() {
			r.short(i)
			r.fail()
			return nil
		}
	}
	if r.err != nil {
		return nil
	}
	r.i = i
	return r.b[start:i]
}

// int reads a whole number, as encoding/json reads one into an int or an
// int64 (both 64 bits wide here): "1.0" and "1e3" are refused.
func (r *taskReader) int() int64 {
	lit := r.number()
	if r.err != nil {
		return 0
	}
	if n := len(lit); n > 0 && n <= 18 && lit[0] != '-' {
		var v int64
		for _, c := range lit {
			if c < '0' || c > '9' {
				r.fail()
				return 0
			}
			v = v*10 + int64(c-'0')
		}
		return v
	}
	v, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		r.fail()
	}
	return v
}

// float reads a number as encoding/json reads one into a float64.
func (r *taskReader) float() float64 {
	lit := r.number()
	if r.err != nil {
		return 0
	}
	if len(lit) == 1 { // 0 and 1, the most frequent
		return float64(lit[0] - '0')
	}
	v, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		r.fail()
	}
	return v
}

func (r *taskReader) bool() bool {
	r.ws()
	switch {
	case r.err != nil:
	case bytes.HasPrefix(r.b[r.i:], []byte("true")):
		r.i += 4
		return true
	case bytes.HasPrefix(r.b[r.i:], []byte("false")):
		r.i += 5
		return false
	default:
		r.short(r.i + len("false") - 1) // "tru" may be cut short
		r.fail()
	}
	return false
}

func (r *taskReader) strings() []string {
	list := []string{}
	r.open('[')
	for n := 0; r.next(n, ']'); n++ {
		list = append(list, r.str(true))
	}
	return list
}

// trials decodes a task's trials into the reader's own, reused from task
// to task (readTask), each trial's checks into a buffer of its own, and
// notes where the trials are in the bytes.
func (r *taskReader) trials(list *[]Trial) {
	trials := r.trialBuf[:0]
	if trials == nil {
		trials = []Trial{}
	}
	r.ws()
	from := r.i
	r.open('[')
	for n := 0; r.next(n, ']'); n++ {
		if n == len(r.checks) {
			r.checks = append(r.checks, []Check{})
		}
		trials = append(trials, Trial{})
		r.checkBuf = r.checks[n][:0]
		if r.decodeTrial(&trials[n]); trials[n].Checks != nil {
			r.checks[n] = trials[n].Checks
		}
	}
	r.trialBuf, *list = trials, trials
	r.rawTrials = [2]int{from, r.i}
}

// trialChecks decodes the checks of the trial being read into the buffer
// trials gave it.
func (r *taskReader) trialChecks() []Check {
	list := r.checkBuf
	r.open('[')
	for n := 0; r.next(n, ']'); n++ {
		list = append(list, Check{})
		r.decodeCheck(&list[n])
	}
	return list
}
