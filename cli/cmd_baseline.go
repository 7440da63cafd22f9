package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/action"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/pipeline"
	"github.com/evalgate/evalgate/regression"
)

// baselineCmd is `evalgate baseline promote [RESULTS] [--out FILE] [--force]`
// and `evalgate baseline fetch`.
func baselineCmd(ctx context.Context, c *Command, args []string) error {
	if len(args) > 0 && isHelpArg(args[0]) {
		args = []string{"promote", "--help"}
	}
	if len(args) > 0 && args[0] == "fetch" {
		return baselineFetchCmd(ctx, c, args[1:])
	}
	if len(args) == 0 || args[0] != "promote" {
		return unknownSubcommand("baseline", args, "promote", "fetch")
	}
	fs := c.newFlags("baseline", "promote [RESULTS]")
	configPath := fs.String("config", "", "project `file` whose out folder holds the run when RESULTS is not given (default: evalgate.yaml here or in the nearest folder above, up to the repository root)")
	out := fs.String("out", pipeline.DefaultBaselineFile, "where to write the baseline")
	force := fs.Bool("force", false, "promote a run that ran only some tasks, was interrupted, had errors or lacks tasks of the baseline at --out")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return invalid(errors.New("baseline promote: expected one results.json (or the folder holding it)"))
	}
	if len(pos) == 0 {
		// The last run: in the output folder run writes to.
		cfg, err := c.env.LoadConfig(*configPath)
		if err != nil {
			return invalid(err)
		}
		pos = []string{cmp.Or(cfg.Out, "evalgate-out")}
	}
	run, err := readResults(ctx, pos[0])
	if err != nil {
		return invalid(err)
	}
	if run.RunID == "" {
		return invalid(fmt.Errorf("could not promote %s: the results have no run id", pos[0]))
	}
	problems, err := regression.PromoteProblemsAt(ctx, run, *out)
	if err != nil {
		return runError(err)
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
		c.env.Say(c.Stderr, "evalgate: warning: promoted with --force although %s\n", p.What)
	}
	if err := regression.WritePromoted(*out, run); err != nil {
		return runError(err)
	}
	c.env.Say(c.Stdout, "evalgate: baseline %s written from run %s (%d %s, %d %s)\n", filepath.ToSlash(*out), run.RunID,
		len(run.Suites), words.Plural(len(run.Suites), "suite", "suites"), run.TaskCount, words.Plural(run.TaskCount, "task", "tasks"))
	return nil
}

// baselineFetchCmd is `evalgate baseline fetch [--config F] [--baseline
// SPEC] [--out DIR]`, the GitHub Action's step before the run: it
// downloads a github-artifact: baseline (the flag's, else the config's)
// while the step holds the token, so that the run, which starts agents,
// need not. It writes the step output `baseline`: the downloaded
// results.json, "none" when no artifact exists yet, or nothing when the
// baseline is not an artifact (the run reads it itself).
func baselineFetchCmd(ctx context.Context, c *Command, args []string) error {
	fs := c.newFlags("baseline", "fetch")
	configPath := fs.String("config", "", "project `file` (default: evalgate.yaml here or in the nearest folder above, up to the repository root)")
	spec := fs.String("baseline", "", "the baseline to fetch (default the config's)")
	out := fs.String("out", "", "output `folder`; the artifact goes to its baseline/ (default the config's, else evalgate-out)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return invalid(fmt.Errorf("baseline fetch: unexpected argument %q", pos[0]))
	}
	if !c.env.InActions() {
		return invalid(errors.New("baseline fetch is the GitHub Action's step: outside GitHub Actions, `evalgate run --baseline github-artifact:NAME` cannot reach the artifact API; use a file or git: baseline"))
	}
	cfg, err := c.env.LoadConfig(*configPath)
	if err != nil {
		return invalid(err)
	}
	s := cmp.Or(*spec, cfg.Baseline)
	if !strings.HasPrefix(s, regression.ArtifactPrefix) {
		return nil
	}
	if err := c.env.MaskSecrets(cfg); err != nil {
		return runError(err)
	}
	dir := cmp.Or(*out, cfg.Out, "evalgate-out")
	path, found, err := c.env.ArtifactFetcher(dir)(ctx, strings.TrimPrefix(s, regression.ArtifactPrefix))
	if err != nil {
		return runError(fmt.Errorf("could not fetch baseline %q: %w", s, err))
	}
	value := pipeline.NoBaseline
	if found {
		value = path
		c.env.Say(c.Stderr, "evalgate: baseline %s fetched to %s\n", s, filepath.ToSlash(path))
	}
	if err := action.WriteOutputs(c.Getenv, map[string]string{"baseline": value}); err != nil {
		return runError(err)
	}
	return nil
}
