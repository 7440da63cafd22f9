package suites

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/jsonpointer"
	"github.com/evalgate/evalgate/internal/words"
)

// shape describes where the openwop v1 fields are, so that everything else
// can be found (CheckOpenWOP) or removed (ExportOpenWOP).
type shape struct {
	fields map[string]*shape // an object: its openwop keys; a nil shape is a value kept whole
	items  *shape            // an array: the shape of each item
}

var (
	matchShape = &shape{fields: map[string]*shape{"strategy": nil, "value": nil}}
	taskShape  = &shape{fields: map[string]*shape{
		"taskId": nil,
		"input":  nil,
		"expected": {fields: map[string]*shape{
			"kind":   nil,
			"match":  matchShape,
			"rubric": {items: &shape{fields: map[string]*shape{"criterion": nil, "weight": nil}}},
		}},
		"fixtures": {fields: map[string]*shape{
			"toolResponses": {items: &shape{fields: map[string]*shape{"tool": nil, "response": nil}}},
			"memorySeed":    nil,
		}},
	}}
	// suiteShape has no $schema: openwop objects are closed, so a runner
	// that follows openwop strictly refuses the key evalgate accepts for
	// editors.
	suiteShape = &shape{fields: map[string]*shape{
		"suiteId":       nil,
		"version":       nil,
		"targetAgentId": nil,
		"modes":         nil,
		"allowedModels": nil,
		"thresholds":    nil,
		"tasks":         {items: taskShape},
	}}
	// openwopStrategies are the match strategies openwop v1 defines.
	openwopStrategies = map[string]bool{StrategyExact: true, StrategyContains: true, StrategyJSONMatch: true}
)

// What an openwop export does with an extension.
const (
	// ExtDropped: the field goes and the rest stays.
	ExtDropped = "dropped"
	// ExtDroppedMatch: the field changes what its match compares, so the
	// whole match goes.
	ExtDroppedMatch = "dropped-match"
	// ExtTranslated: the match is written with an openwop strategy that
	// accepts exactly the same outputs.
	ExtTranslated = "translated"
)

// Extension is one use of an evalgate extension in a suite file.
type Extension struct {
	Pos     Pos    // where the key (or the strategy's value) is written
	Pointer string // JSON pointer of the field
	Action  string // ExtDropped, ExtDroppedMatch or ExtTranslated
	// Message says what the export does with it, in the user's words.
	Message string
}

// String renders the extension as `file:line:col: pointer: message`.
func (e Extension) String() string {
	return e.Pos.String() + ": " + e.Pointer + ": " + e.Message
}

// UnscoreableTask is a task that only evalgate extensions score: a golden
// task whose match an export cannot keep. Once they are gone, no openwop
// runner can score it.
type UnscoreableTask struct {
	Pos     Pos
	Pointer string // of the task
	TaskID  string
}

// String renders the task as `file:line:col: pointer: message`.
func (u UnscoreableTask) String() string {
	return fmt.Sprintf("%s: %s: task %q is scored only by evalgate extensions; no openwop runner can score it without them",
		u.Pos, u.Pointer, u.TaskID)
}

// OpenWOPReport says how a suite file stands against strict openwop v1:
// every evalgate extension it uses, in document order, with what an export
// does with each, and the tasks that only extensions score.
type OpenWOPReport struct {
	Tasks       int // in the file
	Extensions  []Extension
	Unscoreable []UnscoreableTask
}

// Portable reports whether any openwop runner accepts the file unchanged
// and can score every task of it.
func (r *OpenWOPReport) Portable() bool {
	return len(r.Extensions) == 0 && len(r.Unscoreable) == 0
}

// Count returns how many extensions the export treats each way.
func (r *OpenWOPReport) Count(action string) int {
	n := 0
	for _, e := range r.Extensions {
		if e.Action == action {
			n++
		}
	}
	return n
}

