package suites

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/jsonpointer"
)

// patchOps are the JSON Patch operations an effect may use (RFC 6902).
var patchOps = []string{"add", "remove", "replace", "move", "copy", "test"}

// worldKeys are the keys of a tool fixture that make it stateful.
var worldKeys = []string{"require", "effect", "from", "result"}

// worldUse is a part of a task that needs a world, kept until the suite's
// own fixtures are known: a task without a state of its own uses the
// suite's. It keeps the key's position, not the key, so that the trees of
// a large suite's tasks are not kept alive until the end of the file.
type worldUse struct {
	line, col int
	ptr       string
	use       string // what needs it, in the user's words
}

// argUse is a placeholder's argument name, kept until the suite's
// declared tools are known (finishWorld).
type argUse struct {
	tool, name string
	line, col  int
	ptr        string
}

// useArgs records the argument names of a template for tool.
func (d *decoder) useArgs(t Template, v *value, ptr string) {
	if d.again {
		return
	}
	for _, p := range t.parts {
		if p.arg != nil {
			d.argUses = append(d.argUses, argUse{tool: d.tool, name: p.arg[0], line: v.line, col: v.col, ptr: ptr})
		}
	}
}

// stateful decodes the stateful keys of the tool fixture rv into r and
// checks their templates and expressions.
func (d *decoder) stateful(rv *value, ptr string, r *ToolResponse) {
	d.tool = r.Tool
	if hv := rv.get("handler"); hv != nil {
		r.Handler = stringList(hv)
		d.handlerPaths(hv, ptr+"/handler")
		for _, k := range []string{"response", "error", "raw", "fault", "require", "effect", "from", "result"} {
			if f := rv.getField(k); f != nil {
				d.keyErrorf(f, ptr+"/"+k, "a fixture with a handler answers through its program; %q cannot be set with it", k)
			}
		}
		return
	}
	for i, ev := range objects(rv.get("require")) {
		if ev.kind != kindString || ev.lit == "" {
			continue
		}
		r.Require = append(r.Require, ev.lit)
		d.worldExpr(ev, jsonpointer.AppendIndex(ptr+"/require", i), true)
	}
	if fv := rv.get("from"); fv != nil && fv.kind == kindString {
		r.From = d.pointerTemplate(fv, ptr+"/from")
	}
	if xv := rv.get("result"); xv != nil && xv.kind == kindString && xv.lit != "" {
		r.Result = xv.lit
		d.worldExpr(xv, ptr+"/result", false)
	}
	for i, ov := range objects(rv.get("effect")) {
		if ov.kind != kindObject {
			continue
		}
		optr := jsonpointer.AppendIndex(ptr+"/effect", i)
		op := PatchOp{Op: str(ov.get("op")), Pos: d.pos(ov)}
		if pv := ov.get("path"); pv != nil && pv.kind == kindString {
			if t := d.pointerTemplate(pv, optr+"/path"); t != nil {
				op.Path = *t
			}
		}
		if fv := ov.getField("from"); fv != nil {
			if op.Op != "move" && op.Op != "copy" && slices.Contains(patchOps, op.Op) {
				d.keyErrorf(fv, optr+"/from", `"from" belongs to the operations move and copy, not %q`, op.Op)
			} else if fv.val.kind == kindString {
				op.From = d.pointerTemplate(fv.val, optr+"/from")
			}
		} else if op.Op == "move" || op.Op == "copy" {
			d.errorf(ov, optr, `the operation %q needs "from", the pointer it takes the value from`, op.Op)
		}
		if vf := ov.getField("value"); vf != nil {
			if op.Op == "remove" || op.Op == "move" || op.Op == "copy" {
				d.keyErrorf(vf, optr+"/value", `the operation %q takes no "value"`, op.Op)
			}
			op.Value = raw(vf.val)
			d.valueTemplates(vf.val, optr+"/value")
		} else if op.Op == "add" || op.Op == "replace" || op.Op == "test" {
			d.errorf(ov, optr, `the operation %q needs "value"`, op.Op)
		}
		r.Effect = append(r.Effect, op)
	}
	if !r.Stateful() {
		return
	}
	for _, k := range []string{"error", "raw", "fault"} {
		if f := rv.getField(k); f != nil {
			d.keyErrorf(f, ptr+"/"+k, "a fixture with %s works on the world; %q cannot be set with it (a failed require is the tool error)", quoteList(presentKeys(rv, worldKeys)), k)
		}
	}
	if rv.get("from") != nil && rv.get("result") != nil {
		d.keyErrorf(rv.getField("result"), ptr+"/result", `a fixture answers in one way: "from" and "result" cannot both be set`)
	}
	for _, k := range []string{"from", "result"} {
		if rv.get(k) != nil && rv.get("response") != nil {
			d.keyErrorf(rv.getField(k), ptr+"/"+k, `a fixture answers in one way: "response" and %q cannot both be set`, k)
		}
	}
}

