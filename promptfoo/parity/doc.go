// Package parity holds no code: its test, TestPromptfooParity, imports
// each promptfoo config of testdata/ with `evalgate import promptfoo`, runs
// what the import wrote with the evalgate binary, and requires promptfoo's
// own verdict for every test, prompt and provider, recorded by promptfoo
// 0.123.1 in each folder's promptfoo-results.json (record.sh records them
// again). It is a package of its own so that its runs, which start node and
// python3 for the program checks, run in parallel and apart from the cli
// package's tests.
package parity