// Summary counts the extensions by what an openwop export does with
// them, in the words both `validate --openwop` and `export` print.
func (r *OpenWOPReport) Summary() string {
	n := len(r.Extensions)
	if n == 0 {
		return "no evalgate extensions"
	}
	var parts []string
	for _, a := range []struct {
		action, words string
	}{
		{ExtDropped, "dropped"},
		{ExtTranslated, "translated to openwop"},
		{ExtDroppedMatch, "dropped with the match they change"},
	} {
		if k := r.Count(a.action); k > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", k, a.words))
		}
	}
	s := fmt.Sprintf("%d evalgate %s (export --openwop: %s)", n, words.Plural(n, "extension", "extensions"), strings.Join(parts, ", "))
	if u := len(r.Unscoreable); u > 0 {
		s += fmt.Sprintf("; %d of %d %s scored only by them", u, r.Tasks, words.Plural(r.Tasks, "task is", "tasks are"))
	}
	return s
}

// Notes are the lines `export` prints about the report, in the file's
// order: each extension, and each unscoreable task with what the export
// did with it (kept without scoring with keep, else left out).
func (r *OpenWOPReport) Notes(keep bool) []string {
	type note struct {
		pos  Pos
		text string
	}
	var notes []note
	for _, e := range r.Extensions {
		notes = append(notes, note{e.Pos, e.String()})
	}
	for _, u := range r.Unscoreable {
		what := "left out (--keep-unscoreable keeps it, without scoring)"
		if keep {
			what = "kept without scoring"
		}
		notes = append(notes, note{u.Pos, u.String() + "; " + what})
	}
	slices.SortStableFunc(notes, func(a, b note) int {
		return cmp.Or(cmp.Compare(a.pos.Line, b.pos.Line), cmp.Compare(a.pos.Col, b.pos.Col))
	})
	lines := make([]string, len(notes))
	for i, n := range notes {
		lines[i] = n.text
	}
	return lines
}

// Errors returns the report as errors of kind ErrOpenWOP, one per
// extension and per unscoreable task, sorted.
func (r *OpenWOPReport) Errors() Errors {
	var errs Errors
	for _, e := range r.Extensions {
		errs = append(errs, &Error{Pos: e.Pos, Pointer: e.Pointer, Message: e.Message, Kind: ErrOpenWOP})
	}
	for _, u := range r.Unscoreable {
		errs = append(errs, &Error{Pos: u.Pos, Pointer: u.Pointer, Kind: ErrOpenWOP,
			Message: fmt.Sprintf("task %q is scored only by evalgate extensions; no openwop runner can score it without them", u.TaskID)})
	}
	return errs.Sort()
}

// owWalker walks a suite tree along the openwop shape.
type owWalker struct {
	file  string
	build bool // build the portable copy
	keep  bool // keep unscoreable tasks in the copy
	rep   OpenWOPReport
	// matchKept says whether the task being walked keeps a match.
	matchKept bool
}

// openwopWalk reports the extensions and unscoreable tasks of root and,
// with build, returns its portable copy (keeping unscoreable tasks, without
// scoring, when keep is set).
func openwopWalk(file string, root *value, build, keep bool) (*value, *OpenWOPReport) {
	w := &owWalker{file: file, build: build, keep: keep}
	portable := w.walk(root, suiteShape, "")
	return portable, &w.rep
}

func (w *owWalker) pos(line, col int) Pos { return Pos{File: w.file, Line: line, Col: col} }

func (w *owWalker) extension(line, col int, ptr, action, msg string) {
	w.rep.Extensions = append(w.rep.Extensions, Extension{Pos: w.pos(line, col), Pointer: ptr, Action: action, Message: msg})
}

