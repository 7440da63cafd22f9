package history

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/evalgate/evalgate/results"
)

// Schema names the record format. A record of another schema is skipped
// on reading: a newer evalgate wrote it.
const Schema = "evalgate-history/1"

// schemaPrefix starts every schema of the record format, this one's and
// those of later versions.
const schemaPrefix = "evalgate-history/"

// MaxRecordBytes bounds one record: a record of a 1,000-task suite is
// some 100 KB. A larger one is skipped on reading and refused on writing.
const MaxRecordBytes = 4 << 20

// Events a record may name: what started the run.
const (
	EventPush        = "push"
	EventPullRequest = "pull_request"
	EventSchedule    = "schedule"
	EventLocal       = "local"
)

// Record is one run's entry in the history: names, numbers and statuses
// only, like results.json, never task input, output or prose
// (docs/history.md, "The record").
type Record struct {
	Schema          string    `json:"schema"`
	RunID           string    `json:"runId"`
	StartedAt       time.Time `json:"startedAt"`
	DurationMs      int64     `json:"durationMs"`
	Commit          string    `json:"commit,omitempty"`
	Ref             string    `json:"ref,omitempty"`
	Event           string    `json:"event"`
	EvalgateVersion string    `json:"evalgateVersion"`
	// Repository is the repository the run was of (GITHUB_REPOSITORY);
	// a store several repositories share tells them apart by it.
	Repository string `json:"repository,omitempty"`
	// Agent identifies the agent: assessment.agent.id of the config,
	// and agent.version.
	Agent *Agent `json:"agent,omitempty"`
	// Selection is always null: only a run of every task is recorded.
	Selection *results.Selection `json:"selection"`
	Suites    []Suite            `json:"suites"`
	// Tasks are keyed "<suiteId>/<taskId>".
	Tasks      map[string]Task `json:"tasks"`
	Gates      []Gate          `json:"gates"`
	Assessment *Assessment     `json:"assessment,omitempty"`
	Trust      *Trust          `json:"trust,omitempty"`
}

// Agent identifies the agent a record is of.
type Agent struct {
	ID      string `json:"id,omitempty"`
	Version string `json:"version,omitempty"`
}

// Suite is one suite's figures in a record.
type Suite struct {
	SuiteID      string  `json:"suiteId"`
	Version      string  `json:"version"`
	Score        float64 `json:"score"`
	Passed       bool    `json:"passed"`
	TaskCount    int     `json:"taskCount"`
	PassedCount  int     `json:"passedCount"`
	ErrorCount   int     `json:"errorCount"`
	CostUsd      float64 `json:"costUsd"`
	UserCostUsd  float64 `json:"userCostUsd"`
	P95LatencyMs int64   `json:"p95LatencyMs"`
}

// PassRate is the share of the suite's tasks that passed.
func (s *Suite) PassRate() float64 {
	if s.TaskCount == 0 {
		return 0
	}
	return float64(s.PassedCount) / float64(s.TaskCount)
}

// Task is one task's outcome in a record.
type Task struct {
	Status       string  `json:"status"` // passed, failed or error
	Trials       int     `json:"trials"`
	PassedTrials int     `json:"passedTrials"`
	LatencyMs    int64   `json:"latencyMs"`
	CostUsd      float64 `json:"costUsd"`
	// Errors counts the trials that ended in an error, by kind
	// (results.json's errorKind: timeout, agent-exit, ...); absent when
	// none did. The trust scorecard's runtime adjustments read them.
	Errors map[string]int `json:"errors,omitempty"`
}

// Gate is one gate of the run with its verdict.
type Gate struct {
	Expr   string `json:"expr"`
	Passed bool   `json:"passed"`
}

// Assessment is the run's AAAF assessment in short.
type Assessment struct {
	Performance Axis `json:"performance"`
	Capability  Axis `json:"capability"`
}

// Axis is one axis of an Assessment: its composite (null when nothing was
// measured) and tier.
type Axis struct {
	Score *float64 `json:"score"`
	Tier  string   `json:"tier,omitempty"`
}

