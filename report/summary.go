package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evalgate/evalgate/results"
)

//go:embed eval-summary.schema.json
var summarySchemaJSON []byte

// SummarySchemaJSON returns the JSON Schema (draft 2020-12) of the openwop
// EvalSummary that Summary writes. The caller may keep the slice; it is a copy.
func SummarySchemaJSON() []byte {
	return bytes.Clone(summarySchemaJSON)
}

// modelClasses are the openwop model classes; evaluatedModelClass is written
// only for one of them.
var modelClasses = map[string]bool{
	"reasoning":      true,
	"writing":        true,
	"coding":         true,
	"research":       true,
	"classification": true,
	"general":        true,
}

// evalSummary is the openwop EvalSummary. Field order is the output order.
type evalSummary struct {
	SuiteID             string             `json:"suiteId"`
	SuiteVersion        string             `json:"suiteVersion"`
	EvaluatedModelClass string             `json:"evaluatedModelClass,omitempty"`
	AggregateScore      float64            `json:"aggregateScore"`
	Passed              bool               `json:"passed"`
	TaskCount           int                `json:"taskCount"`
	PassedCount         int                `json:"passedCount"`
	TotalCostUsd        float64            `json:"totalCostUsd"`
	Tasks               []summaryTask      `json:"tasks"`
	Regression          *summaryRegression `json:"regression,omitempty"`
}

type summaryTask struct {
	TaskID         string            `json:"taskId"`
	Score          float64           `json:"score"`
	Passed         bool              `json:"passed"`
	CostUsd        float64           `json:"costUsd"`
	LatencyMs      int64             `json:"latencyMs"`
	SchemaValid    *bool             `json:"schemaValid,omitempty"`
	SafetyFindings []results.Finding `json:"safetyFindings,omitempty"`
}

type summaryRegression struct {
	BaselineRunID string  `json:"baselineRunId"`
	ScoreDelta    float64 `json:"scoreDelta"`
}

// Summary renders the openwop EvalSummary of one suite as indented JSON with
// a trailing newline. modelClass is the class of model the agent ran on; when
// it is empty the suite's own ModelClass is used, and evaluatedModelClass is
// written only when the class is one openwop knows.
//
// Scores are clamped to [0, 1], the regression's scoreDelta to [-1, 1], and
// costs and latencies to non-negative values, so a rounding slip upstream
// cannot make the file invalid. The result is checked against
// SummarySchemaJSON before it is returned: an id or a finding severity that
// openwop does not allow is an error, never a silently invalid file.
func Summary(s *results.Suite, modelClass string) ([]byte, error) {
	if s == nil {
		return nil, errors.New("could not build summary: no suite result")
	}
	if modelClass == "" {
		modelClass = s.ModelClass
	}
	sum := evalSummary{
		SuiteID:        s.ID,
		SuiteVersion:   s.Version,
		AggregateScore: clamp(s.AggregateScore, 0, 1),
		Passed:         s.Passed,
		TaskCount:      max(s.TaskCount, 0),
		PassedCount:    max(s.PassedCount, 0),
		TotalCostUsd:   nonNegative(s.TotalCostUsd),
		Tasks:          make([]summaryTask, len(s.Tasks)),
	}
	if modelClasses[modelClass] {
		sum.EvaluatedModelClass = modelClass
	}
	for i := range s.Tasks {
		t := &s.Tasks[i]
		sum.Tasks[i] = summaryTask{
			TaskID:         t.ID,
			Score:          clamp(t.Score, 0, 1),
			Passed:         t.Passed,
			CostUsd:        nonNegative(t.CostUsd),
			LatencyMs:      max(t.LatencyMs, 0),
			SchemaValid:    t.SchemaValid,
			SafetyFindings: t.Findings,
		}
	}
	if s.Regression != nil {
		sum.Regression = &summaryRegression{
			BaselineRunID: s.Regression.BaselineRunID,
			ScoreDelta:    clamp(s.Regression.ScoreDelta, -1, 1),
		}
	}
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("could not build summary for suite %q: %w", s.ID, err)
	}
	data = append(data, '\n')
	if err := validateSummary(data); err != nil {
		return nil, fmt.Errorf("could not build summary for suite %q: %w", s.ID, err)
	}
	return data, nil
}

// WriteSummary writes the EvalSummary of s to dir/<suiteId>.json (dir is
// usually <out>/summaries), creating dir when needed.
func WriteSummary(dir string, s *results.Suite, modelClass string) error {
	data, err := Summary(s, modelClass)
	if err != nil {
		return err
	}
	if err := safeName(s.ID); err != nil {
		return fmt.Errorf("could not write summary for suite %q: %w", s.ID, err)
	}
	path := filepath.Join(dir, s.ID+".json")
	if err := writeFileAtomic(path, data, 0o644, 0o755); err != nil {
		return fmt.Errorf("could not write summary %q: %w", path, err)
	}
	return nil
}

var (
	summarySchemaOnce sync.Once
	summarySchema     *jsonschema.Schema
	summarySchemaErr  error
)

// validateSummary checks an encoded summary against the embedded schema.
func validateSummary(data []byte) error {
	summarySchemaOnce.Do(func() {
		summarySchema, summarySchemaErr = compileSchema("eval-summary.schema.json", summarySchemaJSON)
	})
	if summarySchemaErr != nil {
		return summarySchemaErr
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := summarySchema.Validate(doc); err != nil {
		return schemaProblems(err)
	}
	return nil
}

// compileSchema compiles one of the embedded schemas.
func compileSchema(name string, data []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("could not parse schema %q: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		return nil, fmt.Errorf("could not load schema %q: %w", name, err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		return nil, fmt.Errorf("could not compile schema %q: %w", name, err)
	}
	return sch, nil
}

// maxProblems bounds how many schema violations an error lists.
const maxProblems = 5

// schemaProblems turns a validation error into one line per violation,
// each at its JSON pointer, without the schema's internal locations.
func schemaProblems(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			msg := e.BasicOutput().Error
			text := "invalid value"
			if msg != nil {
				text = msg.String()
			}
			ptr := "/" + strings.Join(e.InstanceLocation, "/")
			leaves = append(leaves, fmt.Sprintf("at %s: %s", ptr, text))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	more := ""
	if len(leaves) > maxProblems {
		more = fmt.Sprintf("; and %d more", len(leaves)-maxProblems)
		leaves = leaves[:maxProblems]
	}
	return fmt.Errorf("does not match the schema: %s%s", strings.Join(leaves, "; "), more)
}

// clamp bounds v to [lo, hi]; NaN becomes lo.
func clamp(v, lo, hi float64) float64 {
	switch {
	case math.IsNaN(v), v < lo:
		return lo
	case v > hi:
		return hi
	}
	return v
}

// nonNegative bounds v to [0, max float]; NaN becomes 0.
func nonNegative(v float64) float64 {
	return clamp(v, 0, math.MaxFloat64)
}
