package cli

import (
	"context"
	"errors"

	"github.com/evalgate/evalgate/results"
)

// compare fills the run's regression block from the baseline.
func (j *job) compare(ctx context.Context, run *results.Run) error {
	if j.baseline != "" {
		return invalid(errors.New("--baseline: baselines are not available in this build"))
	}
	return nil
}
