package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/action"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
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

// reportSuiteErrors puts the problems of invalid suites where a pull
// request shows them, for a run that stops with exit code 2: as error
// annotations at their line in GitHub Actions, and as suite-invalid
// results in findings.sarif in the output folder (DESIGN §6), which a
// code-scanning upload step after the run picks up. A path that could not
// be read is not in the SARIF (there is no file to show it in), and when
// no problem is in a file nothing is written; the terminal already lists
// every problem.
func (c *Command) reportSuiteErrors(err error, out string) {
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
	if c.inActions() {
		_ = action.WriteSuiteErrors(c.Stdout, at)
	}
	if len(inFiles) == 0 {
		return
	}
	sarif, serr := report.SARIF(nil, inFiles)
	if serr == nil && os.MkdirAll(out, 0o755) == nil {
		serr = os.WriteFile(filepath.Join(out, "findings.sarif"), sarif, 0o644)
	}
	if serr != nil {
		fmt.Fprintf(c.Stderr, "evalgate: could not write findings.sarif: %v\n", serr)
	}
}

// lazyRoot is the repository root, found once per run (Command.repoRoot).
type lazyRoot struct {
	once sync.Once
	dir  string
}

// repoRoot is the folder every path in the outputs is relative to
// (DESIGN §9): GITHUB_WORKSPACE, else the top of the git work tree holding
// the working directory, else the working directory. It is absolute, or
// empty when not even the working directory is known.
func (c *Command) repoRoot() string {
	c.repo.once.Do(func() { c.repo.dir = findRepoRoot(c.Getenv) })
	return c.repo.dir
}

func findRepoRoot(getenv func(string) string) string {
	if ws := getenv("GITHUB_WORKSPACE"); ws != "" {
		if abs, err := filepath.Abs(ws); err == nil {
			return abs
		}
	}
	if top := gitOutput("rev-parse", "--show-toplevel"); top != "" {
		return filepath.Clean(top)
	}
	wd, _ := os.Getwd()
	return wd
}

// repoPath names a file the way every output does: p, as evalgate was
// given it (relative to the working directory, or absolute), made relative
// to root with forward slashes and no "..". A file outside root keeps its
// path from the working directory when that climbs out of root, else its
// absolute path, so that results.InRepo is false for it and nothing links
// or annotates it.
func repoPath(root, p string) string {
	if p == "" || root == "" {
		return filepath.ToSlash(p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	if rel, ok := within(root, abs); ok {
		return rel
	}
	// The root or the file's folder may be reached through a symbolic link:
	// git prints the resolved top, and macOS's /tmp is /private/tmp.
	if r, err := filepath.EvalSymlinks(root); err == nil {
		if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			if rel, ok := within(r, filepath.Join(d, filepath.Base(abs))); ok {
				return rel
			}
		}
	}
	if rel := filepath.ToSlash(filepath.Clean(p)); !filepath.IsAbs(p) && !results.InRepo(rel) {
		return rel
	}
	return filepath.ToSlash(abs)
}

// within returns abs relative to root, in slashes, when it lies inside.
func within(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || filepath.IsAbs(rel) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	return rel, results.InRepo(rel)
}

// outputPath is repoPath from the repository root of this run.
func (c *Command) outputPath(p string) string { return repoPath(c.repoRoot(), p) }

// baselineSource is how results.json and the scorecard name the baseline
// spec read from path: a file from the repository root, as every output
// names files; a git: or github-artifact: spec as it was written.
func (c *Command) baselineSource(spec, path string) string {
	if path != spec || strings.HasPrefix(spec, regression.GitPrefix) {
		return spec
	}
	return c.outputPath(spec)
}

// repoRelative names the suite and task files of a run that has just
// finished, which hold the suites' paths as they were loaded, from the
// repository root: results.json and every report made from it, now or
// later and wherever they are made, show the same paths and links.
func (c *Command) repoRelative(run *results.Run) {
	names := map[string]string{}
	name := func(p string) string {
		n, ok := names[p]
		if !ok {
			n = c.outputPath(p)
			names[p] = n
		}
		return n
	}
	for i := range run.Suites {
		s := &run.Suites[i]
		s.File = name(s.File)
		for j := range s.Tasks {
			s.Tasks[j].File = name(s.Tasks[j].File)
		}
	}
}