func presentKeys(v *value, keys []string) []string {
	var out []string
	for _, k := range keys {
		if v.get(k) != nil {
			out = append(out, k)
		}
	}
	return out
}

// pointerTemplate parses a templated JSON pointer: its placeholders, and
// its shape once they are filled in.
func (d *decoder) pointerTemplate(v *value, ptr string) *Template {
	t, err := ParseTemplate(v.lit)
	if err != nil {
		d.errorf(v, ptr, "%v", err)
		return nil
	}
	if !jsonpointer.Valid(t.sample()) {
		d.errorf(v, ptr, `expected a JSON pointer such as "/orders/{args.orderId}" (it starts with "/", and "~" is followed by 0 or 1), got %s`, describe(v))
		return nil
	}
	d.useArgs(t, v, ptr)
	return &t
}

// valueTemplates checks the placeholders in every string of an effect's
// value, and the expressions of its {"$expr": "..."} objects.
func (d *decoder) valueTemplates(v *value, ptr string) {
	switch v.kind {
	case kindString:
		t, err := ParseTemplate(v.lit)
		if err != nil {
			d.errorf(v, ptr, "%v", err)
		}
		d.useArgs(t, v, ptr)
	case kindArray:
		for i, it := range v.items {
			d.valueTemplates(it, jsonpointer.AppendIndex(ptr, i))
		}
	case kindObject:
		if ev := v.get("$expr"); ev != nil {
			if len(v.fields) != 1 || ev.kind != kindString || ev.lit == "" {
				d.errorf(v, ptr, `a computed value is an object with one key, "$expr", holding an expression over state and args`)
				return
			}
			d.worldExpr(ev, ptr+"/$expr", false)
			return
		}
		for _, f := range v.fields {
			d.valueTemplates(f.val, jsonpointer.Append(ptr, f.key))
		}
	}
}

// worldExpr type-checks an expression of a stateful fixture.
func (d *decoder) worldExpr(v *value, ptr string, boolean bool) {
	if d.again {
		return
	}
	if _, err := CompileWorldExpr(v.lit, boolean); err != nil {
		d.errorf(v, ptr, "%s", exprFailure(err))
	}
}

// hasWorld reports whether the task tv holds a world: a state, or a state
// file (read or not: a file that failed is reported on its own).
func hasWorld(tv *value, fx *Fixtures) bool {
	return fx.State != nil || tv.get("fixtures").get("stateFile") != nil
}

// needWorld records that a task uses the world at f; finishWorld reports it
// when neither the task nor the suite has one.
func (d *decoder) needWorld(world bool, f *field, ptr, use string) {
	if world || d.again || f == nil {
		return
	}
	d.worldUses = append(d.worldUses, worldUse{line: f.keyLine, col: f.keyCol, ptr: ptr, use: use})
}

