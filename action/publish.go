package action

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/results"
	"github.com/sethvargo/go-githubactions"
)

// Names of the step outputs (docs/github-action.md, "Outputs").
const (
	OutputPassed         = "passed"
	OutputAggregateScore = "aggregate-score"
	OutputResults        = "results"
	OutputScorecard      = "scorecard"
	OutputCommentURL     = "comment-url"
	// OutputTrustLevel is the trust level, 0-4, of a run with a trust
	// scorecard; not written without one.
	OutputTrustLevel = "trust-level"
)

// PublishOptions is what Publish needs from a finished run.
type PublishOptions struct {
	Run           *results.Run // the finished run, as written to ResultsPath
	ResultsPath   string       // results.json; the `results` output
	ScorecardPath string       // scorecard.md; the `scorecard` output
	JUnitPath     string       // junit.xml, which lists every task; "" when not written
	Scorecard     string       // the scorecard Markdown: job summary and PR comment
	// ScorecardComplete is true when the scorecard lists every failing
	// task (report.RenderedScorecard.ListsAllFailing).
	ScorecardComplete bool
	// SecretEnv names environment variables that hold secrets (the judge's
	// and the agent's apiKeyEnv); their values are masked in the log.
	SecretEnv []string

	Getenv     func(string) string // nil: os.Getenv
	Stdout     io.Writer           // workflow commands; nil: os.Stdout
	HTTPClient *http.Client        // nil: a default client
}

// Published says what Publish did.
type Published struct {
	Annotations      int    // annotations of failing tasks written
	AnnotationLevel  string // LevelError, or LevelWarning when every gate holds
	FailingTasks     int    // failed and errored tasks in all
	SummaryTruncated bool   // the job summary was cut to fit 1 MiB
	Comment          string // CommentCreated, CommentUpdated, CommentUnchanged, or "" when none was posted
	CommentURL       string
	// Warnings were written as ::warning:: commands; none changes the verdict.
	Warnings []string
}

// Publish does the GitHub side of a finished run: it masks secrets, appends
// the scorecard to the job summary, creates or updates the sticky pull
// request comment as the `comment` input asks, writes annotations for the
// worst failing tasks (errors when the run failed, warnings when every gate
// holds; at most MaxAnnotations of the level, the warning about the comment
// included) with a notice naming where the rest are, and writes the step
// outputs passed, aggregate-score, results, scorecard and comment-url.
//
// Failing to comment (a read-only token on a fork, 403/404, the API down)
// is a warning, never an error: the verdict is the gates'. The error is for
// the runner's own files that could not be written, or invalid inputs.
func Publish(ctx context.Context, opts PublishOptions) (Published, error) {
	getenv, stdout := processDefaults(opts.Getenv, opts.Stdout)
	var pub Published
	if opts.Run == nil {
		return pub, fmt.Errorf("could not publish: no results")
	}
	a := newAction(getenv, stdout)
	in := ReadInputs(a)
	if err := in.Validate(); err != nil {
		return pub, err
	}
	if err := MaskSecrets(stdout, getenv, opts.SecretEnv, in.GitHubToken); err != nil {
		return pub, err
	}
	if opts.Run.Shard != nil {
		return publishShard(getenv, opts)
	}
	warn := func(msg string) error {
		pub.Warnings = append(pub.Warnings, msg)
		return writeCommand(stdout, "warning", nil, msg)
	}

	summary := getenv("GITHUB_STEP_SUMMARY") != ""
	if summary {
		truncated, err := AppendStepSummary(getenv, opts.Scorecard)
		if err != nil {
			return pub, err
		}
		pub.SummaryTruncated = truncated
	}

	// The comment's warning comes before the annotations, so that it is not
	// the one GitHub drops when they are warnings too.
	if msg := publishComment(ctx, a, in, opts, &pub); msg != "" {
		if err := warn(msg); err != nil {
			return pub, err
		}
	}

	room := MaxAnnotations
	if opts.Run.Passed {
		room = max(0, room-len(pub.Warnings))
	}
	anns, total := Annotations(opts.Run, room)
	if err := WriteAnnotations(stdout, anns); err != nil {
		return pub, err
	}
	pub.Annotations, pub.FailingTasks = len(anns), total
	pub.AnnotationLevel = LevelError
	if opts.Run.Passed {
		pub.AnnotationLevel = LevelWarning
	}
	if total > len(anns) {
		msg := notAnnotated(total-len(anns), opts, summary, opts.ScorecardComplete && !pub.SummaryTruncated)
		if err := writeCommand(stdout, "notice", githubactions.CommandProperties{"title": "evalgate"}, msg); err != nil {
			return pub, err
		}
	}

	if getenv("GITHUB_OUTPUT") != "" {
		if err := WriteOutputs(getenv, stepOutputs(opts, pub.CommentURL)); err != nil {
			return pub, err
		}
	}
	return pub, nil
}