// Trust is the run's trust scorecard in short: the score, the level and
// each dimension's points, which trust preflight checks against the
// level's minima.
type Trust struct {
	Score      float64                 `json:"score"`
	Level      int                     `json:"level"`
	Dimensions results.TrustDimensions `json:"dimensions"`
}

// Meta is what a record says about the run beside its results.
type Meta struct {
	Commit     string
	Ref        string
	Event      string
	Repository string
	Agent      *Agent
}

// RecordProblem says why a run is not recorded; "" when it may be: only
// a run of every task, whole and finished, or a merge of all its shards,
// is history (the rule of baseline promote).
func RecordProblem(r *results.Run) string {
	switch {
	case r.Interrupted:
		return "it was interrupted, so it holds only the tasks that finished"
	case r.Shard != nil:
		return fmt.Sprintf("it is shard %d of %d; record what evalgate merge writes from all the shards", r.Shard.Index, r.Shard.Count)
	case r.Selection.Flags() != "":
		return fmt.Sprintf("it ran only some of the tasks (%s)", r.Selection.Flags())
	}
	return ""
}

// FromRun makes the record of a finished run. A task whose trials are not
// in memory (a passed task, whose trials the run spilled to disk) passed
// every trial: its TrialsPassed are its trials.
func FromRun(r *results.Run, m Meta) *Record {
	rec := &Record{
		Schema:          Schema,
		RunID:           r.RunID,
		StartedAt:       r.StartedAt.UTC(),
		DurationMs:      max(0, r.FinishedAt.Sub(r.StartedAt).Milliseconds()),
		Commit:          cmp.Or(m.Commit, r.GitSHA),
		Ref:             m.Ref,
		Event:           cmp.Or(m.Event, EventLocal),
		EvalgateVersion: r.Tool.Version,
		Repository:      m.Repository,
		Agent:           m.Agent,
		Suites:          make([]Suite, 0, len(r.Suites)),
		Tasks:           map[string]Task{},
		Gates:           make([]Gate, 0, len(r.Gates)),
	}
	for i := range r.Suites {
		s := &r.Suites[i]
		rec.Suites = append(rec.Suites, Suite{
			SuiteID: s.ID, Version: s.Version, Score: s.AggregateScore, Passed: s.Passed,
			TaskCount: s.TaskCount, PassedCount: s.PassedCount, ErrorCount: s.ErroredCount,
			CostUsd: s.TotalCostUsd, UserCostUsd: s.UserCostUsd, P95LatencyMs: s.P95LatencyMs,
		})
		for j := range s.Tasks {
			t := &s.Tasks[j]
			rec.Tasks[s.ID+"/"+t.ID] = taskOf(t)
		}
	}
	for _, g := range r.Gates {
		rec.Gates = append(rec.Gates, Gate{Expr: g.Expr, Passed: g.Passed})
	}
	if a := r.Assessment; a != nil {
		rec.Assessment = &Assessment{
			Performance: Axis{Score: a.Performance.Score, Tier: a.Performance.Tier},
			Capability:  Axis{Score: a.Capability.Score, Tier: a.Capability.Tier},
		}
	}
	if t := r.Trust; t != nil {
		rec.Trust = &Trust{Score: t.Score, Level: t.Level, Dimensions: t.Dimensions}
	}
	return rec
}

func taskOf(t *results.Task) Task {
	out := Task{Status: t.Status, PassedTrials: t.TrialsPassed, LatencyMs: t.LatencyMs, CostUsd: t.CostUsd}
	out.Trials = len(t.Trials)
	if out.Trials == 0 {
		out.Trials = t.TrialsPassed
	}
	for _, tr := range t.Trials {
		if tr.Status == results.StatusError && tr.ErrorKind != "" {
			if out.Errors == nil {
				out.Errors = map[string]int{}
			}
			out.Errors[tr.ErrorKind]++
		}
	}
	if out.Errors == nil && t.Status == results.StatusError && len(t.Trials) == 0 && t.ErrorKind != "" {
		out.Errors = map[string]int{t.ErrorKind: 1}
	}
	return out
}

