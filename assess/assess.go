package assess

import (
	"time"

	"github.com/evalgate/evalgate/results"
)

// The axes.
const (
	Performance = "performance"
	Capability  = "capability"
)

// The dimensions of the performance axis (docs/assessment.md).
const (
	TaskCompletionRate = "task_completion_rate"
	Accuracy           = "accuracy"
	Speed              = "speed"
	Consistency        = "consistency"
	ReviewCompliance   = "review_compliance"
)

// The dimensions of the capability axis (docs/assessment.md).
const (
	DomainBreadth        = "domain_breadth"
	ComplexityCeiling    = "complexity_ceiling"
	ToolProficiency      = "tool_proficiency"
	AutonomyLevel        = "autonomy_level"
	LearningRate         = "learning_rate"
	DelegationCapability = "delegation_capability"
	OrchestrationSkills  = "orchestration_skills"
)

// Dimensions lists each axis's dimensions in AAAF's order.
var Dimensions = map[string][]string{
	Performance: {TaskCompletionRate, Accuracy, Speed, Consistency, ReviewCompliance},
	Capability: {DomainBreadth, ComplexityCeiling, ToolProficiency, AutonomyLevel,
		LearningRate, DelegationCapability, OrchestrationSkills},
}

// Axes lists the axes in order.
var Axes = []string{Performance, Capability}

// DefaultWeights are AAAF's weights of each dimension within its axis.
var DefaultWeights = map[string]float64{
	TaskCompletionRate: 0.25, Accuracy: 0.25, Speed: 0.15, Consistency: 0.20, ReviewCompliance: 0.15,
	DomainBreadth: 0.15, ComplexityCeiling: 0.20, ToolProficiency: 0.15, AutonomyLevel: 0.10,
	LearningRate: 0.10, DelegationCapability: 0.15, OrchestrationSkills: 0.15,
}

// DefaultTaxonomy is AAAF's twelve domains.
var DefaultTaxonomy = []string{"research", "code", "security", "testing", "design", "documentation",
	"communication", "orchestration", "analysis", "content", "infrastructure", "legal"}

// DefaultLatencyBaselineMs is the latency each complexity level is expected
// to take; a task without complexity is taken as level 3.
var DefaultLatencyBaselineMs = map[int]float64{1: 5000, 2: 15000, 3: 30000, 4: 60000, 5: 120000}

// DefaultValidDays is how long an assessment stays valid.
const DefaultValidDays = 90

// Sample minimums below which an axis is provisional.
const (
	MinPerformanceTasks = 20
	MinCapabilityTasks  = 30
)

// Evidence minimums of the dimensions.
const (
	minSubsetTasks = 3  // a domain, level or category is measured from 3 tasks
	minGroupTasks  = 5  // a consistency group counts from 5 tasks
	minToolCalls   = 10 // a tool counts from 10 calls
	historyEntries = 5  // learning_rate compares with the earliest 5 entries
	learningSpan   = 0.30
)

// MoveFlag is the movement of a composite against the baseline's that is
// flagged (AAAF step 5), and TasksAddedNotice the number of tasks added
// since the baseline's assessment that calls for a full re-assessment.
const (
	MoveFlag         = 0.15
	TasksAddedNotice = 50
)

// tolerance absorbs float rounding at tier bounds and in the movement flag,
// as gates do: a composite of 0.6 computed as 0.5999999999999999 reaches
// Proficient.
const tolerance = 1e-9

// Options configure an assessment. Zero values take AAAF's defaults.
type Options struct {
	Agent        Agent
	Organization string
	// ID and Now identify and date the assessment; ValidDays (default 90)
	// sets ValidUntil.
	ID        string
	Now       time.Time
	ValidDays int
	// Weights overrides the default weight of a dimension, by name.
	Weights map[string]float64
	// Taxonomy lists the domains domain_breadth counts; default AAAF's 12.
	Taxonomy []string
	// LatencyBaselineMs overrides the expected latency of a complexity level.
	LatencyBaselineMs map[int]float64
	// History holds earlier assessments, for learning_rate.
	History []HistoryEntry
	// Window is the history store's window (window.go); nil without a
	// store. With one, consistency and learning_rate are measured over
	// its runs, and History is not read.
	Window *Window
}

// Agent identifies the agent assessed.
type Agent struct {
	ID   string
	Name string
}

// HistoryEntry is one earlier assessment: when, and its performance
// composite (nil when it had none).
type HistoryEntry struct {
	Source      string
	Time        time.Time
	Performance *float64
}

// Assessment is the result of Assess.
type Assessment struct {
	Agent        Agent
	Organization string
	ID           string
	Timestamp    time.Time
	ValidUntil   time.Time
	Tasks        int // every task assessed, errored ones included
	Performance  Axis
	Capability   Axis
	// Baseline is the movement against the baseline's assessment; nil
	// without one.
	Baseline *Movement
}

// Axis is one axis: its composite, tier and dimensions.
type Axis struct {
	Name  string
	Score *float64 // nil when no dimension could be measured
	Tier  Tier     // the zero Tier when Score is nil
	// Provisional is set below the axis's sample minimum.
	Provisional bool
	Dimensions  []Dimension
}

// Dimension is one measured (or unmeasurable) dimension.
type Dimension struct {
	Name   string
	Weight float64
	Value  *float64 // nil when the evidence is missing: Reason says which
	Reason string
	// Evidence holds the counts the value was computed from.
	Evidence map[string]int
}

// Movement is an assessment's change against the baseline's.
type Movement struct {
	BaselineRunID string
	// Performance and Capability are the composites' deltas; nil when
	// either side has no composite.
	Performance *float64
	Capability  *float64
	// TasksAdded is the growth of the task count since the baseline.
	TasksAdded int
}

