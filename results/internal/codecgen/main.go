// Command codecgen writes results/codec_gen.go: the reader and the writer
// of a task of results.json, from the structs of package results (Task,
// Trial and every struct they hold), so that the structs are the one
// source of truth of the file. A field added to one of them is read and
// written, as encoding/json reads and writes it, once `go generate
// ./results` has run; a test fails until it has.
//
// The code is generated rather than left to encoding/json, or to another
// JSON package, for speed: a merge reads and writes 200,000 tasks, and
// with encoding/json/v2 or sonic in its place it took twice the CPU and
// more than twice the allocations (bench/README.md, "Fourth pass").
// results/tasks_read.go says how a task is read, results/trials_json.go
// how it is written.
//
// It reads the fields' types and JSON tags, and knows the kinds the files
// hold: string, bool, int, int64, float64, the structs of the package,
// pointers to and lists of them. Any other kind, or a tag option it does
// not know, is an error that names the field, rather than a codec that
// would read or write it otherwise than encoding/json.
package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Out is the file codecgen writes, in the package's folder.
const Out = "codec_gen.go"

func main() {
	dir := flag.String("dir", ".", "the folder of package results")
	flag.Parse()
	src, err := generate(*dir, []string{"Task", "Trial"})
	if err == nil {
		err = os.WriteFile(filepath.Join(*dir, Out), src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "codecgen:", err)
		os.Exit(1)
	}
}

// readHooks are the fields whose value is read by a method of package
// results rather than by generated code (the member's key is generated):
// the reader decodes a task's trials, and their checks, into buffers it
// reuses from task to task, and notes where the trials are in the bytes
// (results/tasks_read.go). The code is the statement that reads the
// value into v, the struct being decoded.
var readHooks = map[string]string{
	"Task.Trials":  "r.trials(&v.Trials)",
	"Trial.Checks": "v.Checks = r.trialChecks()",
}

// writeHooks are the fields whose value is written by a method of package
// results: a task's trials may be given as the JSON a spill holds
// (results/trials_json.go).
var writeHooks = map[string]string{
	"Task.Trials": "w.taskTrials(v.Trials)",
}

// unique are the string fields whose value differs from task to task.
// The reader keeps one copy of every other string for all the tasks it
// reads; these would only fill its table (results/tasks_read.go).
var unique = map[string]bool{"Task.ID": true}

// kind is what a field holds.
type kind int

const (
	kString kind = iota
	kBool
	kInt
	kInt64
	kFloat
	kStruct
	kPointer
	kList
)

var basics = map[string]kind{"string": kString, "bool": kBool, "int": kInt, "int64": kInt64, "float64": kFloat}

type typ struct {
	kind kind
	name string // of a struct
	elem *typ   // of a pointer or a list
}

type field struct {
	goName    string
	key       string // its JSON name
	omitEmpty bool
	typ       *typ
}

type structType struct {
	name   string
	fields []field
}

// pkg is the structs of the package, parsed.
type pkg struct {
	fset    *token.FileSet
	decls   map[string]*ast.TypeSpec
	structs map[string]*structType
	order   []string // the structs in the order they were reached
	// calls holds the list methods (decodeCheckList, encodeTrialList...)
	// that something calls: a generated field, a hook, or the package's
	// own code. Only those are written.
	calls map[string]bool
}

// generate returns codec_gen.go for the structs roots name in the package
// in dir, and those they hold.
func generate(dir string, roots []string) ([]byte, error) {
	p := &pkg{fset: token.NewFileSet(), decls: map[string]*ast.TypeSpec{}, structs: map[string]*structType{}, calls: map[string]bool{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || filepath.Base(name) == Out {
			continue
		}
		f, err := parser.ParseFile(p.fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok && listMethod.MatchString(s.Sel.Name) {
				p.calls[s.Sel.Name] = true
			}
			return true
		})
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					p.decls[ts.Name.Name] = ts
				}
			}
		}
	}
	for _, name := range roots {
		if _, err := p.structType(name, nil); err != nil {
			return nil, err
		}
	}
	if err := checkHooks(p); err != nil {
		return nil, err
	}
	p.findCalls()
	return p.emit()
}

// listMethod is the name of a method that reads or writes a list of
// structs.
var listMethod = regexp.MustCompile(`^(decode|encode)[A-Z]\w*List$`)

var word = regexp.MustCompile(`\w+`)

