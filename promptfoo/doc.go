// Package promptfoo imports a promptfoo config (promptfooconfig.yaml) as
// evalgate files: a project file per provider, a suite whose tasks are a
// JSON Lines dataset of one row per test and prompt, the program checks
// that keep JavaScript and Python assertions' meaning, and a report of
// what mapped to what and what did not (DESIGN §16). A CSV sheet of tests
// inside the output folder is kept where it is: its suite, beside it,
// reads it at every run through a dataset with a promptfoo member, which
// this package registers with package suites (Sheet).
//
// Prompts are rendered with each test's vars by a Jinja-compatible engine
// (github.com/ardanlabs/jinja), which reads promptfoo's Nunjucks. Tests
// keep promptfoo's meaning: defaultTest is merged in and list vars
// are expanded as promptfoo does, deterministic assertions become expr
// checks (not-* with negate), the model-graded ones rubric criteria, and
// JavaScript and Python assertions program checks that call the original
// code with promptfoo's calling convention through the runners embedded
// here (runners/). Whatever has no counterpart is listed, with its
// location, in Report.Unsupported: nothing is dropped silently.
//
// Example:
//
//	res, err := promptfoo.Import("promptfooconfig.yaml", promptfoo.Options{Out: out})
//	if errors.Is(err, promptfoo.ErrNotPromptfoo) {
//		// exit 2
//	}
//	for name, data := range res.Files {
//		os.WriteFile(filepath.Join(out, name), data, 0o644)
//	}
package promptfoo
