// Package report writes what a run leaves behind: the openwop EvalSummary of
// each suite, the openwop run events in events.ndjson, evalgate's own
// results.json, the report on the console and, on request, the transcripts.
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
//	report.WriteResults(filepath.Join(out, "results.json"), run)
//	term.Finish(run)
//
// The JSON Schemas of the EvalSummary and of results.json are embedded and
// returned by SummarySchemaJSON and ResultsSchemaJSON.
package report
