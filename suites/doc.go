// Package suites loads, validates and exports eval suites: openwop
// AgentEvalSuite files (RFC 0081) in JSON or YAML, plus evalgate's
// extensions.
//
// Load reads files and folders; Parse reads one file. Each file goes
// through three stages, and every problem of every stage is reported at
// once, as an Errors sorted by file, line and column:
//
//  1. syntax: JSON (duplicate keys are errors) or YAML that is a JSON value
//     (string keys only, no binary or custom tags, aliases expanded within
//     a budget);
//  2. schema: the document against evalgate's JSON Schema (SchemaJSON),
//     with messages that say what was expected;
//  3. semantic: what a schema cannot say: unique task ids, what each kind of
//     expectation needs, regexes, schemas, JSON pointers and expressions
//     that must compile, and the scales of graded criteria (Scale: every
//     level of min..max described, nothing outside it, a weight above 0).
//
// Every value keeps its position, so an error reads
//
//	evals/refunds.yaml:14:7: /tasks/2/expected/kind: expected one of "golden", "rubric", got "gold" [schema]
//
// and the runner, the judges and the reports can point at a task's line.
// Values that may be any JSON (task input, match values, tool responses)
// are kept as compact json.RawMessage with their number literals as
// written, so 42.0 stays 42.0.
//
// CheckOpenWOP and ExportOpenWOP serve `evalgate validate --openwop` and
// `evalgate export --openwop` from one walk of the file, so both count the
// same extensions: the first lists what keeps a file from being strictly
// openwop-portable, the second strips the extensions, translates the
// matches openwop can express exactly, leaves out the tasks only
// extensions score, and reports each of these.
//
// Example:
//
//	suites, err := suites.Load("evals/")
//	var errs suites.Errors
//	if errors.As(err, &errs) {
//		for _, e := range errs {
//			fmt.Fprintln(os.Stderr, e) // file:line:col: pointer: message [kind]
//		}
//	}
package suites
