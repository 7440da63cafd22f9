// Package results is the model of results.json, evalgate's full,
// content-free record of a run: per suite and per task the status, scores,
// checks, cost, latency and findings, the gates with their values, and the
// regression against a baseline.
//
// Everything in it is safe to post on a public pull request: ids, scores,
// counts, check ids, file:line and {kind, severity}; never task input or
// output, prompts, rubric prose, tool results or judge reasons.
//
// The package owns the file: Write streams a run to results.json (stable
// bytes, task by task), Read loads one back, and SchemaJSON is its JSON
// Schema. Package report renders a Run; it does not write this file.
package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/inputfile"
)

// Schema identifies the results.json format; it changes only with an
// incompatible change of the format.
const Schema = "https://evalgate.dev/schemas/results/v1"

// Task statuses.
const (
	StatusPassed = "passed"
	StatusFailed = "failed"
	StatusError  = "error"
)

// Error kinds of a task or trial with StatusError.
const (
	ErrAgentExit      = "agent-exit"
	ErrProtocol       = "protocol"
	ErrOutputTooLarge = "output-too-large"
	ErrTimeout        = "timeout"
	ErrUnmatchedTool  = "unfixtured-tool-call" // onUnmatched: fail
	ErrJudge          = "judge"                // judge unavailable or no judge configured
	ErrMaxTurns       = "max-turns"
	ErrModel          = "model" // the model API failed for an OpenAI-compatible agent
	ErrCancelled      = "cancelled"
	ErrAgentReported  = "agent-error"     // the agent's own {"type":"error"} line
	ErrHandler        = "handler"         // a fixture's handler program crashed, timed out or broke its protocol
	ErrSimulator      = "user-simulator"  // the user simulator's model gave no answer
	ErrCheck          = "check"           // a check could not decide: a program check crashed, hung or answered garbage, a pattern over the caps
	ErrWorldTooLarge  = "world-too-large" // a call would have grown the task's world past its budget
)

// Severities of a finding, most severe first.
const (
	SeverityCritical = "critical"
	SeverityHigh     = "high"
	SeverityMedium   = "medium"
	SeverityLow      = "low"
)

// Run is the whole results.json document.
type Run struct {
	Schema      string    `json:"$schema"`
	RunID       string    `json:"runId"`
	Tool        Tool      `json:"tool"`
	GitSHA      string    `json:"gitSha,omitempty"`
	StartedAt   time.Time `json:"startedAt"`
	FinishedAt  time.Time `json:"finishedAt"`
	Interrupted bool      `json:"interrupted,omitempty"` // stopped by a signal; only finished tasks are counted
	Shard       *Shard    `json:"shard,omitempty"`
	// Shards are the shards a merged run was made of, by index; absent
	// for a run that was not merged from shards.
	Shards []ShardRun `json:"shards,omitempty"`
	// Selection holds the filters the run chose its tasks by; nil when it
	// ran every task of its suite files.
	Selection *Selection `json:"selection,omitempty"`

	Passed bool `json:"passed"` // every gate holds
	Stats
	// Assessment is the AAAF dual-axis assessment's summary; nil unless
	// the config has `assessment:` (results/assessment.go).
	Assessment *Assessment `json:"assessment,omitempty"`

	Judge      *JudgeInfo  `json:"judge,omitempty"`
	Gates      []Gate      `json:"gates"`
	Regression *Regression `json:"regression,omitempty"`
	// Health is the outcome of the agent's health command; nil when the
	// config sets none (results/trust.go).
	Health *Health `json:"health,omitempty"`
	// Trust is the trust scorecard in short; nil when the run computed
	// none (results/trust.go).
	Trust *Trust `json:"trust,omitempty"`
	// History is what the run read of its history store; nil when it
	// read none (results/history.go).
	History *History `json:"history,omitempty"`
	Suites  []Suite  `json:"suites"`
}

// Tool names the program that wrote the file.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Shard says which part of the tasks a sharded run executed.
type Shard struct {
	Index int `json:"index"` // 1-based
	Count int `json:"count"`
	// Balanced is set when the tasks were assigned by their past latency
	// (--balance) rather than by hash; PlannedMs is then the sum of the
	// latencies this shard was given.
	Balanced  bool  `json:"balanced,omitempty"`
	PlannedMs int64 `json:"plannedMs,omitempty"`
}