// Flagged reports whether a delta moved by more than MoveFlag.
func Flagged(delta *float64) bool {
	return delta != nil && (*delta > MoveFlag+tolerance || *delta < -MoveFlag-tolerance)
}

// Dimension returns the axis's dimension called name.
func (a *Axis) Dimension(name string) *Dimension {
	for i := range a.Dimensions {
		if a.Dimensions[i].Name == name {
			return &a.Dimensions[i]
		}
	}
	return nil
}

// Assess assesses the tasks of runs, taken together as one run (the shards
// of a run).
func Assess(runs []*results.Run, opts Options) *Assessment {
	tasks := Tasks(runs)
	o := opts.withDefaults()
	a := &Assessment{
		Agent:        o.Agent,
		Organization: o.Organization,
		ID:           o.ID,
		Timestamp:    o.Now.UTC(),
		Tasks:        len(tasks),
	}
	if !o.Now.IsZero() {
		a.ValidUntil = a.Timestamp.AddDate(0, 0, o.ValidDays)
	}
	score, passRate := runFigures(tasks)
	perf := o.withWindow(o.performance(tasks), score, passRate)
	a.Performance = o.axis(Performance, perf, len(tasks) < MinPerformanceTasks)
	a.Capability = o.axis(Capability, o.capability(tasks, perf), len(tasks) < MinCapabilityTasks)
	return a
}

// runFigures are the aggregate score and pass rate of tasks, as
// results.json counts them.
func runFigures(tasks []*results.Task) (score, passRate float64) {
	if len(tasks) == 0 {
		return 0, 0
	}
	for _, t := range tasks {
		score += t.Score
		passRate += b2f(t.Passed)
	}
	return score / float64(len(tasks)), passRate / float64(len(tasks))
}

// Tasks lists every task of runs.
func Tasks(runs []*results.Run) []*results.Task {
	var tasks []*results.Task
	for _, r := range runs {
		for i := range r.Suites {
			for j := range r.Suites[i].Tasks {
				tasks = append(tasks, &r.Suites[i].Tasks[j])
			}
		}
	}
	return tasks
}

func (o Options) withDefaults() Options {
	w := make(map[string]float64, len(DefaultWeights))
	for k, v := range DefaultWeights {
		w[k] = v
	}
	for k, v := range o.Weights {
		w[k] = v
	}
	o.Weights = w
	if len(o.Taxonomy) == 0 {
		o.Taxonomy = DefaultTaxonomy
	}
	lat := make(map[int]float64, 5)
	for k, v := range DefaultLatencyBaselineMs {
		lat[k] = v
	}
	for k, v := range o.LatencyBaselineMs {
		lat[k] = v
	}
	o.LatencyBaselineMs = lat
	if o.ValidDays <= 0 {
		o.ValidDays = DefaultValidDays
	}
	return o
}

// axis weighs the dimensions of one axis into its composite and tier.
func (o Options) axis(name string, dims []Dimension, provisional bool) Axis {
	a := Axis{Name: name, Provisional: provisional, Dimensions: dims}
	for i := range a.Dimensions {
		a.Dimensions[i].Weight = o.Weights[a.Dimensions[i].Name]
	}
	a.Score = composite(a.Dimensions)
	if a.Score != nil {
		a.Tier = TierOf(name, *a.Score)
	}
	return a
}

// composite is the weighted mean of the measured dimensions, the weights
// renormalised over them; nil when none is measured (or their weights sum
// to 0).
func composite(dims []Dimension) *float64 {
	var sum, weights float64
	for _, d := range dims {
		if d.Value != nil {
			sum += d.Weight * *d.Value
			weights += d.Weight
		}
	}
	if weights <= 0 {
		return nil
	}
	return ptr(sum / weights)
}

// Compare records the movement of a against the baseline's assessment,
// base; a nil base leaves a without one.
func (a *Assessment) Compare(baseRunID string, base *results.Assessment) {
	if base == nil {
		return
	}
	m := &Movement{BaselineRunID: baseRunID, TasksAdded: a.Tasks - base.TaskCount}
	m.Performance = delta(a.Performance.Score, base.Performance.Score)
	m.Capability = delta(a.Capability.Score, base.Capability.Score)
	a.Baseline = m
}

func delta(now, then *float64) *float64 {
	if now == nil || then == nil {
		return nil
	}
	return ptr(*now - *then)
}

func ptr(x float64) *float64 { return &x }

func clamp(x, lo, hi float64) float64 { return min(hi, max(lo, x)) }

// Summary is what results.json keeps of the assessment.
func (a *Assessment) Summary() *results.Assessment {
	s := &results.Assessment{ID: a.ID, TaskCount: a.Tasks,
		Performance: a.Performance.summary(), Capability: a.Capability.summary()}
	if m := a.Baseline; m != nil {
		s.BaselineRunID = m.BaselineRunID
		s.TasksAdded = m.TasksAdded
		s.Performance.Delta, s.Performance.Flagged = m.Performance, Flagged(m.Performance)
		s.Capability.Delta, s.Capability.Flagged = m.Capability, Flagged(m.Capability)
	}
	return s
}

func (a *Axis) summary() results.AssessmentAxis {
	s := results.AssessmentAxis{Score: a.Score, Tier: a.Tier.Name, Provisional: a.Provisional,
		Dimensions: map[string]*float64{}}
	for _, d := range a.Dimensions {
		s.Dimensions[d.Name] = d.Value
		if d.Value == nil {
			if s.Reasons == nil {
				s.Reasons = map[string]string{}
			}
			s.Reasons[d.Name] = d.Reason
		}
	}
	return s
}
