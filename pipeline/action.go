package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/action"
	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/otelexport"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
)

// InActions reports whether evalgate runs as a GitHub Actions step.
func (c *Env) InActions() bool { return c.Getenv("GITHUB_ACTIONS") == "true" }

// secretEnv names the variables that hold credentials evalgate reads (its
// own, process.Credentials, and the API keys of the config): their values
// are masked in the log before anything else is printed, and redacted.
func secretEnv(cfg *config.Config) []string {
	names := slices.Clone(process.Credentials)
	for _, o := range []*config.OpenAI{cfg.Agent.OpenAI, cfg.Judge.OpenAI, cfg.User.Simulator} {
		if o != nil && o.APIKeyEnv != "" {
			names = append(names, o.APIKeyEnv)
		}
	}
	return names
}

// urlSecrets lists what the passwords in the config's API URLs give away
// if a server echoes a request (redact.URLSecrets).
func urlSecrets(cfg *config.Config) []string {
	var vals []string
	for _, o := range []*config.OpenAI{cfg.Agent.OpenAI, cfg.Judge.OpenAI, cfg.User.Simulator} {
		if o != nil {
			vals = append(vals, redact.URLSecrets(o.BaseURL)...)
		}
	}
	return vals
}

// learnSecrets sets what everything evalgate prints and writes redacts:
// the values of the credential variables (secretEnv) and the passwords of
// the config's API URLs.
func (c *Env) LearnSecrets(cfg *config.Config) {
	vals := urlSecrets(cfg)
	for _, name := range secretEnv(cfg) {
		vals = append(vals, c.Getenv(name))
	}
	vals = append(vals, otelexport.HeaderSecrets(c.Getenv)...)
	vals = append(vals, redact.URLSecrets(cfg.OTel.Endpoint)...)
	c.secrets = redact.New(vals...)
}

// MaskSecrets masks credential values in the Actions log.
func (c *Env) MaskSecrets(cfg *config.Config) error {
	if !c.InActions() {
		return nil
	}
	return action.MaskSecrets(c.Stdout, c.Getenv, secretEnv(cfg), urlSecrets(cfg)...)
}

// ArtifactFetcher resolves github-artifact:<name> baselines through the
// Actions artifacts API; nil outside GitHub Actions.
func (c *Env) ArtifactFetcher(out string) func(ctx context.Context, name string) (string, bool, error) {
	if FetchArtifact != nil || !c.InActions() {
		return FetchArtifact
	}
	return func(ctx context.Context, name string) (string, bool, error) {
		return action.ResolveBaseline(ctx, action.BaselineOptions{
			Spec:    "github-artifact:" + name,
			DestDir: filepath.Join(out, "baseline"),
			Getenv:  c.Getenv,
			Stdout:  c.Stdout,
		})
	}
}

// Publish hands a finished run, whose outputs are in out, to GitHub: job
// summary, annotations, the sticky PR comment and the step outputs. A
// comment that cannot be posted is a warning; only unwritable Actions files
// fail the step (exit 3). Outside GitHub Actions it does nothing.
func (c *Env) Publish(ctx context.Context, run *results.Run, out string, cfg *config.Config) error {
	if !c.InActions() {
		return nil
	}
	// The scorecard as scorecard.md holds it: rendered again rather than
	// read back, to learn whether it lists every failing task.
	card := report.RenderScorecard(run, c.ScorecardOptions(run))
	_, err := action.Publish(ctx, action.PublishOptions{
		Run:               run,
		ResultsPath:       c.outputPath(filepath.Join(out, "results.json")),
		ScorecardPath:     c.outputPath(filepath.Join(out, "scorecard.md")),
		JUnitPath:         c.outputPath(filepath.Join(out, "junit.xml")),
		Scorecard:         card.Markdown,
		ScorecardComplete: card.ListsAllFailing,
		SecretEnv:         secretEnv(cfg),
		Getenv:            c.Getenv,
		Stdout:            c.Stdout,
	})
	if err != nil {
		return fmt.Errorf("could not Publish to GitHub: %w", err)
	}
	return nil
}

// ScorecardOptions links tasks to their lines on GitHub when the run is in
// GitHub Actions: GITHUB_SERVER_URL/GITHUB_REPOSITORY/blob/<sha>/.
func (c *Env) ScorecardOptions(run *results.Run) report.ScorecardOptions {
	server, repo := c.Getenv("GITHUB_SERVER_URL"), c.Getenv("GITHUB_REPOSITORY")
	sha := run.GitSHA
	if sha == "" {
		sha = c.Getenv("GITHUB_SHA")
	}
	if server == "" || repo == "" || sha == "" {
		return report.ScorecardOptions{}
	}
	return report.ScorecardOptions{LinkBase: strings.TrimSuffix(server, "/") + "/" + repo + "/blob/" + sha + "/"}
}