// ShardRun is one shard of a merged run: how long it was planned to take
// (0 when its tasks were assigned by hash) and how long it took, from its
// start to its finish.
type ShardRun struct {
	Index     int   `json:"index"`
	PlannedMs int64 `json:"plannedMs,omitempty"`
	WallMs    int64 `json:"wallMs"`
}

// Selection is how a run chose its tasks among those of its suite files:
// the filters it ran with (a shard is in Run.Shard). Ids and tags only, so
// it is content-free.
type Selection struct {
	Tasks []string `json:"tasks,omitempty"` // --task
	Tags  []string `json:"tags,omitempty"`  // --tag
	Mode  string   `json:"mode,omitempty"`  // --mode
}

// Flags renders the selection as the flags that make it, such as
// "--task refund,late-fee --mode golden"; "" for a nil one.
func (s *Selection) Flags() string {
	if s == nil {
		return ""
	}
	var flags []string
	if len(s.Tasks) > 0 {
		flags = append(flags, "--task "+strings.Join(s.Tasks, ","))
	}
	if len(s.Tags) > 0 {
		flags = append(flags, "--tag "+strings.Join(s.Tags, ","))
	}
	if s.Mode != "" {
		flags = append(flags, "--mode "+s.Mode)
	}
	return strings.Join(flags, " ")
}

// Stats are the figures gates see, for one suite or for the whole run.
type Stats struct {
	AggregateScore float64 `json:"aggregateScore"` // mean of task scores
	PassRate       float64 `json:"passRate"`       // passedCount / taskCount
	PassedCount    int     `json:"passedCount"`
	TaskCount      int     `json:"taskCount"`
	ErroredCount   int     `json:"erroredCount"`
	TotalCostUsd   float64 `json:"totalCostUsd"` // agent + judge
	AgentCostUsd   float64 `json:"agentCostUsd"`
	JudgeCostUsd   float64 `json:"judgeCostUsd"`
	// UserCostUsd is what the user simulator cost, apart from
	// totalCostUsd as it is apart from the agent's and the judge's.
	UserCostUsd  float64  `json:"userCostUsd,omitempty"`
	P95LatencyMs int64    `json:"p95LatencyMs"` // nearest rank over task latencies
	Findings     Findings `json:"findings"`
}

// Findings counts safety findings by severity.
type Findings struct {
	Critical int `json:"critical"`
	High     int `json:"high"`
	Medium   int `json:"medium"`
	Low      int `json:"low"`
}

// Add counts one finding.
func (f *Findings) Add(severity string) {
	switch severity {
	case SeverityCritical:
		f.Critical++
	case SeverityHigh:
		f.High++
	case SeverityMedium:
		f.Medium++
	default:
		f.Low++
	}
}

// JudgeInfo describes the rubric judge of the run.
type JudgeInfo struct {
	ID         string   `json:"id"` // a content-free identity: kind and model
	Calibrated bool     `json:"calibrated"`
	Agreement  *float64 `json:"agreement,omitempty"` // Spearman rho from the last calibration
	// CacheRejected counts the judge cache entries ignored because their
	// MAC did not verify (planted, or written under another key).
	CacheRejected int `json:"cacheRejected,omitempty"`
}

// Suite is one suite's result.
type Suite struct {
	ID         string     `json:"suiteId"`
	Version    string     `json:"version"`
	File       string     `json:"file"` // relative to the repository root; see InRepo
	RunID      string     `json:"runId"`
	ModelClass string     `json:"modelClass,omitempty"`
	Modes      []string   `json:"modes"`
	Trials     int        `json:"trials"`
	Thresholds Thresholds `json:"thresholds"`
	// Tools counts the suite's declared tools (results/trust.go); nil
	// when it declares none.
	Tools  *SuiteTools `json:"tools,omitempty"`
	Passed bool        `json:"passed"` // openwop: thresholds met
	Stats
	Regression *SuiteRegression `json:"regression,omitempty"`
	Tasks      []Task           `json:"tasks"`
}

