// Package action is evalgate's GitHub Actions side: what the binary does
// after a run when GITHUB_ACTIONS=true. It writes the step outputs with a
// random delimiter, appends the scorecard to the job summary, turns failing
// tasks into error annotations at their suite lines, masks secrets, keeps
// one sticky scorecard comment per config on the pull request, and fetches
// the baseline results.json from the base branch's artifacts.
//
// The CLI drives it in three places:
//
//	// at start, before anything is logged:
//	action.MaskSecrets(os.Stdout, os.Getenv, secretEnvNames)
//
//	// before gating, when the baseline is "github-artifact:<name>":
//	path, found, err := action.ResolveBaseline(ctx, action.BaselineOptions{
//		Spec: baseline, DestDir: filepath.Join(out, "baseline")})
//
//	// when suite files are invalid (exit 2):
//	action.WriteSuiteErrors(os.Stdout, suiteErrs, os.Getenv("GITHUB_WORKSPACE"))
//
//	// after results.json and scorecard.md are written:
//	pub, err := action.Publish(ctx, action.PublishOptions{
//		Run: run, ResultsPath: resultsPath, ScorecardPath: scorecardPath,
//		Scorecard: scorecardMarkdown, SecretEnv: secretEnvNames})
//
// Nothing here changes the verdict: a pull request comment that cannot be
// posted (a read-only token on a fork) is one warning, and the gate's exit
// code stands. Publish returns an error only when the runner's own files
// (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) cannot be written.
//
// The GitHub API is reached through go-github at GITHUB_API_URL (GitHub
// Enterprise Server and tests), with retries on 5xx answers and secondary
// rate limits.
package action
