package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
)

// publishCmd is `evalgate publish [--config F] [--out DIR]`, the GitHub
// Action's step after the run: it hands the run in DIR/results.json to
// GitHub (job summary, annotations, step outputs, the sticky comment) in
// a step of its own, which holds the token while no agent runs. The run
// step before it runs with --no-publish and no token.
func publishCmd(ctx context.Context, c *Command, args []string) error {
	fs := c.newFlags("publish", "")
	configPath := fs.String("config", "", "project `file` (default: evalgate.yaml here or in the nearest folder above, up to the repository root)")
	out := fs.String("out", "", "the run's output `folder` (default the config's, else evalgate-out)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return invalid(fmt.Errorf("publish: unexpected argument %q (the run is read from --out)", pos[0]))
	}
	if !c.env.InActions() {
		return invalid(errors.New("publish is the GitHub Action's step after `evalgate run --no-publish`: outside GitHub Actions there is nothing to publish to; `evalgate report` renders a results.json"))
	}
	cfg, err := c.env.LoadConfig(*configPath)
	if err != nil {
		return invalid(err)
	}
	dir := cmp.Or(*out, cfg.Out, "evalgate-out")
	run, err := readResults(ctx, filepath.Join(dir, "results.json"))
	if err != nil {
		return invalid(fmt.Errorf("nothing to publish: %w", err))
	}
	if err := c.env.Publish(ctx, run, dir, cfg); err != nil {
		return runError(err)
	}
	return nil
}
