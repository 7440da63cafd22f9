package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/evalgate/evalgate/results"
)

//go:embed results.schema.json
var resultsSchemaJSON []byte

// ResultsSchemaJSON returns the JSON Schema (draft 2020-12) of results.json,
// the format of results.Run; `evalgate schema results` prints it. The caller
// may keep the slice; it is a copy.
func ResultsSchemaJSON() []byte {
	return bytes.Clone(resultsSchemaJSON)
}

// WriteResults writes r to path as results.json: JSON indented by two
// spaces, fields in a fixed order and map keys sorted, so two runs with the
// same results give the same bytes. The file is written to a temporary file
// beside path and renamed into place. An empty $schema is filled in with
// results.Schema, and missing lists are written as [] rather than null.
// r itself is not changed.
func WriteResults(path string, r *results.Run) error {
	if r == nil {
		return errors.New("could not write results: no run")
	}
	data, err := encodeResults(r)
	if err != nil {
		return fmt.Errorf("could not write results %q: %w", path, err)
	}
	if err := writeFileAtomic(path, data, 0o644, 0o755); err != nil {
		return fmt.Errorf("could not write results %q: %w", path, err)
	}
	return nil
}

// encodeResults renders r as results.json.
func encodeResults(r *results.Run) ([]byte, error) {
	return encodeIndented(normalizeRun(r))
}

// encodeIndented renders v as JSON indented by two spaces with a final
// newline. <, > and & stay as they are: the files are read by people and
// gate expressions are full of them.
func encodeIndented(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// normalizeRun returns r, or a shallow copy of it where the lists the format
// requires are never null. Only what needs fixing is copied, so a large run
// that is already complete costs nothing.
func normalizeRun(r *results.Run) *results.Run {
	needs := r.Schema == "" || r.Gates == nil || r.Suites == nil
	for i := range r.Suites {
		if suiteNeedsFix(&r.Suites[i]) {
			needs = true
			break
		}
	}
	if !needs {
		return r
	}
	run := *r
	if run.Schema == "" {
		run.Schema = results.Schema
	}
	if run.Gates == nil {
		run.Gates = []results.Gate{}
	}
	if run.Suites == nil {
		run.Suites = []results.Suite{}
	}
	copied := false
	for i := range run.Suites {
		if !suiteNeedsFix(&run.Suites[i]) {
			continue
		}
		if !copied {
			run.Suites = append([]results.Suite(nil), run.Suites...)
			copied = true
		}
		fixSuite(&run.Suites[i])
	}
	return &run
}

func suiteNeedsFix(s *results.Suite) bool {
	if s.Modes == nil || s.Tasks == nil {
		return true
	}
	for i := range s.Tasks {
		if taskNeedsFix(&s.Tasks[i]) {
			return true
		}
	}
	return false
}

func taskNeedsFix(t *results.Task) bool {
	if t.Trials == nil {
		return true
	}
	for i := range t.Trials {
		if t.Trials[i].Checks == nil {
			return true
		}
	}
	return false
}

// fixSuite fills in the null lists of s, which is already a copy; the tasks
// and trials it changes are copied first.
func fixSuite(s *results.Suite) {
	if s.Modes == nil {
		s.Modes = []string{}
	}
	if s.Tasks == nil {
		s.Tasks = []results.Task{}
		return
	}
	copied := false
	for i := range s.Tasks {
		if !taskNeedsFix(&s.Tasks[i]) {
			continue
		}
		if !copied {
			s.Tasks = append([]results.Task(nil), s.Tasks...)
			copied = true
		}
		t := &s.Tasks[i]
		if t.Trials == nil {
			t.Trials = []results.Trial{}
			continue
		}
		t.Trials = append([]results.Trial(nil), t.Trials...)
		for j := range t.Trials {
			if t.Trials[j].Checks == nil {
				t.Trials[j].Checks = []results.Check{}
			}
		}
	}
}