// Encode is the record as it is stored: compact JSON, keys in a fixed
// order (tasks sorted), ending with a newline. A record over
// MaxRecordBytes is an error: no reader would take it.
func Encode(rec *Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return nil, fmt.Errorf("could not encode the history record of run %s: %w", rec.RunID, err)
	}
	if b.Len() > MaxRecordBytes {
		return nil, fmt.Errorf("the history record of run %s is %s, over the %s a record may hold; a suite of this size is not recorded", rec.RunID, sizeOf(int64(b.Len())), sizeOf(MaxRecordBytes))
	}
	return b.Bytes(), nil
}

// Decode reads one stored record and checks it: the schema, every field
// a record must have, each number finite and in its range, each status
// and event one of those a run writes. The error says what is wrong, by
// the field's JSON pointer.
func Decode(data []byte) (*Record, error) {
	if len(data) > MaxRecordBytes {
		return nil, fmt.Errorf("the record is %s, over the %s a record may hold", sizeOf(int64(len(data))), sizeOf(MaxRecordBytes))
	}
	// One pass for a good record; the schema alone, read again, says
	// what is wrong with one that does not decode.
	var rec Record
	err := json.Unmarshal(data, &rec)
	if err == nil && rec.Schema == Schema {
		if err := rec.check(); err != nil {
			return nil, err
		}
		return &rec, nil
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if herr := json.Unmarshal(data, &head); herr != nil {
		return nil, fmt.Errorf("not a JSON object: %s", jsonProblem(herr))
	}
	switch {
	case head.Schema == nil:
		return nil, errors.New("/schema: missing; expected " + Schema)
	case *head.Schema != Schema && strings.HasPrefix(*head.Schema, schemaPrefix):
		return nil, &FutureError{Schema: *head.Schema}
	case *head.Schema != Schema:
		return nil, fmt.Errorf("/schema: expected %s, got %q", Schema, clip(*head.Schema))
	}
	return nil, errors.New(jsonProblem(err))
}

// FutureError is a record of a later schema than this evalgate reads.
type FutureError struct{ Schema string }

func (e *FutureError) Error() string {
	return fmt.Sprintf("written by a newer evalgate (schema %s; this one reads %s): upgrade evalgate to read it", clip(e.Schema), Schema)
}

// jsonProblem words a decoding error without Go's type names.
func jsonProblem(err error) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		field := te.Field
		if strings.HasPrefix(te.Value, "number") {
			return fmt.Sprintf("%s: expected a finite number in range, got %s", field, clip(te.Value))
		}
		return fmt.Sprintf("%s: expected %s, got %s", field, typeWord(te.Type.Kind().String()), clip(te.Value))
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	}
	if pe, ok := errors.AsType[*time.ParseError](err); ok {
		return fmt.Sprintf("/startedAt: expected an RFC 3339 time, got %q", clip(pe.Value))
	}
	return err.Error()
}

func typeWord(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "int", "int64", "float64":
		return "a number"
	case "map", "struct":
		return "an object"
	case "slice":
		return "a list"
	}
	return "another type"
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:61] + "..."
	}
	return s
}

// Ranges of a record's strings.
const (
	maxIDBytes  = 256 // a run id, a suite or task id, a version, a ref
	maxKeyBytes = 2*maxIDBytes + 1
	maxExpr     = 4096
)