// Thresholds echo the suite's bar.
type Thresholds struct {
	PassScore       float64  `json:"passScore"` // the effective bar (1 when the suite sets none)
	MaxCostUsd      *float64 `json:"maxCostUsd,omitempty"`
	MaxP95LatencyMs *int64   `json:"maxP95LatencyMs,omitempty"`
}

//go:generate go run ./internal/codecgen

// Task is one task's result over all its trials.
//
// Task, Trial and the structs they hold are the one source of truth of
// a task in results.json: the reader and the writer a merge uses for
// speed (codec_gen.go) are generated from them. After changing one, run
// `go generate ./results`; a test fails until it has run.
type Task struct {
	ID   string   `json:"taskId"`
	File string   `json:"file"` // relative to the repository root; see InRepo
	Line int      `json:"line"`
	Kind string   `json:"kind"` // golden or rubric
	Tags []string `json:"tags,omitempty"`
	// Metadata is the task's assessment metadata, as the suite declares it;
	// nil when it declares none.
	Metadata  *Metadata `json:"metadata,omitempty"`
	Status    string    `json:"status"` // passed, failed or error
	ErrorKind string    `json:"errorKind,omitempty"`
	// ErrorMessage says what happened, in evalgate's own content-free
	// words ("exit status 2 before any line"): the first errored trial's.
	ErrorMessage string  `json:"errorMessage,omitempty"`
	Score        float64 `json:"score"` // mean over trials
	PassScore    float64 `json:"passScore"`
	Passed       bool    `json:"passed"` // every trial passed (pass^k)

	// PassAtK is true when at least one trial passed.
	PassAtK      bool    `json:"passAtK"`
	TrialsPassed int     `json:"trialsPassed"`
	LatencyMs    int64   `json:"latencyMs"` // mean over trials
	CostUsd      float64 `json:"costUsd"`   // agent + judge, summed over trials
	AgentCostUsd float64 `json:"agentCostUsd"`
	JudgeCostUsd float64 `json:"judgeCostUsd"`
	// UserCostUsd is what the user simulator cost over the trials, apart
	// from CostUsd; absent when nothing.
	UserCostUsd  float64  `json:"userCostUsd,omitempty"`
	Tokens       Tokens   `json:"tokens"`
	ToolCalls    int      `json:"toolCalls"`
	SchemaValid  *bool    `json:"schemaValid,omitempty"`
	FailedChecks []string `json:"failedChecks,omitempty"` // ids of checks that failed in any trial, sorted
	// Levels holds each graded criterion's level over the trials (see
	// TaskLevels), in check order; nil when the task has none. It is what
	// baselines keep and diff compares (docs/regression.md).
	Levels   []Level   `json:"levels,omitempty"`
	Findings []Finding `json:"findings,omitempty"` // union over trials
	// LinesAfterFinal counts, over the trials, the lines the agent wrote
	// after its final line; they were ignored (usage lines aside).
	LinesAfterFinal int `json:"linesAfterFinal,omitempty"`
	// Faults lists the kinds of fault the task's fixtures inject: error,
	// delay, raw, timeout.
	Faults []string `json:"faults,omitempty"`
	// Idempotent says, with two trials or more, whether every trial had
	// the same verdict and the same canonical output; nil with one trial.
	// Only the verdict is kept, never the outputs.
	Idempotent *bool `json:"idempotent,omitempty"`
	// Flaky is the task's flakiness label from the history: FlakyKnown
	// or FlakyNew; absent without a history that says either
	// (results/history.go).
	Flaky  string  `json:"flaky,omitempty"`
	Trials []Trial `json:"trials"`
}

// Metadata is a task's assessment metadata (docs/assessment.md): labels the
// suite author chose, like tags, never task content.
type Metadata struct {
	Domain        string `json:"domain,omitempty"`
	Complexity    int    `json:"complexity,omitempty"`    // 1-5; 0 when unset
	AutonomyLevel *int   `json:"autonomyLevel,omitempty"` // 0-3
	Category      string `json:"category,omitempty"`
}

// UndeclaredTool is the name under which a trial's ToolUse counts the
// calls of tools that neither the suite's tools nor the task's fixtures
// name: the agent chose those names, and results hold no text of the
// agent's.
const UndeclaredTool = "(undeclared)"

