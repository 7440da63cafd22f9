package trust

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseFile(t *testing.T) {
	f, err := ParseFile("trust.yaml", []byte(`owner: "@acme/support"
attestations:
  - {kind: security-review, by: ana, date: 2026-11-01, agentVersion: 1.4.0}
  - kind: tl4-signoff
    by: bo
    date: "2026-11-02"
    agentVersion: 1.4.0-rc.1
`))
	assert.NilError(t, err)
	assert.Equal(t, f.Owner, "@acme/support")
	assert.Equal(t, len(f.Attestations), 2)
	assert.Equal(t, f.Attestations[1].AgentVersion, "1.4.0-rc.1")
	assert.Equal(t, f.Attestations[1].Pos.String(), "trust.yaml:4:5")
}

func TestParseFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"every problem at its place", `owner: [a]
atestations: []
attestations:
  - {kind: security-reveiw, by: ana, date: 2026-13-01, agentVersion: latest}
  - {kind: tl4-signoff}
  - nope
`, []string{
			`trust.yaml:1:8: /owner: expected a non-empty string [trust]`,
			`trust.yaml:2:1: /atestations: unknown key "atestations"; did you mean "attestations"? [trust]`,
			`trust.yaml:4:12: /attestations/0/kind: expected "security-review" or "tl4-signoff", got "security-reveiw" [trust]`,
			`trust.yaml:4:44: /attestations/0/date: expected a date as YYYY-MM-DD, such as 2026-11-02, got "2026-13-01" [trust]`,
			`trust.yaml:4:70: /attestations/0/agentVersion: expected a semver version such as 1.4.0, got "latest" [trust]`,
			`trust.yaml:5:5: /attestations/1: an attestation needs "kind", "by", "date" and "agentVersion"; missing "by", "date", "agentVersion" [trust]`,
			`trust.yaml:6:5: /attestations/2: expected a mapping with the keys "agentVersion", "by", "date", "kind" [trust]`,
		}},
		{"not YAML", "attestations: [\n", []string{`trust.yaml:1:1: invalid YAML: did not find expected node content`}},
		{"not a mapping", "- a\n", []string{`trust.yaml:1:1: expected a mapping with the keys "attestations", "owner" [trust]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFile("trust.yaml", []byte(tc.src))
			assert.Assert(t, err != nil)
			assert.DeepEqual(t, strings.Split(err.Error(), "\n"), tc.want)
		})
	}
}

// TestParseFileAliasBomb: no YAML alias is ever expanded (an alias where a
// value is expected is the wrong shape), so a bomb costs no more than its text.
func TestParseFileAliasBomb(t *testing.T) {
	bomb, err := os.ReadFile("../suites/testdata/err/yaml-alias-bomb.yaml")
	assert.NilError(t, err)
	_, err = ParseFile("trust.yaml", append(bomb, "attestations: *i\n"...))
	assert.ErrorContains(t, err, "/attestations: expected a list of attestations")
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	assert.NilError(t, os.WriteFile(p, []byte(content), 0o644))
}

func TestReadRepo(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".github/CODEOWNERS", "# owners\n*.md @docs\n/agents/refunds/ @acme/refunds\n/agents/refunds/legacy/\n")
	write(t, root, "CHANGELOG.md", "# Changelog\n\n## [1.4.0] - 2026-11-02\n- refunds\n\n## 1.3.0\n")
	write(t, root, "project/.evalgate/trust.yaml", "owner: someone\nattestations:\n  - {kind: security-review, by: ana, date: 2026-11-01, agentVersion: 1.4.0}\n")
	opts := RepoOptions{Root: root, Project: filepath.Join(root, "project"), AgentPaths: []string{"agents/refunds/"}, AgentVersion: "1.4.0"}
	r, err := ReadRepo(opts)
	assert.NilError(t, err)
	assert.Equal(t, r.String(), `owner "@acme/refunds" (.github/CODEOWNERS), version "1.4.0", changelog "CHANGELOG.md" entry true, 1 attestations`)

	// A later rule without owners un-owns the folder; trust.owner, then trust.yaml's owner, answer.
	opts.AgentPaths = []string{"agents/refunds/legacy/agent.py"}
	opts.AgentVersion = "1.5.0"
	r, err = ReadRepo(opts)
	assert.NilError(t, err)
	assert.Equal(t, r.String(), `owner "someone" (.evalgate/trust.yaml), version "1.5.0", changelog "CHANGELOG.md" entry false, 1 attestations`)
	opts.Owner = "@lead"
	r, err = ReadRepo(opts)
	assert.NilError(t, err)
	assert.Equal(t, r.OwnerSource, "trust.owner")

	// A broken trust.yaml is an error at its place; a missing one is no evidence.
	write(t, root, "project/.evalgate/trust.yaml", "attestations: {}\n")
	_, err = ReadRepo(opts)
	assert.Check(t, is.ErrorContains(err, "trust.yaml:1:15: /attestations: expected a list of attestations"))
	_, err = ReadFile(root, filepath.Join(root, "nope.yaml"))
	assert.Assert(t, errors.Is(err, fs.ErrNotExist))
}

func TestOwnsPath(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"*", "agents/a.py", true},
		{"/agents/", "agents/a.py", true},
		{"agents/", "x/agents/a.py", true},
		{"/agents/", "x/agents/a.py", false},
		{"/examples/agent/", "examples/agent/", true},
		{"/examples/agent/", "examples/agentx/", false},
		{"*.py", "agents/a.py", true},
		{"docs/*", "docs/a.md", true},
		{"/docs/*", "agents/a.py", false},
	} {
		assert.Check(t, ownsPath(tc.pattern, tc.path) == tc.want, "%s %s", tc.pattern, tc.path)
	}
}
