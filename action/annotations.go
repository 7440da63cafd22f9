package action

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/sethvargo/go-githubactions"
)

// MaxAnnotations is how many annotations of one level (error, warning)
// GitHub shows for one step; more are dropped by the runner, so evalgate
// picks the worst itself.
const MaxAnnotations = 10

// Annotation levels: a failing task is an error when the build fails and a
// warning when every gate holds (docs/github-action.md).
const (
	LevelError   = "error"
	LevelWarning = "warning"
)

// Annotation is one `::error file=…,line=…,title=…::message` (or
// `::warning …`) workflow command for a task that did not pass.
type Annotation struct {
	Level   string // LevelError or LevelWarning
	File    string // relative to the repository root; empty outside it
	Line    int
	Title   string
	Message string

	errored bool
	score   float64
	order   int // position in the run, to keep ties stable
}

// Annotations returns one annotation per failed or errored task, worst
// first (errored tasks, then failed ones by rising score, ties in run
// order), at most max of them, and how many failing tasks there are in all.
// They are errors when the run failed and warnings when every gate holds.
// Files are the run's, relative to the repository root; a file outside
// the repository is left out, as GitHub could not place it.
func Annotations(r *results.Run, max int) (anns []Annotation, total int) {
	if r == nil {
		return nil, 0
	}
	level := LevelError
	if r.Passed {
		level = LevelWarning
	}
	for i := range r.Suites {
		s := &r.Suites[i]
		for j := range s.Tasks {
			t := &s.Tasks[j]
			if t.Status == results.StatusPassed {
				continue
			}
			file := t.File
			if file == "" {
				file = s.File
			}
			line := t.Line
			msg := fmt.Sprintf("%s/%s: %s", s.ID, t.ID, report.FailureMessage(t))
			if !results.InRepo(file) {
				msg = outside(file, line) + msg
				file, line = "", 0
			}
			verb := "failed"
			if t.Status == results.StatusError {
				verb = "errored"
			}
			anns = append(anns, Annotation{
				Level:   level,
				File:    file,
				Line:    line,
				Title:   fmt.Sprintf("evalgate: task %s %s", t.ID, verb),
				Message: msg,
				errored: t.Status == results.StatusError,
				score:   t.Score,
				order:   len(anns),
			})
		}
	}
	total = len(anns)
	slices.SortFunc(anns, func(a, b Annotation) int {
		if a.errored != b.errored {
			if a.errored {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.order, b.order))
	})
	if max >= 0 && len(anns) > max {
		anns = anns[:max]
	}
	return anns, total
}

// WriteAnnotations writes the annotations as `::error` or `::warning`
// workflow commands, by their level. Properties and the message are escaped
// (see writeCommand), so a crafted suite or task id cannot end the command
// and start another one.
func WriteAnnotations(w io.Writer, anns []Annotation) error {
	for _, a := range anns {
		props := githubactions.CommandProperties{"title": a.Title}
		if a.File != "" {
			props["file"] = a.File
			if a.Line > 0 {
				props["line"] = strconv.Itoa(a.Line)
			}
		}
		level := a.Level
		if level != LevelWarning {
			level = LevelError
		}
		if err := writeCommand(w, level, props, a.Message); err != nil {
			return err
		}
	}
	return nil
}

// WriteSuiteErrors writes validation errors of suite files as `::error`
// annotations at their file (relative to the repository root), line and
// column (at most MaxAnnotations, in the order given), for a run that stops
// with exit code 2. A file outside the repository is not a property: GitHub
// could not place it.
func WriteSuiteErrors(w io.Writer, errs []*report.SuiteError) error {
	for i, e := range errs {
		if i == MaxAnnotations {
			msg := fmt.Sprintf("%d more suite errors; evalgate validate lists them all", len(errs)-i)
			return writeCommand(w, "notice", githubactions.CommandProperties{"title": "evalgate"}, msg)
		}
		props := githubactions.CommandProperties{"title": "evalgate: invalid suite"}
		msg := e.Detail()
		if msg == "" {
			msg = "the suite file is not valid"
		}
		if p := e.Pos; results.InRepo(p.File) {
			props["file"] = p.File
			if p.Line > 0 {
				props["line"] = strconv.Itoa(p.Line)
				if p.Col > 0 {
					props["col"] = strconv.Itoa(p.Col)
				}
			}
		} else {
			msg = outside(p.File, p.Line) + msg
		}
		if err := writeCommand(w, "error", props, msg); err != nil {
			return err
		}
	}
	return nil
}

// MaskSecrets tells the runner to mask the values of the named environment
// variables and the given values in the log (`::add-mask::`), each line of
// a multi-line secret too. Empty values are skipped.
func MaskSecrets(w io.Writer, env func(string) string, names []string, values ...string) error {
	seen := map[string]bool{}
	mask := func(v string) error {
		v = strings.TrimSpace(v)
		if v == "" || seen[v] {
			return nil
		}
		seen[v] = true
		// The value as it is, not escaped: the mask must match the
		// secret byte for byte.
		return emit(w, githubactions.Command{Name: "add-mask", Message: v})
	}
	for _, name := range names {
		if name != "" {
			values = append(values, env(name))
		}
	}
	for _, v := range values {
		if err := mask(v); err != nil {
			return err
		}
		if strings.ContainsAny(v, "\r\n") {
			for _, line := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' }) {
				if err := mask(line); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// writeCommand writes one workflow command. What it says is escaped
// twice over: first like everything evalgate prints (internal/escape: the
// message and each property are one line without control characters),
// then by go-githubactions' encoder (%, CR and LF
// everywhere; also : and , in properties), so the command is one line that
// nothing in it can end.
func writeCommand(w io.Writer, name string, props githubactions.CommandProperties, msg string) error {
	escaped := make(githubactions.CommandProperties, len(props))
	for k, v := range props {
		escaped[k] = escape.Text(v)
	}
	return emit(w, githubactions.Command{Name: name, Message: escape.Text(msg), Properties: escaped})
}

// emit writes cmd encoded by go-githubactions; unlike its IssueCommand, a
// write error is returned, not a panic.
func emit(w io.Writer, cmd githubactions.Command) error {
	if _, err := io.WriteString(w, cmd.String()+"\n"); err != nil {
		return fmt.Errorf("could not write the %s workflow command: %w", cmd.Name, err)
	}
	return nil
}

// outside names, at the start of a message, a file outside the repository
// that an annotation cannot point at: "../shared/x.yaml:12: ".
func outside(file string, line int) string {
	if file == "" {
		return ""
	}
	if line > 0 {
		return file + ":" + strconv.Itoa(line) + ": "
	}
	return file + ": "
}
