package action

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/sethvargo/go-githubactions"
)

// MaxAnnotations is how many error annotations GitHub shows for one step;
// more are dropped by the runner, so evalgate picks the worst itself.
const MaxAnnotations = 10

// Annotation is one `::error file=…,line=…,title=…::message` workflow
// command for a task that did not pass.
type Annotation struct {
	File    string // relative to the repository root
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
// workspace, when set, is the repository root the file paths are made
// relative to (GITHUB_WORKSPACE).
func Annotations(r *results.Run, workspace string, max int) (anns []Annotation, total int) {
	if r == nil {
		return nil, 0
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
			verb := "failed"
			if t.Status == results.StatusError {
				verb = "errored"
			}
			anns = append(anns, Annotation{
				File:    repoPath(file, workspace),
				Line:    t.Line,
				Title:   fmt.Sprintf("evalgate: task %s %s", t.ID, verb),
				Message: fmt.Sprintf("%s/%s: %s", s.ID, t.ID, report.FailureMessage(t)),
				errored: t.Status == results.StatusError,
				score:   t.Score,
				order:   len(anns),
			})
		}
	}
	total = len(anns)
	sort.SliceStable(anns, func(i, j int) bool {
		a, b := anns[i], anns[j]
		if a.errored != b.errored {
			return a.errored
		}
		if a.score != b.score {
			return a.score < b.score
		}
		return a.order < b.order
	})
	if max >= 0 && len(anns) > max {
		anns = anns[:max]
	}
	return anns, total
}

// WriteAnnotations writes the annotations as `::error` workflow commands.
// Properties and the message are escaped by the workflow-command rules
// (%, CR and LF everywhere; also : and , in properties), so a crafted suite
// or task id cannot end the command and start another one.
func WriteAnnotations(w io.Writer, anns []Annotation) error {
	for _, a := range anns {
		props := githubactions.CommandProperties{"title": a.Title}
		if a.File != "" {
			props["file"] = a.File
			if a.Line > 0 {
				props["line"] = strconv.Itoa(a.Line)
			}
		}
		if err := writeCommand(w, "error", props, a.Message); err != nil {
			return err
		}
	}
	return nil
}

// WriteSuiteErrors writes validation errors of suite files as `::error`
// annotations at their file, line and column (at most MaxAnnotations, in
// the order given), for a run that stops with exit code 2.
func WriteSuiteErrors(w io.Writer, errs []report.SuiteError, workspace string) error {
	for i, e := range errs {
		if i == MaxAnnotations {
			msg := fmt.Sprintf("%d more suite errors; evalgate validate lists them all", len(errs)-i)
			return writeCommand(w, "notice", githubactions.CommandProperties{"title": "evalgate"}, msg)
		}
		props := githubactions.CommandProperties{"title": "evalgate: invalid suite"}
		if e.File != "" {
			props["file"] = repoPath(e.File, workspace)
			if e.Line > 0 {
				props["line"] = strconv.Itoa(e.Line)
				if e.Col > 0 {
					props["col"] = strconv.Itoa(e.Col)
				}
			}
		}
		msg := e.Message
		if msg == "" {
			msg = "the suite file is not valid"
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
		return writeCommand(w, "add-mask", nil, v)
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

// writeCommand writes one workflow command, escaped by go-githubactions'
// encoder; unlike its IssueCommand, a write error is returned, not a panic.
func writeCommand(w io.Writer, name string, props githubactions.CommandProperties, msg string) error {
	cmd := githubactions.Command{Name: name, Message: msg, Properties: props}
	if _, err := io.WriteString(w, cmd.String()+"\n"); err != nil {
		return fmt.Errorf("could not write the %s workflow command: %w", name, err)
	}
	return nil
}

// repoPath makes file relative to the repository root when it lies inside
// it, with forward slashes, as annotations want it.
func repoPath(file, workspace string) string {
	if file == "" || workspace == "" {
		return filepath.ToSlash(file)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.ToSlash(file)
	}
	rel, err := filepath.Rel(workspace, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(file)
	}
	return filepath.ToSlash(rel)
}
