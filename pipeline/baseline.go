package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// FetchArtifact resolves a github-artifact:<name> baseline to a local
// results.json. The GitHub Action's wiring sets it (with
// action.ResolveBaseline); it is nil outside the Action, where such a
// baseline is a bad invocation. found is false, with no error, when no
// artifact exists yet: the first run on a branch has no regression block.
var FetchArtifact func(ctx context.Context, name string) (path string, found bool, err error)

// NoBaseline as the baseline means none, whatever evalgate.yaml says: the
// Action passes it when `evalgate baseline fetch` found no artifact yet.
const NoBaseline = "none"

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
// means no baseline. at is where evalgate.yaml sets the spec; zero when a
// flag gave it.
func (c *Env) loadBaseline(ctx context.Context, spec, dir string, at diag.Pos, out string, loaded []*suites.Suite) (*comparison, error) {
	if spec == "" || spec == NoBaseline {
		return nil, nil
	}
	path := spec
	if name, ok := strings.CutPrefix(spec, regression.ArtifactPrefix); ok {
		fetch := c.ArtifactFetcher(out)
		if fetch == nil {
			return nil, invalid(fmt.Errorf("--baseline %q: %w", spec, regression.ErrArtifactSpec))
		}
		p, found, err := fetch(ctx, name)
		if err != nil {
			return nil, runError(fmt.Errorf("could not fetch baseline %q: %w", spec, err))
		}
		if !found {
			c.Say(c.Stderr, "evalgate: no baseline yet (%s): this run has no regression block\n", spec)
			return nil, nil
		}
		path = p
	}
	base, err := regression.Load(ctx, path, dir)
	if err != nil {
		return nil, invalid(unreadableBaseline(spec, at, err))
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
func (f *Flags) selection() *results.Selection {
	if len(f.Tasks) == 0 && len(f.Tags) == 0 && f.Mode == "" {
		return nil
	}
	return &results.Selection{Tasks: f.Tasks, Tags: f.Tags, Mode: f.Mode}
}

// baselineFrom is the folder a git: baseline is read in, and where its
// spec is set: the config's folder and the baseline key's place when the
// spec came from evalgate.yaml, else the current folder and no place.
func baselineFrom(flagSpec string, cfg *config.Config) (dir string, at diag.Pos) {
	if flagSpec != "" {
		return "", diag.Pos{}
	}
	return cfg.Dir, cfg.BaselineAt
}

// unreadableBaseline says where the baseline that cannot be read is named
// and what to do about it.
func unreadableBaseline(spec string, at diag.Pos, err error) error {
	fix := "fix the path, or run `evalgate baseline promote` to write one from a run's results"
	switch {
	case strings.HasPrefix(spec, regression.GitPrefix):
		fix = "fix the ref or the path, or commit a baseline there (`evalgate baseline promote` writes one)"
	case strings.HasPrefix(spec, regression.ArtifactPrefix):
		fix = "upload a run's results.json as that artifact, or name another one"
	}
	if at.Line == 0 {
		return fmt.Errorf("%w; %s", err, fix)
	}
	return fmt.Errorf("%s: baseline: %w; %s", at, err, fix)
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
