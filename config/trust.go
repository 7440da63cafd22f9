package config

import (
	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/internal/yamlmap"
)

// DefaultMaxRepeats is trust.maxRepeats when the config sets none.
const DefaultMaxRepeats = 3

// Trust is the trust: block (docs/trust.md). Its presence makes run compute
// the trust scorecard.
type Trust struct {
	// Owner is who answers for the agent, when CODEOWNERS does not say.
	Owner string
	// History are earlier results files, resolved against the config's
	// folder: the runtime adjustments and TL4's preconditions read them.
	History []string
	// MaxRepeats is how often one call (name and arguments) may be made
	// in a trial of a replan-loop task.
	MaxRepeats int
}

func (p *parser) trust(n *yaml.Node, at yamlmap.Field) *Trust {
	t := &Trust{MaxRepeats: DefaultMaxRepeats}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return t // "trust:" alone turns the scorecard on with the defaults
	}
	p.Fields(n, at, yamlmap.Keys{
		"owner":      func(v *yaml.Node) { p.Str(v, at.Key("owner"), &t.Owner) },
		"history":    func(v *yaml.Node) { p.Strs(v, at.Key("history"), &t.History) },
		"maxRepeats": func(v *yaml.Node) { p.Int(v, at.Key("maxRepeats"), 1, &t.MaxRepeats) },
	})
	return t
}