// findCalls notes the list methods the generated fields and the hooks
// call (generate has noted those the package calls).
func (p *pkg) findCalls() {
	for _, name := range p.order {
		for _, f := range p.structs[name].fields {
			if f.typ.kind != kList || f.typ.elem.kind != kStruct {
				continue
			}
			if _, ok := readHooks[name+"."+f.goName]; !ok {
				p.calls["decode"+f.typ.elem.name+"List"] = true
			}
			if _, ok := writeHooks[name+"."+f.goName]; !ok {
				p.calls["encode"+f.typ.elem.name+"List"] = true
			}
		}
	}
	for _, table := range []map[string]string{readHooks, writeHooks} {
		for _, code := range table {
			for _, call := range word.FindAllString(code, -1) {
				if listMethod.MatchString(call) {
					p.calls[call] = true
				}
			}
		}
	}
}

// checkHooks fails when a hook names a field that is not there: renamed,
// it would be generated like any other and lose what the hook did.
func checkHooks(p *pkg) error {
	for _, table := range []map[string]string{readHooks, writeHooks} {
		for _, name := range sorted(table) {
			if p.field(name) == nil {
				return fmt.Errorf("the hook of %s names no field of a struct codecgen writes; update results/internal/codecgen", name)
			}
		}
	}
	for _, name := range sorted(unique) {
		if f := p.field(name); f == nil || f.typ.kind != kString {
			return fmt.Errorf("unique names %s, which is not a string field of a struct codecgen writes; update results/internal/codecgen", name)
		}
	}
	return nil
}

// field finds "Struct.Field".
func (p *pkg) field(name string) *field {
	st, f, _ := strings.Cut(name, ".")
	if s := p.structs[st]; s != nil {
		for i := range s.fields {
			if s.fields[i].goName == f {
				return &s.fields[i]
			}
		}
	}
	return nil
}

// structType parses the struct name, once, and those its fields hold.
func (p *pkg) structType(name string, at ast.Node) (*structType, error) {
	if s, ok := p.structs[name]; ok {
		return s, nil
	}
	ts, ok := p.decls[name]
	if !ok {
		return nil, p.errorf(at, "%s is not a type of the package", name)
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok || ts.TypeParams != nil {
		return nil, p.errorf(ts, "%s is not a struct", name)
	}
	s := &structType{name: name}
	p.structs[name] = s
	p.order = append(p.order, name)
	keys := map[string]bool{}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			return nil, p.errorf(f, "%s embeds %s: embedded fields are not supported", name, types(p.fset, f.Type))
		}
		tag := ""
		if f.Tag != nil {
			tag, _ = strconv.Unquote(f.Tag.Value)
		}
		for _, id := range f.Names {
			if !id.IsExported() {
				continue // encoding/json leaves them out too
			}
			fd, skip, err := p.field1(name, id, f, tag)
			if err != nil {
				return nil, err
			}
			if skip {
				continue
			}
			if keys[fd.key] {
				return nil, p.errorf(id, "%s.%s: a second field named %q in JSON", name, id.Name, fd.key)
			}
			keys[fd.key] = true
			s.fields = append(s.fields, fd)
		}
	}
	// The reader notes the members it has seen in the bits of a uint64.
	if len(s.fields) > 64 {
		return nil, p.errorf(ts, "%s has %d fields, more than the reader's 64", name, len(s.fields))
	}
	return s, nil
}

// field1 parses one field of struct st: skip says encoding/json ignores it.
func (p *pkg) field1(st string, id *ast.Ident, f *ast.Field, tag string) (fd field, skip bool, err error) {
	where := st + "." + id.Name
	fd = field{goName: id.Name, key: id.Name}
	if v, ok := reflect.StructTag(tag).Lookup("json"); ok {
		name, opts, _ := strings.Cut(v, ",")
		if v == "-" {
			return fd, true, nil
		}
		if name != "" {
			if !validKey(name) {
				return fd, false, p.errorf(id, "%s: the JSON name %q is not one codecgen writes: printable ASCII, no quote or backslash", where, name)
			}
			fd.key = name
		}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				fd.omitEmpty = true
			default:
				return fd, false, p.errorf(id, "%s: the tag option %q is not supported; add it to results/internal/codecgen", where, o)
			}
		}
	}
	fd.typ, err = p.typeOf(where, f.Type)
	return fd, false, err
}

// validKey is a JSON name encoding/json takes from a tag and that needs no
// escape: the reader and the writer handle only those.
func validKey(s string) bool {
	for _, c := range s {
		if c > '~' || c < ' ' || c == '"' || c == '\\' || c == '\'' || c == ',' || c == '`' {
			return false
		}
	}
	return true
}

