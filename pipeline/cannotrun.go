package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/runner"
)

// How much of a silent agent's stderr its exit-3 message quotes.
const (
	stderrQuoteLines    = 12
	stderrQuoteLineRune = 240 // a longer line is cut
)

// cannotRun is the exit-3 error of a run whose agent never spoke (#10): it
// names the command as the user gave it, how its trials ended and the
// lines of its stderr that say why. The stderr is the user's own program
// talking on the user's own terminal; it is never written to any output
// file.
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
	q := quoteStderr(e.Stderr)
	switch {
	case len(q.lines) == 0:
		b.WriteString("\n  its stderr was empty")
	case q.frames > 0 && q.cut > 0:
		b.WriteString("\n  the end of its stderr, without the stack (--transcripts keeps it whole):")
	case q.frames > 0:
		b.WriteString("\n  its stderr, without the stack (--transcripts keeps it whole):")
	case q.cut > 0:
		b.WriteString("\n  the end of its stderr (--transcripts keeps it whole):")
	default:
		b.WriteString("\n  its stderr:")
	}
	for _, l := range q.lines {
		b.WriteString("\n  | " + l)
	}
	b.WriteString("\n  fix the command and run again; nothing was scored and no results were written")
	return runError(errors.New(b.String()))
}

// notStarted is the exit-3 error of a run whose agent's command could not
// be started at all: not found, not executable, or its folder missing.
func (j *job) notStarted(se *process.StartError) error {
	command, where := j.agentCommand()
	var why string
	switch {
	case errors.Is(se.Err, process.ErrNotFound):
		why = fmt.Sprintf("%q was not found on PATH", se.Command)
	case errors.Is(se.Err, fs.ErrNotExist):
		why = fmt.Sprintf("%q does not exist", se.Command)
	case errors.Is(se.Err, fs.ErrPermission):
		why = fmt.Sprintf("%q is not executable", se.Command)
	default:
		why = se.Error()
	}
	return runError(fmt.Errorf("the agent cannot run: %s (%s) could not be started: %s\n"+
		"  fix the command and run again; nothing was scored and no results were written", command, where, escape.Text(why)))
}

// agentCommand is the agent's command as the user wrote it, and where.
func (j *job) agentCommand() (command, where string) {
	cfg := j.cfg.File
	if cfg == "" {
		cfg = "evalgate.yaml"
	}
	switch a := j.cfg.Agent; {
	case j.flags.AgentCmd != "":
		return quoteCommand([]string{j.flags.AgentCmd}), "--agent-cmd"
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

// stderrQuote is what a cannot-run message quotes of an agent's stderr.
type stderrQuote struct {
	lines  []string // escaped, each on its line
	frames int      // stack lines left out
	cut    int      // lines left out before the ones quoted
}

// quoteStderr picks the lines of stderr that say why the agent failed:
// all of them when they are stderrQuoteLines or fewer; else those that are
// not stack frames (a traceback's frames and the code under them, "at"
// lines, a goroutine's calls), the last stderrQuoteLines of them, since an
// interpreter's error comes after its stack. Blank lines at either end are
// dropped; every line is escaped and cut to stderrQuoteLineRune runes.
func quoteStderr(stderr []byte) stderrQuote {
	text := strings.Trim(string(bytes.ToValidUTF8(stderr, []byte("\uFFFD"))), "\r\n")
	if strings.TrimSpace(text) == "" {
		return stderrQuote{}
	}
	all := strings.Split(strings.TrimRight(text, " \t\r\n"), "\n")
	for i, l := range all {
		all[i] = strings.TrimRight(l, "\r")
	}
	var q stderrQuote
	keep := all
	if len(all) > stderrQuoteLines {
		keep = nil
		frame := stackFrames(all)
		for i, l := range all {
			if frame[i] {
				q.frames++
				continue
			}
			keep = append(keep, l)
		}
		// What is left is trimmed of blank lines at either end, and of
		// blank lines in a row, which parted what was left out.
		keep = slices.CompactFunc(keep, func(a, b string) bool { return strings.TrimSpace(a) == "" && strings.TrimSpace(b) == "" })
		for len(keep) > 0 && strings.TrimSpace(keep[len(keep)-1]) == "" {
			keep = keep[:len(keep)-1]
		}
		for len(keep) > 0 && strings.TrimSpace(keep[0]) == "" {
			keep = keep[1:]
		}
		if len(keep) > stderrQuoteLines {
			q.cut = len(keep) - stderrQuoteLines
			keep = keep[q.cut:]
		}
	}
	for _, l := range keep {
		if r := []rune(l); len(r) > stderrQuoteLineRune {
			l = string(r[:stderrQuoteLineRune-1]) + "…"
		}
		q.lines = append(q.lines, escape.Text(l))
	}
	return q
}

// stackPatterns are the stack frames as Python, Node, Java, Ruby and Go
// print them, compiled when an agent first cannot run.
var stackPatterns = sync.OnceValue(func() (p struct{ pythonHeader, pythonFrame, atFrame, goroutine, goPlace, goCall *regexp.Regexp }) {
	p.pythonHeader = regexp.MustCompile(`^Traceback \(most recent call last\):$`)
	p.pythonFrame = regexp.MustCompile(`^\s+File ".*", line \d+`)
	p.atFrame = regexp.MustCompile(`^\s+(at |from \S+:\d+|\.\.\. \d+ more$|\[Previous line repeated \d+ more times?\]$)`)
	p.goroutine = regexp.MustCompile(`^goroutine \d+ \[.*\]:$`)
	p.goPlace = regexp.MustCompile(`^\t\S.*:\d+( \+0x[0-9a-f]+)?$`)
	p.goCall = regexp.MustCompile(`^(created by \S+|[\w./*()\[\]-]+\(.*\))( in goroutine \d+)?$`)
	return p
})

// stackFrames marks the lines of stderr that are a stack: a Python
// traceback's header, frames and the code lines indented under them;
// JavaScript's, Java's and Ruby's "at"/"from" lines; a Go goroutine's
// header, its calls and their tab-indented file:line places.
func stackFrames(lines []string) []bool {
	p := stackPatterns()
	frame := make([]bool, len(lines))
	underPython := false // the lines after a Python frame, indented deeper, are its code
	for i, l := range lines {
		switch {
		case p.pythonFrame.MatchString(l):
			frame[i], underPython = true, true
			continue
		case underPython && strings.HasPrefix(l, "    "):
			frame[i] = true
			continue
		}
		underPython = false
		next := ""
		if i+1 < len(lines) {
			next = lines[i+1]
		}
		frame[i] = p.pythonHeader.MatchString(l) || p.atFrame.MatchString(l) || p.goroutine.MatchString(l) ||
			p.goPlace.MatchString(l) || (p.goPlace.MatchString(next) && p.goCall.MatchString(l))
	}
	return frame
}
