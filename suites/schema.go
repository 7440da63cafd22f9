package suites

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/evalgate/evalgate/internal/jsonpointer"
	"github.com/evalgate/evalgate/internal/meter"
	"github.com/evalgate/evalgate/internal/spelling"
	"github.com/evalgate/evalgate/internal/words"
)

//go:embed suite.schema.json
var suiteSchemaJSON []byte

//go:embed openwop-suite.schema.json
var openwopSchemaJSON []byte

// SchemaJSON returns evalgate's JSON Schema (draft 2020-12) for suite files:
// openwop v1 and every evalgate extension. `evalgate schema suite` prints it.
func SchemaJSON() []byte { return bytes.Clone(suiteSchemaJSON) }

// OpenWOPSchemaJSON returns the strict openwop v1 schema that Portable
// validates against: only the openwop fields, every object closed.
func OpenWOPSchemaJSON() []byte { return bytes.Clone(openwopSchemaJSON) }

// schemaSet is an embedded schema. Its quick forms (see quickSchema) are
// made on first use; the full validator is compiled only when a document
// is not found valid by them, as is every invalid one.
type schemaSet struct {
	raw []byte
	url string

	parseOnce   sync.Once
	doc         *value       // the schema itself, to list the keys an object allows
	quick       *quickSchema // quick form of the whole schema, nil when none
	quickTask   *quickSchema // and of its $defs/task
	parseErr    error
	compileOnce sync.Once
	sch         *jsonschema.Schema
	task        *jsonschema.Schema // its $defs/task: one task on its own
	err         error
}

var (
	suiteSchema   = &schemaSet{raw: suiteSchemaJSON, url: "https://evalgate.dev/schemas/suite/v1"}
	openwopSchema = &schemaSet{raw: openwopSchemaJSON, url: "https://evalgate.dev/schemas/openwop-suite/v1"}
)

// parsed returns the schema's tree, with its quick forms made.
func (s *schemaSet) parsed() (*value, error) {
	s.parseOnce.Do(func() {
		doc, errs := parseJSON("schema", s.raw)
		if errs != nil {
			s.parseErr = errs
			return
		}
		s.doc = doc
		s.quick = compileQuick(doc, doc)
		if def := doc.get("$defs").get("task"); def != nil {
			s.quickTask = compileQuick(doc, def)
		}
	})
	return s.doc, s.parseErr
}

// compiled returns the full validator and the schema's tree.
func (s *schemaSet) compiled() (*jsonschema.Schema, *value, error) {
	doc, err := s.parsed()
	if err != nil {
		return nil, nil, err
	}
	s.compileOnce.Do(func() {
		c := newCompiler()
		if s.err = c.AddResource(s.url, doc.toAny()); s.err != nil {
			return
		}
		if s.sch, s.err = c.Compile(s.url); s.err != nil {
			return
		}
		s.task, s.err = c.Compile(s.url + "#/$defs/task")
	})
	return s.sch, doc, s.err
}

// newCompiler returns a compiler that loads nothing from outside: a suite
// must not make evalgate read local files or the network through $ref.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	c.UseRegexpEngine(SchemaRegexp)
	return c
}

// SchemaRegexp compiles the patterns of JSON Schemas (pattern,
// patternProperties, and the values a "format": "regex" checks) with
// meter.Compile, within the caps on regular expressions. A string the
// pattern cannot be matched against within limits.RegexCost does not
// match it: schema validation has no context to stop it.
func SchemaRegexp(pattern string) (jsonschema.Regexp, error) {
	re, err := meter.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return re, nil
}

// validate checks a whole tree: the suite with its first task in its task
// list, then every other task on its own (see validateTask).
func (s *schemaSet) validate(file string, root *value) Errors {
	tf := root.getField("tasks")
	if root.kind != kindObject || tf == nil || tf.val.kind != kindArray || len(tf.val.items) < 2 {
		return s.validateWhole(file, root)
	}
	one := *root
	one.fields = append([]field(nil), root.fields...)
	list := *tf.val
	list.items = tf.val.items[:1]
	for i := range one.fields {
		if one.fields[i].key == "tasks" {
			one.fields[i].val = &list
		}
	}
	errs := s.validateWhole(file, &one)
	for i, task := range tf.val.items[1:] {
		errs = append(errs, s.validateTask(file, task, i+1)...)
	}
	return errs
}

