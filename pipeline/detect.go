package pipeline

import (
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/runner"
)

// configureDetectors sets the adversarial detectors of the run. It runs
// after the rubric judge is configured, so that a run with a judge lets it
// decide refusals (jailbreak); without one the phrase heuristic decides.
func (j *job) configureDetectors(scorer *judges.Scorer) error {
	scorer.Detectors = &judges.Detectors{Rubric: scorer.Rubric}
	return nil
}

// minOpenAIConns is the least number of idle connections the OpenAI
// agent's client keeps per host, so --concurrency above the config's
// value still reuses connections.
const minOpenAIConns = 64

// systemPromptFile is the kind of input agent.openai.systemPromptFile
// names: a file in the repository, of at most 1 MiB (some 250,000
// tokens, more than a model's context).
var systemPromptFile = inputfile.Kind{What: "a system prompt file", Limit: 1 << 20, Hint: "name a text file in the repository"}

// newOpenAIAgent builds the driver of agent.openai: one HTTP client with
// keep-alive for the whole run, the API key read from apiKeyEnv, the system
// prompt read from systemPromptFile.
func (c *Env) newOpenAIAgent(cfg *config.Config, concurrency int) (runner.Agent, error) {
	o := cfg.Agent.OpenAI
	a := &runner.OpenAI{
		BaseURL:      o.BaseURL,
		Model:        o.Model,
		SystemPrompt: o.SystemPrompt,
		MaxTurns:     o.MaxTurns,
		Temperature:  o.Temperature,
		Pricing:      o.Pricing,
		Client:       runner.NewHTTPClient(max(concurrency, minOpenAIConns)),
		Redact:       c.secrets,
	}
	if !strings.HasPrefix(o.BaseURL, "http://") && !strings.HasPrefix(o.BaseURL, "https://") {
		return nil, fmt.Errorf("agent.openai.baseURL: expected an http:// or https:// URL such as http://127.0.0.1:8000/v1, got %q", o.BaseURL)
	}
	if o.SystemPromptFile != "" {
		b, err := systemPromptFile.ReadIn(cfg.Root(), o.SystemPromptFile)
		if err != nil {
			return nil, fmt.Errorf("agent.openai.systemPromptFile: could not read %q: %w", o.SystemPromptFile, err)
		}
		a.SystemPrompt = string(b)
	}
	if o.APIKeyEnv != "" {
		a.APIKey = c.Getenv(o.APIKeyEnv)
		if a.APIKey == "" {
			return nil, fmt.Errorf("agent.openai.apiKeyEnv: the environment variable %s is not set", o.APIKeyEnv)
		}
	}
	return a, nil
}
