// Command gen writes the side-by-side benchmark workload: N deterministic
// cases, the same for every tool, as a promptfoo config, an evalgate suite
// with its evalgate.yaml, and a runner-neutral cases.jsonl.
//
// Case i sends "task t<i>: add <a> <b>" (a and b from the seeded mulberry32
// generator) and expects the one line the bench agents and the mock LLM
// answer:
//
//	{"id":"t<i>","answer":<a+b>,"text":"The sum of <a> and <b> is <a+b>"}
//
// The checks workload (the default) has four deterministic checks per case:
// the whole output (equals), a substring (contains), a regex and a JSON
// field. Its files are byte for byte those of the reference generator given
// the same flags, so both tools run exactly the same cases (gen_test.go
// checks it when node is installed).
//
// The rubric workload has three judged criteria per case instead, one per
// field of the answer, decided by the mock LLM as judge: promptfoo's
// llm-rubric with the mock as grading provider, evalgate's rubric task with
// judge.openai pointed at the mock.
//
// Usage:
//
//	go run ./bench/gen -n 1000 -provider exec|openai|http -out DIR
//	    [-workload checks|rubric] [-format promptfoo,evalgate,jsonl] [-port 18080]
//	    [-asserts equals,contains,regex,json] [-json-check schema|js] [-seed 1]
//	    [-fail-every 0] [-agent PATH] [-agent-plain PATH]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}

// run parses args and writes the requested formats.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	var format, asserts string
	here := benchDir()
	fs.IntVar(&o.N, "n", 100, "number of cases")
	fs.StringVar(&o.Workload, "workload", "checks", "checks (four deterministic checks a case) or rubric (three judged criteria a case)")
	fs.StringVar(&o.Provider, "provider", "exec", "agent: exec (shell agents), openai (OpenAI-compatible mock) or http")
	fs.StringVar(&format, "format", "promptfoo,evalgate,jsonl", "formats to write, comma-separated")
	fs.StringVar(&o.Out, "out", "", "output folder (default bench/suites/<provider>-<n>)")
	fs.IntVar(&o.Port, "port", 18080, "port of the mock LLM on 127.0.0.1")
	fs.StringVar(&asserts, "asserts", "equals,contains,regex,json", "checks per case, comma-separated (checks workload)")
	fs.StringVar(&o.JSONCheck, "json-check", "schema", "how promptfoo checks the JSON field: schema (is-json) or js")
	fs.Uint64Var(&o.Seed, "seed", 1, "PRNG seed")
	fs.IntVar(&o.FailEvery, "fail-every", 0, "make every k-th case's equals expectation, or its rubric's answer criterion, wrong (0: none)")
	fs.StringVar(&o.Agent, "agent", filepath.Join(here, "agent.sh"), "agent for promptfoo's exec provider (prompt in argv)")
	fs.StringVar(&o.AgentPlain, "agent-plain", filepath.Join(here, "agent-plain.sh"), "agent for evalgate's plain driver (prompt on stdin)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.N < 0 {
		return errors.New("-n must not be negative")
	}
	switch o.Workload {
	case "checks":
		o.Asserts = splitList(asserts)
	case "rubric":
		if flagSet(fs, "asserts") {
			return errors.New("-asserts applies to the checks workload only: a rubric case has its three criteria")
		}
	default:
		return fmt.Errorf("unknown workload %q (have: checks, rubric)", o.Workload)
	}
	if o.Out == "" {
		o.Out = filepath.Join(here, "suites", fmt.Sprintf("%s-%d", o.Provider, o.N))
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return fmt.Errorf("could not create %q: %w", o.Out, err)
	}
	cases := BuildCases(o.N, uint32(o.Seed), o.FailEvery)
	formats := splitList(format)
	for _, f := range formats {
		w, ok := writers[f]
		if !ok {
			return fmt.Errorf("unknown format %q (have: promptfoo, evalgate, jsonl)", f)
		}
		if err := w(&o, cases); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %d cases (%s) to %s\n", len(cases), format, o.Out)
	return nil
}

// benchDir is the folder holding the bench agents: the folder of the
// running source file's parent when run with go run from the repository,
// else the working directory's bench/.
func benchDir() string {
	for _, d := range []string{"bench", "."} {
		if abs, err := filepath.Abs(d); err == nil {
			if _, err := os.Stat(filepath.Join(abs, "agent-plain.sh")); err == nil {
				return abs
			}
		}
	}
	if abs, err := filepath.Abs(".."); err == nil {
		if _, err := os.Stat(filepath.Join(abs, "agent-plain.sh")); err == nil {
			return abs
		}
	}
	abs, _ := filepath.Abs("bench")
	return abs
}

// flagSet reports whether name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}