// finishWorld reports the uses of a world in a suite where neither the
// task nor the suite-level fixtures hold one.
func (d *decoder) finishWorld(s *Suite, root *value) {
	if (s.Fixtures == nil || s.Fixtures.State == nil) && root.get("fixtures").get("stateFile") == nil {
		for _, u := range d.worldUses {
			d.errs = append(d.errs, &Error{Pos: Pos{File: d.file, Line: u.line, Col: u.col}, Pointer: u.ptr, Kind: ErrSemantic,
				Message: fmt.Sprintf("%s needs a world: add fixtures.state to the task, or to the suite for every task", u.use)})
		}
	}
	d.worldUses = nil
	// A placeholder naming an argument that the tool's inputSchema does not
	// declare is a typo: the call would always fail with a missing argument.
	declared := map[string][]string{}
	for _, t := range s.Tools {
		if names := schemaProperties(t.InputSchema); names != nil {
			declared[t.Name] = names
		}
	}
	for _, u := range d.argUses {
		if names, ok := declared[u.tool]; ok && !slices.Contains(names, u.name) {
			d.errs = append(d.errs, &Error{Pos: Pos{File: d.file, Line: u.line, Col: u.col}, Pointer: u.ptr, Kind: ErrSemantic,
				Message: fmt.Sprintf("{args.%s}: tool %q declares no argument %q in its inputSchema (it declares %s)", u.name, u.tool, u.name, quoteList(names))})
		}
	}
	d.argUses = nil
}

// schemaProperties returns the names an inputSchema's "properties"
// declare, sorted; nil when it declares none.
func schemaProperties(schema json.RawMessage) []string {
	var sch struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &sch) != nil || len(sch.Properties) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(sch.Properties))
}

// expectedWorld decodes the end-state expectations. ids are the check ids
// of the task's assertions: the end-state checks take the ids "state" and
// "unchanged".
func (d *decoder) expectedWorld(v *value, ptr string, e *Expected, ids map[string]*value) {
	for _, gv := range objects(v.get("goldCalls")) {
		if gv.kind == kindObject {
			e.GoldCalls = append(e.GoldCalls, GoldCall{Tool: str(gv.get("tool")), Args: raw(gv.get("args")), Pos: d.pos(gv)})
		}
	}
	for i, pv := range objects(v.get("goldIgnore")) {
		if pv.kind != kindString {
			continue
		}
		if !jsonpointer.Valid(pv.lit) {
			d.errorf(pv, jsonpointer.AppendIndex(ptr+"/goldIgnore", i), `expected a JSON pointer into the world such as "/log", got %s`, describe(pv))
			continue
		}
		e.GoldIgnore = append(e.GoldIgnore, pv.lit)
	}
	if f := v.getField("goldIgnore"); f != nil && v.get("goldCalls") == nil {
		d.keyErrorf(f, ptr+"/goldIgnore", `goldIgnore applies to the world the goldCalls leave; add "goldCalls"`)
	}
	for _, k := range []string{CheckState, CheckUnchanged, CheckGoldState} {
		field := k
		if k == CheckGoldState {
			field = "goldCalls"
		}
		idv, taken := ids[k]
		if !taken || v.get(field) == nil || idv.kind != kindString {
			continue
		}
		for i, c := range e.Assert {
			if c.ID == k {
				d.errorf(idv, jsonpointer.AppendIndex(ptr+"/assert", i)+"/id", "the check id %q is the id of the end-state check of expected.%s; choose another", k, field)
			}
		}
	}
	if sv := v.get("state"); sv != nil {
		e.State = raw(sv)
	}
	for i, pv := range objects(v.get("unchanged")) {
		if pv.kind != kindString {
			continue
		}
		if !jsonpointer.Valid(pv.lit) {
			d.errorf(pv, jsonpointer.AppendIndex(ptr+"/unchanged", i), `expected a JSON pointer into the world such as "/orders/A-17", or "" for all of it, got %s`, describe(pv))
			continue
		}
		e.Unchanged = append(e.Unchanged, pv.lit)
	}
}

// suiteFixtures decodes the suite-level extension `fixtures`.
func (d *decoder) suiteFixtures(v *value) *Fixtures {
	if v == nil || v.kind != kindObject {
		return nil
	}
	fx := d.fixtures(v, "/fixtures")
	return &fx
}

// describeUse names the first key of a fixture that uses the world.
func describeUse(rv *value) string {
	keys := presentKeys(rv, worldKeys)
	if len(keys) == 0 {
		return ""
	}
	return fmt.Sprintf("a fixture with %q", keys[0])
}