// validateTask checks one task, the one at index i of the task list,
// against the schema and returns its errors at their real pointers.
//
// A suite is validated one task at a time: the validator works on a copy
// of the document as generic maps and slices, and a copy of a 100,000-task
// suite would be several times the size of the file (#6). The task is
// validated against the schema's own definition of a task.
func (s *schemaSet) validateTask(file string, task *value, i int) Errors {
	if _, err := s.parsed(); err == nil && s.quickTask != nil && s.quickTask.valid(task) {
		return nil
	}
	_, doc, err := s.compiled()
	if err != nil {
		// The embedded schemas are tested; this cannot happen in a release.
		return Errors{{Pos: Pos{File: file}, Message: "could not compile the suite schema: " + err.Error(), Kind: ErrSchema}}
	}
	err = s.task.Validate(task.toAny())
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Errors{{Pos: Pos{File: file, Line: task.line, Col: task.col}, Pointer: jsonpointer.AppendIndex("/tasks", i), Message: err.Error(), Kind: ErrSchema}}
	}
	r := &schemaReporter{file: file, root: task, base: jsonpointer.AppendIndex("/tasks", i), schema: doc, kind: ErrSchema}
	r.walk(ve, nil)
	return r.errs
}

// validateWhole checks the whole tree in one pass.
func (s *schemaSet) validateWhole(file string, root *value) Errors {
	if _, err := s.parsed(); err == nil && s.quick != nil && s.quick.valid(root) {
		return nil
	}
	sch, doc, err := s.compiled()
	if err != nil {
		// The embedded schemas are tested; this cannot happen in a release.
		return Errors{{Pos: Pos{File: file}, Message: "could not compile the suite schema: " + err.Error(), Kind: ErrSchema}}
	}
	err = sch.Validate(root.toAny())
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Errors{{Pos: Pos{File: file}, Message: err.Error(), Kind: ErrSchema}}
	}
	r := &schemaReporter{file: file, root: root, schema: doc, kind: ErrSchema}
	r.walk(ve, nil)
	return r.errs
}

// compileSchema compiles a JSON Schema written in a suite (outputSchema,
// a json-schema match value). Problems are reported inside the schema, at
// the positions of the offending keywords.
func compileSchema(file, ptr string, v *value) (*jsonschema.Schema, Errors) {
	// The compiler looks each subschema up in a list of the ones it has
	// queued, so its time grows with the square of their number: one
	// schema of 330,000 properties, 4 MB, took over five minutes.
	if n := v.count(math.MaxInt); n > schemaValueBudget {
		return nil, Errors{{Pos: Pos{File: file, Line: v.line, Col: v.col}, Pointer: ptr,
			Message: fmt.Sprintf("expected a JSON Schema of at most %d JSON values, got %d", schemaValueBudget, n), Kind: ErrSemantic}}
	}
	const url = "mem:///schema.json"
	c := newCompiler()
	if err := c.AddResource(url, v.toAny()); err != nil {
		return nil, Errors{{Pos: Pos{File: file, Line: v.line, Col: v.col}, Pointer: ptr, Message: "could not read the schema: " + cleanSchemaError(err), Kind: ErrSemantic}}
	}
	sch, err := c.Compile(url)
	if err == nil {
		return sch, nil
	}
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		r := &schemaReporter{file: file, root: v, base: ptr, kind: ErrSemantic, prefix: "not a valid JSON Schema: "}
		r.walk(ve, nil)
		if len(r.errs) > 0 {
			return nil, r.errs
		}
	}
	return nil, Errors{{Pos: Pos{File: file, Line: v.line, Col: v.col}, Pointer: ptr, Message: "not a valid JSON Schema: " + cleanSchemaError(err), Kind: ErrSemantic}}
}

