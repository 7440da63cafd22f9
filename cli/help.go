package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/evalgate/evalgate/internal/spelling"
)

// usage writes the command list: `evalgate help`, `evalgate --help`.
func (c *Command) usage(w io.Writer) {
	fmt.Fprintln(w, "evalgate: is this agent still good enough to ship?")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: evalgate <command> [arguments] [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, v := range verbs() {
		fmt.Fprintf(w, "  %-10s %s\n", v.name, v.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `"evalgate help <command>" (or "evalgate <command> --help") shows a command's`)
	fmt.Fprintln(w, "flags, exit codes and examples.")
	fmt.Fprintln(w)
	fmt.Fprint(w, exitCodesHelp)
}

const exitCodesHelp = `Exit codes:
  0  every gate holds
  1  a gate failed (the report says which and why)
  2  bad invocation: flags, config or suite files invalid
  3  could not run: agent cannot start or never speaks, judge unreachable, out dir unwritable
  130  interrupted (Ctrl-C): the outputs hold the tasks that finished
`

// commandNames lists the commands' names in table order.
func commandNames() []string {
	names := make([]string, 0, len(verbs()))
	for _, v := range verbs() {
		names = append(names, v.name)
	}
	return names
}

// commandDoc is what a command's --help says besides its synopsis and its
// flags, which come from the command's own flag set.
type commandDoc struct {
	about    string   // what the command does, beyond its one-line summary
	exits    []string // "CODE  meaning", the codes the command can return
	examples []commandExample
}

// commandExample is one example of a command's help: a comment saying what
// it does and the command line. TestHelpExamplesAreTrue runs every one.
type commandExample struct {
	comment, line string
}

// Exit code lines shared by several commands.
const (
	exitOK          = "0  done"
	exitBadInput    = "2  bad invocation: flags, arguments or the files they name are invalid"
	exitGatesHold   = "0  every gate holds"
	exitGateFailed  = "1  a gate failed (the report says which and why)"
	exitInterrupted = "130  interrupted (Ctrl-C): the outputs hold the tasks that finished"
)

// commandDocs holds the help of every registered command (TestHelp checks
// that none is missing).
var commandDocs = map[string]commandDoc{
	"run": {
		about: "Runs every task of the suites against the agent, scores it, compares with the " +
			"baseline when there is one, writes the outputs to --out and exits by the gates. " +
			"Each flag overrides its key in evalgate.yaml.",
		exits: []string{
			exitGatesHold,
			exitGateFailed,
			"2  bad invocation: flags, config, suites or gates invalid (nothing ran)",
			"3  could not run: the agent cannot start or never writes a line, the judge is unreachable, the out dir is unwritable",
			exitInterrupted,
		},
		examples: []commandExample{
			{"Run the suites and the agent named in evalgate.yaml", "evalgate run"},
			{"Run one folder with another agent and a stricter gate", "evalgate run evals/ --agent-cmd 'python3 agent.py' --gate 'passRate >= 0.9'"},
			{"Run the second of two shards, the tasks shared out by their latencies in the last run", "evalgate run --shard 2/2 --balance evalgate-out/ --out shard-2"},
		},
	},
	"validate": {
		about: "Checks suite files against the schema and evalgate's rules without running " +
			"anything; every problem is reported at its file and line.",
		exits: []string{"0  every suite is valid", "2  a suite is invalid (or, with --openwop, not strictly portable: it uses evalgate extensions, or a task only extensions score)"},
		examples: []commandExample{
			{"Check the suites listed in evalgate.yaml", "evalgate validate"},
			{"Check a folder and say whether each file is openwop-portable", "evalgate validate evals/ --openwop"},
		},
	},
	"export": {
		about: "Writes the suite to stdout as openwop JSON without evalgate's extensions, " +
			"translating the matches openwop can express exactly, and lists on stderr what " +
			"was dropped. A task that only extensions score is left out (or, with " +
			"--keep-unscoreable, kept without its scoring).",
		exits: []string{"0  exported; every task keeps an openwop scoring",
			"1  a task was left out, or kept without scoring: no openwop host can score it",
			exitBadInput},
		examples: []commandExample{
			{"Write a copy of a suite without evalgate's extensions, for other openwop hosts", "evalgate export evals/support.yaml --openwop > support.openwop.json"},
		},
	},
	"mcp": {
		about: "During a run with agent.mcp: true, each trial's agent finds its MCP server in " +
			"EVALGATE_MCP_URL (streamable HTTP). \"mcp stdio\" serves the same tools to a client " +
			"that only launches stdio servers: it carries messages between its stdin and stdout " +
			"and the URL it inherits, until stdin ends. Configure it as " +
			"{\"command\": \"evalgate\", \"args\": [\"mcp\", \"stdio\"]}.",
		exits: []string{"0  stdin ended",
			"2  bad invocation, or EVALGATE_MCP_URL is not set",
			"3  the trial's MCP server could not be reached"},
		examples: []commandExample{
			{"What an agent's stdio MCP client launches (inside a run, it inherits EVALGATE_MCP_URL)", "evalgate mcp stdio"},
		},
	},
	"import": {
		about: "Imports a promptfoo config: writes evalgate.yaml (evalgate.<label>.yaml for each " +
			"further provider), evals/promptfoo.suite.yaml with a task per test and prompt in " +
			"evals/promptfoo.tests.jsonl (a CSV sheet inside --out stays where it is: its suite, " +
			"written beside it, reads it at every run), the program checks that run JavaScript and Python " +
			"assertions, and import-report.json; prints what mapped to what and what did not, " +
			"with locations. It never overwrites a file without --force " +
			"(docs/migrating-from-promptfoo.md).",
		exits: []string{"0  imported (what could not be is listed)", "2  the file is not a promptfoo config, or a file would be overwritten"},
		examples: []commandExample{
			{"Import a promptfoo config into a folder of its own", "evalgate import promptfoo promptfooconfig.yaml --out imported"},
		},
	},
	"diff": {
		about: "BASE and HEAD are anything a baseline may be: a results.json, the folder " +
			"holding one, a promoted baseline, openwop summaries or git:<ref>:<path>. It " +
			"exits 0 whatever the verdict: gating is the job of run and merge.",
		exits: []string{"0  the comparison was printed", exitBadInput},
		examples: []commandExample{
			{"Compare the committed baseline with the last run", "evalgate diff .evalgate/baseline.json evalgate-out/"},
			{"The same as Markdown, with the baseline as committed on main", "evalgate diff git:main:.evalgate/baseline.json evalgate-out/ --format md"},
		},
	},
	"assess": {
		about: "Assesses the agent on AAAF's two axes from a finished run's results.json (several " +
			"are the shards of one run): each Performance and Capability dimension with its " +
			"value or null and the reason, the composites and their tiers. It writes " +
			"assessment.json, assessment.svg, assessment.png and assessment.md (or the one " +
			"--format names; openbadge writes assessment.openbadge.json) into --out. The " +
			"weights, taxonomy, agent and history come from assessment: in evalgate.yaml " +
			"(docs/assessment.md). The same results, --id and --now give the same bytes.",
		exits: []string{exitOK, exitBadInput, "3  could not write the files"},
		examples: []commandExample{
			{"Assess the last run, writing the badge and its evidence beside its results.json", "evalgate assess evalgate-out/"},
			{"An Open Badges 3.0 credential with a fixed id and date", "evalgate assess evalgate-out/results.json --format openbadge --id q4-review --now 2026-11-26T12:00:00Z"},
		},
	},
	"merge": {
		about: "The last job of a sharded workflow: merges the shards' results.json as if the " +
			"suites had run whole, compares with the baseline, evaluates the gates and writes " +
			"every output, then exits like run.",
		exits: []string{
			exitGatesHold,
			exitGateFailed,
			"2  bad invocation: flags or config invalid, a results file unreadable",
			"3  the files are not the shards of one run (one missing, two overlapping, another commit, suite version or selection), the outputs could not be written, or a shard was interrupted",
		},
		examples: []commandExample{
			{"Gate on the whole of two shards, run as `evalgate run --shard 1/2 --out shard-1` and `evalgate run --shard 2/2 --out shard-2`", "evalgate merge shard-1/ shard-2/ --out evalgate-out"},
		},
	},
	"trust": {
		about: "Scores how far the agent may act on its own (docs/trust.md): five dimensions " +
			"of 0-20 points from the run's evidence, the repository (CODEOWNERS, agent.version, " +
			"CHANGELOG.md, gates) and .evalgate/trust.yaml, runtime adjustments from the history " +
			"of the last 30 days, and a level TL0 Draft to TL4 Trusted. Writes trust.json and " +
			"prints a table with what the next level needs. Several RESULTS are the shards of one " +
			"run. run and merge do the same when evalgate.yaml has a trust: block. " +
			"trust preflight --agent ID --level TLn [--store URL] answers instead, for release " +
			"pipelines, from the agent's newest run in the history store (docs/history.md): is it " +
			"at that level or above, each dimension at the level's minimum?",
		exits: []string{exitOK + " (preflight: yes)", "1  preflight: no, or no record of the agent", "2  bad invocation: flags, config, trust.yaml, results or history invalid",
			"3  could not write trust.json; preflight: the store could not be reached"},
		examples: []commandExample{
			{"Score the last run; trust.json goes beside its results.json", "evalgate trust evalgate-out/"},
			{"With an earlier run as history, for the runtime adjustments and TL4", "evalgate trust evalgate-out/ --history last-week/"},
		},
	},
	"history": {
		about: "Reads and keeps the run history (docs/history.md): one content-free record per " +
			"whole run, in the store history.store names (dir:PATH, the default dir:.evalgate/history; " +
			"git:BRANCH, an orphan branch pushed to origin; postgres:, shared, with the DSN in " +
			"EVALGATE_HISTORY_DSN). list, show RUN, trend [--suite S] [--task T] and flaky read it; " +
			"record RESULTS writes a finished run; prune --keep N, migrate (a postgres: store's " +
			"tables) and export --format csv|ndjson keep it. A record that cannot be read is " +
			"skipped with a warning naming it.",
		exits: []string{exitOK, exitBadInput, "3  the store could not be reached, read or written"},
		examples: []commandExample{
			{"Record the last run by hand (run does it with history.record: true)", "evalgate history record evalgate-out/"},
			{"The last twenty runs", "evalgate history list"},
			{"A suite's score, pass rate, cost and p95 over the window", "evalgate history trend --suite acme.help.evals.support"},
			{"The tasks whose verdict flips", "evalgate history flaky"},
		},
	},
	"report": {
		about: "Renders one output of a finished run again from its results.json (or the " +
			"folder holding it), to stdout or --out.",
		exits: []string{exitOK, exitBadInput, "3  could not render or write the output"},
		examples: []commandExample{
			{"The Markdown scorecard of the last run", "evalgate report evalgate-out/ --format md"},
			{"JUnit XML for a CI test reporter", "evalgate report evalgate-out/results.json --format junit --out junit.xml"},
		},
	},
	"baseline": {
		about: "promote writes the canonical baseline from a run's results.json (or the folder " +
			"holding it; without RESULTS, the output folder run writes to: evalgate.yaml's out, " +
			"else evalgate-out): content-free, one line per task, stable order, so that a baseline " +
			"update reads well in review. Commit it and point \"baseline:\" (or --baseline) at " +
			"it, or at git:<ref>:<path> to read it from a branch. A baseline must hold every " +
			"task, each scored on what the agent answered, so promote refuses a run that ran " +
			"only some tasks (--task, --tag, --mode, --shard; merge the shards first), was " +
			"interrupted, has errored tasks, or lacks tasks of the baseline already at --out; " +
			"it says why, and --force promotes such a run anyway. fetch is the GitHub Action's " +
			"step before the run: it downloads a github-artifact: baseline while it holds the " +
			"token, so that the run, which starts agents, does not; it writes the step output " +
			"baseline (the file, or none when there is no artifact yet).",
		exits: []string{"0  the baseline was written (fetched)", "2  bad invocation, or a run promote refuses (without --force)", "3  could not write (fetch) the baseline"},
		examples: []commandExample{
			{"Make the last run the baseline (then commit .evalgate/baseline.json)", "evalgate baseline promote"},
			{"Write it somewhere else", "evalgate baseline promote evalgate-out/results.json --out baselines/nightly.json"},
		},
	},
	"publish": {
		about: "The GitHub Action's step after `evalgate run --no-publish`: reads the run in " +
			"--out (results.json) and publishes it as `run` would have: the job summary, " +
			"annotations of failing tasks, the step outputs and the sticky pull request " +
			"comment. It runs in a step of its own so that the GitHub token is never in the " +
			"environment of the step that runs agents. Only in GitHub Actions.",
		exits: []string{exitOK, exitBadInput + " (or no results.json in --out)", "3  could not write the runner's files"},
		examples: []commandExample{
			{"After the run step", "evalgate publish --out evalgate-out"},
		},
	},
	"calibrate": {
		about: "Asks the judge configured in evalgate.yaml about each human-labelled example, " +
			"prints how well it agrees with people and writes the result to judge.calibration " +
			"(default .evalgate/calibration.json beside evalgate.yaml), which later runs report.",
		exits: []string{
			"0  the judge reaches --min-agreement",
			"1  the judge's agreement is below --min-agreement (or undefined)",
			"2  bad invocation: flags, config or labels invalid, or no judge configured",
			"3  could not run: the judge is unreachable, the calibration could not be written",
			"130  interrupted (Ctrl-C): nothing was written",
		},
		examples: []commandExample{
			{"Measure the judge against human labels", "evalgate calibrate --labels labels.jsonl"},
			{"With a lower bar for the Spearman correlation", "evalgate calibrate --labels labels.jsonl --min-agreement 0.6"},
		},
	},
	"init": {
		about: "Writes evalgate.yaml, a starter suite with a runnable starter agent " +
			"(Python, standard library only) and a GitHub workflow, and adds evalgate-out/ " +
			"and .evalgate/cache/ to .gitignore. Files already there are kept (--force " +
			"replaces the scaffold files); running it twice changes nothing and says so. " +
			"--template agent-audit writes instead a suite that grades agent definition files " +
			"(prompts, charters; AGENTS.md when none is given) 0-4 on ten dimensions, with a " +
			"task per FILE, and gates on its tiers (docs/audit.md).",
		exits: []string{exitOK, "2  bad invocation: an unknown template, a FILE without --template agent-audit, or --dir is a file", "3  could not write a file"},
		examples: []commandExample{
			{"Scaffold the current repository", "evalgate init"},
			{"Scaffold a project in a subfolder", "evalgate init --dir services/support-agent"},
			{"Audit two agent definitions", "evalgate init --template agent-audit prompts/support.md prompts/billing.md"},
		},
	},
	"schema": {
		about: "Prints the JSON Schema of suite files, of the openwop EvalSummary files in " +
			"summaries/, or of results.json, for editors and other tools.",
		exits: []string{exitOK, exitBadInput},
		examples: []commandExample{
			{"The schema of suite files, for an editor", "evalgate schema suite > suite.schema.json"},
			{"The schema of results.json", "evalgate schema results"},
		},
	},
	"version": {
		exits:    []string{exitOK, exitBadInput},
		examples: []commandExample{{"Print the version", "evalgate version"}},
	},
}

// commandHelp writes a command's help: summary, synopsis, flags, exit
// codes and examples.
func (c *Command) commandHelp(w io.Writer, name, args string, fs *flag.FlagSet) {
	doc := commandDocs[name]
	v, _ := lookupVerb(name)
	fmt.Fprintf(w, "evalgate %s: %s\n\n", name, v.summary)
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintf(w, "  %s\n", strings.Join(strings.Fields("evalgate "+name+" "+args+" [flags]"), " "))
	if doc.about != "" {
		fmt.Fprintln(w)
		wrap(w, doc.about, "", 80)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Flags (before or after the arguments; everything after -- is an argument):")
	writeFlags(w, fs)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Exit codes:")
	for _, e := range doc.exits {
		fmt.Fprintf(w, "  %s\n", e)
	}
	if len(doc.examples) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Examples:")
		for i, e := range doc.examples {
			if i > 0 {
				fmt.Fprintln(w)
			}
			wrap(w, e.comment, "  # ", 80)
			fmt.Fprintf(w, "  %s\n", e.line)
		}
	}
}

// flagTyper names the value of this package's flag types in the help.
type flagTyper interface{ flagType() string }

func (*countFlag) flagType() string    { return "int" }
func (*durationFlag) flagType() string { return "duration" }
func (*listFlag) flagType() string     { return "list" }
func (*repeatFlag) flagType() string   { return "string" }

// writeFlags lists a flag set as "--name type" and its usage, the default
// last when it is not the zero value.
func writeFlags(w io.Writer, fs *flag.FlagSet) {
	type row struct{ left, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(fl *flag.Flag) {
		typ, usage := flag.UnquoteUsage(fl)
		if t, ok := fl.Value.(flagTyper); ok && typ == "value" {
			typ = t.flagType()
		}
		if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			typ = "" // a switch takes no value, whatever its usage quotes
		}
		left := strings.TrimSpace("--" + fl.Name + " " + typ)
		switch fl.DefValue {
		case "", "0", "false", "0s":
		default:
			if g, ok := fl.Value.(flag.Getter); ok {
				if _, isString := g.Get().(string); isString {
					usage += fmt.Sprintf(" (default %q)", fl.DefValue)
					break
				}
			}
			usage += fmt.Sprintf(" (default %s)", fl.DefValue)
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	rows = append(rows, row{"-h, --help", "show this help"})
	width = min(max(width, len("-h, --help")), 24)
	for _, r := range rows {
		if len(r.left) > width {
			fmt.Fprintf(w, "  %s\n", r.left)
			wrap(w, r.usage, strings.Repeat(" ", width+4), 80)
			continue
		}
		indent := strings.Repeat(" ", width+4)
		var b strings.Builder
		wrap(&b, r.usage, indent, 80)
		fmt.Fprintf(w, "  %-*s%s", width+2, r.left, strings.TrimPrefix(b.String(), indent))
	}
}

// wrap writes text as lines of at most width columns, each starting with
// indent; a word longer than a line stays whole.
func wrap(w io.Writer, text, indent string, width int) {
	line := indent
	for _, word := range strings.Fields(text) {
		if line != indent && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}

// unknownCommand is the one-line error of a command that does not exist,
// naming the nearest one.
func unknownCommand(name string) error {
	if strings.HasPrefix(name, "-") {
		return invalid(fmt.Errorf("unknown flag %s before the command; flags go after it: evalgate <command> [arguments] [flags] (evalgate help lists the commands)", name))
	}
	return invalid(fmt.Errorf("unknown command %q%s (evalgate help lists the commands)", name, didYouMean(name, commandNames(), "")))
}

// unknownSubcommand is the error of a command such as `baseline` when its
// arguments do not start with one of its subcommands.
func unknownSubcommand(cmd string, args []string, subs ...string) error {
	hint := fmt.Sprintf("(evalgate %s --help shows how)", cmd)
	switch {
	case len(args) == 0:
		return invalid(fmt.Errorf("%s: expected a command: %s %s", cmd, strings.Join(subs, ", "), hint))
	case strings.HasPrefix(args[0], "-"):
		return invalid(fmt.Errorf("%s: expected a command before the flags: %s %s", cmd, strings.Join(subs, ", "), hint))
	}
	return invalid(fmt.Errorf("unknown command \"%s %s\"%s %s", cmd, args[0], didYouMean(args[0], subs, cmd+" "), hint))
}

// unknownFlag is the one-line error of a flag the command does not define,
// naming the nearest one.
func unknownFlag(fs *flag.FlagSet, arg string) error {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	var names []string
	fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	names = append(names, "help")
	shown := arg
	if name != "" && !strings.HasPrefix(arg, "---") {
		shown = "--" + name
	}
	cmd := strings.TrimPrefix(fs.Name(), "evalgate ")
	return invalid(fmt.Errorf("unknown flag %s for %q%s (%s --help lists the flags)", shown, cmd, didYouMean(name, names, "--"), fs.Name()))
}

// didYouMean is "; did you mean PREFIX+NAME?" for the candidate nearest to
// name, or "" when none is near: an edit distance of at most 2, or half
// the name, or the only candidate name abbreviates.
func didYouMean(name string, candidates []string, prefix string) string {
	if name == "" {
		return ""
	}
	best, bestDist := "", -1
	var abbreviates []string
	for _, cand := range candidates {
		if strings.HasPrefix(cand, name) {
			abbreviates = append(abbreviates, cand)
		}
		if d := spelling.Distance(name, cand); bestDist < 0 || d < bestDist {
			best, bestDist = cand, d
		}
	}
	switch {
	case bestDist >= 0 && bestDist <= max(2, len(name)/2):
	case len(abbreviates) == 1:
		best = abbreviates[0]
	default:
		return ""
	}
	return fmt.Sprintf("; did you mean %s%s?", prefix, best)
}

// isHelpArg reports whether arg asks for help.
func isHelpArg(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}
