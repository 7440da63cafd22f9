package trust

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evalgate/evalgate/internal/inputfile"
)

// Repo holds the repository's facts the Governance dimension reads.
type Repo struct {
	// Owner answers for the agent; OwnerSource says where it was found:
	// "CODEOWNERS", ".github/CODEOWNERS", "docs/CODEOWNERS", "trust.owner"
	// or ".evalgate/trust.yaml".
	Owner, OwnerSource string
	// AgentVersion is agent.version from the config; "" when unset.
	AgentVersion string
	// Changelog is the CHANGELOG.md found ("" when none), and
	// ChangelogEntry whether it mentions AgentVersion.
	Changelog      string
	ChangelogEntry bool
	// Attestations are the human attestations of .evalgate/trust.yaml.
	Attestations []Attestation
	// Gates counts the gates configured (the config's or --gate), the
	// defaults aside.
	Gates int
}

// semverRE is semantic versioning 2.0.0, without a leading "v".
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

func semver(v string) bool { return semverRE.MatchString(v) }

// attestation returns the attestation of kind for the agent's version,
// nil when there is none (or the version is unknown).
func (r *Repo) attestation(kind string) *Attestation {
	if r.AgentVersion == "" {
		return nil
	}
	for i := range r.Attestations {
		if a := &r.Attestations[i]; a.Kind == kind && a.AgentVersion == r.AgentVersion {
			return a
		}
	}
	return nil
}

func (r *Repo) signedOff() bool { return r.attestation(KindTL4Signoff) != nil }

// RepoOptions say where the repository's facts are.
type RepoOptions struct {
	Root         string   // the repository's top folder: CODEOWNERS, CHANGELOG.md
	Project      string   // the config's folder: .evalgate/trust.yaml, and a CHANGELOG.md there first
	AgentPaths   []string // the agent's files and folders, relative to Root with forward slashes
	AgentVersion string
	Owner        string // trust.owner from the config
	Gates        int    // gates configured, the defaults aside
}

// maxRepoFileBytes bounds CODEOWNERS and CHANGELOG.md, which a pull
// request may replace with anything (a link to /dev/zero): GitHub reads a
// CODEOWNERS of 3 MB at most.
const maxRepoFileBytes = 3 << 20

// ReadRepo gathers the repository's facts. A missing CODEOWNERS,
// CHANGELOG.md or trust.yaml is missing evidence, not an error, and so is
// one that is not a regular file or is over 3 MiB; a
// trust.yaml that does not parse is (diag.Errors, file:line:col).
func ReadRepo(o RepoOptions) (Repo, error) {
	r := Repo{AgentVersion: o.AgentVersion, Gates: o.Gates}
	file := filepath.Join(o.Project, ".evalgate", "trust.yaml")
	tf, err := ReadFile(o.Root, file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return r, err
	default:
		r.Attestations = tf.Attestations
	}
	for _, name := range []string{"CODEOWNERS", ".github/CODEOWNERS", "docs/CODEOWNERS"} {
		data, err := inputfile.ReadIn(o.Root, filepath.Join(o.Root, filepath.FromSlash(name)), maxRepoFileBytes)
		if err != nil {
			continue
		}
		if owner := codeOwner(data, o.AgentPaths); owner != "" {
			r.Owner, r.OwnerSource = owner, name
		}
		break // GitHub reads the first CODEOWNERS it finds
	}
	if r.Owner == "" && o.Owner != "" {
		r.Owner, r.OwnerSource = o.Owner, "trust.owner"
	}
	if r.Owner == "" && tf != nil && tf.Owner != "" {
		r.Owner, r.OwnerSource = tf.Owner, ".evalgate/trust.yaml"
	}
	for _, dir := range []string{o.Project, o.Root} {
		p := filepath.Join(dir, "CHANGELOG.md")
		data, err := inputfile.ReadIn(o.Root, p, maxRepoFileBytes)
		if err != nil {
			continue
		}
		r.Changelog = filepath.ToSlash(p)
		if rel, err := filepath.Rel(o.Root, p); err == nil {
			r.Changelog = filepath.ToSlash(rel)
		}
		r.ChangelogEntry = o.AgentVersion != "" && changelogEntry(data, o.AgentVersion)
		break
	}
	return r, nil
}

// changelogEntry reports whether a heading of the changelog names version
// ("## 1.4.0", "## [1.4.0] - 2026-11-02", "## v1.4.0").
func changelogEntry(data []byte, version string) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "#") {
			continue
		}
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune("# []()v:,", r) }) {
			if f == version {
				return true
			}
		}
	}
	return false
}

// codeOwner returns the owners of the last CODEOWNERS rule matching one of
// paths (the last match wins, as on GitHub); "" when none matches or the
// matching rule names no owner.
func codeOwner(data []byte, paths []string) string {
	owner := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		for _, p := range paths {
			if ownsPath(fields[0], p) {
				owner = strings.Join(fields[1:], " ")
				break
			}
		}
	}
	return owner
}

// ownsPath reports whether a CODEOWNERS pattern covers p, a path from the
// repository's root: "*" covers everything; "/dir/" or "dir/" a folder and
// what is under it; a pattern with a slash is anchored at the root, one
// without matches a name at any depth.
func ownsPath(pattern, p string) bool {
	if pattern == "*" || pattern == "/" || pattern == "/*" || pattern == "**" {
		return true
	}
	anchored := strings.Contains(strings.TrimSuffix(pattern, "/"), "/")
	pattern = strings.TrimPrefix(pattern, "/")
	dir := strings.HasSuffix(pattern, "/")
	pattern = strings.TrimSuffix(strings.TrimSuffix(pattern, "/**"), "/")
	parts := strings.Split(p, "/")
	for i := range parts {
		if anchored && i > 0 {
			break
		}
		for j := i + 1; j <= len(parts); j++ {
			sub := strings.Join(parts[i:j], "/")
			if ok, _ := path.Match(pattern, sub); ok && (!dir || j < len(parts) || strings.HasSuffix(p, "/")) {
				return true
			}
		}
	}
	return false
}

// String renders the facts for a test failure.
func (r Repo) String() string {
	return fmt.Sprintf("owner %q (%s), version %q, changelog %q entry %v, %d attestations", r.Owner, r.OwnerSource, r.AgentVersion, r.Changelog, r.ChangelogEntry, len(r.Attestations))
}
