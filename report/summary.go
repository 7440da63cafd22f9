package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/jsonvalue"
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
// cannot make the file invalid. What the clamps cannot fix is an error, never
// a silently invalid file: a suite id, version or task id outside the
// openwop patterns, a finding without a kind or with a severity openwop does
// not know, a regression without a baseline run id. These are the rules of
// SummarySchemaJSON, checked in code because validating a large summary
// against the schema costs far more than writing it.
func Summary(s *results.Suite, modelClass string) ([]byte, error) {
	sum, err := checkedSummary(s, modelClass)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := writeSummary(&b, sum); err != nil {
		return nil, fmt.Errorf("could not build summary for suite %q: %w", s.ID, err)
	}
	return b.Bytes(), nil
}

// checkedSummary builds the summary of s and checks it (see Summary).
func checkedSummary(s *results.Suite, modelClass string) (*evalSummary, error) {
	if s == nil {
		return nil, errors.New("could not build summary: no suite result")
	}
	sum := buildSummary(s, modelClass)
	if err := checkSummary(sum); err != nil {
		return nil, fmt.Errorf("could not build summary for suite %q: %w", s.ID, err)
	}
	return sum, nil
}

// writeSummary writes sum as indented JSON with a trailing newline, the
// bytes of json.MarshalIndent, one task at a time: the summary of a suite
// of 200,000 tasks is some 24 MB, and marshalled whole it took twice that
// again in memory, at the peak of a large merge's.
func writeSummary(w io.Writer, sum *evalSummary) error {
	head := *sum
	head.Tasks = []summaryTask{}
	data, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	before, after, found := jsonvalue.CutEmptyList(data, "tasks")
	if !found {
		return errors.New("could not find the tasks in the encoded summary") // cannot happen: the field is in the type
	}
	bw := bufio.NewWriter(w)
	bw.Write(before)
	bw.WriteByte('[')
	var item []byte
	for i := range sum.Tasks {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		item = appendSummaryTask(item[:0], &sum.Tasks[i])
		bw.Write(item)
	}
	if len(sum.Tasks) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteByte(']')
	bw.Write(after)
	bw.WriteByte('\n')
	return bw.Flush()
}

// appendSummaryTask appends t as json.MarshalIndent(t, "    ", "  ")
// renders it, without reflection: a merged suite of 200,000 tasks has as
// many, and they were a fifth of the time its outputs took to write.
// Strings are escaped as json.Marshal escapes them (jsonvalue.AppendEncoded).
// TestAppendSummaryTaskIsMarshalIndent keeps the two in step.
func appendSummaryTask(b []byte, t *summaryTask) []byte {
	const in = "\n      "
	b = append(b, "{"+in+`"taskId": `...)
	b = jsonvalue.AppendEncoded(b, t.TaskID, true)
	b = append(b, ","+in+`"score": `...)
	b = appendFloat(b, t.Score)
	b = append(b, ","+in+`"passed": `...)
	b = strconv.AppendBool(b, t.Passed)
	b = append(b, ","+in+`"costUsd": `...)
	b = appendFloat(b, t.CostUsd)
	b = append(b, ","+in+`"latencyMs": `...)
	b = strconv.AppendInt(b, t.LatencyMs, 10)
	if t.SchemaValid != nil {
		b = append(b, ","+in+`"schemaValid": `...)
		b = strconv.AppendBool(b, *t.SchemaValid)
	}
	if len(t.SafetyFindings) > 0 {
		b = append(b, ","+in+`"safetyFindings": [`...)
		for i, f := range t.SafetyFindings {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, in+`  {`+in+`    "kind": `...)
			b = jsonvalue.AppendEncoded(b, f.Kind, true)
			b = append(b, ","+in+`    "severity": `...)
			b = jsonvalue.AppendEncoded(b, f.Severity, true)
			b = append(b, in+"  }"...)
		}
		b = append(b, in+"]"...)
	}
	return append(b, "\n    }"...)
}

// buildSummary maps a suite result onto the EvalSummary, clamping numbers
// into their ranges.
func buildSummary(s *results.Suite, modelClass string) *evalSummary {
	if modelClass == "" {
		modelClass = s.ModelClass
	}
	sum := &evalSummary{
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
	return sum
}

// The openwop patterns, as in eval-summary.schema.json.
var (
	suiteIDPattern = regexp.MustCompile(`^[a-z0-9.-]+\.evals\.[a-z0-9-]+$`)
	versionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)
	taskIDPattern  = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// severities are the openwop finding severities.
var severities = map[string]bool{
	results.SeverityLow:      true,
	results.SeverityMedium:   true,
	results.SeverityHigh:     true,
	results.SeverityCritical: true,
}

// maxProblems bounds how many problems an error lists.
const maxProblems = 5

// checkSummary applies the schema's rules that clamping cannot satisfy and
// lists every problem at its JSON pointer.
func checkSummary(sum *evalSummary) error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if !suiteIDPattern.MatchString(sum.SuiteID) {
		add("at /suiteId: %q does not match %s", sum.SuiteID, suiteIDPattern)
	}
	if !versionPattern.MatchString(sum.SuiteVersion) {
		add("at /suiteVersion: %q does not match %s", sum.SuiteVersion, versionPattern)
	}
	for i, t := range sum.Tasks {
		if !taskIDPattern.MatchString(t.TaskID) {
			add("at /tasks/%d/taskId: %q does not match %s", i, t.TaskID, taskIDPattern)
		}
		for j, f := range t.SafetyFindings {
			if f.Kind == "" {
				add("at /tasks/%d/safetyFindings/%d/kind: the kind is empty", i, j)
			}
			if !severities[f.Severity] {
				add("at /tasks/%d/safetyFindings/%d/severity: %q is not one of low, medium, high, critical", i, j, f.Severity)
			}
		}
	}
	if sum.Regression != nil && sum.Regression.BaselineRunID == "" {
		add("at /regression/baselineRunId: the baseline run id is empty")
	}
	if len(problems) == 0 {
		return nil
	}
	more := ""
	if len(problems) > maxProblems {
		more = fmt.Sprintf("; and %d more", len(problems)-maxProblems)
		problems = problems[:maxProblems]
	}
	return fmt.Errorf("does not match the EvalSummary schema: %s%s", strings.Join(problems, "; "), more)
}

// WriteSummary writes the EvalSummary of s to dir/<suiteId>.json (dir is
// usually <out>/summaries), creating dir when needed. A symbolic link at dir
// or at the file is replaced, not followed.
func WriteSummary(dir string, s *results.Suite, modelClass string) error {
	sum, err := checkedSummary(s, modelClass)
	if err != nil {
		return err
	}
	if err := safeName(s.ID); err != nil {
		return fmt.Errorf("could not write summary for suite %q: %w", s.ID, err)
	}
	path := filepath.Join(dir, s.ID+".json")
	if err := atomicfile.EnsureDir(dir, 0o755); err != nil {
		return fmt.Errorf("could not write summary %q: %w", path, err)
	}
	err = atomicfile.Stream(path, 0o644, 0o755, func(w io.Writer) error { return writeSummary(w, sum) })
	if err != nil {
		return fmt.Errorf("could not write summary %q: %w", path, err)
	}
	return nil
}

// clamp bounds v to [lo, hi]; NaN becomes lo, and so does -0 at lo = 0
// (a chart never prints "-0").
func clamp(v, lo, hi float64) float64 {
	switch {
	case math.IsNaN(v), v <= lo:
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
