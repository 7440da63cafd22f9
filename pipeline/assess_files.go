package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
)

// WriteAssessment writes the files of format into dir, holding its lock
// when it is an output folder, and returns their names, sorted.
func WriteAssessment(dir string, a *assess.Assessment, format, version string) ([]string, error) {
	files, err := report.AssessmentFiles(a, format, version)
	if err != nil {
		return nil, runError(fmt.Errorf("could not render the assessment: %w", err))
	}
	if IsOutFolder(dir) {
		release, err := LockFolder(dir, anotherFolder)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	if err := writeOutputFiles(dir, files); err != nil {
		return nil, runError(err)
	}
	names := slices.Sorted(maps.Keys(files))
	return names, nil
}

// writeOutputFiles writes files into dir by name, in the order of their names.
func writeOutputFiles(dir string, files map[string][]byte) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), files[name], 0o644, 0o755); err != nil {
			return fmt.Errorf("could not write %s: %w", name, err)
		}
	}
	return nil
}

// AssessmentLine sums an assessment up in one line.
func AssessmentLine(a *assess.Assessment) string {
	part := func(ax *assess.Axis) string {
		if ax.Score == nil {
			return ax.Name + " not assessed"
		}
		s := fmt.Sprintf("%s %s %s", ax.Name, ax.Tier.Name, report.AssessmentScore(*ax.Score))
		if ax.Provisional {
			s += " (provisional)"
		}
		return s
	}
	return fmt.Sprintf("assessment %s: %s, %s over %d %s", a.ID, part(&a.Performance), part(&a.Capability), a.Tasks, words.Plural(a.Tasks, "task", "tasks"))
}

// WarnDomains warns, at the task's line, of every task whose domain the
// taxonomy does not have.
func (c *Env) WarnDomains(tasks []*results.Task, taxonomy []string) {
	for _, t := range tasks {
		if t.Metadata == nil {
			continue
		}
		if w := assess.DomainWarning(t.ID, t.Metadata.Domain, taxonomy); w != "" {
			pos := diag.Pos{File: t.File, Line: t.Line}
			c.Say(c.Stderr, "%s: warning: %s\n", pos, w)
		}
	}
}

// HistoryPaths are the config's assessment.history and the --history flags.
func HistoryPaths(cfg *config.Config, flags []string) []string {
	var paths []string
	if cfg.Assessment != nil {
		paths = append(paths, cfg.Assessment.History...)
	}
	return append(paths, flags...)
}

// historyFile is the kind of input an assessment history entry is: a
// results.json, read whole, or an assessment.json.
var historyFile = inputfile.Kind{What: "a results.json or an assessment.json", Limit: results.MaxFileBytes,
	Hint: "name the results.json of an earlier run, the folder holding one, or an assessment.json"}

// ReadHistory reads the history entries: an assessment.json gives its
// timestamp and performance composite; a results.json (or the folder
// holding one) is assessed with opts for its performance composite.
func ReadHistory(paths []string, opts assess.Options) ([]assess.HistoryEntry, error) {
	var hist []assess.HistoryEntry
	for _, p := range paths {
		file, root := results.Locate(p)
		p = file
		data, err := historyFile.ReadIn(root, p)
		if err != nil {
			return nil, fmt.Errorf("could not read the assessment history %q: %w", p, err)
		}
		var badge struct {
			Type       string `json:"type"`
			Assessment struct {
				Timestamp time.Time `json:"timestamp"`
			} `json:"assessment"`
			Performance struct {
				CompositeScore *float64 `json:"composite_score"`
			} `json:"performance"`
		}
		if err := json.Unmarshal(data, &badge); err == nil && badge.Type == "AgentAssessmentBadge" {
			if s := badge.Performance.CompositeScore; s != nil && (*s < 0 || *s > 1) {
				return nil, fmt.Errorf("could not read the assessment history %q: performance.composite_score: expected a number from 0 to 1", p)
			}
			hist = append(hist, assess.HistoryEntry{Source: p, Time: badge.Assessment.Timestamp, Performance: badge.Performance.CompositeScore})
			continue
		}
		var run results.Run
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&run); err != nil {
			return nil, fmt.Errorf("could not read the assessment history %q: expected a results.json or an assessment.json: %w", p, results.DecodeError(err))
		}
		if err := run.Check(); err != nil {
			return nil, fmt.Errorf("could not read the assessment history %q: %w", p, err)
		}
		hist = append(hist, assess.FromRun(p, &run, opts))
	}
	return hist, nil
}