// walk returns v (or, when building, its portable copy); nil means v goes
// away entirely.
func (w *owWalker) walk(v *value, sh *shape, ptr string) *value {
	switch {
	case sh == nil:
		return v
	case sh.items != nil && v.kind == kindArray:
		out := v
		if w.build {
			out = &value{kind: kindArray, line: v.line, col: v.col}
		}
		for i, it := range v.items {
			if c := w.walk(it, sh.items, jsonpointer.AppendIndex(ptr, i)); c != nil && w.build {
				out.items = append(out.items, c)
			}
		}
		return out
	case sh == taskShape && v.kind == kindObject:
		return w.task(v, ptr)
	case sh == matchShape && v.kind == kindObject:
		return w.match(v, ptr)
	case sh.fields != nil && v.kind == kindObject:
		return w.object(v, sh, ptr)
	}
	return v
}

// object walks the fields of an object: those the shape has not are
// extensions.
func (w *owWalker) object(v *value, sh *shape, ptr string) *value {
	out := v
	if w.build {
		out = &value{kind: kindObject, line: v.line, col: v.col}
	}
	for _, f := range v.fields {
		child, ok := sh.fields[f.key]
		if !ok && sh == suiteShape && f.key == "datasets" {
			w.datasets(f)
			continue
		}
		if !ok {
			msg := "an evalgate extension; the export drops it"
			if f.key == "$schema" && ptr == "" {
				msg = "an evalgate extension for editors; openwop objects are closed, so the export drops it"
			}
			w.extension(f.keyLine, f.keyCol, jsonpointer.Append(ptr, f.key), ExtDropped, msg)
			continue
		}
		if child == nil && !w.build {
			continue // a value kept whole: nothing to look at
		}
		if c := w.walk(f.val, child, jsonpointer.Append(ptr, f.key)); c != nil && w.build {
			f.val = c
			out.fields = append(out.fields, f)
		}
	}
	return out
}

// datasets reports the suite's datasets, and the extensions their task
// templates use, each once: the export writes the task each row makes
// (exportRows) and drops the list.
func (w *owWalker) datasets(f field) {
	w.extension(f.keyLine, f.keyCol, "/datasets", ExtTranslated,
		"an evalgate extension; the export writes the task each row of each dataset makes, in place of the list")
	build := w.build
	w.build = false
	for k, dv := range objects(f.val) {
		if tmpl := dv.get("task"); tmpl != nil && tmpl.kind == kindObject {
			w.object(tmpl, taskShape, jsonpointer.AppendIndex("/datasets", k)+"/task")
		}
	}
	w.build = build
}

// exportRows appends to the portable copy of the suite (unless nil) the
// portable copy of the task each row of its datasets makes, and reports
// the ones only extensions score at their rows.
func exportRows(s *Suite, portable *value, rep *OpenWOPReport, keep bool) error {
	var tasks *value
	if portable != nil {
		tasks = portable.get("tasks")
	}
	if tasks == nil && portable != nil {
		tasks = &value{kind: kindArray}
		portable.fields = append(portable.fields, field{key: "tasks", val: tasks})
	}
	for _, ds := range s.datasets {
		ptr := jsonpointer.AppendIndex("/datasets", ds.index) + "/task"
		var failed error
		rs := rowSink{
			bad: func(e *Error) bool { failed = e; return false },
			add: func(r *row) bool {
				tv, _, e := ds.expandRow(r)
				if e != nil {
					failed = e
					return false
				}
				w := &owWalker{file: s.Path, build: portable != nil, keep: keep}
				c := w.task(tv, ptr)
				rep.Tasks++
				for _, u := range w.rep.Unscoreable {
					u.Pos = Pos{File: ds.shown, Line: r.line, Col: r.col}
					rep.Unscoreable = append(rep.Unscoreable, u)
				}
				if c != nil && tasks != nil {
					tasks.items = append(tasks.items, c)
				}
				return true
			},
		}
		if err := ds.read(rs); err != nil {
			return err
		}
		if failed != nil {
			return failed
		}
	}
	return nil
}

