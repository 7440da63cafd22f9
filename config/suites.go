package config

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/spelling"
	"github.com/evalgate/evalgate/internal/yamlmap"
)

// writtenPath is a path as the file writes it, and where.
type writtenPath struct {
	value string
	pos   diag.Pos
}

// suites reads the suites setting: a path or a list of them.
func (p *parser) suites(n *yaml.Node, at yamlmap.Field, c *Config) {
	p.Strs(n, at, &c.Suites)
	nodes := n.Content
	if n.Kind == yaml.ScalarNode {
		nodes = []*yaml.Node{n}
	}
	if len(nodes) != len(c.Suites) {
		return // not a list of strings: reported
	}
	c.suites = make([]writtenPath, len(nodes))
	for i, v := range nodes {
		c.suites[i] = writtenPath{value: v.Value, pos: p.Pos(v)}
	}
}

// CheckSuites reports each path under suites that does not exist, at its
// place in the file, naming the folder or suite file it was most likely
// meant to be (`suites[0]: "evlas/" does not exist; did you mean
// "evals/"?`). Paths given on the command line replace the setting, so
// only a command that reads it checks it.
func (c *Config) CheckSuites() error {
	var errs Errors
	for i, path := range c.Suites {
		if i >= len(c.suites) {
			break // a config built in code
		}
		_, err := os.Stat(path)
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			continue // there, or a problem loading the suites says better
		}
		w := c.suites[i]
		msg := fmt.Sprintf("suites[%d]: %q does not exist in %s", i, w.value, c.folderName())
		if near := c.nearestPath(w.value); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		errs = append(errs, &Error{Pos: w.pos, Message: msg})
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// nearestPath is the existing folder or suite file, beside where written
// points, whose name is nearest to its last element, written the same way
// (a trailing slash kept); "" when none is near or the folder it is in
// does not exist either.
func (c *Config) nearestPath(written string) string {
	trimmed := strings.TrimRight(written, `/\`)
	slash := written[len(trimmed):]
	dir, base := filepath.Split(trimmed)
	if base == "" || base == "." || base == ".." {
		return ""
	}
	entries, err := os.ReadDir(c.Path(cmp.Or(dir, ".")))
	if err != nil {
		return ""
	}
	var names []string
	isDir := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		switch {
		case e.IsDir():
			isDir[name] = true
		case suiteFile(name):
		default:
			continue
		}
		names = append(names, name)
	}
	near := spelling.Nearest(base, names, max(2, len(base)/3))
	if near == "" {
		return ""
	}
	if !isDir[near] {
		slash = ""
	}
	return dir + near + slash
}

// suiteFile reports whether name is one a suite folder's walk reads.
func suiteFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}
