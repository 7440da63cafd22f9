package config

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/internal/yamlmap"
)

// History is the history: block (docs/history.md): where runs are
// recorded and read back from.
type History struct {
	// Store is the store's URL: dir:PATH (relative to the config's
	// folder), git:BRANCH, postgres: or a postgres:// URL. "" is the
	// default store, dir:.evalgate/history.
	Store string
	// Keep is how many records the window holds; 0 for the default (100).
	Keep int
	// Record makes run write its record to the store.
	Record bool
	// Ref reads the window of this ref rather than the default branch's.
	Ref string
}

func (p *parser) history(n *yaml.Node, at yamlmap.Field) *History {
	h := &History{}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return h // "history:" alone reads the default store
	}
	p.Fields(n, at, yamlmap.Keys{
		"store": func(v *yaml.Node) {
			p.Str(v, at.Key("store"), &h.Store)
			if h.Store != "" && !storeURL(h.Store) {
				p.Errorf(v, at.Key("store"), "expected dir:PATH, git:BRANCH, postgres: or a postgres:// URL, got %q", redactedStore(h.Store))
			}
		},
		"keep":   func(v *yaml.Node) { p.Int(v, at.Key("keep"), 1, &h.Keep) },
		"record": func(v *yaml.Node) { p.Bool(v, at.Key("record"), &h.Record) },
		"ref":    func(v *yaml.Node) { p.Str(v, at.Key("ref"), &h.Ref) },
	})
	return h
}

// storeURL reports whether s names a kind of history store.
func storeURL(s string) bool {
	for _, prefix := range []string{"dir:", "git:", "postgres:", "postgresql://"} {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// redactedStore is s without what follows a scheme's "//" user
// information: a URL with a password never reaches a message.
func redactedStore(s string) string {
	if i := strings.Index(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "…" + s[i:]
		}
	}
	return s
}
