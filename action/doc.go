// Package action is evalgate's GitHub Actions side: what the binary does
// after a run when GITHUB_ACTIONS=true. It writes the step outputs with a
// random delimiter, appends the scorecard to the job summary, turns failing
// tasks into annotations at their suite lines (errors when the build fails,
// warnings when every gate holds), masks secrets, keeps
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
//	// when suite files are invalid (exit 2), their files relative to the
//	// repository root:
//	action.WriteSuiteErrors(os.Stdout, suiteErrs)
//
//	// after results.json, scorecard.md and junit.xml are written:
//	pub, err := action.Publish(ctx, action.PublishOptions{
//		Run: run, ResultsPath: resultsPath, ScorecardPath: scorecardPath,
//		JUnitPath: junitPath, Scorecard: card.Markdown,
//		ScorecardComplete: card.ListsAllFailing, SecretEnv: secretEnvNames})
//
// Every file an annotation names is relative to the repository root, as the
// run's results hold them; a file outside the repository is named in the
// message instead.
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
