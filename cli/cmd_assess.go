package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
)

// assessCmd is `evalgate assess [flags] RESULTS...`: the AAAF dual-axis
// assessment of a finished run (DESIGN §11). Several RESULTS are the
// shards of one run, assessed as one.
func assessCmd(_ context.Context, c *Command, args []string) error {
	fs := c.newFlags("assess", "RESULTS...")
	out := fs.String("out", "", "output `folder` (default: the folder of the first RESULTS)")
	format := fs.String("format", "all", "`format` to write: "+strings.Join(report.AssessmentFormats, ", ")+" (all is json, svg, png and md)")
	now := fs.String("now", "", "the assessment's `time`, RFC 3339 such as 2026-11-26T12:00:00Z (default: now); valid_until is validDays later")
	id := fs.String("id", "", "the assessment's `id` (default: a random one)")
	configPath := fs.String("config", "", "project `file` whose assessment: section to use (default: evalgate.yaml here or in the nearest folder above, up to the repository root)")
	baseline := fs.String("baseline", "", "`RESULTS` of an earlier run carrying an assessment (a results.json or its folder), to show the movement against it")
	var history repeatFlag
	fs.Var(&history, "history", "an earlier results.json or assessment.json `file`, for learning_rate (repeatable; added to assessment.history)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if !slices.Contains(report.AssessmentFormats, *format) {
		return invalid(fmt.Errorf("--format: expected one of %s, got %q", strings.Join(report.AssessmentFormats, ", "), *format))
	}
	when := time.Now().UTC().Truncate(time.Second)
	if *now != "" {
		if when, err = time.Parse(time.RFC3339, *now); err != nil {
			return invalid(fmt.Errorf("--now: expected a time in RFC 3339 such as 2026-11-26T12:00:00Z, got %q", *now))
		}
	}
	if len(pos) == 0 {
		return invalid(errors.New("assess: expected one or more results.json files (or the folders holding them); several are the shards of one run"))
	}
	cfg, err := c.loadConfig(*configPath)
	if err != nil {
		return invalid(err)
	}
	runs := make([]*results.Run, len(pos))
	for i, p := range pos {
		if runs[i], err = readShard(p); err != nil {
			return invalid(err)
		}
	}
	run := runs[0]
	if len(runs) > 1 {
		if run, _, err = mergeRuns(runs, pos, nil, nil); err != nil {
			return invalid(err)
		}
	}
	opts := cfg.Assessment.Options()
	opts.ID, opts.Now = firstNonEmpty(*id, results.NewID()), when
	if opts.History, err = readHistory(historyPaths(cfg, history), opts); err != nil {
		return invalid(err)
	}
	a := assess.Assess([]*results.Run{run}, opts)
	if *baseline != "" {
		base, err := readShard(*baseline)
		if err != nil {
			return invalid(err)
		}
		if base.Assessment == nil {
			return invalid(fmt.Errorf("--baseline %q: it carries no assessment; run it with assessment: in evalgate.yaml, or leave --baseline out", *baseline))
		}
		a.Compare(base.RunID, base.Assessment)
	}
	c.warnDomains(assess.Tasks([]*results.Run{run}), opts.Taxonomy)

	dir := *out
	if dir == "" {
		dir = filepath.Dir(pos[0])
		if fi, err := os.Stat(pos[0]); err == nil && fi.IsDir() {
			dir = pos[0]
		}
	}
	written, err := writeAssessment(dir, a, *format)
	if err != nil {
		return err
	}
	c.say(c.Stdout, "%s\n", assessmentLine(a))
	for _, name := range written {
		c.say(c.Stdout, "wrote %s\n", filepath.Join(dir, name))
	}
	return nil
}

// writeAssessment writes the files of format into dir, holding its lock
// when it is an output folder, and returns their names, sorted.
func writeAssessment(dir string, a *assess.Assessment, format string) ([]string, error) {
	files, err := report.AssessmentFiles(a, format, version())
	if err != nil {
		return nil, runError(fmt.Errorf("could not render the assessment: %w", err))
	}
	if isOutFolder(dir) {
		release, err := lockFolder(dir, anotherFolder)
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

// assessmentLine sums an assessment up in one line.
func assessmentLine(a *assess.Assessment) string {
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
	return fmt.Sprintf("assessment %s: %s, %s over %d %s", a.ID, part(&a.Performance), part(&a.Capability), a.Tasks, pluralWord(a.Tasks, "task", "tasks"))
}

// warnDomains warns, at the task's line, of every task whose domain the
// taxonomy does not have.
func (c *Command) warnDomains(tasks []*results.Task, taxonomy []string) {
	for _, t := range tasks {
		if t.Metadata == nil {
			continue
		}
		if w := assess.DomainWarning(t.ID, t.Metadata.Domain, taxonomy); w != "" {
			pos := diag.Pos{File: t.File, Line: t.Line}
			c.say(c.Stderr, "%s: warning: %s\n", pos, w)
		}
	}
}

// historyPaths are the config's assessment.history and the --history flags.
func historyPaths(cfg *config.Config, flags []string) []string {
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

// readHistory reads the history entries: an assessment.json gives its
// timestamp and performance composite; a results.json (or the folder
// holding one) is assessed with opts for its performance composite.
func readHistory(paths []string, opts assess.Options) ([]assess.HistoryEntry, error) {
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
