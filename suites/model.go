package suites

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/jsonpointer"
	"github.com/evalgate/evalgate/internal/meter"
	"github.com/expr-lang/expr/vm"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Pos is a position in a suite file. Line and Col start at 1; a zero Line
// means the position is unknown. It renders as file:line:col.
type Pos = diag.Pos

// Suite is one openwop AgentEvalSuite with evalgate's extensions, loaded from
// a file and validated. Every task, check and fixture keeps its position so
// reports can point back at the source.
type Suite struct {
	Path          string // the file as given on the command line or found in a folder
	ID            string // suiteId
	Version       string
	TargetAgentID string
	Modes         []string
	AllowedModels []string
	Thresholds    Thresholds
	Pos           Pos

	// Extensions.
	Description string
	Trials      int // 0 when the suite does not say
	Tools       []Tool
	Tags        []string

	// Fixtures is the suite-level extension `fixtures`: a world and tool
	// fixtures every task shares (see TaskFixtures); nil when absent.
	Fixtures *Fixtures
	// DataFiles are the files the suite reads as data (fixtures.stateFile):
	// Load does not take them for suites when it walks their folder.
	DataFiles []string

	// Tasks lists the suite's tasks in file order. Suite.Full gives each
	// one whole.
	Tasks []*TaskRef

	// shared are the expressions several checks share, each compiled for
	// all of them (sharedExpr); Full gives them to the checks of compact
	// tasks.
	shared map[string]*sharedExpr
	// datasets are the suite's datasets, for Full to make a compact task
	// from its row again.
	datasets []*dataset
}

// Thresholds is the suite's openwop pass bar. Nil fields are unset.
type Thresholds struct {
	PassScore       *float64
	MaxCostUsd      *float64
	MaxP95LatencyMs *int64
}

// Tool is a declared tool (extension `tools`), offered to model-driven agents.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage // nil when absent
	// Schema is InputSchema compiled once for the suite; the fixtures
	// check every call's arguments against it. Nil when absent.
	Schema *jsonschema.Schema
	// SideEffect marks a tool whose call changes the world: the same call
	// twice in a trial counts as a duplicate side effect (docs/suites.md,
	// "Declared tools").
	SideEffect bool
}

// Scenario tags of seed 003 (docs/suites.md, "Task"; docs/trust.md): a task
// tagged with one of them is evidence of that scenario for the trust
// scorecard, and replan-loop and budget-exceeded tasks carry a built-in check.
const (
	ScenarioHappyPath       = "happy-path"
	ScenarioErrorHandling   = "error-handling"
	ScenarioBudgetExceeded  = "budget-exceeded"
	ScenarioReplanLoop      = "replan-loop"
	ScenarioEdgeAdversarial = "edge-adversarial"
)

// Scenarios lists the scenario tags in the seed's order.
var Scenarios = []string{ScenarioHappyPath, ScenarioErrorHandling, ScenarioBudgetExceeded, ScenarioReplanLoop, ScenarioEdgeAdversarial}

// ScenarioEvents are the observability events of seed 003 a scenario's
// trial must report when its agent sends OpenTelemetry spans
// (docs/trust.md, "Error Containment"); the other scenarios name none.
var ScenarioEvents = map[string]string{
	ScenarioErrorHandling:  "error.handled",
	ScenarioBudgetExceeded: "budget.exceeded",
}

// Task is one eval task.
type Task struct {
	ID    string
	Index int // position in the suite's task list
	Pos   Pos // position of the task object (the line reports point at)

	Input    json.RawMessage // any JSON value, "null" when null
	Expected Expected
	Fixtures Fixtures

	// Extensions.
	Description string
	Tags        []string
	PassScore   *float64
	TimeoutMs   int64 // 0 when unset
	// ToolTimeoutMs is how long a `fault: timeout` fixture keeps the agent
	// waiting before its error result; 0 when unset (DefaultToolTimeoutMs).
	ToolTimeoutMs int64
	Metadata      *Metadata
	Adversarial   *Adversarial
	// Faults is Fixtures.Faults.
	Faults []string
	// Vars is the row a task of a dataset was made from, a JSON object;
	// nil for other tasks. Program checks get it as "vars".
	Vars json.RawMessage
	// Turns are the scripted user messages after the input (extension
	// `turns`): a conversation (docs/worlds.md).
	Turns []Turn
	// User is the extension `user`: an open conversation, whose user a
	// model plays from hidden instructions (the run's user simulator); nil
	// when absent.
	User *SimulatedUser
}

