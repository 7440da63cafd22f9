// Package pipeline is an evalgate run, its steps in the order they happen
// (docs/architecture.md):
//
//  1. prepare (prepare.go): the config, the suites, the selection, the
//     gates and the agent are read and checked; every problem is bad
//     input, found before any agent runs.
//  2. run the trials (run.go, runTrials): package runner drives the agent
//     and records each trial.
//  3. score: judges.Scorer scores each trial as it ends.
//  4. aggregate: package gates folds the trials into each task's figures
//     and verdict, the tasks into each suite's, the suites into the run's;
//     the assessment, the baseline comparison (regression) and the trust
//     scorecard are computed.
//  5. gate: the gate expressions are evaluated over the run.
//  6. write (outputs.go, run.go): results.json, the summaries, the CI
//     formats, the badges; the events and the terminal report are written
//     while the trials run (observer.go).
//  7. publish (action.go): in GitHub Actions, the job summary, the
//     annotations, the step outputs and the pull request comment.
//
// Env.Run is `evalgate run`; Env.Merge is `evalgate merge`, which merges
// the results of a sharded run (results.Merge) and takes the run from step
// 4; Env.Calibrate is `evalgate calibrate`, which measures the project's
// rubric judge against human labels (calibrate.go). How a run ended is an
// *Error; package cli maps it to the exit code.
package pipeline