// stepOutputs are the action's step outputs for the run of opts.
func stepOutputs(opts PublishOptions, commentURL string) map[string]string {
	outs := map[string]string{
		OutputPassed:         strconv.FormatBool(opts.Run.Passed),
		OutputAggregateScore: strconv.FormatFloat(opts.Run.AggregateScore, 'f', 4, 64),
		OutputResults:        opts.ResultsPath,
		OutputScorecard:      opts.ScorecardPath,
		OutputCommentURL:     commentURL,
	}
	if t := opts.Run.Trust; t != nil {
		outs[OutputTrustLevel] = strconv.Itoa(t.Level)
	}
	return outs
}

// notAnnotated says how many failing tasks have no annotation and where
// every failing task is listed, naming only places that hold them all: the
// job summary (when written) if it does, junit.xml and results.json always.
func notAnnotated(n int, opts PublishOptions, summary, summaryListsAll bool) string {
	var places []string
	switch {
	case summary && summaryListsAll:
		places = append(places, "the job summary")
	case opts.ScorecardComplete && opts.ScorecardPath != "":
		places = append(places, opts.ScorecardPath)
	}
	for _, p := range []string{opts.JUnitPath, opts.ResultsPath} {
		if p != "" {
			places = append(places, p)
		}
	}
	msg := fmt.Sprintf("%d more failing tasks are not annotated", n)
	if n == 1 {
		msg = "1 more failing task is not annotated"
	}
	if k := len(places); k > 0 {
		list := places[k-1]
		if k > 1 {
			list = strings.Join(places[:k-1], ", ") + " and " + list
		}
		verb := " list"
		if k == 1 {
			verb = " lists"
		}
		msg += ": " + list + verb + " every failing task"
	}
	if summary && !summaryListsAll {
		msg += " (the job summary has room for only some)"
	}
	return msg
}

// publishComment keeps the sticky comment and returns a warning, or "".
func publishComment(ctx context.Context, a *githubactions.Action, in Inputs, opts PublishOptions, pub *Published) string {
	if in.Comment == CommentNever {
		return ""
	}
	gh, err := a.Context()
	if err != nil {
		return fmt.Sprintf("could not read the workflow event: %v; no pull request comment", err)
	}
	pr := pullRequestNumber(gh)
	if pr == 0 {
		return "" // not a pull request: the job summary is the report
	}
	if in.GitHubToken == "" {
		return fmt.Sprintf("could not comment on pull request #%d: no github-token", pr)
	}
	owner, repo := gh.Repo()
	if owner == "" || repo == "" {
		return fmt.Sprintf("could not comment on pull request #%d: GITHUB_REPOSITORY is not set", pr)
	}
	client, err := NewClient(opts.HTTPClient, gh.APIURL, in.GitHubToken)
	if err != nil {
		return err.Error()
	}
	c := &Commenter{Client: client, Owner: owner, Repo: repo, PR: pr, Marker: Marker(in.Config)}
	create := in.Comment == CommentAlways || !opts.Run.Passed
	cm, err := c.Upsert(ctx, opts.Scorecard, create)
	switch {
	case err != nil && IsPermissionError(err):
		return fmt.Sprintf("could not comment on pull request #%d: the token may not write to it (HTTP %d; a read-only token, as on pull requests from forks). The job summary has the scorecard and the verdict stands; see the fork pattern in docs/github-action.md",
			pr, statusOf(err))
	case err != nil:
		return fmt.Sprintf("%v; the job summary has the scorecard and the verdict stands", err)
	}
	pub.Comment, pub.CommentURL = cm.Action, cm.URL
	return ""
}

