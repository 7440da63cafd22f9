package cli

import (
	"errors"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/runner"
)

// configureDetectors sets the adversarial detectors of the run.
func (j *job) configureDetectors(opts *runner.Options) error {
	return nil
}

func newOpenAIAgent(cfg *config.Config) (runner.Agent, error) {
	return nil, errors.New("agent.openai: OpenAI-compatible agents are not available in this build")
}