// typeOf parses the type of a field.
func (p *pkg) typeOf(where string, e ast.Expr) (*typ, error) {
	unsupported := func() error {
		return p.errorf(e, "%s: the type %s is not one codecgen reads and writes (string, bool, int, int64, float64, a struct of the package, a pointer to one of these, a list of strings or of structs); add it to results/internal/codecgen", where, types(p.fset, e))
	}
	switch x := e.(type) {
	case *ast.Ident:
		if k, ok := basics[x.Name]; ok {
			return &typ{kind: k}, nil
		}
		if ts, ok := p.decls[x.Name]; !ok || !isStruct(ts) {
			return nil, unsupported()
		}
		if _, err := p.structType(x.Name, x); err != nil {
			return nil, err
		}
		return &typ{kind: kStruct, name: x.Name}, nil
	case *ast.StarExpr:
		elem, err := p.typeOf(where, x.X)
		if err != nil || elem.kind == kPointer || elem.kind == kList {
			return nil, cmp.Or(err, unsupported())
		}
		return &typ{kind: kPointer, elem: elem}, nil
	case *ast.ArrayType:
		if x.Len != nil {
			return nil, unsupported()
		}
		elem, err := p.typeOf(where, x.Elt)
		if err != nil || (elem.kind != kString && elem.kind != kStruct) {
			return nil, cmp.Or(err, unsupported())
		}
		return &typ{kind: kList, elem: elem}, nil
	}
	return nil, unsupported()
}

func isStruct(ts *ast.TypeSpec) bool {
	_, ok := ts.Type.(*ast.StructType)
	return ok && ts.TypeParams == nil
}

// types renders a type expression as the source has it.
func types(fset *token.FileSet, e ast.Expr) string {
	var b bytes.Buffer
	_ = format.Node(&b, fset, e)
	return b.String()
}

func (p *pkg) errorf(at ast.Node, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if at == nil {
		return fmt.Errorf("%s", msg)
	}
	pos := p.fset.Position(at.Pos())
	return fmt.Errorf("%s:%d: %s", filepath.Base(pos.Filename), pos.Line, msg)
}

// emit writes the reader and the writer of every struct reached.
func (p *pkg) emit() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`// Code generated by results/internal/codecgen from the structs of package results; DO NOT EDIT.

package results

// Run "go generate ./results" after changing Task, Trial or a struct they
// hold: codecgen writes this file again from them.
`)
	for _, name := range p.order {
		p.emitReader(&b, p.structs[name])
	}
	for _, name := range p.order {
		p.emitWriter(&b, p.structs[name])
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the generated code does not parse: %w", err)
	}
	return src, nil
}

func (p *pkg) emitReader(b *bytes.Buffer, s *structType) {
	fmt.Fprintf(b, "\n// decode%s decodes a %s as json.Unmarshal does, or fails.\n", s.name, s.name)
	fmt.Fprintf(b, "func (r *taskReader) decode%s(v *%s) {\n", s.name, s.name)
	b.WriteString("var seen uint64\nr.open('{')\nfor n := 0; r.next(n, '}'); n++ {\nswitch string(r.key()) {\n")
	for i, f := range s.fields {
		fmt.Fprintf(b, "case %q:\nif r.once(&seen, %d) {\n", f.key, i)
		if hook, ok := readHooks[s.name+"."+f.goName]; ok {
			b.WriteString(hook + "\n")
		} else {
			b.WriteString(readValue("v."+f.goName, f.typ, !unique[s.name+"."+f.goName]) + "\n")
		}
		b.WriteString("}\n")
	}
	b.WriteString("default:\nr.fail()\n}\n}\n}\n")
	if p.calls["decode"+s.name+"List"] {
		// The list starts empty in the method, and no item's address is
		// taken, which lets the compiler keep the first items on the
		// stack: a list of one is then one allocation fewer.
		fmt.Fprintf(b, "\n// decode%sList decodes a list of %s: empty, not nil, when it is.\n", s.name, s.name)
		fmt.Fprintf(b, "func (r *taskReader) decode%sList() []%s {\nlist := []%s{}\n", s.name, s.name, s.name)
		fmt.Fprintf(b, "r.open('[')\nfor n := 0; r.next(n, ']'); n++ {\nvar v %s\nr.decode%s(&v)\nlist = append(list, v)\n}\nreturn list\n}\n", s.name, s.name)
	}
}

