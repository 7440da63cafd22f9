package cli

import (
	"bytes"
	"context"
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
)

//go:embed scaffold
var scaffold embed.FS

// scaffoldFile is one embedded template and where init writes it.
type scaffoldFile struct {
	src, dst string
	mode     fs.FileMode
	// starter marks the files that together pass on the first `evalgate run`.
	starter bool
	// data, when set, is the file's content, rendered for this init; src
	// is then unused.
	data []byte
}

var scaffoldFiles = []scaffoldFile{
	{src: "scaffold/evalgate.yaml", dst: "evalgate.yaml", mode: 0o644, starter: true},
	{src: "scaffold/starter.yaml", dst: "evals/starter.yaml", mode: 0o644, starter: true},
	{src: "scaffold/agent.py", dst: "evals/agent.py", mode: 0o755, starter: true},
	{src: "scaffold/workflow.yml", dst: workflowFile, mode: 0o644},
}

const workflowFile = ".github/workflows/evalgate.yml"

// gitignoreLines are what init adds to .gitignore, next to evalgate.yaml:
// the run's outputs and the judge cache. See ignoreKey for which lines
// already there count as these.
var gitignoreLines = []string{"evalgate-out/", ".evalgate/cache/"}

const gitignoreComment = "# evalgate: run outputs and the judge cache"

