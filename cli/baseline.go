package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// fetchArtifact resolves a github-artifact:<name> baseline to a local
// results.json. The GitHub Action's wiring sets it (with
// action.ResolveBaseline); it is nil outside the Action, where such a
// baseline is a bad invocation. found is false, with no error, when no
// artifact exists yet: the first run on a branch has no regression block.
var fetchArtifact func(ctx context.Context, name string) (path string, found bool, err error)

// DefaultBaselineFile is where `evalgate baseline promote` writes.
const DefaultBaselineFile = ".evalgate/baseline.json"

// comparison is a loaded baseline and how to compare a run with it.
type comparison struct {
	base *results.Run
	opts regression.Options
}

// loadBaseline reads the baseline named by spec before anything runs: a
// missing or unreadable baseline is exit 2, an artifact that could not be
// fetched exit 3, and an artifact that does not exist yet a notice and no
// comparison. dir is the folder a git: spec runs in. loaded lists every task
// of the suite files, so tasks a filter or a shard left out are not taken
// for removed ones. A downloaded artifact goes under out. A nil comparison
// means no baseline.
func (c *Command) loadBaseline(ctx context.Context, spec, dir, out string, loaded []*suites.Suite) (*comparison, error) {
	if spec == "" {
		return nil, nil
	}
	path := spec
	if name, ok := strings.CutPrefix(spec, regression.ArtifactPrefix); ok {
		fetch := c.artifactFetcher(out)
		if fetch == nil {
			return nil, invalid(fmt.Errorf("--baseline %q: %w", spec, regression.ErrArtifactSpec))
		}
		p, found, err := fetch(ctx, name)
		if err != nil {
			return nil, runError(fmt.Errorf("could not fetch baseline %q: %w", spec, err))
		}
		if !found {
			fmt.Fprintf(c.Stderr, "evalgate: no baseline yet (%s): this run has no regression block\n", spec)
			return nil, nil
		}
		path = p
	}
	base, err := regression.Load(ctx, path, dir)
	if err != nil {
		return nil, invalid(err)
	}
	cmp := &comparison{base: base, opts: regression.Options{Source: c.baselineSource(spec, path)}}
	if loaded != nil {
		inSuites := map[[2]string]bool{}
		for _, s := range loaded {
			for _, t := range s.Tasks {
				inSuites[[2]string{s.ID, t.ID}] = true
			}
		}
		cmp.opts.InSuites = func(suiteID, taskID string) bool { return inSuites[[2]string{suiteID, taskID}] }
	}
	return cmp, nil
}

// selection is what results.json records of the run's filters; nil when it
// runs every task.
func (f *runFlags) selection() *results.Selection {
	if len(f.tasks) == 0 && len(f.tags) == 0 && f.mode == "" {
		return nil
	}
	return &results.Selection{Tasks: f.tasks, Tags: f.tags, Mode: f.mode}
}

// baselineDir is the folder a git: baseline is read in: the config's folder
// when the spec came from evalgate.yaml, else the current one.
func baselineDir(flagSpec, cfgDir string) string {
	if flagSpec != "" {
		return ""
	}
	return cfgDir
}

// runID is the baseline run id a suite is compared against; empty without
// a baseline or when the baseline does not have the suite.
func (cmp *comparison) runID(suiteID string) string {
	if cmp == nil {
		return ""
	}
	return regression.SuiteBaselineRunID(cmp.base, suiteID)
}

// suite compares one finished suite with the baseline.
func (cmp *comparison) suite(s *results.Suite) *results.SuiteRegression {
	if cmp == nil {
		return nil
	}
	return regression.CompareSuite(cmp.base, s, cmp.opts)
}

// compare fills the run's regression block from the baseline.
func (j *job) compare(ctx context.Context, run *results.Run) error {
	if j.cmp != nil {
		regression.Compare(j.cmp.base, run, j.cmp.opts)
	}
	return nil
}

// baselineCmd is `evalgate baseline promote RESULTS [--out FILE] [--force]`.
func baselineCmd(ctx context.Context, c *Command, args []string) error {
	if len(args) > 0 && isHelpArg(args[0]) {
		args = []string{"promote", "--help"}
	}
	if len(args) == 0 || args[0] != "promote" {
		return unknownSubcommand("baseline", args, "promote")
	}
	fs := c.newFlags("baseline", "promote RESULTS")
	out := fs.String("out", DefaultBaselineFile, "where to write the baseline")
	force := fs.Bool("force", false, "promote a run that ran only some tasks, was interrupted, had errors or lacks tasks of the baseline at --out")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return invalid(errors.New("baseline promote: expected one results.json (or the folder holding it)"))
	}
	run, err := readResults(ctx, pos[0])
	if err != nil {
		return invalid(err)
	}
	if run.RunID == "" {
		return invalid(fmt.Errorf("could not promote %s: the results have no run id", pos[0]))
	}
	problems, err := promoteProblems(ctx, run, *out)
	if err != nil {
		return err
	}
	if len(problems) > 0 && !*force {
		var b strings.Builder
		fmt.Fprintf(&b, "will not promote run %s to %s:\n", run.RunID, filepath.ToSlash(*out))
		for _, p := range problems {
			fmt.Fprintf(&b, "  - %s\n", p)
		}
		b.WriteString("a baseline is the bar every later run is compared with; pass --force to promote this run anyway")
		return invalid(errors.New(b.String()))
	}
	for _, p := range problems {
		fmt.Fprintf(c.Stderr, "evalgate: warning: promoted with --force although %s\n", p.What)
	}
	if err := regression.WritePromoted(*out, run); err != nil {
		return runError(err)
	}
	fmt.Fprintf(c.Stdout, "evalgate: baseline %s written from run %s (%d %s, %d %s)\n", filepath.ToSlash(*out), run.RunID,
		len(run.Suites), pluralWord(len(run.Suites), "suite", "suites"), run.TaskCount, pluralWord(run.TaskCount, "task", "tasks"))
	return nil
}

// promoteProblems says why run should not replace the baseline at out: the
// run's own problems, and the tasks of the baseline already there that it
// lacks. A file at out that is not a baseline is a problem too, rather than
// overwritten unseen.
func promoteProblems(ctx context.Context, run *results.Run, out string) ([]regression.PromoteProblem, error) {
	if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
		return regression.PromoteProblems(run, nil), nil
	} else if err != nil {
		return nil, runError(fmt.Errorf("could not read the baseline %q: %w", out, err))
	}
	old, err := regression.Load(ctx, out, "")
	if err != nil {
		return append(regression.PromoteProblems(run, nil), regression.PromoteProblem{
			What: fmt.Sprintf("%s is there and is not a baseline evalgate can read (%v)", filepath.ToSlash(out), err),
			Fix:  "choose another --out",
		}), nil
	}
	return regression.PromoteProblems(run, old), nil
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
