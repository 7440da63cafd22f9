package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
)

// configureJudging sets the rubric judge and the adversarial detectors.
func (j *job) configureJudging(opts *runner.Options) error {
	if err := j.configureRubric(opts); err != nil {
		return err
	}
	return j.configureDetectors(opts)
}

// writeExtraOutputs writes the CI formats next to results.json.
func (j *job) writeExtraOutputs(ctx context.Context, run *results.Run) error {
	if err := report.WriteJUnitFile(filepath.Join(j.out, "junit.xml"), run); err != nil {
		return fmt.Errorf("could not write junit.xml: %w", err)
	}
	sarif, err := report.SARIF(run, nil)
	if err != nil {
		return fmt.Errorf("could not render findings.sarif: %w", err)
	}
	for name, data := range map[string][]byte{
		"findings.sarif": sarif,
		"badge.svg":      report.Badge(run),
		"scorecard.md":   []byte(report.Scorecard(run, j.c.scorecardOptions(run))),
	} {
		if err := os.WriteFile(filepath.Join(j.out, name), data, 0o644); err != nil {
			return fmt.Errorf("could not write %s: %w", name, err)
		}
	}
	return nil
}
