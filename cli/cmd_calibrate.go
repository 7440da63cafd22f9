package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/pipeline"
)

// calibrateCmd is `evalgate calibrate --labels FILE`: pipeline.Env.Calibrate
// measures the judge against the labels.
func calibrateCmd(ctx context.Context, c *Command, args []string) error {
	var r pipeline.CalibrateRequest
	fs := c.newFlags("calibrate", "--labels FILE")
	fs.StringVar(&r.Labels, "labels", "", "JSON Lines `file` of human labels: {\"input\", \"output\", \"criterion\", \"human\": true|false|0..1}, or a graded criterion's \"scale\" with \"human\": its level (required)")
	fs.StringVar(&r.Config, "config", "", "project `file` with the judge block (default: evalgate.yaml here or in the nearest folder above, up to the repository root)")
	fs.Float64Var(&r.MinAgreement, "min-agreement", judges.DefaultMinAgreement, "the Spearman ρ the judge must reach; below it the exit code is 1")
	fs.BoolVar(&r.NoCache, "no-cache", false, "ask the judge again instead of reusing cached verdicts")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return invalid(fmt.Errorf("calibrate takes no arguments, got %q; pass the labels with --labels", fs.Arg(0)))
	case r.Labels == "":
		return invalid(errors.New("--labels is required: a JSON Lines file of human-labelled examples"))
	case !(r.MinAgreement > 0 && r.MinAgreement <= 1):
		// A bar at or below 0 passes a judge no better than a coin.
		return invalid(fmt.Errorf("--min-agreement: expected a correlation above 0 and at most 1, such as 0.8, got %g", r.MinAgreement))
	}
	return c.env.Calibrate(ctx, &r)
}