// task walks a task and reports it when only extensions score it: a golden
// task that keeps no match. A rubric task keeps its criteria, which an
// openwop runner's judge decides.
func (w *owWalker) task(v *value, ptr string) *value {
	w.rep.Tasks++
	w.matchKept = false
	out := w.object(v, taskShape, ptr)
	if str(v.get("expected").get("kind")) != KindGolden || w.matchKept {
		return out
	}
	w.rep.Unscoreable = append(w.rep.Unscoreable, UnscoreableTask{Pos: w.pos(v.line, v.col), Pointer: ptr, TaskID: str(v.get("taskId"))})
	if w.keep {
		return out
	}
	return nil
}

// match walks a match. A match with an extension that changes what it
// compares (a strategy, a path, case folding) is translated when an openwop
// strategy accepts exactly the same outputs (see openwopEquivalent), and
// otherwise goes whole. An extension that changes nothing (ignoreCase:
// false, path: "") is only stripped.
func (w *owWalker) match(v *value, ptr string) *value {
	var strategy *value    // an extension strategy
	changes := false       // another extension changes what the match compares
	noop := map[int]bool{} // fields that are extensions changing nothing
	for i, f := range v.fields {
		switch {
		case f.key == "value":
		case f.key == "strategy":
			if f.val.kind == kindString && !openwopStrategies[f.val.lit] {
				strategy = f.val
			}
		case f.key == "ignoreCase" && f.val.kind == kindBool && f.val.lit == "false",
			f.key == "path" && f.val.kind == kindString && f.val.lit == "":
			noop[i] = true
		default:
			changes = true
		}
	}
	var translated *value // the openwop match, when the strategy has one
	if strategy != nil && !changes {
		translated = openwopEquivalent(strategy.lit, v.get("value"))
	}
	for i, f := range v.fields {
		fp := jsonpointer.Append(ptr, f.key)
		switch {
		case noop[i]:
			w.extension(f.keyLine, f.keyCol, fp, ExtDropped, "an evalgate extension that changes nothing here; the export drops it")
		case f.val == strategy && translated != nil:
			w.extension(f.val.line, f.val.col, fp, ExtTranslated, fmt.Sprintf(
				"strategy %q is an evalgate extension; the export writes it as %q, which accepts exactly the same outputs (%s)",
				strategy.lit, translated.get("strategy").lit, translationReasons[strategy.lit]))
		case f.val == strategy:
			w.extension(f.val.line, f.val.col, fp, ExtDroppedMatch, fmt.Sprintf(
				"strategy %q is an evalgate extension that openwop cannot express here; the export drops the match", strategy.lit))
		case f.key != "strategy" && f.key != "value":
			w.extension(f.keyLine, f.keyCol, fp, ExtDroppedMatch,
				"an evalgate extension that changes what the match compares; the export drops the match")
		}
	}
	switch {
	case translated != nil:
		w.matchKept = true
		translated.line, translated.col = v.line, v.col
		return translated
	case strategy != nil || changes:
		return nil
	}
	w.matchKept = true
	if !w.build || len(noop) == 0 {
		return v
	}
	out := &value{kind: kindObject, line: v.line, col: v.col}
	for _, f := range v.fields {
		if f.key == "strategy" || f.key == "value" {
			out.fields = append(out.fields, f)
		}
	}
	return out
}

// translationReasons say why each translation is exact.
var translationReasons = map[string]string{
	StrategyJSONSubset: "the value holds no object, and for everything else containment is equality",
	StrategyRegex:      "the pattern is plain text with no special characters, so it matches where the text is contained",
}

// openwopEquivalent returns the openwop match {strategy, value} that
// accepts exactly the outputs the extension strategy accepts with value,
// or nil when there is none. It is conservative: only
//
//   - json-subset with a value that holds no object, anywhere: containment
//     of strings, numbers, booleans, null and same-length arrays of them is
//     equality, so it is json-match with the same value;
//   - regex with a pattern that is a plain literal (no metacharacters, no
//     flags): it matches exactly the outputs whose text contains that
//     literal, so it is contains with the literal's text.
func openwopEquivalent(strategy string, val *value) *value {
	switch strategy {
	case StrategyJSONSubset:
		if val == nil || holdsObject(val) {
			return nil
		}
		return openwopMatch(StrategyJSONMatch, val)
	case StrategyRegex:
		if val == nil || val.kind != kindString {
			return nil
		}
		re, err := syntax.Parse(val.lit, syntax.Perl)
		if err != nil {
			return nil
		}
		re = re.Simplify()
		if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return openwopMatch(StrategyContains, &value{kind: kindString, lit: string(re.Rune), line: val.line, col: val.col})
	}
	return nil
}

