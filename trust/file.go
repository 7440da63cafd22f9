package trust

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/yamlmap"
)

// Attestation kinds.
const (
	KindSecurityReview = "security-review"
	KindTL4Signoff     = "tl4-signoff"
)

// File is .evalgate/trust.yaml: the human attestations a run cannot
// measure, committed beside the config so that review sees them.
type File struct {
	Owner        string
	Attestations []Attestation
}

// Attestation is one human's statement about one agent version.
type Attestation struct {
	Kind         string // KindSecurityReview or KindTL4Signoff
	By           string
	Date         string // YYYY-MM-DD
	AgentVersion string // semver
	Pos          diag.Pos
}

// maxFileBytes bounds trust.yaml, parsed whole.
const maxFileBytes = 1 << 20

// ReadFile reads and checks a trust.yaml. A file that does not exist gives
// an error matching fs.ErrNotExist; problems in it are diag.Errors, every
// one at its file:line:col. The file may come with a pull request, so it
// is read only when it is a regular file inside the folder root (the
// repository; "" for none), through a size limit.
func ReadFile(root, path string) (*File, error) {
	data, err := inputfile.ReadIn(root, path, maxFileBytes)
	var tooLarge *inputfile.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return nil, diag.Errors{{Pos: diag.Pos{File: path}, Message: fmt.Sprintf("the file is over %d bytes; expected a trust file of at most 1 MiB", maxFileBytes)}}
	case err != nil:
		return nil, fmt.Errorf("could not read %q: %w", path, err)
	}
	return ParseFile(path, data)
}

// ParseFile parses the content of a trust.yaml read from path.
func ParseFile(path string, data []byte) (*File, error) {
	root, err := yamlmap.Parse(path, data)
	if err != nil {
		return nil, err
	}
	out := &File{}
	if root == nil {
		return out, nil
	}
	r := &yamlmap.Reader{File: path, Kind: "trust"}
	var at yamlmap.Field
	r.Fields(root, at, yamlmap.Keys{
		"owner": func(v *yaml.Node) { r.NonEmpty(v, at.Key("owner"), &out.Owner) },
		"attestations": func(v *yaml.Node) {
			list := at.Key("attestations")
			if v.Kind != yaml.SequenceNode {
				r.Errorf(v, list, "expected a list of attestations, each {kind, by, date, agentVersion}")
				return
			}
			for i, n := range v.Content {
				out.Attestations = append(out.Attestations, attestation(r, n, list.Index(i)))
			}
		},
	})
	if len(r.Errs) > 0 {
		return nil, r.Errs
	}
	return out, nil
}

func attestation(r *yamlmap.Reader, n *yaml.Node, at yamlmap.Field) Attestation {
	a := Attestation{Pos: r.Pos(n)}
	r.Fields(n, at, yamlmap.Keys{
		"kind": func(v *yaml.Node) {
			r.NonEmpty(v, at.Key("kind"), &a.Kind)
			if a.Kind != "" && a.Kind != KindSecurityReview && a.Kind != KindTL4Signoff {
				r.Errorf(v, at.Key("kind"), "expected %q or %q, got %q", KindSecurityReview, KindTL4Signoff, a.Kind)
			}
		},
		"by": func(v *yaml.Node) { r.NonEmpty(v, at.Key("by"), &a.By) },
		"date": func(v *yaml.Node) {
			r.NonEmpty(v, at.Key("date"), &a.Date)
			if _, err := time.Parse(time.DateOnly, a.Date); a.Date != "" && err != nil {
				r.Errorf(v, at.Key("date"), "expected a date as YYYY-MM-DD, such as 2026-11-02, got %q", a.Date)
			}
		},
		"agentVersion": func(v *yaml.Node) {
			r.NonEmpty(v, at.Key("agentVersion"), &a.AgentVersion)
			if a.AgentVersion != "" && !semver(a.AgentVersion) {
				r.Errorf(v, at.Key("agentVersion"), "expected a semver version such as 1.4.0, got %q", a.AgentVersion)
			}
		},
	})
	if n.Kind == yaml.MappingNode {
		var missing []string
		for _, k := range []struct{ key, val string }{{"kind", a.Kind}, {"by", a.By}, {"date", a.Date}, {"agentVersion", a.AgentVersion}} {
			if k.val == "" && !yamlmap.Has(n, k.key) {
				missing = append(missing, strconv.Quote(k.key))
			}
		}
		if len(missing) > 0 {
			r.Errorf(n, at, "an attestation needs %s; missing %s", `"kind", "by", "date" and "agentVersion"`, strings.Join(missing, ", "))
		}
	}
	return a
}
