// Package scaffold is `evalgate init`: it writes a new project's files (the
// starter's, or the agent-definition audit's), keeps the ones already there,
// extends .gitignore, and says what it did and what to do next. The files
// it writes are embedded from files/.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/spelling"
)

//go:embed files
var embedded embed.FS

// Templates of init.
const (
	Starter = "starter"
	Audit   = "agent-audit"
)

// Options are what one `evalgate init` asks for.
type Options struct {
	Dir      string   // the folder to scaffold
	Force    bool     // overwrite the scaffold files already there
	Template string   // Starter or Audit
	Files    []string // the audit's definition files, relative to Dir
}

// InputError is bad input: a template, a definition file or a --dir init
// cannot use. Every other error of Init is a failure to read or write.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// file is one embedded template and where init writes it.
type file struct {
	src, dst string
	mode     fs.FileMode
	// starter marks the files that together pass on the first `evalgate run`.
	starter bool
	// data, when set, is the file's content, rendered for this init; src
	// is then unused.
	data []byte
}

var starterFiles = []file{
	{src: "files/evalgate.yaml", dst: "evalgate.yaml", mode: 0o644, starter: true},
	{src: "files/starter.yaml", dst: "evals/starter.yaml", mode: 0o644, starter: true},
	{src: "files/agent.py", dst: "evals/agent.py", mode: 0o755, starter: true},
	{src: "files/workflow.yml", dst: workflowFile, mode: 0o644},
}

const workflowFile = ".github/workflows/evalgate.yml"

// step is what init does with one file: created, overwrote, or kept.
type step struct {
	file
	data []byte
	verb string
	note string
}

// Init writes the scaffold files of o.Template that are missing under
// o.Dir, keeps the ones already there (o.Force overwrites them), adds to
// .gitignore the lines it lacks, and reports each to w. A second init
// changes nothing and says so.
func Init(w io.Writer, o Options) error {
	files := starterFiles
	switch o.Template {
	case Starter:
	case Audit:
		var err error
		if files, err = auditFiles(o.Files); err != nil {
			return &InputError{err}
		}
	default:
		msg := fmt.Sprintf("--template: expected %q or %q, got %q", Starter, Audit, o.Template)
		if near := spelling.Nearest(o.Template, []string{Starter, Audit}, max(2, len(o.Template)/2)); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		}
		return &InputError{errors.New(msg)}
	}
	show := displayPath(o.Dir)
	if fi, err := os.Stat(o.Dir); err == nil && !fi.IsDir() {
		return &InputError{fmt.Errorf("--dir %s is a file; pass a folder", show("."))}
	}

	// Decide everything first, so that "nothing to do" is known before
	// anything is written.
	steps := make([]step, len(files))
	var kept []string
	todo, starterIntact, suiteDiffers := false, true, false
	for i, f := range files {
		data := f.data
		if data == nil {
			var err error
			if data, err = embedded.ReadFile(f.src); err != nil {
				return err
			}
		}
		s := step{file: f, data: data, verb: "created"}
		dst := filepath.Join(o.Dir, f.dst)
		_, err := os.Lstat(dst)
		exists := err == nil
		// Compared only when dst exists; one that is larger, or not a
		// regular file, is not the starter's.
		old, _ := inputfile.Read(dst, int64(len(data)))
		switch {
		case exists && bytes.Equal(old, data):
			s.verb, s.note = "kept", " (already there)"
		case exists && !o.Force:
			s.verb, s.note = "kept", " (already there, not the starter's; --force replaces it)"
			starterIntact = starterIntact && !f.starter
			suiteDiffers = suiteDiffers || f.dst == auditSuiteFile
		case exists:
			s.verb = "overwrote"
		}
		if s.verb == "kept" {
			kept = append(kept, show(f.dst))
		} else {
			todo = true
		}
		steps[i] = s
	}
	ignore, err := planGitignore(filepath.Join(o.Dir, ".gitignore"))
	if err != nil {
		return err
	}
	if !todo && ignore == nil {
		fmt.Fprintf(w, "nothing to do: %s are already there, and %s already ignores %s.\n",
			joinAnd(kept), show(".gitignore"), joinAnd(gitignoreLines))
		if !starterIntact {
			fmt.Fprintf(w, "(`evalgate init --force` replaces the files that are not the starter's.)\n")
		}
		if suiteDiffers {
			// The definitions named are not the suite's: say so, rather
			// than let "nothing to do" read as done.
			fmt.Fprintf(w, "%s is kept as it is, so it may not grade the files named: add a task for each new one (its path as input and `expected: *audit`), or --force writes it for exactly these files.\n", show(auditSuiteFile))
		}
		return nil
	}

	wroteWorkflow := false
	for _, s := range steps {
		if s.verb != "kept" {
			if err := writeFile(filepath.Join(o.Dir, s.dst), s.data, s.mode); err != nil {
				return err
			}
			wroteWorkflow = wroteWorkflow || s.dst == workflowFile
		}
		fmt.Fprintf(w, "%-9s %s%s\n", s.verb, show(s.dst), s.note)
	}
	if ignore != nil {
		if err := writeFile(ignore.path, ignore.data, 0o644); err != nil {
			return err
		}
		verb, what := "updated", "added"
		if ignore.created {
			verb, what = "created", "ignores"
		}
		fmt.Fprintf(w, "%-9s %s (%s %s)\n", verb, show(".gitignore"), what, joinAnd(ignore.missing))
	}
	if wroteWorkflow {
		workflowNote(w, o.Dir, show)
	}
	if o.Template == Audit {
		auditNextSteps(w, o.Dir, show, o.Files)
		return nil
	}
	nextSteps(w, o.Dir, show, starterIntact)
	return nil
}

