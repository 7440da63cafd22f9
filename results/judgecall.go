package results

import "time"

// JudgeCall is one call to a judge while a trial was scored, content-free:
// what was asked and answered never is in it. The run's trace shows each
// as a span (docs/otel.md); results.json does not hold them.
type JudgeCall struct {
	Kind   string   // JudgeRubric, JudgeProgram or JudgeRefusal
	Checks []string // the ids of the checks it decided
	Start  time.Time
	// Duration is how long the call took, from the request to the answer.
	Duration time.Duration
	Outcome  string // JudgePassed, JudgeFailed or JudgeErrored
	// Score is the weighted share of the criteria it met; -1 when the
	// call decides no criteria (a program, the refusal question, an
	// error).
	Score float64
}

// Kinds of judge call (JudgeCall.Kind).
const (
	JudgeRubric  = "rubric"  // the rubric judge (judge.openai or judge.exec) over a trial's judged criteria
	JudgeProgram = "program" // a program check's program (assert exec)
	JudgeRefusal = "refusal" // the rubric judge asked whether a reply refuses
)

// Outcomes of a judge call (JudgeCall.Outcome).
const (
	JudgePassed  = "passed" // it said pass, or met every criterion asked
	JudgeFailed  = "failed" // it said fail, or left a criterion unmet
	JudgeErrored = "error"  // it gave no usable verdict
)
