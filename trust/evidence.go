package trust

import (
	"fmt"
	"slices"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// Scenario tags of seed 003, in its order (suites.Scenarios).
var scenarios = []string{"happy-path", "error-handling", "budget-exceeded", "replan-loop", "edge-adversarial"}

// Check ids the scorer adds (judges.CheckToolArgs).
const checkToolArgs = "toolArgs"

// Tally counts a run's evidence task by task, so a run that does not keep
// every task's trials in memory (cli spills them) can be scored: feed it
// each task as it finishes and pass it as Input.Tally.
type Tally struct {
	ev     *evidence
	suites map[string]bool
}

// NewTally returns an empty tally.
func NewTally() *Tally { return &Tally{ev: newEvidence(), suites: map[string]bool{}} }

// Task counts one finished task of suite s, trials included; the suite's
// declared tools are counted with its first task.
func (t *Tally) Task(s *results.Suite, task *results.Task) {
	if !t.suites[s.ID] {
		t.suites[s.ID] = true
		t.ev.suite(s)
	}
	t.ev.task(s, task)
}

// evidence is what a run shows, counted once for all the dimensions.
type evidence struct {
	tasks, trials int

	tools, toolSchemas, sideEffectTools int
	outputSchemaTasks                   int
	argCheckedTrials, argViolations     int
	edgeTasks                           int

	multiTrialTasks int
	notIdempotent   []string // suite/task of the tasks whose trials differed
	faultTasks      int
	faultsPassed    int
	faultKinds      []string
	faultIdem       int // fault tasks with idempotent == true
	faultNotIdem    int
	sideRepeats     int

	spoke          bool // a trial called a tool, reported usage or sent spans: a protocol agent
	answered       int  // trials that are not errors
	usageReported  int  // of those, with usage
	crashes        int  // trials ended by the agent's exit (agent-exit)
	structured     int  // trials ended by the agent's own error line
	protocolErrors int  // protocol and output-too-large

	happyTasks int
	happyDirty []string // happy-path tasks ended by a crash, timeout or protocol error

	scenarioTasks  map[string]int
	scenarioFailed map[string][]string
	// scenarioTraced counts a scenario's tasks whose agent sent spans and
	// scenarioNoEvent names those of them a trial of which sent spans
	// without the scenario's event (suites.ScenarioEvents).
	scenarioTraced  map[string]int
	scenarioNoEvent map[string][]string
}

func newEvidence() *evidence {
	return &evidence{scenarioTasks: map[string]int{}, scenarioFailed: map[string][]string{},
		scenarioTraced: map[string]int{}, scenarioNoEvent: map[string][]string{}}
}

// gather counts the evidence of a run whose tasks hold their trials.
func gather(r *results.Run) *evidence {
	ev := newEvidence()
	for si := range r.Suites {
		s := &r.Suites[si]
		ev.suite(s)
		for ti := range s.Tasks {
			ev.task(s, &s.Tasks[ti])
		}
	}
	return ev
}

func (ev *evidence) suite(s *results.Suite) {
	if s.Tools != nil {
		ev.tools += s.Tools.Declared
		ev.toolSchemas += s.Tools.WithSchema
		ev.sideEffectTools += s.Tools.SideEffect
	}
}

func (ev *evidence) task(s *results.Suite, t *results.Task) {
	name := s.ID + "/" + t.ID
	ev.tasks++
	if t.SchemaValid != nil {
		ev.outputSchemaTasks++
	}
	if slices.Contains(t.Tags, "edge-adversarial") {
		ev.edgeTasks++
	}
	if t.Idempotent != nil {
		ev.multiTrialTasks++
		if !*t.Idempotent {
			ev.notIdempotent = append(ev.notIdempotent, name)
		}
	}
	if len(t.Faults) > 0 {
		ev.faultTasks++
		if t.Passed {
			ev.faultsPassed++
		}
		for _, k := range t.Faults {
			if !slices.Contains(ev.faultKinds, k) {
				ev.faultKinds = append(ev.faultKinds, k)
			}
		}
		if t.Idempotent != nil {
			if *t.Idempotent {
				ev.faultIdem++
			} else {
				ev.faultNotIdem++
			}
		}
	}
	happy := len(t.Faults) == 0
	for _, sc := range scenarios {
		if !slices.Contains(t.Tags, sc) {
			continue
		}
		ev.scenarioTasks[sc]++
		if !t.Passed {
			ev.scenarioFailed[sc] = append(ev.scenarioFailed[sc], name)
		}
		if event, ok := suites.ScenarioEvents[sc]; ok {
			traced, reported := scenarioEvent(t, event)
			if traced {
				ev.scenarioTraced[sc]++
			}
			if !reported {
				ev.scenarioNoEvent[sc] = append(ev.scenarioNoEvent[sc], name)
			}
		}
		happy = happy && sc == "happy-path"
	}
	dirty := false
	for i := range t.Trials {
		tr := &t.Trials[i]
		ev.trials++
		ev.trial(tr)
		switch tr.ErrorKind {
		case results.ErrAgentExit, results.ErrTimeout, results.ErrProtocol, results.ErrOutputTooLarge:
			dirty = true
		}
	}
	if happy {
		ev.happyTasks++
		if dirty {
			ev.happyDirty = append(ev.happyDirty, name)
		}
	}
}

func (ev *evidence) trial(tr *results.Trial) {
	for _, c := range tr.Checks {
		if c.ID == checkToolArgs {
			ev.argCheckedTrials++
			break
		}
	}
	for _, u := range tr.Tools {
		ev.argViolations += u.SchemaViolations
		ev.sideRepeats += u.SideEffectRepeats
	}
	if tr.ToolCalls > 0 || tr.UsageReported || (tr.Spans != nil && tr.Spans.Count > 0) {
		ev.spoke = true
	}
	switch tr.ErrorKind {
	case "":
		ev.answered++
		if tr.UsageReported {
			ev.usageReported++
		}
	case results.ErrAgentExit:
		ev.crashes++
	case results.ErrAgentReported:
		ev.structured++
	case results.ErrProtocol, results.ErrOutputTooLarge:
		ev.protocolErrors++
	}
}

// scenarioEvent reports whether a trial of t sent spans (traced), and
// whether every trial that did reported event: as a span event's name or
// a span's (seed 003's events are one or the other as agents write them),
// among the event names and the spans results.json keeps. A trial
// without spans is not asked for it.
func scenarioEvent(t *results.Task, event string) (traced, reported bool) {
	reported = true
	for i := range t.Trials {
		sp := t.Trials[i].Spans
		if sp == nil || sp.Count == 0 {
			continue
		}
		traced = true
		has := slices.ContainsFunc(sp.Events, func(e results.EventCount) bool { return e.Name == event }) ||
			slices.ContainsFunc(sp.List, func(s results.AgentSpan) bool { return s.Name == event })
		reported = reported && has
	}
	return traced, reported
}

// names lists up to three names and how many more there are.
func names(xs []string) string {
	if len(xs) <= 3 {
		return fmt.Sprint(xs)
	}
	return fmt.Sprintf("%v and %d more", xs[:3], len(xs)-3)
}