func openwopMatch(strategy string, val *value) *value {
	return &value{kind: kindObject, fields: []field{
		{key: "strategy", val: &value{kind: kindString, lit: strategy}},
		{key: "value", val: val},
	}}
}

// holdsObject reports whether v is or contains a JSON object.
func holdsObject(v *value) bool {
	switch v.kind {
	case kindObject:
		return true
	case kindArray:
		for _, it := range v.items {
			if holdsObject(it) {
				return true
			}
		}
	}
	return false
}

// CheckOpenWOP reports how a suite file stands against strict openwop v1:
// the extensions it uses and what an export does with each, and the tasks
// only extensions score. `evalgate validate --openwop` prints it and
// `evalgate export --openwop` acts on the same report, so both count alike.
// A file that is not JSON or YAML returns its syntax errors.
func CheckOpenWOP(path string, data []byte) (*OpenWOPReport, error) {
	root, errs := parseTree(path, data)
	if errs != nil {
		return nil, errs.Sort()
	}
	_, rep := openwopWalk(path, root, false, false)
	if root.get("datasets") != nil {
		// The rows' tasks count as the export would write them, when the
		// suite loads; when it does not, validate reports why.
		if s, errs := parse(path, data); errs == nil {
			if err := exportRows(s, nil, rep, false); err != nil {
				return nil, err
			}
		}
	}
	return rep, nil
}

// Portable reports why a suite file is not strictly openwop-portable: its
// syntax errors, or every extension it uses and every task that only
// extensions score. An empty result means any openwop runner accepts the
// file unchanged and can score each of its tasks.
func Portable(path string, data []byte) Errors {
	rep, err := CheckOpenWOP(path, data)
	if err != nil {
		return err.(Errors)
	}
	return rep.Errors()
}

// ExportOpenWOP returns the suite without its evalgate extensions, as JSON
// indented by two spaces with keys in source order, and the report of what
// it did with each extension. A match that uses an extension is translated
// when openwop has an exact equivalent and left out otherwise; a golden
// task left with no match is left out too, unless keepUnscoreable is set,
// and is listed in the report's Unscoreable either way. out is nil when no
// task is left. The file must be a valid suite; otherwise err is its
// Errors.
func ExportOpenWOP(path string, data []byte, keepUnscoreable bool) (out []byte, rep *OpenWOPReport, err error) {
	s, errs := parse(path, data)
	if len(errs) > 0 {
		return nil, nil, errs.Sort()
	}
	root, _ := parseTree(path, data)
	portable, rep := openwopWalk(path, root, true, keepUnscoreable)
	if len(s.datasets) > 0 {
		if err := exportRows(s, portable, rep, keepUnscoreable); err != nil {
			return nil, nil, fmt.Errorf("could not export %s: %w", path, err)
		}
	}
	if len(portable.get("tasks").items) == 0 {
		return nil, rep, nil
	}
	var b bytes.Buffer
	portable.write(&b, "", "  ")
	b.WriteByte('\n')
	if errs := openwopSchema.validate("export.json", portable); len(errs) > 0 {
		// The shapes above follow the openwop schema; a difference is a bug
		// here, reported rather than written as portable.
		return nil, nil, fmt.Errorf("could not export %s: the export does not follow the openwop schema: %s", path,
			strings.TrimPrefix(errs.Sort()[0].Error(), "export.json:"))
	}
	return b.Bytes(), rep, nil
}