// writeFile writes data to path, creating its folder.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("could not create %q: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("could not write %q: %w", path, err)
	}
	return nil
}

// nextSteps says what to do after init, with paths relative to dir. It
// promises that every task passes only when the config, suite and agent are
// the starter's.
func nextSteps(w io.Writer, dir string, show func(string) string, starterIntact bool) {
	if filepath.Clean(dir) == "." {
		fmt.Fprintf(w, "\nNext steps:\n  1. evalgate run\n")
	} else {
		fmt.Fprintf(w, "\nNext steps, in %s/:\n  1. cd %s && evalgate run\n", show("."), shellQuote(show(".")))
	}
	if starterIntact {
		fmt.Fprintf(w, "     runs the starter suite evals/starter.yaml against the starter agent\n"+
			"     evals/agent.py (it needs python3): every task passes.\n")
	} else {
		fmt.Fprintf(w, "     runs the suites in evalgate.yaml against the agent it names.\n")
	}
	fmt.Fprintf(w, "  2. Replace evals/agent.py with your agent, or point agent.exec in evalgate.yaml\n"+
		"     at it, and write tasks for it in evals/ (`evalgate validate` checks them).\n")
	fmt.Fprintf(w, "  3. Commit evalgate.yaml, evals/, %s and .gitignore:\n"+
		"     the workflow runs evalgate on every pull request.\n", workflowFile)
}

// workflowNote warns when the workflow went into a folder below the git
// repository's top, where GitHub does not look for workflows.
func workflowNote(w io.Writer, dir string, show func(string) string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	top := repoTop(abs)
	if top == "" || top == abs {
		return
	}
	sub, err := filepath.Rel(top, abs)
	if err != nil {
		return
	}
	fmt.Fprintf(w, "note: GitHub runs only the workflows in .github/workflows/ at the top of the repository (%s/):\n"+
		"      move %s there and give its evalgate step `config: %s`.\n",
		displayPath(top)("."), show(workflowFile), filepath.ToSlash(filepath.Join(sub, "evalgate.yaml")))
}

// repoTop returns the nearest folder at or above dir that holds .git (a
// folder, or a file in a worktree or submodule); "" when there is none.
func repoTop(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// displayPath returns a function that shows a path under dir relative to
// the working directory, or absolute when dir is outside it.
func displayPath(dir string) func(string) string {
	base := filepath.Clean(dir)
	if filepath.IsAbs(base) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, base); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				base = rel
			}
		}
	}
	return func(p string) string {
		return filepath.ToSlash(filepath.Join(base, p))
	}
}

// joinAnd joins ["a", "b", "c"] as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./+-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
