// Package regression compares a run with a baseline: it loads the baseline
// (a results.json, a promoted baseline, openwop EvalSummary files or
// git:<ref>:<path>), pairs the tasks of the two runs, and says which tasks
// newly fail, which are fixed, how far the score moved and whether the move
// is larger than the noise.
//
//	base, err := regression.Load(ctx, ".evalgate/baseline.json", "")
//	if err != nil { ... }                     // exit 2: a bad --baseline
//	reg := regression.Compare(base, run, regression.Options{Source: ".evalgate/baseline.json"})
//	// reg.NewFailures, reg.ScoreDelta, reg.PValue, reg.CILow, reg.CIHigh;
//	// run.Suites[i].Regression holds each suite's share.
//
// # Significance
//
// A pull request's run is paired with the baseline task by task, so the
// tests are paired tests:
//
//   - pValue is McNemar's exact test over the verdict flips: b tasks that
//     passed and now fail against c that failed and now pass, two-sided
//     binomial with p = 1/2; 1 when nothing flipped. One flipped task gives
//     1, two give 0.5, six (all one way) give 0.03125.
//   - the sign test does the same over the score moves, up against down
//     (SignTestOf reads it back out of any results.json).
//   - ciLow/ciHigh is a 95% percentile bootstrap interval of the mean
//     per-task score delta, from 2,000 resamples with a fixed seed, so the
//     same results always give the same interval.
//
// With trials (k > 1) a task's score is its mean over the trials and its
// verdict is pass^k (every trial passed).
//
// Promote writes the canonical baseline file that `evalgate baseline
// promote` commits: content-free, one line per task.
package regression