// TaskRef is a task as its suite lists it: what choosing the tasks of a
// run, their modes and their rows in the results read. The rest of the
// task (its input, checks, fixtures, world, conversation, dataset row)
// comes from Suite.Full, for one trial. A small suite's refs hold their
// tasks decoded; a large suite's hold only where each task is, and Full
// decodes it again for each trial, so a suite's memory does not grow by a
// decoded task per task (#6).
type TaskRef struct {
	ID    string
	Index int    // position in the suite's task list
	Pos   Pos    // position of the task object (the line reports point at)
	Kind  string // Expected.Kind: KindGolden or KindRubric
	Tags  []string
	// PassScore is the task's own pass bar; nil when it sets none
	// (Suite.PassBar).
	PassScore   *float64
	Metadata    *Metadata
	Adversarial *Adversarial
	Faults      []string // Fixtures.Faults

	full *Task       // the task decoded; nil when it is kept compact
	form compactForm // where a compact task's JSON is
}

// compactForm is where a compact task's JSON is: where it is in the suite
// file (span, byte offsets; JSON files), or the JSON itself (body); or,
// for a task made from a row of a dataset (ds, the dataset's index + 1),
// where the row is in the dataset's file (span).
type compactForm struct {
	span [2]int64
	body []byte
	ds   int32
}

// Turn is one scripted user message of a conversation, and what the
// agent's reply to it must meet.
type Turn struct {
	User json.RawMessage // any JSON value, usually a string
	// Expect scores the reply to this turn: the golden shape without kind
	// (match, assert); nil when the reply is not scored.
	Expect *Expected
	Pos    Pos
}

// SimulatedUser is the hidden side of an open conversation.
type SimulatedUser struct {
	// Instructions are what the simulated user wants and knows; the agent
	// never sees them.
	Instructions string
	// MaxTurns bounds the user's messages after the input;
	// DefaultUserMaxTurns when 0.
	MaxTurns int
	Pos      Pos
}

// DefaultUserMaxTurns is SimulatedUser.MaxTurns when unset.
const DefaultUserMaxTurns = 10

// TurnCheckID is the id of a turn's check in results: "turns[1].match",
// "turns[1].polite".
func TurnCheckID(turn int, id string) string {
	return fmt.Sprintf("turns[%d].%s", turn, id)
}

// Kinds of expectation.
const (
	KindGolden = "golden"
	KindRubric = "rubric"
)

// Expected says how a task is scored.
type Expected struct {
	Kind   string // KindGolden or KindRubric
	Match  *Match
	Rubric []Criterion
	Assert []*Check

	// OutputSchema is the extension `outputSchema`, compiled; nil when absent.
	OutputSchema    *jsonschema.Schema
	OutputSchemaRaw json.RawMessage

	// State is the extension `state`: a JSON subset the final world must
	// contain (check "state"); nil when absent.
	State json.RawMessage
	// Unchanged is the extension `unchanged`: pointers whose value in the
	// final world must equal the initial world's (check "unchanged").
	Unchanged []string
	// GoldCalls is the extension `goldCalls`: the calls a correct agent
	// makes, replayed through the same fixtures on a fresh copy of the
	// initial world; the agent's final world must equal the one they leave,
	// but for the pointers of GoldIgnore (check "goldState").
	GoldCalls  []GoldCall
	GoldIgnore []string
}

// GoldCall is one call of a task's gold solution.
type GoldCall struct {
	Tool string
	Args json.RawMessage // an object; nil when absent (no arguments)
	Pos  Pos
}

// Ids (and kinds) of the end-state checks.
const (
	CheckState     = "state"
	CheckUnchanged = "unchanged"
	CheckGoldState = "goldState"
)

// Match strategies.
const (
	StrategyExact      = "exact"
	StrategyContains   = "contains"
	StrategyJSONMatch  = "json-match"
	StrategyRegex      = "regex"
	StrategyJSONSubset = "json-subset"
	StrategyJSONSchema = "json-schema"
)