// readValue is the statement that reads a value of t into target;
// shared says a string is kept once for all the tasks.
func readValue(target string, t *typ, shared bool) string {
	switch t.kind {
	case kPointer:
		if t.elem.kind == kStruct {
			return fmt.Sprintf("%s = new(%s)\nr.decode%s(%s)", target, t.elem.name, t.elem.name, target)
		}
		return fmt.Sprintf("%s = new(%s)\n%s", target, goType(t.elem), readValue("*"+target, t.elem, shared))
	case kStruct:
		return fmt.Sprintf("r.decode%s(&%s)", t.name, target)
	case kList:
		if t.elem.kind == kString {
			return target + " = r.strings()"
		}
		return fmt.Sprintf("%s = r.decode%sList()", target, t.elem.name)
	}
	return fmt.Sprintf("%s = %s", target, map[kind]string{
		kString: fmt.Sprintf("r.str(%t)", shared), kBool: "r.bool()", kInt: "int(r.int())", kInt64: "r.int()", kFloat: "r.float()",
	}[t.kind])
}

func goType(t *typ) string {
	switch t.kind {
	case kStruct:
		return t.name
	case kPointer:
		return "*" + goType(t.elem)
	case kList:
		return "[]" + goType(t.elem)
	}
	for name, k := range basics {
		if k == t.kind {
			return name
		}
	}
	panic("unreachable")
}

func (p *pkg) emitWriter(b *bytes.Buffer, s *structType) {
	fmt.Fprintf(b, "\n// encode%s writes v as encoding/json does.\n", s.name)
	fmt.Fprintf(b, "func (w *jsonWriter) encode%s(v *%s) {\nw.open('{')\n", s.name, s.name)
	for _, f := range s.fields {
		target := "v." + f.goName
		value, ok := writeHooks[s.name+"."+f.goName]
		if !ok {
			value = writeValue(target, f.typ, f.omitEmpty)
		}
		if cond := empty(target, f.typ); f.omitEmpty && cond != "" {
			fmt.Fprintf(b, "if %s {\nw.key(%q)\n%s\n}\n", cond, f.key, value)
		} else {
			fmt.Fprintf(b, "w.key(%q)\n%s\n", f.key, value)
		}
	}
	b.WriteString("w.close('}')\n}\n")
	if p.calls["encode"+s.name+"List"] {
		fmt.Fprintf(b, "\n// encode%sList writes list as encoding/json does: null when nil.\n", s.name)
		fmt.Fprintf(b, "func (w *jsonWriter) encode%sList(list []%s) {\n", s.name, s.name)
		fmt.Fprintf(b, "if list == nil {\nw.null()\nreturn\n}\nw.open('[')\nfor i := range list {\nw.item()\nw.encode%s(&list[i])\n}\nw.close(']')\n}\n", s.name)
	}
}

// empty is the condition under which omitempty writes a value of t;
// "" for a struct, which encoding/json never leaves out.
func empty(target string, t *typ) string {
	switch t.kind {
	case kString:
		return target + ` != ""`
	case kBool:
		return target
	case kInt, kInt64, kFloat:
		return target + " != 0"
	case kPointer:
		return target + " != nil"
	case kList:
		return "len(" + target + ") > 0"
	}
	return ""
}

// writeValue is the statement that writes target, a value of t; nonNil
// says a pointer is known not to be nil.
func writeValue(target string, t *typ, nonNil bool) string {
	switch t.kind {
	case kPointer:
		var value string
		if t.elem.kind == kStruct {
			value = fmt.Sprintf("w.encode%s(%s)", t.elem.name, target)
		} else {
			value = writeValue("*"+target, t.elem, false)
		}
		if nonNil {
			return value
		}
		return fmt.Sprintf("if %s == nil {\nw.null()\n} else {\n%s\n}", target, value)
	case kStruct:
		return fmt.Sprintf("w.encode%s(&%s)", t.name, target)
	case kList:
		if t.elem.kind == kString {
			return fmt.Sprintf("w.strings(%s)", target)
		}
		return fmt.Sprintf("w.encode%sList(%s)", t.elem.name, target)
	case kInt:
		return fmt.Sprintf("w.int(int64(%s))", target)
	}
	return fmt.Sprintf("w.%s(%s)", map[kind]string{kString: "string", kBool: "bool", kInt64: "int", kFloat: "float"}[t.kind], target)
}

// sorted is m's keys in order, for messages.
func sorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
