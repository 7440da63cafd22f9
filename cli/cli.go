// Package cli is evalgate's command line: it parses flags, loads the config
// and suites, runs the agent, writes the outputs and maps what happened to
// one exit code.
//
// Exit codes:
//
//	0  every gate holds
//	1  a gate failed (the report says which and why)
//	2  bad invocation: flags, config or suite files invalid
//	3  could not run: the agent cannot start, the judge is unreachable, the out dir is unwritable
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
	"sort"
	"strings"
	"syscall"
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

	repo lazyRoot // the root every path in the outputs is relative to
}

// subcommand is one verb of the command line.
type subcommand struct {
	summary string
	run     func(ctx context.Context, c *Command, args []string) error
}

// subcommands lists the verbs; each lives in its own file.
var subcommands = map[string]subcommand{}

func register(name, summary string, run func(ctx context.Context, c *Command, args []string) error) {
	subcommands[name] = subcommand{summary: summary, run: run}
}

// exitError carries an exit code. A nil err is a silent exit: the report
// already said why (a failed gate).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func invalid(err error) error  { return &exitError{code: ExitInvalid, err: err} }
func runError(err error) error { return &exitError{code: ExitRunError, err: err} }

// errGateFailed is the silent sentinel of a run whose gates failed.
var errGateFailed = &exitError{code: ExitGateFail}

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
}

func (c *Command) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		c.usage(c.Stderr)
		return invalid(nil)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		c.usage(c.Stdout)
		return nil
	case "-version", "--version":
		args = []string{"version"}
	}
	sub, ok := subcommands[args[0]]
	if !ok {
		return invalid(fmt.Errorf("unknown command %q; run \"evalgate help\" for the list", args[0]))
	}
	return sub.run(ctx, c, args[1:])
}

func (c *Command) exit(err error) int {
	if err == nil {
		return ExitPass
	}
	if errors.Is(err, flag.ErrHelp) {
		return ExitPass
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(c.Stderr, "evalgate: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(c.Stderr, "evalgate: %v\n", err)
	return ExitRunError
}

func (c *Command) usage(w io.Writer) {
	fmt.Fprintln(w, "evalgate: is this agent still good enough to ship?")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: evalgate <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, subcommands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, exitCodesHelp)
}

const exitCodesHelp = `Exit codes:
  0  every gate holds
  1  a gate failed (the report says which and why)
  2  bad invocation: flags, config or suite files invalid
  3  could not run: agent cannot start, judge unreachable, out dir unwritable
  130  interrupted (Ctrl-C): the outputs hold the tasks that finished
`

// newFlags returns a flag set that writes only to the command's stderr and
// prints the exit codes under its usage.
func (c *Command) newFlags(name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet("evalgate "+name, flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.Stderr, "Usage: evalgate %s [flags] %s\n\n%s\n\nFlags:\n", name, args, subcommands[name].summary)
		fs.PrintDefaults()
		fmt.Fprintln(c.Stderr)
		fmt.Fprint(c.Stderr, exitCodesHelp)
	}
	return fs
}

// parse parses flags, mapping a bad flag to exit 2 (the flag package has
// already printed why).
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &exitError{code: ExitInvalid}
	}
	return nil
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

// repeatFlag is a repeatable flag taken whole (gate expressions contain commas).
type repeatFlag []string

func (l *repeatFlag) String() string     { return strings.Join(*l, "; ") }
func (l *repeatFlag) Set(v string) error { *l = append(*l, v); return nil }

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func init() {
	register("version", "print the version", func(_ context.Context, c *Command, args []string) error {
		fmt.Fprintf(c.Stdout, "evalgate %s\n", version())
		return nil
	})
}