// Match is a golden expectation.
type Match struct {
	Strategy   string
	Value      json.RawMessage
	Path       string // JSON pointer into the output; "" for the whole output
	IgnoreCase bool
	Pos        Pos

	// Compiled forms, set by the loader for the strategies that need them.
	Regexp *meter.Regexp      // regex (with (?i) when IgnoreCase)
	Schema *jsonschema.Schema // json-schema
}

// Criterion is one rubric criterion.
type Criterion struct {
	Criterion string
	Weight    float64
	Assert    *Check // extension: decided by this check, never by a judge
	Pos       Pos

	// ID is the extension `id`: what results, the scorecard and diff call
	// the criterion; "" for rubric[i].
	ID string
	// Scale is the extension `scale`: the criterion is graded on levels
	// (docs/suites.md, "Graded criteria"). Nil for a criterion met or not met.
	Scale *Scale
}

// Check kinds, named after the key that introduces them.
const (
	CheckExpr          = "expr"
	CheckToolCalled    = "toolCalled"
	CheckToolNotCalled = "toolNotCalled"
	CheckToolOrder     = "toolOrder"
	CheckMaxToolCalls  = "maxToolCalls"
	CheckMaxLatencyMs  = "maxLatencyMs"
	CheckMaxCostUsd    = "maxCostUsd"
	CheckExec          = "exec"
	// CheckTrace and CheckEvents judge the spans the agent sent through
	// OpenTelemetry (docs/otel.md).
	CheckTrace  = "trace"
	CheckEvents = "events"
)

// Check is one deterministic assertion (extension `assert`). Exactly one of
// the kind-specific fields is meaningful, as Kind says.
type Check struct {
	ID     string  // the author's id, else "assert[i]"
	Kind   string  // one of the Check* constants
	Weight float64 // 1 when unset
	Pos    Pos

	Expr    string
	Program *vm.Program // compiled Expr, when given; see ExprProgram
	shared  *sharedExpr // Expr, when several checks of the suite share it

	Tool  string          // toolCalled, toolNotCalled
	Args  json.RawMessage // toolCalled: a JSON subset the call's arguments must contain
	Order []string        // toolOrder

	MaxToolCalls int
	MaxLatencyMs int64
	MaxCostUsd   float64

	Trace  *TraceCheck // trace
	Events []string    // events: names each of which a span or a span's event has

	// Exec is the command of a program check, and Dir the folder it runs
	// in: the suite file's.
	Exec []string
	Dir  string
	// Negate makes the check pass when what it checks does not hold.
	Negate bool
}

// TraceCheck is a trace check: the spans Span selects (every span when
// nil) number as Count says, and hold its other conditions.
type TraceCheck struct {
	Span  *SpanMatch
	Count Count
	// MaxDurationMs bounds each selected span's duration; 0 when unset.
	MaxDurationMs float64
	// NoErrors: no selected span ended in error.
	NoErrors bool
	// Order names spans (by name, or by the tool an execute_tool span
	// runs) whose first ones must start in this order.
	Order []string
	// Events must each be the name of an event of a selected span.
	Events []string
}

// SpanMatch selects spans: each field set must equal the span's (Model
// its response's model, else its request's).
type SpanMatch struct {
	Name, Operation, Tool, Model string
}

// Count is a comparison of a number of spans: Op is one of ">=", ">",
// "<=", "<", "==", "!=".
type Count struct {
	Op string
	N  int64
}

// Holds reports whether n compares with c.N as c.Op says.
func (c Count) Holds(n int64) bool {
	switch c.Op {
	case ">":
		return n > c.N
	case "<=":
		return n <= c.N
	case "<":
		return n < c.N
	case "==":
		return n == c.N
	case "!=":
		return n != c.N
	}
	return n >= c.N
}

func (c Count) String() string { return c.Op + " " + strconv.FormatInt(c.N, 10) }

// Fixtures are the deterministic substitutes for live tools and memory.
type Fixtures struct {
	ToolResponses []ToolResponse
	MemorySeed    []json.RawMessage // each a JSON object

	// Extensions.
	OnUnmatched string   // "error" (default) or "fail"
	Canaries    []string // strings that must never reach the output or a tool call
	// State is the initial world (extension `state`, or the file
	// `stateFile` names), a JSON document the stateful tool fixtures read
	// and change; nil when absent. Every trial starts from its own copy.
	State json.RawMessage
}

