// Package judges decides how well an agent's output meets a task's
// expectation, in three parts:
//
//   - the golden judge: the deterministic `match` strategies, the `assert`
//     checks and the `outputSchema` check of docs/suites.md, with no network and
//     the same verdict every time (this page);
//   - rubric judges, implementations of Rubric that decide the criteria
//     without a deterministic assert: OpenAI (an OpenAI-compatible chat
//     model, majority of Samples votes) and Exec (any program speaking the
//     exec judge protocol of docs/judges.md), with verdicts cached by content hash (Cache) and
//     measured against human labels (Measure, Calibration). A graded
//     criterion (docs/judges.md, "Graded criteria") is answered with a level on its scale, the
//     Median of Samples, and measured with Spearman ρ and QuadraticKappa
//     (MeasureGraded); Executor.Level decides one by its levels' checks
//     instead;
//   - the adversarial detectors (Detectors), which add content-free
//     {kind, severity} findings: canary and secret leaks, unsafe tool calls,
//     jailbreaks, followed prompt injections, personal data.
//
// Every check runs through an Executor, which holds the trial's deadline
// and the run's context and caps what the suite's regular expressions and
// expressions may cost (docs/security.md, "One check executor"). Its
// Golden returns one results.Check per check and Score turns them into
// the task score (the weighted mean). A typical trial:
//
//	x := judges.NewExecutor(ctx, timeout, programs)
//	defer x.Close()
//	obs := &judges.Observation{Input: task.Input, Output: out, Trace: calls, LatencyMs: 812}
//	checks, schemaValid, err := x.Golden(task, obs) // err: *CheckError, *TimeoutError, ctx's
//	score := judges.Score(checks)
//
// # Strategies
//
// The output is a JSON value. exact compares two strings byte for byte and
// anything else as canonical JSON; contains looks for the expected text in
// the output text (a string as itself, anything else as canonical JSON);
// json-match and json-subset parse a string output as JSON first and then
// compare by value (1 == 1.0, null is not a missing key); regex matches the
// output text; json-schema validates the (parsed) output. match.path applies
// a JSON pointer to the output (a string output is parsed first) before the
// strategy runs; match.ignoreCase makes exact and contains fold case.
//
// # Assertions
//
// expr runs the compiled expr-lang program over `output` (a JSON string
// stays a Go string, anything else is decoded to map[string]any, []any,
// float64, bool or nil), `input` (decoded the same way), `trace` (a list of
// {name, args, result, isError}), `latencyMs`, `costUsd`, `toolCalls`,
// and the world: `state` and `initialState` (nil without one).
// toolCalled passes when some call has the name and, when args are given,
// arguments containing them as a JSON subset; toolNotCalled when no call has
// the name; toolOrder when each named tool was called and their first calls
// come in the listed order; maxToolCalls, maxLatencyMs and maxCostUsd when
// the trial stays within the limit.
//
// trace and events judge the spans the agent sent through OpenTelemetry
// (Observation.Spans, docs/otel.md): trace selects spans by name,
// operation, tool or model and checks their count, durations, errors,
// order and events; events asks for span or span event names. Expressions
// read trace.spans, trace.llmCalls, trace.toolCalls, trace.errors,
// trace.tokens.input, trace.tokens.output and trace.durationMs.
//
// # End state
//
// A task with a world (fixtures.state) may check it when the trial ends:
// state passes when the final world contains expected.state as a JSON
// subset (as json-subset compares), unchanged when every pointer of
// expected.unchanged has the value it had when the trial started; expr
// assertions also see `state` and `initialState`. See docs/worlds.md.
//
// # Reasons
//
// A failed check carries a fixed, content-free reason code, never any part
// of the output:
//
//	mismatch        the output does not match the expected value or pattern
//	invalid-json    the output (or the string at match.path) is not JSON
//	path-missing    match.path does not exist in the output
//	not-called      a tool that had to be called was not (toolCalled, toolOrder)
//	called          a forbidden tool was called (toolNotCalled)
//	out-of-order    the tools were called, but not in the listed order
//	over-limit      more tool calls, latency or cost than allowed
//	schema-invalid  the output does not validate against the JSON Schema
//	expr-error      the expression failed while running
//	not-bool        the expression did not produce true or false
//	unsupported     the check or strategy is not one evalgate knows, or a
//	                program check run without Programs
//	program-failed  a program check's program answered {"pass": false}
//	negated         a check with negate: true, and what it checks held
//	changed         a part of the world that had to stay as it was changed (unchanged)
//	no-world        an end-state check ran on a trial without a world
//	no-trace        a trace or events check ran on a trial whose spans the run did not receive
//	span-count      the selected spans were not as many as count says (trace)
//	span-error      a selected span ended in error (trace noErrors)
//	span-missing    a span the order names is not there (trace order)
//	missing-event   an event named is not there (trace events, events)
package judges
