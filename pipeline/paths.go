package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/results"
)

// lazyRoot is the repository root, found once per run (Env.repoRoot).
type lazyRoot struct {
	once sync.Once
	dir  string
}

// repoRoot is the folder every path in the outputs is relative to
// (docs/github-action.md): GITHUB_WORKSPACE, else the top of the git work tree holding
// the working directory, else the working directory. It is absolute, or
// empty when not even the working directory is known.
func (c *Env) repoRoot() string {
	c.repo.once.Do(func() { c.repo.dir = findRepoRoot(c.Getenv) })
	return c.repo.dir
}

func findRepoRoot(getenv func(string) string) string {
	if ws := getenv("GITHUB_WORKSPACE"); ws != "" {
		if abs, err := filepath.Abs(ws); err == nil {
			return abs
		}
	}
	if top := gitOutput("rev-parse", "--show-toplevel"); top != "" {
		return filepath.Clean(top)
	}
	wd, _ := os.Getwd()
	return wd
}

// repoPath names a file the way every output does: p, as evalgate was
// given it (relative to the working directory, or absolute), made relative
// to root with forward slashes and no "..". A file outside root keeps its
// path from the working directory when that climbs out of root, else its
// absolute path, so that results.InRepo is false for it and nothing links
// or annotates it.
func repoPath(root, p string) string {
	if p == "" || root == "" {
		return filepath.ToSlash(p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	if rel, ok := within(root, abs); ok {
		return rel
	}
	// The root or the file's folder may be reached through a symbolic link:
	// git prints the resolved top, and macOS's /tmp is /private/tmp.
	if r, err := filepath.EvalSymlinks(root); err == nil {
		if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			if rel, ok := within(r, filepath.Join(d, filepath.Base(abs))); ok {
				return rel
			}
		}
	}
	if rel := filepath.ToSlash(filepath.Clean(p)); !filepath.IsAbs(p) && !results.InRepo(rel) {
		return rel
	}
	return filepath.ToSlash(abs)
}

// within returns abs relative to root, in slashes, when it lies inside.
func within(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || filepath.IsAbs(rel) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	return rel, results.InRepo(rel)
}

// outputPath is repoPath from the repository root of this run.
func (c *Env) outputPath(p string) string { return repoPath(c.repoRoot(), p) }

// baselineSource is how results.json and the scorecard name the baseline
// spec read from path: a file from the repository root, as every output
// names files; a git: or github-artifact: spec as it was written.
func (c *Env) baselineSource(spec, path string) string {
	if path != spec || strings.HasPrefix(spec, regression.GitPrefix) {
		return spec
	}
	return c.outputPath(spec)
}

// repoRelative names the suite and task files of a run that has just
// finished, which hold the suites' paths as they were loaded, from the
// repository root: results.json and every report made from it, now or
// later and wherever they are made, show the same paths and links.
func (c *Env) repoRelative(run *results.Run) {
	names := map[string]string{}
	name := func(p string) string {
		n, ok := names[p]
		if !ok {
			n = c.outputPath(p)
			names[p] = n
		}
		return n
	}
	for i := range run.Suites {
		s := &run.Suites[i]
		s.File = name(s.File)
		for j := range s.Tasks {
			s.Tasks[j].File = name(s.Tasks[j].File)
		}
	}
}