// pullRequestNumber reads the pull request number from the event payload
// (pull_request and pull_request_target events); 0 when there is none.
func pullRequestNumber(gh *githubactions.GitHubContext) int {
	if gh == nil || gh.Event == nil {
		return 0
	}
	if pr, ok := gh.Event["pull_request"].(map[string]any); ok {
		if n, ok := pr["number"].(float64); ok && n > 0 {
			return int(n)
		}
	}
	if !strings.HasPrefix(gh.EventName, "pull_request") {
		return 0
	}
	if n, ok := gh.Event["number"].(float64); ok && n > 0 {
		return int(n)
	}
	return 0
}

// baseRef is the branch a baseline comes from: the pull request's base, the
// pushed branch itself, or for a tag push the repository's default branch.
func baseRef(gh *githubactions.GitHubContext) string {
	if gh == nil {
		return ""
	}
	if pr, ok := gh.Event["pull_request"].(map[string]any); ok {
		if base, ok := pr["base"].(map[string]any); ok {
			if ref, ok := base["ref"].(string); ok && ref != "" {
				return ref
			}
		}
	}
	if gh.BaseRef != "" {
		return gh.BaseRef
	}
	if gh.RefType == "branch" || strings.HasPrefix(gh.Ref, "refs/heads/") {
		if gh.RefName != "" {
			return gh.RefName
		}
		return strings.TrimPrefix(gh.Ref, "refs/heads/")
	}
	// A tag push or a manual run compares with the default branch.
	if repo, ok := gh.Event["repository"].(map[string]any); ok {
		if ref, ok := repo["default_branch"].(string); ok {
			return ref
		}
	}
	return ""
}

// BaselineOptions is what ResolveBaseline needs.
type BaselineOptions struct {
	Spec    string // the baseline setting; only github-artifact:<name> is resolved
	DestDir string // where results.json is written

	Getenv     func(string) string // nil: os.Getenv
	Stdout     io.Writer           // workflow commands; nil: os.Stdout
	HTTPClient *http.Client        // nil: a default client
}

// ResolveBaseline turns a `github-artifact:<name>` baseline into a local
// results.json downloaded from the newest successful run on the base branch
// (see DownloadBaseline); the token is the github-token input, else
// GITHUB_TOKEN. When there is no such artifact yet it writes a notice and
// returns found=false with no error: the run has no regression block.
// Other specs are returned unchanged with found=true.
func ResolveBaseline(ctx context.Context, opts BaselineOptions) (path string, found bool, err error) {
	name, ok := strings.CutPrefix(opts.Spec, ArtifactPrefix)
	if !ok {
		return opts.Spec, true, nil
	}
	getenv, stdout := processDefaults(opts.Getenv, opts.Stdout)
	a := newAction(getenv, stdout)
	gh, err := a.Context()
	if err != nil {
		return "", false, fmt.Errorf("could not read the workflow event: %w", err)
	}
	owner, repo := gh.Repo()
	if owner == "" || repo == "" {
		return "", false, fmt.Errorf("could not fetch baseline artifact %q: GITHUB_REPOSITORY is not set", name)
	}
	token := ReadInputs(a).GitHubToken
	if token == "" {
		token = getenv("GITHUB_TOKEN")
	}
	if token == "" {
		return "", false, fmt.Errorf("could not fetch baseline artifact %q: no github-token (the artifact API needs one with actions: read)", name)
	}
	if err := MaskSecrets(stdout, getenv, nil, token); err != nil {
		return "", false, err
	}
	client, err := NewClient(opts.HTTPClient, gh.APIURL, token)
	if err != nil {
		return "", false, err
	}
	ref := baseRef(gh)
	p, found, err := DownloadBaseline(ctx, client, owner, repo, ref, name, opts.DestDir)
	if err != nil {
		if IsPermissionError(err) {
			return "", false, fmt.Errorf("%w (does the job grant permissions: actions: read?)", err)
		}
		return "", false, err
	}
	if !found {
		msg := fmt.Sprintf("no baseline yet: no artifact %q from a successful run on %q; this run has no regression block", name, ref)
		if err := writeCommand(stdout, "notice", githubactions.CommandProperties{"title": "evalgate baseline"}, msg); err != nil {
			return "", false, err
		}
	}
	return p, found, nil
}

// newAction is go-githubactions over the given environment and writer.
// processDefaults stands the process's environment and standard output in
// for those not given.
func processDefaults(getenv func(string) string, stdout io.Writer) (func(string) string, io.Writer) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if stdout == nil {
		stdout = os.Stdout
	}
	return getenv, stdout
}

func newAction(getenv func(string) string, w io.Writer) *githubactions.Action {
	return githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(w))
}
