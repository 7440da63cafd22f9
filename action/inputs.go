package action

import (
	"fmt"
	"strings"

	"github.com/sethvargo/go-githubactions"
)

// Comment modes of the `comment` input.
const (
	CommentAlways    = "always"     // create or update the comment on every run
	CommentOnFailure = "on-failure" // create it only when a gate fails; keep an existing one up to date
	CommentNever     = "never"      // never touch the pull request
)

// Inputs are the action inputs the binary acts on. action.yml maps each
// input to an INPUT_* variable explicitly (composite actions get none on
// real runners) and passes suites, agent-command and gates to `evalgate
// run` as flags.
type Inputs struct {
	Config      string // the evalgate.yaml path; keys the sticky comment
	Baseline    string // a path, git:<ref>:<path> or github-artifact:<name>
	Comment     string // always, on-failure or never; always when empty
	GitHubToken string
	Out         string // the output folder
}

// ReadInputs reads the inputs from the action's environment (INPUT_CONFIG,
// INPUT_BASELINE, INPUT_COMMENT, INPUT_GITHUB-TOKEN or INPUT_GITHUB_TOKEN,
// INPUT_OUT). An empty comment mode reads as always.
func ReadInputs(a *githubactions.Action) Inputs {
	in := Inputs{
		Config:   a.GetInput("config"),
		Baseline: a.GetInput("baseline"),
		Comment:  strings.ToLower(a.GetInput("comment")),
		Out:      a.GetInput("out"),
	}
	// The runner keeps the dash in INPUT_GITHUB-TOKEN for JavaScript and
	// Docker actions; action.yml sets INPUT_GITHUB_TOKEN, which a shell can
	// name. Read both.
	in.GitHubToken = a.GetInput("github-token")
	if in.GitHubToken == "" {
		in.GitHubToken = a.GetInput("github_token")
	}
	if in.Comment == "" {
		in.Comment = CommentAlways
	}
	return in
}

// Validate checks the inputs that have a fixed set of values.
func (in Inputs) Validate() error {
	switch in.Comment {
	case CommentAlways, CommentOnFailure, CommentNever:
		return nil
	}
	return fmt.Errorf("could not use input comment %q: expected one of %q, %q, %q",
		in.Comment, CommentAlways, CommentOnFailure, CommentNever)
}