// cleanSchemaError rewrites a compiler error in the words of a suite author.
func cleanSchemaError(err error) string {
	const self = "mem:///schema.json"
	local := func(url string) string { return strings.TrimPrefix(url, self) }
	var (
		le *jsonschema.LoadURLError
		pe *jsonschema.JSONPointerNotFoundError
		ae *jsonschema.AnchorNotFoundError
		re *jsonschema.InvalidRegexError
	)
	switch {
	case errors.As(err, &le):
		return fmt.Sprintf("could not load %q; a schema in a suite may refer only to itself and to the standard JSON Schema drafts", local(le.URL))
	case errors.As(err, &pe):
		return fmt.Sprintf("reference %q points at nothing in the schema", local(pe.URL))
	case errors.As(err, &ae):
		return fmt.Sprintf("reference %q names an anchor the schema does not define", local(ae.Reference))
	case errors.As(err, &re):
		return fmt.Sprintf("%q is not a valid regular expression", re.Regex)
	}
	msg := strings.TrimPrefix(err.Error(), "jsonschema: ")
	return strings.ReplaceAll(msg, self, "the schema")
}

// schemaReporter turns a validator's error tree into Errors.
type schemaReporter struct {
	file   string
	root   *value // the instance validated
	base   string // JSON pointer of root in the file
	schema *value // the schema as a tree, nil when unknown
	kind   string
	prefix string // put before every message
	errs   Errors
}

func (r *schemaReporter) add(v *value, line, col int, ptr, msg string) {
	if line == 0 {
		line, col = v.line, v.col
	}
	r.errs = append(r.errs, &Error{
		Pos:     Pos{File: r.file, Line: line, Col: col},
		Pointer: r.base + ptr,
		Message: r.prefix + msg,
		Kind:    r.kind,
	})
}

// walk reports the leaves under ve; parent is the error that holds ve.
func (r *schemaReporter) walk(ve, parent *jsonschema.ValidationError) {
	switch k := ve.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		for _, c := range ve.Causes {
			r.walk(c, ve)
		}
		return
	case *kind.PropertyNames:
		// The validator shares the instance location of a propertyNames
		// error with later work; the parent's copy is the object's.
		if parent != nil {
			ve.InstanceLocation = parent.InstanceLocation
		}
	case *kind.AnyOf, *kind.OneOf:
		if _, ok := k.(*kind.OneOf); ok && len(ve.Causes) == 0 {
			break // more than one alternative matched
		}
		// Report the alternatives that fit the value's shape, as they tell
		// what is wrong inside it: first those whose every failure lies
		// deeper than the value, then those whose type fits; if none
		// fits, say which types would.
		var deeper, fitting []*jsonschema.ValidationError
		var types []string
		for _, c := range ve.Causes {
			if minLeafDepth(c) > len(ve.InstanceLocation) {
				deeper = append(deeper, c)
			}
			if t, ok := leafKind(c).(*kind.Type); ok {
				types = append(types, t.Want...)
				continue
			}
			fitting = append(fitting, c)
		}
		if len(deeper) > 0 {
			fitting = deeper
		}
		if len(fitting) == 0 && len(types) > 0 {
			v := r.root.lookup(ve.InstanceLocation)
			r.add(v, 0, 0, jsonpointer.Join(ve.InstanceLocation), fmt.Sprintf("expected %s, got %s", typeList(types), describe(v)))
			return
		}
		for _, c := range fitting {
			r.walk(c, ve)
		}
		return
	}
	if len(ve.Causes) > 0 && !isLeaf(ve.ErrorKind) {
		for _, c := range ve.Causes {
			r.walk(c, ve)
		}
		return
	}
	r.leaf(ve)
}

