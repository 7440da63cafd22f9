package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/evalgate/evalgate/action"
	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// writeExtraOutputs writes the CI formats next to results.json.
func (j *job) writeExtraOutputs(ctx context.Context, run *results.Run) error {
	// JUnit, a testcase a task, is the longest to write: the others are
	// written meanwhile.
	return allAtOnce(func() error {
		if err := report.WriteJUnitFile(filepath.Join(j.out, "junit.xml"), run); err != nil {
			return fmt.Errorf("could not write junit.xml: %w", err)
		}
		return nil
	}, func() error {
		sarif, err := report.SARIF(run, nil)
		if err != nil {
			return fmt.Errorf("could not render findings.sarif: %w", err)
		}
		for name, data := range map[string][]byte{
			"findings.sarif": sarif,
			"badge.svg":      report.Badge(run),
			"scorecard.md":   []byte(report.Scorecard(run, j.c.ScorecardOptions(run))),
		} {
			if err := atomicfile.WriteFile(filepath.Join(j.out, name), data, 0o644, 0o755); err != nil {
				return fmt.Errorf("could not write %s: %w", name, err)
			}
		}
		return j.writeTrust(run)
	})
}

// reportSuiteErrors puts the problems of invalid suites where a pull
// request shows them, for a run that stops with exit code 2: as error
// annotations at their line in GitHub Actions, and as suite-invalid
// results in findings.sarif in the output folder (the README's "Outputs"), which a
// code-scanning upload step after the run picks up. A path that could not
// be read is not in the SARIF (there is no file to show it in), and when
// no problem is in a file nothing is written; the terminal already lists
// every problem.
func (c *Env) reportSuiteErrors(err error, out string) {
	errs, ok := err.(suites.Errors)
	if !ok {
		return
	}
	at := make([]*report.SuiteError, 0, len(errs))
	var inFiles []*report.SuiteError
	for _, e := range errs {
		e := *e
		e.Pos.File = c.outputPath(e.Pos.File)
		at = append(at, &e)
		if e.Kind != suites.ErrIO {
			inFiles = append(inFiles, &e)
		}
	}
	if c.InActions() {
		_ = action.WriteSuiteErrors(c.Stdout, at)
	}
	if len(inFiles) == 0 {
		return
	}
	sarif, serr := report.SARIF(nil, inFiles)
	if serr == nil {
		serr = writeLocked(out, "findings.sarif", sarif)
	}
	if serr != nil {
		c.Say(c.Stderr, "evalgate: could not write findings.sarif: %v\n", serr)
	}
}

// writeLocked writes one file into the output folder out, holding its lock.
func writeLocked(out, name string, data []byte) error {
	release, err := lockOut(out, anotherFolder)
	if err != nil {
		return errors.Unwrap(err)
	}
	defer release()
	return atomicfile.WriteFile(filepath.Join(out, name), data, 0o644, 0o755)
}
