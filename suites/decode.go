package suites

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evalgate/evalgate/internal/jsonpointer"
	"github.com/evalgate/evalgate/internal/meter"
)

// decoder fills the model from a tree that the schema has checked, and runs
// the semantic checks. It tolerates values of the wrong type (the schema
// has reported them already) so that every problem of a file is found in
// one pass.
type decoder struct {
	file string
	errs Errors

	// exprUses and sharedExprs find the expressions several checks share,
	// which shareExprs compiles once; each source is type-checked once
	// (twice when shared). badExprs holds the message of each source that
	// does not compile.
	exprUses    map[uint64]bool // hashes of the sources seen
	sharedExprs map[string]bool // sources seen more than once
	badExprs    map[string]string
	// taskLines is the line of each task id seen so far.
	taskLines map[string]int
	// rowIDs is the row each id of a task made from a row was made from,
	// and rowFiles the dataset files by index.
	rowIDs   map[string]rowAt
	rowFiles []string
	// compact is set once the suite is large enough for compact tasks.
	compact bool
	// again is set when a compact task is decoded again: it was checked
	// when the suite loaded, so expressions are not type-checked twice.
	again bool
	// checkExpr, when set, type-checks an expression elsewhere, and
	// exprError leaves reporting a bad one to whoever set it.
	checkExpr func(src string)
	// exprNodes counts the nodes of the expressions checked in place,
	// against MaxExprNodes.
	exprNodes int
	// schemas are the JSON Schemas compiled, by their JSON, and
	// schemaValues counts their values against MaxSuiteSchemaValues.
	schemas      map[string]*jsonschema.Schema
	schemaValues int
	// worldUses are the parts of tasks that need a world the task does not
	// hold, reported by finishWorld unless the suite holds one.
	worldUses []worldUse
	// argUses are the placeholders' argument names, checked against the
	// tools' inputSchemas by finishWorld; tool is the fixture being read.
	argUses []argUse
	tool    string
	// dataFiles are the files the suite reads as data (stateFile), which
	// are not suites when their folder is walked.
	dataFiles []string
}

// schema compiles the JSON Schema v, whose JSON is text, at ptr: once per
// distinct schema of the suite, and until the suite's schemas are past
// MaxSuiteSchemaValues, where the one that goes past it is reported.
func (d *decoder) schema(ptr string, v *value, text []byte) *jsonschema.Schema {
	if sch, ok := d.schemas[string(text)]; ok {
		return sch
	}
	if d.schemaValues > suiteSchemaBudget {
		return nil
	}
	if d.schemaValues += v.count(schemaValueBudget + 1); d.schemaValues > suiteSchemaBudget {
		d.errorf(v, ptr, "the JSON Schemas of the suite hold more than %d JSON values in all, the limit for a suite, and this one goes past it (each distinct schema counts once)", suiteSchemaBudget)
		return nil
	}
	sch, errs := compileSchema(d.file, ptr, v)
	d.errs = append(d.errs, errs...)
	if errs == nil {
		if d.schemas == nil {
			d.schemas = map[string]*jsonschema.Schema{}
		}
		d.schemas[string(text)] = sch
	}
	return sch
}

func (d *decoder) pos(v *value) Pos { return Pos{File: d.file, Line: v.line, Col: v.col} }

func (d *decoder) errorf(v *value, ptr, format string, args ...any) {
	d.errs = append(d.errs, &Error{Pos: d.pos(v), Pointer: ptr, Message: fmt.Sprintf(format, args...), Kind: ErrSemantic})
}

// keyErrorf reports a problem with a member at its key.
func (d *decoder) keyErrorf(f *field, ptr, format string, args ...any) {
	d.errs = append(d.errs, &Error{Pos: Pos{File: d.file, Line: f.keyLine, Col: f.keyCol}, Pointer: ptr, Message: fmt.Sprintf(format, args...), Kind: ErrSemantic})
}

// Typed readers. Each returns the zero value when v is absent or of another
// type.

func str(v *value) string {
	if v == nil || v.kind != kindString {
		return ""
	}
	return v.lit
}

func boolean(v *value) bool { return v != nil && v.kind == kindBool && v.lit == "true" }

