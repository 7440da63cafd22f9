package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestCodeLayoutListsEveryPackage keeps the README's "Code layout" table
// true: it names every folder that holds a Go package, and nothing else.
func TestCodeLayoutListsEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	assert.NilError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Code layout\n")
	assert.Assert(t, ok, "README.md has no \"## Code layout\" section")
	section, _, _ = strings.Cut(section, "\n## ")

	var listed []string
	row := regexp.MustCompile("(?m)^\\| (`[^|]*`[^|]*) \\|")
	name := regexp.MustCompile("`([^`]+)`")
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		for _, n := range name.FindAllStringSubmatch(m[1], -1) {
			listed = append(listed, n[1])
		}
	}
	slices.Sort(listed)

	var packages []string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			packages = append(packages, filepath.ToSlash(filepath.Dir(path)))
		}
		return nil
	})
	assert.NilError(t, err)
	slices.Sort(packages)
	packages = slices.Compact(packages)
	assert.DeepEqual(t, listed, packages)
}
