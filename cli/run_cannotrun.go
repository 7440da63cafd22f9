package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/runner"
)

// The part of a silent agent's stderr shown with its exit-3 message.
const (
	stderrHeadLines = 5
	stderrHeadBytes = 1024
)

// cannotRun is the exit-3 error of a run whose agent never spoke (#10): it
// names the command as the user gave it, how its trials ended and the first
// lines of its stderr. The stderr is the user's own program talking on the
// user's own terminal; it is never written to any output file.
func (j *job) cannotRun(e *runner.CannotRunError) error {
	var b strings.Builder
	command, where := j.agentCommand()
	fmt.Fprintf(&b, "the agent cannot run: %s (%s) ended with %s before writing a line", command, where, escape.Text(e.Exit))
	if e.Tasks > 1 {
		fmt.Fprintf(&b, " on each of the first %d tasks", e.Tasks)
	}
	if hint := exitHint(e.Exit); hint != "" {
		b.WriteString("\n  " + hint)
	}
	lines, more := stderrHead(e.Stderr)
	if len(lines) == 0 {
		b.WriteString("\n  its stderr was empty")
	} else {
		b.WriteString("\n  its stderr began:")
		for _, l := range lines {
			b.WriteString("\n  | " + l)
		}
		if more {
			b.WriteString("\n  | … (--transcripts keeps the rest)")
		}
	}
	b.WriteString("\n  fix the command and run again; nothing was scored and no results were written")
	return runError(errors.New(b.String()))
}

// agentCommand is the agent's command as the user wrote it, and where.
func (j *job) agentCommand() (command, where string) {
	cfg := j.cfg.File
	if cfg == "" {
		cfg = "evalgate.yaml"
	}
	switch a := j.cfg.Agent; {
	case j.flags.agentCmd != "":
		return quoteCommand([]string{j.flags.agentCmd}), "--agent-cmd"
	case len(a.Exec) > 0:
		return quoteCommand(a.Exec), "agent.exec in " + escape.Text(cfg)
	case len(a.Plain) > 0:
		return quoteCommand(a.Plain), "agent.plain in " + escape.Text(cfg)
	}
	return "the agent", "evalgate.yaml"
}

// quoteCommand writes a command as one quoted string, "python3 agent.py",
// with an argument that holds spaces or quotes in single quotes.
func quoteCommand(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = a
		if len(argv) > 1 && (a == "" || strings.ContainsAny(a, " \t\"'")) {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strconv.Quote(strings.Join(parts, " "))
}

// exitHint explains the exit statuses a shell gives a command it could not
// run.
func exitHint(exit string) string {
	switch exit {
	case "exit status 127":
		return "(127: the shell did not find the command)"
	case "exit status 126":
		return "(126: the command was found but could not be executed)"
	}
	return ""
}

// stderrHead returns the first lines of stderr, at most stderrHeadLines of
// them and stderrHeadBytes in all, each with control characters escaped,
// and whether anything was left out. Blank lines at either end are dropped.
func stderrHead(stderr []byte) (lines []string, more bool) {
	text := bytes.TrimRight(bytes.TrimLeft(stderr, "\r\n"), " \t\r\n")
	if len(text) == 0 {
		return nil, false
	}
	if len(text) > stderrHeadBytes {
		cut := stderrHeadBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text, more = text[:cut], true
	}
	all := strings.Split(string(text), "\n")
	if len(all) > stderrHeadLines {
		all, more = all[:stderrHeadLines], true
	}
	for _, l := range all {
		lines = append(lines, escape.Text(strings.TrimRight(l, "\r")))
	}
	return lines, more
}