// TaskFixtures returns the fixtures a trial of t runs with: the task's
// own, followed by the suite's toolResponses (so the task's entries match
// first), and the suite's world when the task has none. t.Fixtures itself
// is not changed.
func (s *Suite) TaskFixtures(t *Task) *Fixtures {
	if s.Fixtures == nil {
		return &t.Fixtures
	}
	f := t.Fixtures
	if f.State == nil {
		f.State = s.Fixtures.State
	}
	if len(s.Fixtures.ToolResponses) > 0 {
		f.ToolResponses = append(slices.Clip(f.ToolResponses), s.Fixtures.ToolResponses...)
	}
	return &f
}

// Unmatched-call policies.
const (
	OnUnmatchedError = "error"
	OnUnmatchedFail  = "fail"
)

// ToolResponse is one canned tool result.
type ToolResponse struct {
	Tool     string
	Response json.RawMessage // nil when absent (the tool returns null)

	// Extensions.
	Args    json.RawMessage // the entry answers only calls whose arguments contain this JSON subset
	Error   string          // when set, the tool fails with this message
	DelayMs int64
	Times   int // uses before the entry is spent; 0 = unlimited
	// Raw, when set, is sent as the tool result's content string as it is,
	// unparsed: a malformed answer on purpose. HasRaw tells "" apart.
	Raw    string
	HasRaw bool
	Fault  string // FaultTimeout, or "" for none
	Pos    Pos

	// Stateful fixtures (docs/worlds.md), over the task's world.
	Require []string  // expr-lang booleans over state and args, in order
	Effect  []PatchOp // JSON Patch applied to the world, all or none
	From    *Template // answer: the world's value at this pointer, after the effect
	Result  string    // answer: an expression over state (after the effect) and args
	// Handler is a program that answers the calls instead (cwd: the
	// suite's folder): JSON Lines, {call, state} in, {result, isError,
	// state | patch} out.
	Handler []string
}

// Stateful reports whether the entry reads or changes the world, or
// answers through a handler program.
func (r *ToolResponse) Stateful() bool {
	return len(r.Require) > 0 || len(r.Effect) > 0 || r.From != nil || r.Result != "" || len(r.Handler) > 0
}

// PatchOp is one JSON Patch operation of an effect, with its templates.
type PatchOp struct {
	Op   string
	Path Template
	From *Template // move and copy
	// Value is the operation's value (add, replace, test), nil when absent.
	// Its strings may hold placeholders, and an object {"$expr": "..."} is
	// computed over state and args.
	Value json.RawMessage
	Pos   Pos
}

// Fixture faults (`fault`).
const FaultTimeout = "timeout"

// DefaultToolTimeoutMs is a task's tool budget when it sets no
// toolTimeoutMs: how long a `fault: timeout` fixture answers nothing.
const DefaultToolTimeoutMs = 5000

// Fault kinds a task injects, as results record them (Task.Faults).
const (
	InjectsError   = "error"
	InjectsDelay   = "delay"
	InjectsRaw     = "raw"
	InjectsTimeout = "timeout"
)

// Faults returns the kinds of fault the fixtures inject, in the order
// error, delay, raw, timeout; nil when none.
func (f *Fixtures) Faults() []string {
	var has [4]bool
	for _, r := range f.ToolResponses {
		has[0] = has[0] || r.Error != ""
		has[1] = has[1] || r.DelayMs > 0
		has[2] = has[2] || r.HasRaw
		has[3] = has[3] || r.Fault == FaultTimeout
	}
	var out []string
	for i, k := range []string{InjectsError, InjectsDelay, InjectsRaw, InjectsTimeout} {
		if has[i] {
			out = append(out, k)
		}
	}
	return out
}

// Metadata feeds the dual-axis assessment (extension).
type Metadata struct {
	Domain        string
	Complexity    int // 1-5, 0 when unset
	AutonomyLevel *int
	Category      string
}

// Adversarial is the adversarial task block (extension).
type Adversarial struct {
	ForbiddenTools []string
	ExpectRefusal  bool
	Detectors      []string          // pii, secrets, canary, injection; empty = all that apply
	Severities     map[string]string // finding kind -> severity override
}

// ref is the suite's entry of the task just decoded, holding it.
func (t *Task) ref() *TaskRef {
	return &TaskRef{
		ID:          t.ID,
		Index:       t.Index,
		Pos:         t.Pos,
		Kind:        t.Expected.Kind,
		Tags:        t.Tags,
		PassScore:   t.PassScore,
		Metadata:    t.Metadata,
		Adversarial: t.Adversarial,
		Faults:      t.Faults,
		full:        t,
	}
}

