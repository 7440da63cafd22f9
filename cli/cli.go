// Package cli is evalgate's command line: it parses flags, loads the config
// and suites, runs the agent, writes the outputs and maps what happened to
// one exit code.
//
// Exit codes:
//
//	0  every gate holds
//	1  a gate failed (the report says which and why)
//	2  bad invocation: flags, config or suite files invalid
//	3  could not run: the agent cannot start or never writes a line, the judge is unreachable, the out dir is unwritable
//	130 interrupted (Ctrl-C): the outputs hold the tasks that finished
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/pipeline"
)

// Exit codes, documented in the package comment and in -h.
const (
	ExitPass     = 0
	ExitGateFail = 1
	ExitInvalid  = 2
	ExitRunError = 3
	// ExitInterrupted is 128+SIGINT: the run was stopped by Ctrl-C (or
	// SIGTERM) after writing what had finished.
	ExitInterrupted = 130
)

// Version is the evalgate version; release builds set it with
// -ldflags "-X github.com/evalgate/evalgate/cli.Version=v1.2.3".
var Version = ""

// Command is evalgate's command line with its standard streams injected, so
// tests run it with buffers.
type Command struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment; os.Getenv when nil.
	Getenv func(string) string
	// IsTerminal reports whether Stdout is a terminal; detected when nil.
	IsTerminal func() bool

	// tick starts the timer of the progress lines in CI logs; nil is
	// time.NewTicker. Tests tick it themselves.
	tick func(time.Duration) (ticks <-chan time.Time, stop func())

	env *pipeline.Env // what the run reads and writes besides its files
}

// verb is one command of the command line.
type verb struct {
	name    string
	summary string // one line for the command list
	run     func(ctx context.Context, c *Command, args []string) error
}

// verbs is the table of commands, in alphabetical order, the order
// `evalgate help` and the README's table list them (TestReadmeCommands); each one's function lives in cmd_<name>.go. A function rather than
// a variable, since the commands' help reads the table.
func verbs() []verb {
	return []verb{
		{"assess", "the AAAF dual-axis assessment of a run: Performance and Capability tiers, as JSON, SVG and PNG badges, Markdown or an Open Badges credential", assessCmd},
		{"baseline", "manage the baseline: \"baseline promote [RESULTS]\" writes the canonical baseline file from a run (the last one by default); \"baseline fetch\" downloads an artifact baseline in the Action", baselineCmd},
		{"calibrate", "measure how well the rubric judge agrees with human labels (Spearman ρ, Cohen's κ)", calibrateCmd},
		{"diff", "compare two results: verdict, score movement, newly failing and fixed tasks", diffCmd},
		{"export", "export a suite: --openwop strips evalgate's extensions and lists what was lost", exportCmd},
		{"history", "the run history: \"history list|show|trend|flaky\" read the store, \"history record RESULTS\" writes a finished run, \"history prune|migrate|export\" keep it", historyCmd},
		{"import", "import another tool's evals: \"import promptfoo CONFIG\" writes evalgate.yaml, a suite and import-report.json", importCmd},
		{"init", "scaffold evalgate.yaml, a starter suite and agent, and a GitHub workflow", initCmd},
		{"mcp", "bridge a stdio MCP client to its trial's tools: \"mcp stdio\", launched by the agent's MCP config", mcpCmd},
		{"merge", "merge shard results into one run, write its outputs and gate on it", mergeCmd},
		{"publish", "in GitHub Actions, publish a finished run: job summary, annotations, outputs, the PR comment", publishCmd},
		{"report", "render a results.json again: --format md|junit|sarif|badge|html", reportCmd},
		{"run", "run the suites against the agent and gate on the result (the main job)", runCmd},
		{"schema", "print a JSON Schema: suite, summary (openwop EvalSummary) or results", schemaCmd},
		{"trust", "score how far the agent may act on its own: the TL0-TL4 trust scorecard of a run, written as trust.json", trustCmd},
		{"validate", "check suite files without running them", validateCmd},
		{"version", "print the version", versionCmd},
	}
}

// lookupVerb finds the command called name.
func lookupVerb(name string) (verb, bool) {
	for _, v := range verbs() {
		if v.name == name {
			return v, true
		}
	}
	return verb{}, false
}

func invalid(err error) error  { return pipeline.InvalidError(err) }
func runError(err error) error { return pipeline.RunError(err) }

// Main runs the command line args (args[0] is the program name) and returns
// the exit code. Ctrl-C cancels the run cleanly: what finished is written.
func (c *Command) Main(args []string) int {
	c.defaults()
	c.tuneGC()
	stopProfiles := c.startProfiles()
	defer stopProfiles()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return c.exit(c.dispatch(ctx, args[1:]))
}

func (c *Command) defaults() {
	if c.Stdin == nil {
		c.Stdin = os.Stdin
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	c.env = &pipeline.Env{Stdout: c.Stdout, Stderr: c.Stderr, Getenv: c.Getenv,
		IsTerminal: c.IsTerminal, Tick: c.tick, Version: version()}
	c.env.LearnSecrets(&config.Config{})
}

func (c *Command) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		c.usage(c.Stderr)
		return invalid(nil)
	}
	switch args[0] {
	case "-h", "-help", "--help":
		c.usage(c.Stdout)
		return nil
	case "help":
		if len(args) == 1 || args[1] == "help" {
			c.usage(c.Stdout)
			return nil
		}
		// `evalgate help CMD [SUB]` is `evalgate CMD [SUB] --help`.
		args = append(args[1:len(args):len(args)], "--help")
	case "-version", "--version":
		args = []string{"version"}
	}
	v, ok := lookupVerb(args[0])
	if !ok {
		return unknownCommand(args[0])
	}
	return v.run(ctx, c, args[1:])
}