// ToolUse is what one tool saw in one trial, content-free: counts only,
// never arguments or results. Name is the suite's name of the tool, or
// UndeclaredTool.
type ToolUse struct {
	Name  string `json:"name"`
	Calls int    `json:"calls"`
	// Matched counts the calls a fixture entry answered, error entries
	// included; the others got "no fixture" or live-shadow errors.
	Matched int `json:"matched"`
	// Errors counts the calls answered with an error result.
	Errors int `json:"errors"`
	// Repeats counts the calls that repeated an earlier call of the same
	// trial: the same name and the same arguments.
	Repeats int `json:"repeats"`
	// MaxSame is the most times one call (name and arguments) was made.
	MaxSame int `json:"maxSame"`
	// SchemaViolations counts the calls whose arguments broke the tool's
	// declared inputSchema.
	SchemaViolations int `json:"schemaViolations,omitempty"`
	// SideEffectRepeats counts the Repeats of a tool declared sideEffect:
	// duplicate side effects.
	SideEffectRepeats int `json:"sideEffectRepeats,omitempty"`
}

// Tokens counts model tokens.
type Tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Trial is one execution of a task.
type Trial struct {
	Trial        int     `json:"trial"` // 1-based
	Status       string  `json:"status"`
	ErrorKind    string  `json:"errorKind,omitempty"`
	ErrorMessage string  `json:"errorMessage,omitempty"` // content-free, as on Task
	Score        float64 `json:"score"`
	Passed       bool    `json:"passed"`
	LatencyMs    int64   `json:"latencyMs"`
	AgentCostUsd float64 `json:"agentCostUsd"`
	JudgeCostUsd float64 `json:"judgeCostUsd"`
	// UserCostUsd is what the user simulator cost in an open conversation,
	// apart from the agent's and the judge's; absent when nothing.
	UserCostUsd float64 `json:"userCostUsd,omitempty"`
	Tokens      Tokens  `json:"tokens"`
	ToolCalls   int     `json:"toolCalls"`
	SchemaValid *bool   `json:"schemaValid,omitempty"`
	// Tools holds each called tool's counts, sorted by name; absent when
	// the agent called none.
	Tools    []ToolUse `json:"tools,omitempty"`
	Checks   []Check   `json:"checks"`
	Findings []Finding `json:"findings,omitempty"`
	// LinesAfterFinal counts the ignored lines after the final line.
	LinesAfterFinal int `json:"linesAfterFinal,omitempty"`
	// UsageReported is true when the agent reported its usage (a usage
	// line, or the model API's usage).
	UsageReported bool `json:"usageReported,omitempty"`
	// Spans is what the agent reported through OpenTelemetry
	// (docs/otel.md); absent when the run did not receive its spans.
	Spans *AgentTrace `json:"spans,omitempty"`
}

// AgentTrace is what a trial's agent reported through OpenTelemetry, with
// no content (docs/otel.md): counts over every span kept, and the spans
// themselves, the first ones by start time.
type AgentTrace struct {
	Count int `json:"count"` // spans kept
	// Dropped counts the spans over the caps; Invalid the allow-listed
	// attributes whose value was not one the conventions allow; Refused
	// the requests refused whole.
	Dropped int64 `json:"dropped,omitempty"`
	Invalid int64 `json:"invalid,omitempty"`
	Refused int64 `json:"refused,omitempty"`
	// LLMCalls counts the model calls (chat, text completion, content
	// generation, embeddings), ToolCalls the execute_tool spans, Errors
	// the spans that ended in error.
	LLMCalls  int `json:"llmCalls"`
	ToolCalls int `json:"toolCalls"`
	Errors    int `json:"errors"`
	// Tokens are the model calls' tokens.
	Tokens Tokens `json:"tokens"`
	// DurationMs is the time from the first span's start to the last
	// one's end; ModelMs and ToolMs the time within it in model calls and
	// in tools, overlaps counted once.
	DurationMs float64 `json:"durationMs"`
	ModelMs    float64 `json:"modelMs"`
	ToolMs     float64 `json:"toolMs"`
	// Events counts the most frequent span event names.
	Events []EventCount `json:"events,omitempty"`
	// List holds the first spans by start time; Omitted counts the
	// others.
	List    []AgentSpan `json:"list,omitempty"`
	Omitted int         `json:"omitted,omitempty"`
}

