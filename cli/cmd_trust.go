package cli

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/pipeline"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/trust"
)

// trustCmd is `evalgate trust [--out DIR] [--history FILE...] RESULTS...`:
// the trust scorecard of a finished run, written as trust.json and
// printed as a table. Several RESULTS are the shards of one run.
func trustCmd(ctx context.Context, c *Command, args []string) error {
	if len(args) > 0 && args[0] == "preflight" {
		return trustPreflightCmd(ctx, c, args[1:]) // trust_preflight.go
	}
	fs := c.newFlags("trust", "RESULTS...")
	var (
		configPath, out string
		history         repeatFlag
	)
	fs.StringVar(&configPath, "config", "", "project `file` (default: evalgate.yaml here or in the nearest folder above, up to the repository root): agent.version, gates, trust")
	fs.StringVar(&out, "out", "", "`folder` to write trust.json to (default: the folder of the first RESULTS)")
	fs.Var(&history, "history", "an earlier run's `results`: a results.json or the folder holding one, for the runtime adjustments and TL4 (repeatable; added to trust.history)")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return invalid(errors.New("trust: expected a results.json, or the folder holding one (evalgate-out/ after a run)"))
	}
	cfg, err := c.env.LoadConfig(configPath)
	if err != nil {
		return invalid(err)
	}
	runs := make([]*results.Run, len(paths))
	for i, p := range paths {
		if runs[i], err = results.Read(p); err != nil {
			if errors.Is(err, iofs.ErrNotExist) {
				err = fmt.Errorf("%w; name the output folder of a finished run (evalgate run writes evalgate-out/ unless --out says otherwise)", err)
			}
			return invalid(err)
		}
	}
	run := runs[0]
	if len(runs) > 1 {
		if run, _, err = c.env.MergeRuns(runs, paths, nil, nil); err != nil {
			return invalid(err)
		}
	}
	configured := 0
	for _, g := range run.Gates {
		if !g.Default {
			configured++
		}
	}
	if configured == 0 {
		configured = len(cfg.Gates)
	}
	in, err := pipeline.TrustInput(ctx, cfg, history, configured)
	if err != nil {
		return invalid(err)
	}
	in.Run = run
	in.Store = c.env.TrustStore(ctx, cfg) // docs/history.md
	sc := trust.Compute(*in)
	if out == "" {
		out = paths[0]
		if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
			out = filepath.Dir(out)
		}
	}
	data, err := pipeline.TrustJSON(sc)
	if err == nil {
		err = atomicfile.WriteFile(filepath.Join(out, pipeline.TrustFile), data, 0o644, 0o755)
	}
	if err != nil {
		return runError(fmt.Errorf("could not write %s: %w", pipeline.TrustFile, err))
	}
	pipeline.PrintTrust(c.Stdout, sc)
	c.env.Say(c.Stdout, "wrote %s\n", filepath.Join(out, pipeline.TrustFile))
	return nil
}