// minLeafDepth returns the length of the shortest instance location among
// the leaves under ve.
func minLeafDepth(ve *jsonschema.ValidationError) int {
	if len(ve.Causes) == 0 || isLeaf(ve.ErrorKind) {
		return len(ve.InstanceLocation)
	}
	d := -1
	for _, c := range ve.Causes {
		if cd := minLeafDepth(c); d < 0 || cd < d {
			d = cd
		}
	}
	return d
}

// leafKind returns the kind of the first leaf under ve.
func leafKind(ve *jsonschema.ValidationError) jsonschema.ErrorKind {
	for len(ve.Causes) > 0 && !isLeaf(ve.ErrorKind) {
		ve = ve.Causes[0]
	}
	return ve.ErrorKind
}

func isLeaf(k jsonschema.ErrorKind) bool {
	switch k.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf, *kind.AnyOf, *kind.OneOf:
		return false
	}
	return true
}

func (r *schemaReporter) leaf(ve *jsonschema.ValidationError) {
	loc := ve.InstanceLocation
	ptr := jsonpointer.Join(loc)
	v := r.root.lookup(loc)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			r.add(v, 0, 0, ptr, fmt.Sprintf("missing required key %q", m))
		}
	case *kind.AdditionalProperties:
		allowed := r.allowedKeys(ve.SchemaURL)
		for _, p := range k.Properties {
			msg := fmt.Sprintf("unknown key %q", p)
			if near := spelling.Nearest(p, allowed, max(1, len(p)/3)); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			} else if len(allowed) > 0 {
				msg += "; expected one of " + quoteList(allowed)
			}
			f := v.getField(p)
			if f == nil {
				r.add(v, 0, 0, ptr, msg)
				continue
			}
			r.add(v, f.keyLine, f.keyCol, jsonpointer.Append(ptr, p), msg)
		}
	case *kind.PropertyNames:
		msg := fmt.Sprintf("key %q is not allowed here", k.Property)
		if le := limitCause(ve); le != nil {
			msg = fmt.Sprintf("key %s: %s", describe(&value{kind: kindString, lit: k.Property}), le.Message)
		} else if names := r.enumAt(ve.SchemaURL); len(names) > 0 {
			msg += "; expected one of " + strings.Join(names, ", ")
		}
		if f := v.getField(k.Property); f != nil {
			r.add(v, f.keyLine, f.keyCol, jsonpointer.Append(ptr, k.Property), msg)
			return
		}
		r.add(v, 0, 0, ptr, msg)
	default:
		r.add(v, 0, 0, ptr, leafMessage(ve.ErrorKind, v))
	}
}

// limitCause returns the limit a key that must be a regular expression
// (a key of patternProperties) is over, when that is why ve failed.
func limitCause(ve *jsonschema.ValidationError) *limitError {
	if f, ok := ve.ErrorKind.(*kind.Format); ok {
		var le *limitError
		if errors.As(f.Err, &le) {
			return le
		}
	}
	for _, c := range ve.Causes {
		if le := limitCause(c); le != nil {
			return le
		}
	}
	return nil
}