// EventCount is how many spans' events had one name.
type EventCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// AgentSpan is one span of a trial's trace: its name and the GenAI
// attributes that carry no content.
type AgentSpan struct {
	Name   string `json:"name"`
	Kind   string `json:"kind,omitempty"`
	Parent int    `json:"parent"` // its index in List; -1 when not there
	Status string `json:"status,omitempty"`
	// StartMs counts from the trace's first span.
	StartMs      float64  `json:"startMs"`
	DurationMs   float64  `json:"durationMs"`
	Operation    string   `json:"operation,omitempty"`
	Model        string   `json:"model,omitempty"`
	Tool         string   `json:"tool,omitempty"`
	Agent        string   `json:"agent,omitempty"`
	ErrorType    string   `json:"errorType,omitempty"`
	InputTokens  int64    `json:"inputTokens,omitempty"`
	OutputTokens int64    `json:"outputTokens,omitempty"`
	Events       []string `json:"events,omitempty"`
}

// Check is the verdict of one check: the match, an assertion, the output
// schema, or a rubric criterion.
type Check struct {
	ID     string  `json:"id"`   // "match", "outputSchema", the author's id, "assert[2]", "rubric[0]"
	Kind   string  `json:"kind"` // exact, regex, expr, toolCalled, criterion, ...
	Weight float64 `json:"weight"`
	Passed bool    `json:"passed"`
	// Reason is a fixed, content-free code saying why a check failed
	// ("mismatch", "not-called", "over-limit", "invalid-json", ...).
	Reason string `json:"reason,omitempty"`
	// Judged is true for a rubric criterion decided by a judge.
	Judged bool `json:"judged,omitempty"`
	// Criterion is the index of the rubric criterion the check is, in its
	// task's rubric; set for graded criteria, whose ID may be the author's.
	Criterion *int `json:"criterion,omitempty"`
	// Level is the level a graded criterion reached on Scale: a number,
	// never the judge's reason (docs/judges.md). Nil for a binary check, and
	// for a judged criterion the judge did not decide.
	Level *int `json:"level,omitempty"`
	// Scale is the graded criterion's scale; nil for a binary check.
	Scale *Scale `json:"scale,omitempty"`
}

