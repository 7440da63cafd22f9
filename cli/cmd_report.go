package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/pipeline"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
)

// reportCmd is `evalgate report --format md|junit|sarif|badge RESULTS`.
func reportCmd(ctx context.Context, c *Command, args []string) error {
	fs := c.newFlags("report", "RESULTS")
	format := fs.String("format", "md", "output `format`: md (the scorecard), junit, sarif, badge or html (a self-contained page)")
	out := fs.String("out", "", "write to this `file` instead of stdout")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return invalid(errors.New("report: expected one results.json (or the folder holding it)"))
	}
	switch *format {
	case "md", "junit", "sarif", "badge", "html":
	default:
		return invalid(fmt.Errorf("--format: expected md, junit, sarif, badge or html, got %q", *format))
	}
	run, err := readResults(ctx, pos[0])
	if err != nil {
		return invalid(err)
	}
	var data []byte
	switch *format {
	case "md":
		data = []byte(report.Scorecard(run, c.env.ScorecardOptions(run)))
	case "junit":
		data, err = report.JUnit(run)
	case "sarif":
		data, err = report.SARIF(run, nil)
	case "badge":
		data = report.Badge(run)
	case "html":
		data, err = report.HTML(run)
	}
	if err != nil {
		return runError(fmt.Errorf("could not render %s: %w", *format, err))
	}
	if *out == "" {
		_, err = c.Stdout.Write(data)
		return err
	}
	// A report written into an output folder waits for no run writing
	// there; and a link at --out is replaced, not written through.
	if dir := filepath.Dir(*out); pipeline.IsOutFolder(dir) {
		release, err := pipeline.LockFolder(dir, pipeline.AnotherFile)
		if err != nil {
			return err
		}
		defer release()
	}
	if err := atomicfile.WriteFile(*out, data, 0o644, 0o755); err != nil {
		return runError(fmt.Errorf("could not write %q: %w", *out, err))
	}
	return nil
}

// readResults reads a results.json, the folder holding one, or anything
// else a baseline may be (git:<ref>:<path>, a promoted baseline, openwop
// summaries).
func readResults(ctx context.Context, spec string) (*results.Run, error) {
	return regression.LoadResults(ctx, spec, "")
}
