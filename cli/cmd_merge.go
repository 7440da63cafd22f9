package cli

import (
	"context"
	"errors"

	"github.com/evalgate/evalgate/pipeline"
)

// mergeCmd is `evalgate merge --out DIR RESULTS...`: the last job of a
// sharded workflow. It merges the shards' results.json as if the suites had
// run whole, compares with the baseline, evaluates the gates and writes
// every output, then exits 0 or 1 like run.
func mergeCmd(ctx context.Context, c *Command, args []string) error {
	fs := c.newFlags("merge", "RESULTS...")
	var f pipeline.Flags
	fs.StringVar(&f.Config, "config", "", "project `file` (default: evalgate.yaml here or in the nearest folder above, up to the repository root): gates, baseline, out")
	fs.StringVar(&f.Out, "out", "", "output `folder` (default evalgate-out)")
	fs.StringVar(&f.Baseline, "baseline", "", "baseline results: a results.json, a folder holding one, an EvalSummary, git:<ref>:<path> or github-artifact:<name>")
	fs.Var((*repeatFlag)(&f.Gates), "gate", "gate `expression` that must hold (repeatable; replaces the config's gates)")
	fs.BoolVar(&f.NoColor, "no-color", false, "no colour in the terminal report (NO_COLOR is honoured too)")
	fs.BoolVar(&f.Quiet, "quiet", false, "print only the verdict")
	fs.BoolVar(&f.NoPublish, "no-publish", false, "in GitHub Actions, publish nothing (job summary, annotations, step outputs, comment): `evalgate publish` does it in a later step, the one that holds the token")
	historyFlags(fs, &f.History) // run_history.go
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return invalid(errors.New("merge: expected the results of every shard (results.json files or the folders holding them)"))
	}
	return c.env.Merge(ctx, &f, paths)
}
