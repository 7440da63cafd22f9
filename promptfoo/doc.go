// Package promptfoo imports a promptfoo config (promptfooconfig.yaml) as
// evalgate files: a project file per provider, a suite whose tasks are a
// JSON Lines dataset of one row per test and prompt, the program checks
// that keep JavaScript and Python assertions' meaning, and a report of
// what mapped to what and what did not (docs/migrating-from-promptfoo.md).
// A CSV sheet of tests inside the output folder is kept where it is: its
// suite, beside it, reads it at every run through a dataset with a
// promptfoo member, which this package registers with package suites
// (Sheet).
//
// The import reads what promptfoo reads: every prompt form (text files of
// prompts between --- lines, chat JSON and YAML, JSON Lines, CSV, globs,
// {id, label, raw} objects), tests from the config and from files,
// scenarios, defaultTest, test options and transforms. It reads files only
// inside the config's repository, through internal/inputfile, and renders
// prompts, assertion values and vars with its own engine for the part of
// Nunjucks that reads nothing but the vars (template.go), held to a budget
// (docs/security.md). Tests keep promptfoo's meaning: deterministic
// assertions become expr checks (not-* with negate), the model-graded ones
// rubric criteria, and JavaScript and Python assertions, and the checks
// after a transform, program checks run by the runners embedded here
// (runners/) with promptfoo's calling convention. Whatever has no
// counterpart is listed, with its location, in Report.Unsupported: nothing
// is dropped silently.
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
