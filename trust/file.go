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
	"github.com/evalgate/evalgate/suites"
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
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := suites.YAMLErrorLine(data, err)
		return nil, diag.Errors{{Pos: diag.Pos{File: path, Line: line, Col: 1}, Message: "invalid YAML: " + msg}}
	}
	p := &fileParser{file: path}
	out := &File{}
	if len(doc.Content) == 0 {
		return out, nil
	}
	root := doc.Content[0]
	p.fields(root, "", map[string]func(*yaml.Node){
		"owner": func(v *yaml.Node) { out.Owner = p.str(v, "/owner") },
		"attestations": func(v *yaml.Node) {
			if v.Kind != yaml.SequenceNode {
				p.errorf(v, "/attestations", "expected a list of attestations, each {kind, by, date, agentVersion}")
				return
			}
			for i, n := range v.Content {
				out.Attestations = append(out.Attestations, p.attestation(n, "/attestations/"+strconv.Itoa(i)))
			}
		},
	})
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return out, nil
}

type fileParser struct {
	file string
	errs diag.Errors
}

func (p *fileParser) errorf(n *yaml.Node, ptr, format string, args ...any) {
	p.errs = append(p.errs, &diag.Error{Pos: diag.Pos{File: p.file, Line: n.Line, Col: n.Column}, Pointer: ptr, Message: fmt.Sprintf(format, args...), Kind: "trust"})
}

// fields walks a mapping, reporting unknown keys with the allowed ones.
func (p *fileParser) fields(n *yaml.Node, ptr string, set map[string]func(*yaml.Node)) {
	yamlmap.Fields(n, set, func(at *yaml.Node, problem yamlmap.Problem, key string) {
		switch problem {
		case yamlmap.NotMapping:
			p.errorf(at, ptr, "expected a mapping with the keys %s", keys(set))
		case yamlmap.Unknown:
			p.errorf(at, ptr+"/"+key, "unknown key %q; expected one of %s", key, keys(set))
		case yamlmap.Repeated:
			p.errorf(at, ptr+"/"+key, "key %q is set twice", key)
		}
	})
}

func keys(set map[string]func(*yaml.Node)) string {
	var ks []string
	for _, k := range []string{"owner", "attestations", "kind", "by", "date", "agentVersion"} {
		if set[k] != nil {
			ks = append(ks, strconv.Quote(k))
		}
	}
	return strings.Join(ks, ", ")
}

func (p *fileParser) str(n *yaml.Node, ptr string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || strings.TrimSpace(n.Value) == "" {
		p.errorf(n, ptr, "expected a non-empty string")
		return ""
	}
	return n.Value
}

func (p *fileParser) attestation(n *yaml.Node, ptr string) Attestation {
	a := Attestation{Pos: diag.Pos{File: p.file, Line: n.Line, Col: n.Column}}
	p.fields(n, ptr, map[string]func(*yaml.Node){
		"kind": func(v *yaml.Node) {
			a.Kind = p.str(v, ptr+"/kind")
			if a.Kind != "" && a.Kind != KindSecurityReview && a.Kind != KindTL4Signoff {
				p.errorf(v, ptr+"/kind", "expected %q or %q, got %q", KindSecurityReview, KindTL4Signoff, a.Kind)
			}
		},
		"by": func(v *yaml.Node) { a.By = p.str(v, ptr+"/by") },
		"date": func(v *yaml.Node) {
			a.Date = p.str(v, ptr+"/date")
			if _, err := time.Parse(time.DateOnly, a.Date); a.Date != "" && err != nil {
				p.errorf(v, ptr+"/date", "expected a date as YYYY-MM-DD, such as 2026-11-02, got %q", a.Date)
			}
		},
		"agentVersion": func(v *yaml.Node) {
			a.AgentVersion = p.str(v, ptr+"/agentVersion")
			if a.AgentVersion != "" && !semver(a.AgentVersion) {
				p.errorf(v, ptr+"/agentVersion", "expected a semver version such as 1.4.0, got %q", a.AgentVersion)
			}
		},
	})
	if n.Kind == yaml.MappingNode {
		var missing []string
		for _, k := range []struct{ key, val string }{{"kind", a.Kind}, {"by", a.By}, {"date", a.Date}, {"agentVersion", a.AgentVersion}} {
			if k.val == "" && !hasKey(n, k.key) {
				missing = append(missing, strconv.Quote(k.key))
			}
		}
		if len(missing) > 0 {
			p.errorf(n, ptr, "an attestation needs %s; missing %s", `"kind", "by", "date" and "agentVersion"`, strings.Join(missing, ", "))
		}
	}
	return a
}

func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}
