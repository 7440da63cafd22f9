// Package yamlmap walks a mapping of a YAML document read into nodes, as
// evalgate's YAML files (evalgate.yaml, .evalgate/trust.yaml) are read:
// each known key's value goes to its reader, and a node that is not a
// mapping, an unknown key or a key set twice is reported, for the caller
// to word.
package yamlmap

import "go.yaml.in/yaml/v3"

// Problem is what Fields found wrong.
type Problem int

const (
	NotMapping Problem = iota // the node is not a mapping
	Unknown                   // the key is not one of the set
	Repeated                  // the key is set a second time
)

// Fields calls set[key] with the value of each key of the mapping n, once
// per key, in the document's order. Whatever else it meets goes to report:
// n itself when it is not a mapping, else the key node and its text.
func Fields(n *yaml.Node, set map[string]func(*yaml.Node), report func(at *yaml.Node, p Problem, key string)) {
	if n.Kind != yaml.MappingNode {
		report(n, NotMapping, "")
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := set[k.Value]
		switch {
		case !ok:
			report(k, Unknown, k.Value)
		case seen[k.Value]:
			report(k, Repeated, k.Value)
		default:
			seen[k.Value] = true
			f(v)
		}
	}
}