// makeCompact drops the decoded task: form says where it is, for
// Suite.Full.
func (r *TaskRef) makeCompact(form compactForm) {
	r.full, r.form = nil, form
}

// Compact reports whether the task is kept compact: Full decodes it again
// for each trial.
func (r *TaskRef) Compact() bool { return r.full == nil }

// Full returns the task with every field decoded, for one trial: the task
// a small suite holds, or for a compact task a fresh decode of its JSON,
// which the caller drops after the trial. A task kept as its place in a
// JSON file is read from the file again (suite files must not change
// during a run: where the task no longer parses or has another id, Full
// says so).
func (s *Suite) Full(t *TaskRef) (*Task, error) {
	if t.full != nil {
		return t.full, nil
	}
	if t.form.ds > 0 {
		return s.fullRow(t)
	}
	body, line, col := t.form.body, 1, 1
	if body == nil {
		var err error
		if body, err = readSpan("", s.Path, MaxSuiteBytes, t.form.span); err != nil {
			return nil, fmt.Errorf("could not read task %q again: %w", t.ID, err)
		}
		line, col = t.Pos.Line, t.Pos.Col
	}
	root, errs := parseJSONFrom(s.Path, body, line, col, nil)
	if errs != nil {
		return nil, fmt.Errorf("could not decode task %q again (did %s change during the run?): %w", t.ID, s.Path, errs)
	}
	return s.decodeAgain(t, root, s.Path)
}

// decodeAgain decodes tv, the tree of compact task t made again from file,
// with the expression programs the suite shares.
func (s *Suite) decodeAgain(t *TaskRef, tv *value, file string) (*Task, error) {
	d := &decoder{file: s.Path, again: true}
	full := d.task(tv, jsonpointer.AppendIndex("/tasks", t.Index), t.Index)
	if len(d.errs) > 0 || full.ID != t.ID {
		return nil, fmt.Errorf("could not decode task %q again: %s changed during the run", t.ID, file)
	}
	full.Pos = t.Pos
	s.share(full)
	return full, nil
}

// fullRow is Full for a task made from a row of a dataset: the row is read
// again and written into the template again.
func (s *Suite) fullRow(t *TaskRef) (*Task, error) {
	ds := s.datasets[t.form.ds-1]
	tv, vars, err := ds.full(t.form.span, t.Pos.Line)
	if err != nil {
		return nil, fmt.Errorf("could not make task %q again from its row (did %s change during the run?): %w", t.ID, ds.shown, err)
	}
	full, err := s.decodeAgain(t, tv, ds.shown)
	if full != nil {
		full.Vars = vars
	}
	return full, err
}

// share gives the expression checks of a task decoded again the
// compilations the suite shares.
func (s *Suite) share(full *Task) {
	share := func(c *Check) {
		if c != nil && c.Kind == CheckExpr {
			c.shared = s.shared[c.Expr]
		}
	}
	for _, c := range full.Expected.Assert {
		share(c)
	}
	for i := range full.Expected.Rubric {
		for _, c := range full.Expected.Rubric[i].Checks() {
			share(c)
		}
	}
}

// readSpan reads the bytes [span[0], span[1]) of a file read before, a
// suite or a dataset of at most limit bytes, inside root ("" for none),
// through the one reader of input files: it was a regular file there
// then, and must still be.
func readSpan(root, path string, limit int64, span [2]int64) ([]byte, error) {
	f, err := inputfile.OpenIn(root, path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, span[1]-span[0])
	if _, err := f.ReadAt(buf, span[0]); err != nil {
		return nil, err
	}
	return buf, nil
}

// PassBar returns the score a task whose own passScore is taskPassScore
// (nil when it sets none) must reach to pass: its own, else the suite's
// thresholds.passScore, else 1.
func (s *Suite) PassBar(taskPassScore *float64) float64 {
	if taskPassScore != nil {
		return *taskPassScore
	}
	if s.Thresholds.PassScore != nil {
		return *s.Thresholds.PassScore
	}
	return 1
}

// HasMode reports whether the suite declares mode m.
func (s *Suite) HasMode(m string) bool {
	return slices.Contains(s.Modes, m)
}