// turns decodes a conversation's scripted turns.
func (d *decoder) turns(v *value, ptr string) []Turn {
	var out []Turn
	for i, tv := range objects(v) {
		if tv.kind != kindObject {
			continue
		}
		tptr := jsonpointer.AppendIndex(ptr, i)
		t := Turn{User: raw(tv.get("user")), Pos: d.pos(tv)}
		if ev := tv.get("expect"); ev != nil && ev.kind == kindObject {
			e := &Expected{Kind: KindGolden}
			ids := map[string]*value{}
			if mv := ev.get("match"); mv != nil && mv.kind == kindObject {
				e.Match = d.match(mv, tptr+"/expect/match")
			}
			for j, cv := range objects(ev.get("assert")) {
				if cv.kind == kindObject {
					e.Assert = append(e.Assert, d.check(cv, jsonpointer.AppendIndex(tptr+"/expect/assert", j), fmt.Sprintf("assert[%d]", j), ids))
				}
			}
			if e.Match == nil && len(e.Assert) == 0 {
				d.errorf(ev, tptr+"/expect", `expect needs "match" or "assert", what the reply to this turn must meet`)
			}
			t.Expect = e
		}
		out = append(out, t)
	}
	return out
}

// simulatedUser decodes a task's `user` block; turns tells whether the
// task also has scripted turns, which the two cannot share.
func (d *decoder) simulatedUser(v *value, ptr string, turns *field) *SimulatedUser {
	if v == nil || v.kind != kindObject {
		return nil
	}
	u := &SimulatedUser{Instructions: str(v.get("instructions")), Pos: d.pos(v)}
	if n, ok := integer(v.get("maxTurns")); ok {
		u.MaxTurns = int(n)
	}
	if turns != nil {
		d.keyErrorf(turns, ptr+"/turns", `a conversation is scripted ("turns") or played by the user simulator ("user"), not both`)
	}
	return u
}

// stateFile reads the world of fixtures.stateFile: a JSON or YAML file
// relative to the suite file's folder, which it must stay inside once
// symbolic links are resolved. Its own problems are reported at its own
// lines. The file is kept in d.dataFiles, so that a folder walk does not
// take it for a suite.
func (d *decoder) stateFile(v *value, ptr string) []byte {
	if v.kind != kindString {
		return nil
	}
	dir := filepath.Dir(d.file)
	rel := filepath.FromSlash(v.lit)
	if !filepath.IsLocal(rel) {
		d.errorf(v, ptr, "expected a path inside the suite's folder, relative to it (such as worlds/shop.json), got %s", describe(v))
		return nil
	}
	path := filepath.Join(dir, rel)
	if !d.again {
		d.dataFiles = append(d.dataFiles, path)
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		realDir, err := filepath.EvalSymlinks(dir)
		if err != nil || !within(realDir, real) {
			d.errorf(v, ptr, "the state file %s leads outside the suite's folder", describe(v))
			return nil
		}
	}
	data, e := readSuite(dir, path)
	if e != nil {
		d.errorf(v, ptr, "could not read the state file: %s", e.Message)
		return nil
	}
	root, errs := parseTree(path, data)
	if errs != nil {
		d.errs = append(d.errs, errs...)
		return nil
	}
	return root.compact()
}

// handlerPaths holds a handler's command to the suite's folder, as the
// suite's other files are held (docs/security.md): a program is a name found on
// PATH (python3) or a file inside the suite's folder, and every word of the
// command that names a path (handlers/bank.py) stays inside it, symbolic
// links resolved. A suite from a pull request cannot point a handler at a
// program or a script elsewhere on the runner.
func (d *decoder) handlerPaths(hv *value, ptr string) {
	if d.again || hv.kind != kindArray {
		return
	}
	dir := filepath.Dir(d.file)
	realDir, dirErr := filepath.EvalSymlinks(dir)
	for i, w := range hv.items {
		if w.kind != kindString || !strings.ContainsAny(w.lit, `/\`) {
			continue // a program on PATH, a flag or a plain word
		}
		wptr := jsonpointer.AppendIndex(ptr, i)
		rel := filepath.FromSlash(w.lit)
		if !filepath.IsLocal(rel) {
			d.errorf(w, wptr, "a handler runs in the suite's folder and names files inside it: expected a program on PATH (such as python3) or a path relative to the suite's folder (such as handlers/bank.py), got %s", describe(w))
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Join(dir, rel))
		if err == nil && dirErr == nil && !within(realDir, real) {
			d.errorf(w, wptr, "the handler's %s leads outside the suite's folder through a symbolic link", describe(w))
		}
	}
}
