package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestDocumentedRefsExist checks every ref of evalgate that the docs, the
// example workflows, the workflow `init` writes and the pre-commit hooks
// tell users to put in their files: the action's `evalgate/evalgate@REF`,
// `go install github.com/evalgate/evalgate@REF` and pre-commit's `rev:`.
// Each must name something that exists: main, a release listed in
// action/checksums.txt (its tag exists once it is published), `latest` for
// go install, or an evidently made-up placeholder in angle brackets.
func TestDocumentedRefsExist(t *testing.T) {
	root := ".."
	files := []string{"README.md", ".pre-commit-hooks.yaml", filepath.Join("scaffold", "files", "workflow.yml")}
	for _, glob := range []string{"docs/*.md", "examples/workflows/*.yml"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		assert.NilError(t, err)
		for _, f := range m {
			rel, err := filepath.Rel(root, f)
			assert.NilError(t, err)
			files = append(files, rel)
		}
	}
	sums, err := os.ReadFile("checksums.txt")
	assert.NilError(t, err)
	released := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^[0-9a-f]{64}  evalgate_([0-9]+\.[0-9]+\.[0-9]+)_`).FindAllStringSubmatch(string(sums), -1) {
		released["v"+m[1]] = true
	}
	exists := func(ref string) bool {
		return ref == "main" || released[ref] || strings.HasPrefix(ref, "<") && strings.HasSuffix(ref, ">")
	}

	refRE := regexp.MustCompile(`(github\.com/)?evalgate/evalgate@(<[^>]*>|[^\s"'` + "`" + `)]+)`)
	revRE := regexp.MustCompile(`(?m)^[#\s]*rev:\s*(\S+)`)
	var seen int
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(root, file))
		assert.NilError(t, err)
		text := string(data)
		for _, m := range refRE.FindAllStringSubmatch(text, -1) {
			seen++
			ref, goInstall := m[2], m[1] != ""
			switch {
			case goInstall && ref == "latest":
			case goInstall && ref == "${EVALGATE_VERSION}":
				assert.Assert(t, strings.Contains(text, "EVALGATE_VERSION: main\n"), "%s: EVALGATE_VERSION must name main or a listed release", file)
			default:
				assert.Assert(t, exists(ref), "%s: %s names %q, which does not exist yet: use @main and say \"pin the release you choose by its commit SHA\"", file, m[0], ref)
			}
		}
		for _, m := range revRE.FindAllStringSubmatch(text, -1) {
			seen++
			assert.Assert(t, exists(m[1]), "%s: rev %q does not exist yet: use rev: main and say \"or the release you pin\"", file, m[1])
		}
	}
	assert.Assert(t, seen >= 10, "found only %d refs: the patterns no longer match the docs", seen)
}