// check is the schema of a record, beyond its JSON types.
func (r *Record) check() error {
	c := &checker{}
	c.id("/runId", r.RunID, true)
	if !safeName(r.RunID) {
		c.failf("/runId: expected letters, digits, '.', '_' or '-', got %q", clip(r.RunID))
	}
	if r.StartedAt.IsZero() {
		c.failf("/startedAt: missing; expected the time the run started")
	}
	c.latency("/durationMs", r.DurationMs)
	c.id("/commit", r.Commit, false)
	c.id("/ref", r.Ref, false)
	c.id("/evalgateVersion", r.EvalgateVersion, false)
	c.id("/repository", r.Repository, false)
	switch r.Event {
	case EventPush, EventPullRequest, EventSchedule, EventLocal:
	default:
		c.failf("/event: expected one of push, pull_request, schedule, local, got %q", clip(r.Event))
	}
	if r.Agent != nil {
		c.id("/agent/id", r.Agent.ID, false)
		c.id("/agent/version", r.Agent.Version, false)
	}
	if r.Suites == nil {
		c.failf("/suites: missing; expected a list")
	}
	for i, s := range r.Suites {
		p := fmt.Sprintf("/suites/%d", i)
		c.id(p+"/suiteId", s.SuiteID, true)
		c.id(p+"/version", s.Version, false)
		c.score(p+"/score", s.Score)
		c.count(p+"/taskCount", s.TaskCount)
		c.count(p+"/passedCount", s.PassedCount)
		c.count(p+"/errorCount", s.ErrorCount)
		c.cost(p+"/costUsd", s.CostUsd)
		c.cost(p+"/userCostUsd", s.UserCostUsd)
		c.latency(p+"/p95LatencyMs", s.P95LatencyMs)
		if s.PassedCount+s.ErrorCount > s.TaskCount {
			c.failf("%s: passedCount %d and errorCount %d are more than taskCount %d", p, s.PassedCount, s.ErrorCount, s.TaskCount)
		}
	}
	if r.Tasks == nil {
		c.failf("/tasks: missing; expected an object")
	}
	r.checkTasks(c)
	for i, g := range r.Gates {
		if len(g.Expr) > maxExpr || !printable(g.Expr) {
			c.failf("/gates/%d/expr: expected a gate expression of at most %d bytes", i, maxExpr)
		}
	}
	if a := r.Assessment; a != nil {
		for _, ax := range []struct {
			name string
			axis Axis
		}{{"performance", a.Performance}, {"capability", a.Capability}} {
			if ax.axis.Score != nil {
				c.score("/assessment/"+ax.name+"/score", *ax.axis.Score)
			}
			c.id("/assessment/"+ax.name+"/tier", ax.axis.Tier, false)
		}
	}
	if t := r.Trust; t != nil {
		c.in("/trust/score", t.Score, 0, 100, "a score from 0 to 100")
		c.in("/trust/level", float64(t.Level), results.MinTrustLevel, results.MaxTrustLevel, "a level from 0 to 4")
		for _, d := range dimensions(t.Dimensions) {
			c.in("/trust/dimensions/"+d.name, float64(d.points), 0, 20, "points from 0 to 20")
		}
	}
	return c.err
}

// checkTasks checks the tasks: each one quickly, and only when one is
// wrong, all of them again in key order with their pointers, so that the
// error names the first wrong task whatever the map's order.
func (r *Record) checkTasks(c *checker) {
	ok := true
	for k, t := range r.Tasks {
		if !taskOK(k, &t) {
			ok = false
			break
		}
	}
	if ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(r.Tasks)) {
		t := r.Tasks[k]
		p := "/tasks/" + pointerKey(k)
		suite, task, ok := strings.Cut(k, "/")
		if !ok || suite == "" || task == "" || len(k) > maxKeyBytes || !printable(k) {
			c.failf("%s: expected a key <suiteId>/<taskId>", p)
		}
		switch t.Status {
		case results.StatusPassed, results.StatusFailed, results.StatusError:
		default:
			c.failf("%s/status: expected one of passed, failed, error, got %q", p, clip(t.Status))
		}
		c.count(p+"/trials", t.Trials)
		c.count(p+"/passedTrials", t.PassedTrials)
		if t.PassedTrials > t.Trials {
			c.failf("%s/passedTrials: %d, more than its %d trials", p, t.PassedTrials, t.Trials)
		}
		c.latency(p+"/latencyMs", t.LatencyMs)
		c.cost(p+"/costUsd", t.CostUsd)
		for kind, n := range t.Errors {
			c.id(p+"/errors (a kind)", kind, true)
			c.count(p+"/errors/"+pointerKey(kind), n)
		}
		if c.err != nil {
			break
		}
	}
}