func (c *Command) exit(err error) int {
	if err == nil {
		return ExitPass
	}
	if errors.Is(err, flag.ErrHelp) {
		return ExitPass
	}
	var pe *pipeline.Error
	if errors.As(err, &pe) {
		if pe.Err != nil {
			c.env.Say(c.Stderr, "evalgate: %v\n", pe.Err)
		}
		return exitCodes[pe.Outcome]
	}
	c.env.Say(c.Stderr, "evalgate: %v\n", err)
	return ExitRunError
}

// exitCodes maps how a command ended to its exit code.
var exitCodes = map[pipeline.Outcome]int{
	pipeline.Invalid:     ExitInvalid,
	pipeline.CannotRun:   ExitRunError,
	pipeline.GateFailed:  ExitGateFail,
	pipeline.Interrupted: ExitInterrupted,
}

// newFlags returns the flag set of a command: args is its synopsis after
// the command's name (e.g. "BASE HEAD"). The set writes nothing by itself:
// parse reports bad flags in one line, and fs.Usage prints the command's
// help on stdout (--help).
func (c *Command) newFlags(name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet("evalgate "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() { c.commandHelp(c.Stdout, name, args, fs) }
	return fs
}

// parse parses a command's flags, which may come before, between or after
// its positional arguments; afterwards fs.Args() holds the positional
// arguments in order. "--" ends the flags: everything after it is
// positional. A flag that takes a value takes the next argument whatever it
// looks like (--gate -x). -h and --help print the command's help and
// return flag.ErrHelp (exit 0). Every problem is one line and exit 2:
// an unknown flag names the nearest one.
func parse(fs *flag.FlagSet, args []string) error {
	var pos []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(arg) < 2 || arg[0] != '-' {
			pos = append(pos, arg)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(arg[1:], "-"), "=")
		fl := fs.Lookup(name)
		switch {
		case fl == nil && (name == "h" || name == "help"):
			fs.Usage()
			return flag.ErrHelp
		case fl == nil:
			return unknownFlag(fs, arg)
		case isBoolFlag(fl):
			if !hasValue {
				value = "true"
			}
		case !hasValue:
			if i+1 == len(args) {
				return invalid(fmt.Errorf("--%s needs a value (%s --help says what it takes)", name, fs.Name()))
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return invalid(fmt.Errorf("--%s: %s", name, badValue(fl, value, err)))
		}
	}
	// Parsing "--" and the positional arguments sets fs.Args().
	return fs.Parse(append([]string{"--"}, pos...))
}

// parseInterleaved parses like parse and returns the positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	return fs.Args(), nil
}

func isBoolFlag(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// badValue says what a flag expected instead of value. The flag types of
// this package say it themselves; the flag package's own say "parse error".
func badValue(fl *flag.Flag, value string, err error) string {
	g, ok := fl.Value.(flag.Getter)
	if !ok {
		return err.Error()
	}
	switch g.Get().(type) {
	case bool:
		return fmt.Sprintf("expected true or false, got %q", value)
	case float64:
		return fmt.Sprintf("expected a number, got %q", value)
	case int, int64, uint, uint64:
		return fmt.Sprintf("expected a whole number, got %q", value)
	case time.Duration:
		return fmt.Sprintf("expected a duration such as 90s or 2m, got %q", value)
	}
	return err.Error()
}

// listFlag is a repeatable flag that also accepts comma-separated values.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// optionalBool is a bool flag that knows whether it was given: *p stays
// nil when it was not, so that its default can depend on more than the
// flag (--explain).
type optionalBool struct{ p **bool }

func (b optionalBool) String() string {
	if b.p == nil || *b.p == nil {
		return "false"
	}
	return strconv.FormatBool(**b.p)
}

func (b optionalBool) IsBoolFlag() bool { return true }

func (b optionalBool) Set(v string) error {
	x, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("expected true or false, got %q", v)
	}
	*b.p = &x
	return nil
}

// repeatFlag is a repeatable flag taken whole (gate expressions contain commas).
type repeatFlag []string

func (l *repeatFlag) String() string     { return strings.Join(*l, "; ") }
func (l *repeatFlag) Set(v string) error { *l = append(*l, v); return nil }

// countFlag is a whole number of 1 or more, such as --concurrency: 0 is
// refused, so a zero field means the flag was not given.
type countFlag int

func (n *countFlag) String() string { return strconv.Itoa(int(*n)) }

func (n *countFlag) Set(v string) error {
	i, err := strconv.Atoi(v)
	if err != nil || i < 1 {
		return fmt.Errorf("expected a whole number of 1 or more, got %q", v)
	}
	*n = countFlag(i)
	return nil
}

// durationFlag is a duration above zero with its unit, such as --timeout:
// a bare number is refused rather than read as nanoseconds, and a zero
// field means the flag was not given.
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(v string) error {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n <= 0 {
			return fmt.Errorf("expected a duration above zero, such as 90s, got %q", v)
		}
		return fmt.Errorf("%q needs a unit, e.g. %ss or %sm", v, v, v)
	}
	t, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return fmt.Errorf("expected a duration such as 90s or 2m, got %q", v)
	case t <= 0:
		return fmt.Errorf("expected a duration above zero, such as 90s, got %q", v)
	}
	*d = durationFlag(t)
	return nil
}

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