// initCmd writes the scaffold files that are missing, keeps the ones already
// there (--force overwrites them), and adds to .gitignore the lines it
// lacks. A second init changes nothing and says so.
func initCmd(_ context.Context, c *Command, args []string) error {
	flags := c.newFlags("init", "[--template agent-audit [FILE...]]")
	dir := flags.String("dir", ".", "the folder to scaffold, usually the repository root")
	force := flags.Bool("force", false, "overwrite scaffold files already there (.gitignore is only ever extended)")
	tmpl := flags.String("template", templateStarter, "`name` of what to write: starter (a suite and a runnable agent) or agent-audit (grades agent definition FILEs; docs/audit.md)")
	if err := parse(flags, args); err != nil {
		return err
	}
	files := scaffoldFiles
	switch *tmpl {
	case templateStarter:
		if flags.NArg() > 0 {
			return invalid(fmt.Errorf("init takes no arguments, got %q; pass the folder with --dir", flags.Arg(0)))
		}
	case templateAudit:
		var err error
		if files, err = auditFiles(flags.Args()); err != nil {
			return invalid(err)
		}
	default:
		return invalid(fmt.Errorf("--template: expected %q or %q, got %q", templateStarter, templateAudit, *tmpl))
	}
	show := displayPath(*dir)
	if fi, err := os.Stat(*dir); err == nil && !fi.IsDir() {
		return invalid(fmt.Errorf("--dir %s is a file; pass a folder", show(".")))
	}

	// Decide everything first, so that "nothing to do" is known before
	// anything is written.
	type step struct {
		scaffoldFile
		data []byte
		verb string // created, overwrote, or kept
		note string
	}
	steps := make([]step, len(files))
	var kept []string
	todo, starterIntact := false, true
	for i, f := range files {
		data := f.data
		if data == nil {
			var err error
			if data, err = scaffold.ReadFile(f.src); err != nil {
				return runError(err)
			}
		}
		s := step{scaffoldFile: f, data: data, verb: "created"}
		dst := filepath.Join(*dir, f.dst)
		_, err := os.Lstat(dst)
		exists := err == nil
		// Compared only when dst exists; one that is larger, or not a
		// regular file, is not the starter's.
		old, _ := inputfile.Read(dst, int64(len(data)))
		switch {
		case exists && bytes.Equal(old, data):
			s.verb, s.note = "kept", " (already there)"
		case exists && !*force:
			s.verb, s.note = "kept", " (already there, not the starter's; --force replaces it)"
			starterIntact = starterIntact && !f.starter
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
	ignore, err := planGitignore(filepath.Join(*dir, ".gitignore"))
	if err != nil {
		return runError(err)
	}
	if !todo && ignore == nil {
		fmt.Fprintf(c.Stdout, "nothing to do: %s are already there, and %s already ignores %s.\n",
			joinAnd(kept), show(".gitignore"), joinAnd(gitignoreLines))
		if !starterIntact {
			fmt.Fprintf(c.Stdout, "(`evalgate init --force` replaces the files that are not the starter's.)\n")
		}
		return nil
	}

	wroteWorkflow := false
	for _, s := range steps {
		if s.verb != "kept" {
			if err := writeFile(filepath.Join(*dir, s.dst), s.data, s.mode); err != nil {
				return runError(err)
			}
			wroteWorkflow = wroteWorkflow || s.dst == workflowFile
		}
		fmt.Fprintf(c.Stdout, "%-9s %s%s\n", s.verb, show(s.dst), s.note)
	}
	if ignore != nil {
		if err := writeFile(ignore.path, ignore.data, 0o644); err != nil {
			return runError(err)
		}
		verb, what := "updated", "added"
		if ignore.created {
			verb, what = "created", "ignores"
		}
		fmt.Fprintf(c.Stdout, "%-9s %s (%s %s)\n", verb, show(".gitignore"), what, joinAnd(ignore.missing))
	}
	if wroteWorkflow {
		workflowNote(c.Stdout, *dir, show)
	}
	if *tmpl == templateAudit {
		auditNextSteps(c.Stdout, *dir, show, flags.Args())
		return nil
	}
	nextSteps(c.Stdout, *dir, show, starterIntact)
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

// gitignoreEdit is what init adds to a .gitignore.
type gitignoreEdit struct {
	path    string
	data    []byte // the whole new content
	missing []string
	created bool
}

// maxGitignoreBytes bounds the .gitignore init reads and adds to.
const maxGitignoreBytes = 16 << 20

// planGitignore returns the edit that adds to the .gitignore at path the
// gitignoreLines it lacks, or nil when it lacks none. The edit keeps the
// file's content and line endings, and ends a last line that has no newline
// before adding after it.
func planGitignore(path string) (*gitignoreEdit, error) {
	old, err := inputfile.Read(path, maxGitignoreBytes)
	created := errors.Is(err, fs.ErrNotExist)
	if err != nil && !created {
		return nil, fmt.Errorf("could not read %q: %w", path, err)
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(old), "\n") {
		have[ignoreKey(line)] = true
	}
	e := &gitignoreEdit{path: path, created: created}
	for _, l := range gitignoreLines {
		if !have[ignoreKey(l)] {
			e.missing = append(e.missing, l)
		}
	}
	if len(e.missing) == 0 {
		return nil, nil
	}
	nl := "\n"
	if bytes.Contains(old, []byte("\r\n")) {
		nl = "\r\n"
	}
	b := bytes.NewBuffer(old)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		b.WriteString(nl)
	}
	if !have[gitignoreComment] {
		b.WriteString(gitignoreComment + nl)
	}
	for _, l := range e.missing {
		b.WriteString(l + nl)
	}
	e.data = b.Bytes()
	return e, nil
}

// ignoreKey is the form in which .gitignore lines compare: without blanks
// around it and without one leading and one trailing slash, so
// "evalgate-out", "/evalgate-out" and "/evalgate-out/" all count as
// "evalgate-out/": each ignores the output folder next to the .gitignore.
// A negated line ("!evalgate-out/") is the user's choice and counts too.
// Other patterns that happen to match (".evalgate/", "*-out/") do not.
func ignoreKey(line string) string {
	k := strings.TrimSpace(line)
	if strings.HasPrefix(k, "#") {
		return k
	}
	k = strings.TrimPrefix(k, "!")
	k = strings.TrimPrefix(k, "/")
	return strings.TrimSuffix(k, "/")
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