// taskOK is the checks of checkTasks without their messages.
func taskOK(k string, t *Task) bool {
	suite, task, found := strings.Cut(k, "/")
	if !found || suite == "" || task == "" || len(k) > maxKeyBytes || !printable(k) {
		return false
	}
	switch t.Status {
	case results.StatusPassed, results.StatusFailed, results.StatusError:
	default:
		return false
	}
	if !countOK(t.Trials) || !countOK(t.PassedTrials) || t.PassedTrials > t.Trials ||
		!inRange(float64(t.LatencyMs), 0, results.MaxLatencyMs) || !inRange(t.CostUsd, 0, results.MaxCostUsd) {
		return false
	}
	for kind, n := range t.Errors {
		if kind == "" || len(kind) > maxIDBytes || !printable(kind) || !countOK(n) {
			return false
		}
	}
	return true
}

func inRange(v, lo, hi float64) bool { return !math.IsNaN(v) && v >= lo && v <= hi }
func countOK(n int) bool             { return inRange(float64(n), 0, results.MaxCount) }

// checker keeps the first problem of a record.
type checker struct{ err error }

func (c *checker) failf(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

func (c *checker) in(ptr string, v, lo, hi float64, want string) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		c.failf("%s: expected %s, got %v", ptr, want, v)
	}
}

func (c *checker) score(ptr string, v float64) { c.in(ptr, v, 0, 1, "a number from 0 to 1") }
func (c *checker) cost(ptr string, v float64) {
	c.in(ptr, v, 0, results.MaxCostUsd, "a cost from 0 to 1e9 US dollars")
}
func (c *checker) latency(ptr string, v int64) {
	c.in(ptr, float64(v), 0, results.MaxLatencyMs, "milliseconds from 0 to 1e12")
}
func (c *checker) count(ptr string, v int) {
	c.in(ptr, float64(v), 0, results.MaxCount, "a count from 0 to 1e12")
}

// id checks a name: at most maxIDBytes of printable text, and present
// when required.
func (c *checker) id(ptr, v string, required bool) {
	switch {
	case v == "" && required:
		c.failf("%s: missing", ptr)
	case len(v) > maxIDBytes:
		c.failf("%s: %d bytes, more than the %d a name may have", ptr, len(v), maxIDBytes)
	case !printable(v):
		c.failf("%s: holds a control character", ptr)
	}
}

// printable reports whether s holds no control character.
func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}

// safeName reports whether s may name a file: letters, digits, '.', '_'
// and '-', not starting with '.'.
func safeName(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func pointerKey(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// sizeOf writes a size in bytes as people read it.
func sizeOf(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// FileName is the name a record is stored under in a folder or on a
// branch: the start time in UTC, ISO 8601's basic format to the
// millisecond, then the run id, so names sort by time.
func FileName(rec *Record) string {
	return rec.StartedAt.UTC().Format(nameTime) + "-" + rec.RunID + ".json"
}

// nameTime is the time of a record's file name; nameTimeSeconds the same
// to the second, which a name may have too.
const (
	nameTime        = "20060102T150405.000Z"
	nameTimeSeconds = "20060102T150405Z"
)

// isRecordName reports whether name looks like a record's file name.
func isRecordName(name string) bool {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return false
	}
	for _, layout := range []string{nameTime, nameTimeSeconds} {
		if len(base) < len(layout)+2 || base[len(layout)] != '-' {
			continue
		}
		if _, err := time.Parse(layout, base[:len(layout)]); err == nil {
			return safeName(base[len(layout)+1:])
		}
	}
	return false
}
