package cli

import (
	"context"
	"errors"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
)

// configureJudging sets the rubric judge and the adversarial detectors.
func (j *job) configureJudging(opts *runner.Options) error {
	if j.cfg.Judge.OpenAI != nil || len(j.cfg.Judge.Exec) > 0 {
		return invalid(errors.New("judge: rubric judges are not available in this build"))
	}
	return nil
}

// compare fills the run's regression block from the baseline.
func (j *job) compare(ctx context.Context, run *results.Run) error {
	if j.baseline != "" {
		return invalid(errors.New("--baseline: baselines are not available in this build"))
	}
	return nil
}

// writeExtraOutputs writes the scorecard and the CI formats.
func (j *job) writeExtraOutputs(ctx context.Context, run *results.Run) error {
	return nil
}

func newOpenAIAgent(cfg *config.Config) (runner.Agent, error) {
	return nil, errors.New("agent.openai: OpenAI-compatible agents are not available in this build")
}
