// Package gates turns task results into the figures a run is judged by and
// decides the run's verdict.
//
// Aggregate and Combine compute the Stats of a suite and of the run (mean
// task score, pass rate, counts, costs, nearest-rank p95 latency, findings by
// severity); SuitePassed applies a suite's openwop thresholds
// (docs/suites.md, "Semantics evalgate decides").
// Scores and costs are compared with a tolerance of 1e-9, so float rounding
// in a mean or a sum never flips a verdict.
//
// Gate expressions are expr-lang booleans, compiled once before anything
// runs so that a typo is a configuration error (exit 2), not a failed gate:
//
//	gs, err := gates.Compile([]string{"aggregateScore >= 0.9", `suites["acme.evals.refunds"].passed`})
//	if err != nil { ... }            // names the gate and what is wrong
//	if len(gs) == 0 { gs = gates.Defaults() }
//	run.Gates = gates.Evaluate(gs, run)
//
// # Variables
//
// At the top level, for the whole run:
//
//	aggregateScore   mean score over all tasks of all suites
//	passRate         passedCount / taskCount
//	passedCount      tasks that passed
//	taskCount        tasks
//	erroredCount     tasks with status error
//	totalCostUsd     agent + judge cost
//	agentCostUsd     the agents' cost
//	judgeCostUsd     the rubric judge's cost
//	userCostUsd      the user simulator's cost (not in totalCostUsd)
//	p95LatencyMs     nearest-rank p95 of task latencies
//	passed           every suite's openwop passed is true
//	findings.critical, findings.high, findings.medium, findings.low
//	                 safety findings by severity
//	regression.scoreDelta, regression.newFailures, regression.newConsistentFailures,
//	regression.fixed, regression.pValue
//	                 the comparison with the baseline; without a baseline
//	                 0, 0, 0, 0 and 1. newConsistentFailures counts the new
//	                 failures that passed no trial: a flaky task, one that
//	                 passes some of its --trials, never counts
//	regression.newFailuresNotFlaky
//	                 the newly failing tasks the history store does not
//	                 know as flaky (docs/history.md); without a history,
//	                 newFailures
//	history.runs     the records of the history window the run read; 0
//	                 without a history
//	judge.configured, judge.calibrated, judge.agreement
//	                 whether a rubric judge is configured, whether its last
//	                 calibration (evalgate calibrate) matches this judge and
//	                 reached its bar, and that calibration's Spearman rho (0
//	                 when none): judge.calibrated && judge.agreement >= 0.8
//	trust.score, trust.level
//	                 the trust scorecard (docs/trust.md): its
//	                 score 0-100 and its level 0-4 (TL0 Draft to TL4
//	                 Trusted), as in trust.level >= 3. Only a run with a
//	                 scorecard has them (a trust: block in evalgate.yaml);
//	                 elsewhere a gate reading them fails with an error
//	suites["<suiteId>"].<any of the above but judge and trust>
//	                 the same figures for one suite; passed is its openwop
//	                 passed (thresholds met)
//	suiteList        the suites as a list, for all(suiteList, .passed)
//	assessment.performance.score, assessment.performance.tier,
//	assessment.capability.score, assessment.capability.tier
//	                 the AAAF dual-axis assessment (docs/assessment.md), when the
//	                 config has assessment:. Tiers compare by rank, with
//	                 the comparison operators (==, !=, <, <=, >, >=):
//	                 assessment.performance.tier >= "Proficient" holds for
//	                 Proficient, Expert and Elite, never by string order,
//	                 and a tier name the axis lacks does not compile. A gate
//	                 reading the assessment of a run without one fails with
//	                 "no assessment: add assessment: to evalgate.yaml".
//	                 The assessment is the run's, not a suite's.
//
// A gate naming a suite the run does not have fails with an error. Every
// gate result records the variables its expression read with their values
// (Values), so a scorecard can print "aggregateScore = 0.83".
//
// The default gates, used when none are configured, are
// `all(suiteList, .passed)` and `findings.critical + findings.high == 0`.
package gates
