// Package report renders a run (a results.Run, or a suite of one) for the
// people and tools that read it. It does not own results.json: package
// results writes and reads that file, and `evalgate report` renders the
// scorecard, JUnit, SARIF, badge and HTML again from it. The renderers:
//
//   - NewTerminal: the console report, live progress on a terminal (terminal.go)
//   - Summary, WriteSummary: one openwop EvalSummary per suite, with its
//     embedded schema (SummarySchemaJSON) (summary.go)
//   - NewEvents: the openwop run events of events.ndjson (events.go)
//   - Scorecard, RenderScorecard: the Markdown scorecard of the pull-request comment and job
//     summary (scorecard.go)
//   - JUnit, WriteJUnit, WriteJUnitFile: junit.xml (junit.go)
//   - SARIF: findings.sarif for code scanning (sarif.go)
//   - Badge: badge.svg (badge.go)
//   - HTML: the single-file HTML report, its charts inline SVG (html.go)
//   - Diff, DiffVerdict: `evalgate diff`, two results files side by side (diff.go)
//   - AssessmentJSON, AssessmentSVG, AssessmentPNG, AssessmentMarkdown,
//     AssessmentOpenBadge: the files of the AAAF dual-axis assessment, and
//     the scorecard's section on it (assessment_*.go)
//   - WriteTranscript: the transcripts, the one output that holds content
//     and is written only on request (transcript.go)
//
// Everything but the transcripts is content-free: ids, scores, counts, check
// ids with reason codes, error kinds with evalgate's own error messages,
// file:line and {kind, severity}; never
// task input or output, prompts, rubric prose, tool results, judge reasons
// or credentials. Each writer builds its output from an allow-list of such
// fields, so content cannot leak in by a new field upstream.
//
// A run drives the writers as it goes:
//
//	events := report.NewEvents(eventsFile, time.Now, nil)
//	term := report.NewTerminal(report.TerminalOptions{Out: os.Stderr, Color: color, Live: isTTY})
//
//	events.Started(suite, modes, len(tasks), baselineRunID)
//	term.SuiteStarted(suite, len(tasks))
//	for each finished task {
//		events.Scored(suite.RunID, &task)
//		term.Progress(done, total, passed, failed, errored)
//	}
//	events.Completed(suite)
//	term.SuiteDone(suite)
//	report.WriteSummary(filepath.Join(out, "summaries"), suite, modelClass)
//
//	results.Write(filepath.Join(out, "results.json"), run)
//	term.Finish(run)
package report