func number(v *value) (float64, bool) {
	if v == nil || v.kind != kindNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.lit, 64)
	return f, err == nil
}

func integer(v *value) (int64, bool) {
	if v == nil || v.kind != kindNumber {
		return 0, false
	}
	if i, err := strconv.ParseInt(v.lit, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(v.lit, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

func numberPtr(v *value) *float64 {
	if f, ok := number(v); ok {
		return &f
	}
	return nil
}

func stringList(v *value) []string {
	if v == nil || v.kind != kindArray {
		return nil
	}
	out := make([]string, 0, len(v.items))
	for _, it := range v.items {
		if it.kind == kindString {
			out = append(out, it.lit)
		}
	}
	return out
}

func raw(v *value) json.RawMessage {
	if v == nil {
		return nil
	}
	return v.compact()
}

func objects(v *value) []*value {
	if v == nil || v.kind != kindArray {
		return nil
	}
	return v.items
}

// exprError type-checks an expression, once per source, and counts its
// uses; it returns the message of a source that does not compile or is
// over the limits.
func (d *decoder) exprError(src string) (string, bool) {
	if d.exprUses == nil {
		d.exprUses, d.badExprs, d.sharedExprs = map[uint64]bool{}, map[string]string{}, map[string]bool{}
	}
	// Sources are counted by hash: a suite of 100,000 tasks with their own
	// expressions must not keep a copy of every source while it loads (#6).
	// A collision only makes a single-use expression count as shared.
	h := maphash.String(exprSeed, src)
	switch {
	case !d.exprUses[h]:
		d.exprUses[h] = true
		d.typeCheck(src)
	case !d.sharedExprs[src]:
		// A second use, or another source with the same hash: a source is
		// never taken for checked on its hash alone.
		d.sharedExprs[src] = true
		d.typeCheck(src)
	}
	msg, bad := d.badExprs[src]
	return msg, bad
}

// typeCheck type-checks an expression, with d.checkExpr when set, else in
// place, keeping the message when it does not compile.
//
// Once the suite's expressions are past MaxExprNodes, the one that took
// them past it is reported, and no more are checked.
func (d *decoder) typeCheck(src string) {
	switch {
	case d.checkExpr != nil:
		d.checkExpr(src)
		return
	case d.exprNodes > exprNodeBudget:
		return
	}
	n, err := checkExprNodes(src)
	d.exprNodes += n
	switch {
	case d.exprNodes > exprNodeBudget:
		d.badExprs[src] = fmt.Sprintf("the expressions of the suite hold more than %d operators, names and values in all, the limit for a suite, and this one goes past it", exprNodeBudget)
	case err != nil:
		d.badExprs[src] = exprFailure(err)
	}
}

// exprSeed seeds the hashes of expression sources.
var exprSeed = maphash.MakeSeed()

// shareExprs gives every check whose expression several checks of the
// suite use one compilation of it, made when the first of their trials
// runs (Check.ExprProgram), not before the first agent starts, and shared
// while a trial holds it. Expressions used once are compiled for their
// trial and dropped after it, so memory does not grow with a program per
// task.
func (d *decoder) shareExprs(s *Suite) {
	if len(d.sharedExprs) > 0 {
		s.shared = make(map[string]*sharedExpr, len(d.sharedExprs))
		for src := range d.sharedExprs {
			if _, bad := d.badExprs[src]; !bad {
				s.shared[src] = &sharedExpr{src: src}
			}
		}
	}
	share := func(c *Check) {
		if c != nil && c.Kind == CheckExpr {
			c.shared = s.shared[c.Expr]
		}
	}
	for _, ref := range s.Tasks {
		t := ref.full
		if t == nil {
			continue // compact: shared when decoded again
		}
		for _, c := range t.Expected.Assert {
			share(c)
		}
		for i := range t.Expected.Rubric {
			for _, c := range t.Expected.Rubric[i].Checks() {
				share(c)
			}
		}
	}
	d.exprUses, d.badExprs, d.sharedExprs = nil, nil, nil
}

// suite decodes the root object.
func (d *decoder) suite(root *value) *Suite {
	s := &Suite{Path: d.file, Pos: d.pos(root)}
	if root.kind != kindObject {
		return s
	}
	s.ID = str(root.get("suiteId"))
	s.Version = str(root.get("version"))
	s.TargetAgentID = str(root.get("targetAgentId"))
	s.Modes = stringList(root.get("modes"))
	s.AllowedModels = stringList(root.get("allowedModels"))
	if th := root.get("thresholds"); th != nil {
		s.Thresholds.PassScore = numberPtr(th.get("passScore"))
		s.Thresholds.MaxCostUsd = numberPtr(th.get("maxCostUsd"))
		if i, ok := integer(th.get("maxP95LatencyMs")); ok {
			s.Thresholds.MaxP95LatencyMs = &i
		}
	}
	s.Description = str(root.get("description"))
	if i, ok := integer(root.get("trials")); ok {
		s.Trials = int(i)
	}
	s.Tags = stringList(root.get("tags"))
	s.Tools = d.tools(root.get("tools"))
	s.Fixtures = d.suiteFixtures(root.get("fixtures"))
	d.finishWorld(s, root)
	return s
}

// addTask decodes the task at index i of the suite's task list and checks
// that its id is new. Tasks come one at a time, so a large suite never has
// more than one task's tree in memory.
func (d *decoder) addTask(s *Suite, tv *value, i int) {
	ptr := jsonpointer.AppendIndex("/tasks", i)
	t := d.task(tv, ptr, i)
	s.Tasks = append(s.Tasks, t.ref())
	idv := tv.get("taskId")
	if idv == nil || idv.kind != kindString {
		return
	}
	if d.taskLines == nil {
		d.taskLines = map[string]int{}
	}
	if line, ok := d.taskLines[t.ID]; ok {
		d.errorf(idv, ptr+"/taskId", "duplicate task id %q; first defined at line %d", t.ID, line)
		return
	}
	d.taskLines[t.ID] = idv.line
}

func (d *decoder) tools(v *value) []Tool {
	var tools []Tool
	first := map[string]*value{}
	for i, tv := range objects(v) {
		ptr := jsonpointer.AppendIndex("/tools", i)
		t := Tool{Name: str(tv.get("name")), Description: str(tv.get("description")), SideEffect: boolean(tv.get("sideEffect"))}
		if sv := tv.get("inputSchema"); sv != nil {
			t.InputSchema = raw(sv)
			if sv.kind == kindObject || sv.kind == kindBool {
				t.Schema = d.schema(ptr+"/inputSchema", sv, t.InputSchema)
			}
		}
		if nv := tv.get("name"); nv != nil && nv.kind == kindString {
			if prev, ok := first[t.Name]; ok {
				d.errorf(nv, ptr+"/name", "duplicate tool %q; first declared at line %d", t.Name, prev.line)
			} else {
				first[t.Name] = nv
			}
		}
		tools = append(tools, t)
	}
	return tools
}

func (d *decoder) task(v *value, ptr string, index int) *Task {
	t := &Task{ID: str(v.get("taskId")), Index: index, Pos: d.pos(v)}
	if v.kind != kindObject {
		return t
	}
	t.Input = raw(v.get("input"))
	t.Description = str(v.get("description"))
	t.Tags = stringList(v.get("tags"))
	t.PassScore = numberPtr(v.get("passScore"))
	t.TimeoutMs, _ = integer(v.get("timeoutMs"))
	t.ToolTimeoutMs, _ = integer(v.get("toolTimeoutMs"))
	t.Metadata = metadata(v.get("metadata"))
	t.Fixtures = d.fixtures(v.get("fixtures"), ptr+"/fixtures")
	t.Faults = t.Fixtures.Faults()
	t.Turns = d.turns(v.get("turns"), ptr+"/turns")
	t.User = d.simulatedUser(v.get("user"), ptr, v.getField("turns"))
	t.Adversarial = d.adversarial(v.get("adversarial"), ptr+"/adversarial", &t.Fixtures)
	if ev := v.get("expected"); ev != nil && ev.kind == kindObject {
		t.Expected = d.expected(ev, ptr+"/expected")
		for _, k := range []string{"state", "unchanged", "goldCalls"} {
			d.needWorld(hasWorld(v, &t.Fixtures), ev.getField(k), ptr+"/expected/"+k, fmt.Sprintf("the check %q", k))
		}
	}
	if fv := v.get("fixtures"); fv != nil {
		for i, rv := range objects(fv.get("toolResponses")) {
			if use := describeUse(rv); use != "" {
				k := presentKeys(rv, worldKeys)[0]
				d.needWorld(hasWorld(v, &t.Fixtures), rv.getField(k), jsonpointer.AppendIndex(ptr+"/fixtures/toolResponses", i)+"/"+k, use)
			}
		}
	}
	if slices.Contains(t.Tags, ScenarioBudgetExceeded) && !d.again && !hasBudget(t.Expected.Assert) {
		for i, tv := range v.get("tags").items {
			if tv.kind == kindString && tv.lit == ScenarioBudgetExceeded {
				d.errorf(tv, jsonpointer.AppendIndex(ptr+"/tags", i),
					"a %s task needs the budget it must keep: add a maxToolCalls or maxCostUsd check to expected.assert", ScenarioBudgetExceeded)
				break
			}
		}
	}
	return t
}

// hasBudget reports whether checks hold a maxToolCalls or maxCostUsd check,
// the built-in check of a budget-exceeded scenario.
func hasBudget(checks []*Check) bool {
	for _, c := range checks {
		if c != nil && (c.Kind == CheckMaxToolCalls || c.Kind == CheckMaxCostUsd) {
			return true
		}
	}
	return false
}

func metadata(v *value) *Metadata {
	if v == nil || v.kind != kindObject {
		return nil
	}
	m := &Metadata{Domain: str(v.get("domain")), Category: str(v.get("category"))}
	if c, ok := integer(v.get("complexity")); ok {
		m.Complexity = int(c)
	}
	if a, ok := integer(v.get("autonomyLevel")); ok {
		level := int(a)
		m.AutonomyLevel = &level
	}
	return m
}

func (d *decoder) adversarial(v *value, ptr string, fx *Fixtures) *Adversarial {
	if v == nil || v.kind != kindObject {
		return nil
	}
	a := &Adversarial{
		ForbiddenTools: stringList(v.get("forbiddenTools")),
		ExpectRefusal:  boolean(v.get("expectRefusal")),
		Detectors:      stringList(v.get("detectors")),
	}
	if sv := v.get("severities"); sv != nil && sv.kind == kindObject {
		a.Severities = make(map[string]string, len(sv.fields))
		for _, f := range sv.fields {
			if f.val.kind == kindString {
				a.Severities[f.key] = f.val.lit
			}
		}
	}
	for i, det := range a.Detectors {
		if det == "canary" && len(fx.Canaries) == 0 {
			d.errorf(v.get("detectors").items[i], jsonpointer.AppendIndex(ptr+"/detectors", i),
				`detector "canary" needs canaries to look for; add fixtures.canaries`)
		}
	}
	return a
}

func (d *decoder) fixtures(v *value, ptr string) Fixtures {
	fx := Fixtures{OnUnmatched: OnUnmatchedError}
	if v == nil || v.kind != kindObject {
		return fx
	}
	if ou := str(v.get("onUnmatched")); ou != "" {
		fx.OnUnmatched = ou
	}
	fx.Canaries = stringList(v.get("canaries"))
	if sv := v.get("state"); sv != nil {
		fx.State = raw(sv)
	}
	if f := v.getField("stateFile"); f != nil {
		world := d.stateFile(f.val, ptr+"/stateFile")
		if v.get("state") != nil {
			d.keyErrorf(f, ptr+"/stateFile", `the world is "state" or "stateFile", not both`)
		} else {
			fx.State = world
		}
	}
	for _, m := range objects(v.get("memorySeed")) {
		fx.MemorySeed = append(fx.MemorySeed, m.compact())
	}
	for i, rv := range objects(v.get("toolResponses")) {
		if rv.kind != kindObject {
			continue
		}
		r := ToolResponse{
			Tool:     str(rv.get("tool")),
			Response: raw(rv.get("response")),
			Args:     raw(rv.get("args")),
			Error:    str(rv.get("error")),
			Pos:      d.pos(rv),
		}
		r.DelayMs, _ = integer(rv.get("delayMs"))
		if n, ok := integer(rv.get("times")); ok {
			r.Times = int(n)
		}
		if rw := rv.get("raw"); rw != nil && rw.kind == kindString {
			r.Raw, r.HasRaw = rw.lit, true
		}
		r.Fault = str(rv.get("fault"))
		d.oneAnswer(rv, jsonpointer.AppendIndex(ptr+"/toolResponses", i))
		d.stateful(rv, jsonpointer.AppendIndex(ptr+"/toolResponses", i), &r)
		fx.ToolResponses = append(fx.ToolResponses, r)
	}
	return fx
}

// oneAnswer reports a fixture entry that says more than one way to
// answer: a response, an error, raw text or a fault.
func (d *decoder) oneAnswer(rv *value, ptr string) {
	var seen []string
	for _, k := range []string{"response", "error", "raw", "fault"} {
		f := rv.getField(k)
		if f == nil {
			continue
		}
		if len(seen) > 0 && seen[0] == "response" && k == "error" {
			d.keyErrorf(f, ptr+"/error", `a fixture either answers with "response" or fails with "error", not both`)
			return
		}
		if len(seen) > 0 {
			d.keyErrorf(f, ptr+"/"+k, "a fixture answers in one way: %q and %q cannot both be set (choose one of \"response\", \"error\", \"raw\" or \"fault\")", seen[0], k)
			return
		}
		seen = append(seen, k)
	}
}

// expected decodes the scoring block and checks that it can score at all.
func (d *decoder) expected(v *value, ptr string) Expected {
	e := Expected{Kind: str(v.get("kind"))}
	ids := map[string]*value{} // check ids in use, for duplicates

	if mv := v.get("match"); mv != nil && mv.kind == kindObject {
		e.Match = d.match(mv, ptr+"/match")
	}
	for i, cv := range objects(v.get("rubric")) {
		cptr := jsonpointer.AppendIndex(ptr+"/rubric", i)
		c := Criterion{Criterion: str(cv.get("criterion")), Pos: d.pos(cv)}
		c.Weight, _ = number(cv.get("weight"))
		if av := cv.get("assert"); av != nil && av.kind == kindObject {
			c.Assert = d.check(av, cptr+"/assert", fmt.Sprintf("rubric[%d]", i), ids)
		}
		d.criterionExt(cv, cptr, &c, ids)
		e.Rubric = append(e.Rubric, c)
	}
	for i, cv := range objects(v.get("assert")) {
		if cv.kind != kindObject {
			continue
		}
		e.Assert = append(e.Assert, d.check(cv, jsonpointer.AppendIndex(ptr+"/assert", i), fmt.Sprintf("assert[%d]", i), ids))
	}
	if sv := v.get("outputSchema"); sv != nil {
		e.OutputSchemaRaw = raw(sv)
		if sv.kind == kindObject || sv.kind == kindBool {
			e.OutputSchema = d.schema(ptr+"/outputSchema", sv, e.OutputSchemaRaw)
		}
	}
	d.expectedWorld(v, ptr, &e, ids)

	kindV := v.get("kind")
	switch e.Kind {
	case KindGolden:
		if f := v.getField("rubric"); f != nil {
			d.keyErrorf(f, ptr+"/rubric", `kind "golden" is scored by match and assert, not by a rubric; use kind "rubric"`)
		}
		if v.get("match") == nil && v.get("assert") == nil && v.get("outputSchema") == nil && v.get("state") == nil && v.get("unchanged") == nil && v.get("goldCalls") == nil {
			d.errorf(kindV, ptr+"/kind", `kind "golden" needs "match", "assert", "outputSchema", "state", "unchanged" or "goldCalls"`)
			break
		}
		if e.Match == nil && e.OutputSchemaRaw == nil && e.State == nil && e.Unchanged == nil && e.GoldCalls == nil && len(e.Assert) > 0 && checkWeights(e.Assert) == 0 {
			d.errorf(v.get("assert"), ptr+"/assert", "the check weights add up to 0; with no match, at least one check needs a weight above 0")
		}
	case KindRubric:
		for _, key := range []string{"match", "assert", "outputSchema", "state", "unchanged", "goldCalls", "goldIgnore"} {
			if f := v.getField(key); f != nil {
				d.keyErrorf(f, jsonpointer.Append(ptr, key), `kind "rubric" is scored by its criteria; %q belongs to kind "golden" (a criterion can have its own "assert")`, key)
			}
		}
		rv := v.get("rubric")
		if rv == nil {
			d.errorf(kindV, ptr+"/kind", `kind "rubric" needs "rubric", a list of criteria`)
			break
		}
		sum := 0.0
		for _, c := range e.Rubric {
			sum += c.Weight
		}
		if len(e.Rubric) > 0 && sum == 0 {
			d.errorf(rv, ptr+"/rubric", "the criterion weights add up to 0; at least one criterion needs a weight above 0")
		}
	}
	return e
}

func checkWeights(cs []*Check) float64 {
	sum := 0.0
	for _, c := range cs {
		sum += c.Weight
	}
	return sum
}

// match decodes a golden match and compiles what its strategy needs.
func (d *decoder) match(v *value, ptr string) *Match {
	m := &Match{
		Strategy:   str(v.get("strategy")),
		Value:      raw(v.get("value")),
		Path:       str(v.get("path")),
		IgnoreCase: boolean(v.get("ignoreCase")),
		Pos:        d.pos(v),
	}
	if pv := v.get("path"); pv != nil && pv.kind == kindString && !jsonpointer.Valid(m.Path) {
		d.errorf(pv, ptr+"/path", `expected a JSON pointer such as "/answer" or "/items/0", got %s`, describe(pv))
	}
	val := v.get("value")
	if val == nil {
		return m
	}
	vptr := ptr + "/value"
	if f := v.getField("ignoreCase"); f != nil && m.IgnoreCase {
		switch m.Strategy {
		case StrategyExact, StrategyContains:
			if val.kind != kindString {
				d.keyErrorf(f, ptr+"/ignoreCase", "ignoreCase needs a string value to compare; got %s", describe(val))
			}
		case StrategyJSONMatch, StrategyJSONSubset, StrategyJSONSchema:
			d.keyErrorf(f, ptr+"/ignoreCase", "ignoreCase applies only to the exact, contains and regex strategies, not %q", m.Strategy)
		}
		// A missing or misspelt strategy is reported on its own, with the
		// nearest strategy: ignoreCase is not blamed for it.
	}
	switch m.Strategy {
	case StrategyRegex:
		if val.kind != kindString {
			d.errorf(val, vptr, "expected a regular expression (a string) for strategy regex, got %s", describe(val))
			break
		}
		src := val.lit
		le, parsed := regexLimit(src)
		if le != nil {
			d.errorf(val, vptr, "%s", le.Message)
			break
		}
		if d.compact && parsed {
			// The task is kept compact and decoded again for each trial:
			// compiling the pattern now would only be dropped, and it
			// compiles exactly when it parses, (?i) or not.
			break
		}
		if m.IgnoreCase {
			src = "(?i)" + src
		}
		re, err := meter.Compile(src)
		if err != nil {
			d.errorf(val, vptr, "not a valid regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
			break
		}
		m.Regexp = re
	case StrategyJSONSchema:
		if val.kind != kindObject && val.kind != kindBool {
			d.errorf(val, vptr, "expected a JSON Schema (an object or a boolean) for strategy json-schema, got %s", describe(val))
			break
		}
		m.Schema = d.schema(vptr, val, m.Value)
	}
	return m
}

// checkKeys are the keys that make a check, one per kind.
var checkKeys = []string{CheckExpr, CheckToolCalled, CheckToolNotCalled, CheckToolOrder, CheckMaxToolCalls, CheckMaxLatencyMs, CheckMaxCostUsd, CheckExec, CheckTrace, CheckEvents}

// check decodes one assertion; ids holds the ids used so far in the task.
func (d *decoder) check(v *value, ptr, defaultID string, ids map[string]*value) *Check {
	c := &Check{ID: defaultID, Weight: 1, Pos: d.pos(v)}
	if idv := v.get("id"); idv != nil && idv.kind == kindString {
		c.ID = d.authorID(idv, ptr, ids)
	} else if _, taken := ids[c.ID]; taken {
		d.errorf(v, ptr, "another check already has the id %q; give this one an id", c.ID)
	} else {
		ids[c.ID] = v
	}
	if w, ok := number(v.get("weight")); ok {
		c.Weight = w
	}
	c.Negate = boolean(v.get("negate"))

	var found []string
	for _, k := range checkKeys {
		if v.get(k) != nil {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		d.errorf(v, ptr, "a check needs one of the keys %s", quoteList(checkKeys))
		return c
	case 1:
	default:
		d.errorf(v, ptr, "a check has exactly one of the keys %s; found %s", quoteList(checkKeys), quoteList(found))
		return c
	}
	c.Kind = found[0]
	kv := v.get(c.Kind)
	if f := v.getField("args"); f != nil && c.Kind != CheckToolCalled {
		d.keyErrorf(f, ptr+"/args", `args applies only to a "toolCalled" check`)
	}
	switch c.Kind {
	case CheckExpr:
		c.Expr = str(kv)
		if kv.kind != kindString || c.Expr == "" {
			break
		}
		if d.again {
			break
		}
		if msg, bad := d.exprError(c.Expr); bad {
			d.errorf(kv, ptr+"/expr", "%s", msg)
		}
	case CheckToolCalled:
		c.Tool = str(kv)
		c.Args = raw(v.get("args"))
	case CheckToolNotCalled:
		c.Tool = str(kv)
	case CheckExec:
		c.Exec = stringList(kv)
		c.Dir = filepath.Dir(d.file)
	case CheckToolOrder:
		c.Order = stringList(kv)
	case CheckMaxToolCalls:
		n, _ := integer(kv)
		c.MaxToolCalls = int(n)
	case CheckMaxLatencyMs:
		c.MaxLatencyMs, _ = integer(kv)
	case CheckMaxCostUsd:
		c.MaxCostUsd, _ = number(kv)
	case CheckTrace:
		c.Trace = d.traceCheck(kv, ptr+"/trace")
	case CheckEvents:
		c.Events = stringList(kv)
	}
	return c
}

// traceCheck decodes a trace check, whose shape the schema has checked.
func (d *decoder) traceCheck(v *value, ptr string) *TraceCheck {
	tc := &TraceCheck{Count: Count{Op: ">=", N: 1}}
	switch sv := v.get("span"); {
	case sv == nil:
	case sv.kind == kindString:
		tc.Span = &SpanMatch{Name: str(sv)}
	default:
		tc.Span = &SpanMatch{Name: str(sv.get("name")), Operation: str(sv.get("operation")), Tool: str(sv.get("tool")), Model: str(sv.get("model"))}
	}
	if cv := v.get("count"); cv != nil {
		if c, ok := parseCount(cv); ok {
			tc.Count = c
		} else {
			d.errorf(cv, ptr+"/count", "expected a count such as \">= 1\", \"== 2\" or \"< 5\" (an operator >=, >, <=, <, ==, != and a whole number >= 0), got %s", describe(cv))
		}
	}
	tc.MaxDurationMs, _ = number(v.get("maxDurationMs"))
	tc.NoErrors = boolean(v.get("noErrors"))
	tc.Order = stringList(v.get("order"))
	tc.Events = stringList(v.get("events"))
	return tc
}

// parseCount reads a count: a whole number (== n), or an operator and one.
func parseCount(v *value) (Count, bool) {
	if v.kind == kindNumber {
		n, ok := integer(v)
		return Count{Op: "==", N: n}, ok && n >= 0
	}
	if v.kind != kindString {
		return Count{}, false
	}
	s := strings.TrimSpace(str(v))
	for _, op := range []string{">=", "<=", "==", "!=", ">", "<"} {
		if rest, ok := strings.CutPrefix(s, op); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return Count{Op: op, N: n}, err == nil && n >= 0
		}
	}
	return Count{}, false
}
