package pipeline

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/mattn/go-isatty"
)

// Env is what a run reads and writes besides its files: the output
// streams, the environment and the terminal. The command line builds one
// per invocation; tests build one with buffers.
type Env struct {
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment.
	Getenv func(string) string
	// IsTerminal reports whether Stdout is a terminal; detected when nil.
	IsTerminal func() bool
	// Tick starts the timer of the progress lines in CI logs; nil is
	// time.NewTicker. Tests tick it themselves.
	Tick func(time.Duration) (ticks <-chan time.Time, stop func())
	// Version is evalgate's version, written into every run's results.
	Version string

	repo lazyRoot // the root every path in the outputs is relative to
	// found is where LoadConfig looked for evalgate.yaml when no --config
	// was given; nil when it was.
	found *config.Found
	// secrets redacts the credentials evalgate knows from everything it
	// prints and writes; LearnSecrets sets it.
	secrets *redact.Redactor
}

// Flags are what the command line says about a run; each one overrides
// the config. A zero field was not given.
type Flags struct {
	Config      string
	AgentCmd    string
	Out         string
	Concurrency int
	Timeout     time.Duration
	Trials      int
	Mode        string
	Tasks       []string
	Tags        []string
	Baseline    string
	Gates       []string
	Shard       string
	Balance     string
	Transcripts bool
	NoColor     bool
	Quiet       bool
	NoCache     bool
	NoPublish   bool
	OTel        bool
	// OTLPEndpoint is --otlp-endpoint: where the run is sent as a trace.
	OTLPEndpoint string
	// Explain is --explain as given; nil when it was not.
	Explain *bool
	History HistoryFlags // history.go
}

// Outcome is what kind of end an Error is; the command line maps each
// to its exit code.
type Outcome int

const (
	// Invalid is bad input: flags, config or suite files (exit 2).
	Invalid Outcome = iota + 1
	// CannotRun is a run that could not happen (exit 3).
	CannotRun
	// GateFailed is a run whose gates failed (exit 1).
	GateFailed
	// Interrupted is a run cut short by Ctrl-C or SIGTERM (exit 130).
	Interrupted
)

// Error is how a run ends when it does not pass: its Outcome and why. A
// nil Err is a silent end: the report already said why (a failed gate).
type Error struct {
	Outcome Outcome
	Err     error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("outcome %d", e.Outcome)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// InvalidError is the error of bad input.
func InvalidError(err error) error { return &Error{Outcome: Invalid, Err: err} }

// RunError is the error of a run that could not happen.
func RunError(err error) error { return &Error{Outcome: CannotRun, Err: err} }

func invalid(err error) error  { return InvalidError(err) }
func runError(err error) error { return RunError(err) }

// ErrGateFailed is the silent error of a run whose gates failed.
var ErrGateFailed error = &Error{Outcome: GateFailed}

// Say writes one of evalgate's messages to w, its credentials redacted
// (LearnSecrets) and every line escaped (escape.Lines): whatever it quotes
// from a suite, a file name, a gate, a baseline or a server gives away no
// credential, starts no line of its own, cannot pass for a workflow
// command, and sends no control character to the terminal or the log.
// Everything evalgate prints to explain itself goes through it.
func (c *Env) Say(w io.Writer, format string, args ...any) {
	io.WriteString(w, escape.Lines(c.secrets.String(fmt.Sprintf(format, args...))))
}

// Redactor is what everything evalgate prints and writes is redacted by.
func (c *Env) Redactor() *redact.Redactor { return c.secrets }

// LoadConfig reads the project file at path, or, when path is empty, the
// evalgate.yaml that config.Find finds in the working directory or a
// folder above it up to the repository root, and learns the credentials
// it names. One found above the working directory is named on stderr, so
// that no run reads a project file the user did not see; none at all is
// the zero config (NoConfig says where it was looked for).
func (c *Env) LoadConfig(path string) (*config.Config, error) {
	if path == "" {
		found, err := config.Find()
		if err != nil {
			return nil, err
		}
		c.found = found
		if found.Path == "" {
			return &config.Config{}, nil
		}
		if found.Above() {
			c.Say(c.Stderr, "evalgate: using %s, the nearest %s above the working directory\n", filepath.ToSlash(found.Path), config.DefaultFile)
		}
		path = found.Path
	}
	cfg, err := config.Load(path, true)
	if err != nil {
		return nil, err
	}
	c.LearnSecrets(cfg)
	return cfg, nil
}

// NoConfig says, for a command that needs what a project file would have
// said, that none was found and where it was looked for; "" when a file
// was read.
func (c *Env) NoConfig(cfg *config.Config) string {
	if cfg.File != "" || c.found == nil {
		return ""
	}
	return c.found.NotFound()
}

// ColorEnabled reports whether the terminal report is in colour.
func (c *Env) ColorEnabled(noColor bool) bool {
	if noColor || c.Getenv("NO_COLOR") != "" {
		return false
	}
	return c.isTerminal() || c.Getenv("FORCE_COLOR") != ""
}

func (c *Env) isTerminal() bool {
	if c.IsTerminal != nil {
		return c.IsTerminal()
	}
	f, ok := c.Stdout.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