// Scale is the range of a graded criterion's levels, Min < Max.
type Scale struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Fraction is the share of its weight a graded check earns: (Level −
// Min)/(Max − Min); for a binary check, 1 when it passed and 0 when not.
func (c *Check) Fraction() float64 {
	if c.Level != nil && c.Scale != nil && c.Scale.Max > c.Scale.Min {
		return float64(*c.Level-c.Scale.Min) / float64(c.Scale.Max-c.Scale.Min)
	}
	if c.Passed {
		return 1
	}
	return 0
}

// Finding is an openwop safety finding: a kind and a severity, never content.
type Finding struct {
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
}

// Gate is one gate expression with its verdict.
type Gate struct {
	Expr    string `json:"expr"`
	Default bool   `json:"default,omitempty"` // one of the default gates
	Passed  bool   `json:"passed"`
	// Values holds the variables the expression read, by name.
	Values map[string]any `json:"values,omitempty"`
	Error  string         `json:"error,omitempty"`
}

// Regression compares the run with a baseline.
type Regression struct {
	BaselineRunID string  `json:"baselineRunId"`
	BaselineFile  string  `json:"baselineFile,omitempty"`
	ScoreDelta    float64 `json:"scoreDelta"`
	NewFailures   int     `json:"newFailures"`
	// NewConsistentFailures counts the new failures that passed no trial
	// now. With several trials a flaky task, one that passes some of them,
	// is a new failure (pass^k) but never a consistent one.
	NewConsistentFailures int `json:"newConsistentFailures"`
	Fixed                 int `json:"fixed"`
	// PValue is the two-sided significance of the change (McNemar's exact
	// test over pass flips); 1 when nothing changed.
	PValue   float64    `json:"pValue"`
	CILow    float64    `json:"ciLow"`  // 95% bootstrap interval of the mean score delta
	CIHigh   float64    `json:"ciHigh"` //
	Warnings []string   `json:"warnings,omitempty"`
	Tasks    []TaskDiff `json:"tasks,omitempty"` // tasks that changed, and added/removed ones
}

// SuiteRegression is a suite's share of the regression.
type SuiteRegression struct {
	BaselineRunID         string   `json:"baselineRunId"`
	ScoreDelta            float64  `json:"scoreDelta"`
	NewFailures           int      `json:"newFailures"`
	NewConsistentFailures int      `json:"newConsistentFailures"` // new failures that passed no trial
	Fixed                 int      `json:"fixed"`
	PValue                float64  `json:"pValue"`
	Added                 []string `json:"added,omitempty"`
	Removed               []string `json:"removed,omitempty"`
}

// Task changes against the baseline.
const (
	ChangeNewFailure = "new-failure"
	ChangeFixed      = "fixed"
	ChangeAdded      = "added"
	ChangeRemoved    = "removed"
	ChangeScore      = "score"
)

// TaskDiff is one task's movement against the baseline.
type TaskDiff struct {
	SuiteID        string  `json:"suiteId"`
	TaskID         string  `json:"taskId"`
	Change         string  `json:"change"`
	ScoreDelta     float64 `json:"scoreDelta"`
	CostDeltaUsd   float64 `json:"costDeltaUsd"`
	LatencyDeltaMs int64   `json:"latencyDeltaMs"`
	// Levels lists the graded criteria whose level moved, in the task's
	// check order; nil when none did (docs/regression.md).
	Levels []LevelChange `json:"levels,omitempty"`
}

// LevelChange is one graded criterion's level in the baseline and now:
// with trials, each is the median over the trials (the lower of the two
// middle levels of an even count).
type LevelChange struct {
	Check     string `json:"check"`     // the check's id: the criterion's id, else rubric[i]
	Criterion int    `json:"criterion"` // its index in the task's rubric
	Base      int    `json:"base"`
	Head      int    `json:"head"`
}

// MaxFileBytes bounds a results file read back: a shard given to merge,
// a run given to assess or trust, a baseline, a history entry. The
// results.json of a 100,000-task run is some 170 MB, and merge streams
// its shards a task at a time; a file that is not a run's is refused
// before a byte of it is read (docs/security.md).
const MaxFileBytes = 1 << 30

// File is the kind of input a results file is (internal/inputfile).
var File = inputfile.Kind{What: "a results file", Limit: MaxFileBytes, Hint: "name a results.json an evalgate run wrote, or the folder holding one"}

// FileName is the results file a run writes into its output folder.
const FileName = "results.json"

// Locate returns the results file path names, and the folder it must be
// inside: path itself, with no folder, or the results.json of the folder
// path, which must stay inside it once links are resolved (a shard's
// folder comes from an artifact the pull request may have written).
func Locate(path string) (file, root string) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return filepath.Join(path, FileName), path
	}
	return path, ""
}

// Read loads a results file, or the results.json of a folder (Locate),
// whose numbers must be in range (Check). It reads through File: a
// regular file of at most MaxFileBytes.
func Read(path string) (*Run, error) {
	path, root := Locate(path)
	data, err := File.ReadIn(root, path)
	if err != nil {
		return nil, fmt.Errorf("could not read results %q: %w", path, err)
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("could not parse results %q: %w", path, DecodeError(err))
	}
	if err := r.Check(); err != nil {
		return nil, fmt.Errorf("could not parse results %q: %w", path, err)
	}
	return &r, nil
}

// InRepo reports whether file, the File of a suite or task, lies in the
// repository: run writes a suite file inside the repository as a path from
// its root with forward slashes, and one outside it as a path that climbs
// out ("../shared/x.yaml") or an absolute one. Only files in the repository
// are linked and annotated.
func InRepo(file string) bool {
	if file == "" || path.IsAbs(file) || strings.HasPrefix(file, `\`) || (len(file) > 1 && file[1] == ':') {
		return false
	}
	return file != ".." && !strings.HasPrefix(file, "../")
}