// leafMessage says in plain words what was expected and what was found.
func leafMessage(ek jsonschema.ErrorKind, v *value) string {
	switch k := ek.(type) {
	case *kind.Type:
		return fmt.Sprintf("expected %s, got %s", typeList(k.Want), describe(v))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		if len(want) == 1 {
			return fmt.Sprintf("expected %s, got %s", want[0], describe(v))
		}
		msg := fmt.Sprintf("expected one of %s, got %s", strings.Join(want, ", "), describe(v))
		if v != nil && v.kind == kindString {
			var names []string
			for _, w := range k.Want {
				if name, ok := w.(string); ok {
					names = append(names, name)
				}
			}
			if near := spelling.Nearest(v.lit, names, max(1, len(v.lit)/3)); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
		}
		return msg
	case *kind.Const:
		return fmt.Sprintf("expected %s, got %s", jsonText(k.Want), describe(v))
	case *kind.Pattern:
		return fmt.Sprintf("expected a string matching %s, got %s", k.Want, describe(v))
	case *kind.MinLength:
		if k.Want == 1 {
			return "expected a non-empty string"
		}
		return fmt.Sprintf("expected at least %d characters, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("expected at most %d characters, got %d", k.Want, k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("expected at least %d %s, got %d", k.Want, words.Plural(k.Want, "item", "items"), k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("expected at most %d %s, got %d", k.Want, words.Plural(k.Want, "item", "items"), k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("expected unique items; items %d and %d are the same", k.Duplicates[0], k.Duplicates[1])
	case *kind.Minimum:
		return fmt.Sprintf("expected a number >= %s, got %s", ratText(k.Want), describe(v))
	case *kind.Maximum:
		return fmt.Sprintf("expected a number <= %s, got %s", ratText(k.Want), describe(v))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("expected a number > %s, got %s", ratText(k.Want), describe(v))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("expected a number < %s, got %s", ratText(k.Want), describe(v))
	case *kind.MultipleOf:
		return fmt.Sprintf("expected a multiple of %s, got %s", ratText(k.Want), describe(v))
	case *kind.FalseSchema:
		return "no value is allowed here"
	case *kind.Format:
		var le *limitError
		if errors.As(k.Err, &le) {
			return le.Message
		}
		return fmt.Sprintf("expected a %s, got %s", k.Want, describe(v))
	}
	return ek.LocalizedString(message.NewPrinter(language.English))
}

// allowedKeys lists the properties of the schema object at url, in the
// order the schema declares them.
func (r *schemaReporter) allowedKeys(url string) []string {
	s := r.schemaAt(url)
	if s == nil {
		return nil
	}
	props := s.get("properties")
	if props == nil {
		return nil
	}
	keys := make([]string, len(props.fields))
	for i, f := range props.fields {
		keys[i] = f.key
	}
	return keys
}

// enumAt lists the enum of the schema at url, as JSON.
func (r *schemaReporter) enumAt(url string) []string {
	s := r.schemaAt(url)
	if e := s.get("enum"); e != nil {
		out := make([]string, len(e.items))
		for i, it := range e.items {
			out[i] = string(it.compact())
		}
		return out
	}
	return nil
}

// schemaAt finds the schema object a validator location (url#pointer)
// names, in the schema's own tree.
func (r *schemaReporter) schemaAt(url string) *value {
	if r.schema == nil {
		return nil
	}
	_, frag, _ := strings.Cut(url, "#")
	if frag == "" {
		return r.schema
	}
	tokens, err := jsonpointer.Tokens("/" + strings.TrimPrefix(frag, "/"))
	if err != nil {
		return nil
	}
	v := r.schema.lookup(tokens)
	if v.kind != kindObject {
		return nil
	}
	// additionalProperties errors may name the keyword's own location.
	if last := tokens[len(tokens)-1]; last == "additionalProperties" || last == "propertyNames" {
		if v.get("properties") == nil && v.get("enum") == nil && len(tokens) > 1 {
			return r.schema.lookup(tokens[:len(tokens)-1])
		}
	}
	return v
}

// describe names a value for a message: scalars as written (long strings
// cut short), containers by their type.
func describe(v *value) string {
	switch v.kind {
	case kindNull:
		return "null"
	case kindBool, kindNumber:
		return v.lit
	case kindString:
		s := v.lit
		if r := []rune(s); len(r) > 40 {
			s = string(r[:40]) + "..."
		}
		return strconv.Quote(s)
	case kindArray:
		return "a list"
	}
	return "an object"
}

// typeList renders JSON Schema type names as "a string", "a number or a
// boolean" and so on.
func typeList(types []string) string {
	types = slices.Compact(slices.Sorted(slices.Values(types)))
	words := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "array":
			words[i] = "a list"
		case "object":
			words[i] = "an object"
		case "integer":
			words[i] = "an integer"
		case "null":
			words[i] = "null"
		default:
			words[i] = "a " + t
		}
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

// jsonText renders a schema value (from an enum or const) as JSON.
func jsonText(x any) string {
	switch x := x.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(x)
}

func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
