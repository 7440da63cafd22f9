package judges

import (
	"context"
	"encoding/json"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/results"
)

// Rubric decides the judged criteria of a rubric task: the ones without a
// deterministic assert. Implementations are an OpenAI-compatible model and
// an exec program; the runner never sends an assert criterion to one.
type Rubric interface {
	Decide(ctx context.Context, req *RubricRequest) (*RubricVerdict, error)
}

// RubricCriterion is one criterion as a judge sees it.
type RubricCriterion struct {
	Criterion string  `json:"criterion"`
	Weight    float64 `json:"weight"`
	// Scale, when set, asks for a level on it instead of met or not met
	// (docs/judges.md, "Graded criteria").
	Scale *RubricScale `json:"scale,omitempty"`
}

// RubricRequest asks for a verdict on each criterion for one trial.
type RubricRequest struct {
	SuiteID  string
	TaskID   string
	Criteria []RubricCriterion
	Input    json.RawMessage
	Output   json.RawMessage
	Trace    []fixtures.Call
}

// RubricVerdict answers a RubricRequest: Met[i] and Reasons[i] belong to
// Criteria[i]. Reasons go to transcripts only.
type RubricVerdict struct {
	Met []bool
	// Levels[i] is the level of Criteria[i] when it has a scale (Met[i] is
	// then whether it reached the top); 0 for the others. Nil when no
	// criterion asked has a scale.
	Levels  []int
	Reasons []string
	CostUsd float64
	Tokens  results.Tokens
}
