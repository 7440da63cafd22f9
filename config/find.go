package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Found is where Find looked for the project file and what it found.
type Found struct {
	// Path is the project file, relative to the working directory when it
	// is below or above it ("evalgate.yaml", "../../evalgate.yaml"); ""
	// when there is none.
	Path string
	// Dir is the working directory the search started in, absolute.
	Dir string
	// Top is the last folder searched, absolute: the top of the git work
	// tree holding Dir, or Dir itself outside a work tree.
	Top    string
	inRepo bool // Dir is in a git work tree
}

// Above reports whether the file was found in a folder above the working
// directory rather than in it.
func (f *Found) Above() bool {
	return f.Path != "" && filepath.Dir(f.Path) != "."
}

// NotFound says where no project file was found and what to do, such as
// `no evalgate.yaml in /repo/sub or above (up to the repository root
// /repo); pass --config`.
func (f *Found) NotFound() string {
	switch {
	case !f.inRepo:
		return fmt.Sprintf("no %s in %s (outside a git repository no folder above it is searched); pass --config", DefaultFile, f.Dir)
	case f.Top == f.Dir:
		return fmt.Sprintf("no %s in %s, the repository root; pass --config", DefaultFile, f.Dir)
	}
	return fmt.Sprintf("no %s in %s or above (up to the repository root %s); pass --config", DefaultFile, f.Dir, f.Top)
}

// Find looks for DefaultFile as git looks for .git: in the working
// directory, then in each folder above it, up to the top of the git work
// tree that holds it (the nearest folder with a .git). Outside a work tree
// only the working directory is searched, so that a stray file in a home
// folder is never picked up. A file that cannot be read is no reason to
// look further: Load reports it.
func Find() (*Found, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("could not find %s: %w", DefaultFile, err)
	}
	top, inRepo := workTree(wd)
	f := &Found{Dir: wd, Top: wd, inRepo: inRepo}
	for d, rel := wd, ""; ; {
		p := filepath.Join(d, DefaultFile)
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, os.ErrNotExist) {
			f.Path = filepath.Join(rel, DefaultFile)
			return f, nil
		}
		parent := filepath.Dir(d)
		if !inRepo || d == top || parent == d {
			break
		}
		d, rel = parent, filepath.Join(rel, "..")
	}
	if inRepo {
		f.Top = top
	}
	return f, nil
}

// workTree is the top of the git work tree holding dir, the nearest
// folder at or above it with a .git (a folder, or a file in a linked work
// tree or a submodule).
func workTree(dir string) (string, bool) {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}
