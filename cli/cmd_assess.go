package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/pipeline"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
)

// assessCmd is `evalgate assess [flags] RESULTS...`: the AAAF dual-axis
// assessment of a finished run (docs/assessment.md). Several RESULTS are the
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
	cfg, err := c.env.LoadConfig(*configPath)
	if err != nil {
		return invalid(err)
	}
	runs := make([]*results.Run, len(pos))
	for i, p := range pos {
		if runs[i], err = results.Read(p); err != nil {
			return invalid(err)
		}
	}
	run := runs[0]
	if len(runs) > 1 {
		if run, _, err = c.env.MergeRuns(runs, pos, nil, nil); err != nil {
			return invalid(err)
		}
	}
	opts := cfg.Assessment.Options()
	opts.ID, opts.Now = cmp.Or(*id, results.NewID()), when
	if opts.History, err = pipeline.ReadHistory(pipeline.HistoryPaths(cfg, history), opts); err != nil {
		return invalid(err)
	}
	a := assess.Assess([]*results.Run{run}, opts)
	if *baseline != "" {
		base, err := results.Read(*baseline)
		if err != nil {
			return invalid(err)
		}
		if base.Assessment == nil {
			return invalid(fmt.Errorf("--baseline %q: it carries no assessment; run it with assessment: in evalgate.yaml, or leave --baseline out", *baseline))
		}
		a.Compare(base.RunID, base.Assessment)
	}
	c.env.WarnDomains(assess.Tasks([]*results.Run{run}), opts.Taxonomy)

	dir := *out
	if dir == "" {
		dir = filepath.Dir(pos[0])
		if fi, err := os.Stat(pos[0]); err == nil && fi.IsDir() {
			dir = pos[0]
		}
	}
	written, err := pipeline.WriteAssessment(dir, a, *format, version())
	if err != nil {
		return err
	}
	c.env.Say(c.Stdout, "%s\n", pipeline.AssessmentLine(a))
	for _, name := range written {
		c.env.Say(c.Stdout, "wrote %s\n", filepath.Join(dir, name))
	}
	return nil
}
