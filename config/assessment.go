package config

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/internal/yamlmap"
)

// Assessment is the `assessment:` section (docs/assessment.md): who is
// assessed and how the AAAF dual-axis assessment weighs the evidence. Its
// presence makes `run` assess every run.
type Assessment struct {
	AgentID      string
	AgentName    string
	Organization string
	// Weights overrides dimension weights, by dimension name (the names of
	// both axes are distinct).
	Weights           map[string]float64
	Taxonomy          []string
	LatencyBaselineMs map[int]float64
	ValidDays         int
	// History lists earlier results.json or assessment.json files,
	// resolved against the config's folder.
	History []string
}

// Options are the assessment options the section sets.
func (a *Assessment) Options() assess.Options {
	if a == nil {
		return assess.Options{}
	}
	return assess.Options{
		Agent:             assess.Agent{ID: a.AgentID, Name: a.AgentName},
		Organization:      a.Organization,
		ValidDays:         a.ValidDays,
		Weights:           a.Weights,
		Taxonomy:          a.Taxonomy,
		LatencyBaselineMs: a.LatencyBaselineMs,
	}
}

func (p *parser) assessment(n *yaml.Node, at yamlmap.Field, c *Config) {
	a := &Assessment{}
	c.Assessment = a
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // "assessment:" alone: AAAF's defaults
	}
	p.Fields(n, at, yamlmap.Keys{
		"agent": func(v *yaml.Node) {
			agent := at.Key("agent")
			p.Fields(v, agent, yamlmap.Keys{
				"id":   func(v *yaml.Node) { p.Str(v, agent.Key("id"), &a.AgentID) },
				"name": func(v *yaml.Node) { p.Str(v, agent.Key("name"), &a.AgentName) },
			})
		},
		"organization":      func(v *yaml.Node) { p.Str(v, at.Key("organization"), &a.Organization) },
		"weights":           func(v *yaml.Node) { p.weights(v, at.Key("weights"), a) },
		"taxonomy":          func(v *yaml.Node) { p.taxonomy(v, at.Key("taxonomy"), a) },
		"latencyBaselineMs": func(v *yaml.Node) { p.latencyBaselines(v, at.Key("latencyBaselineMs"), a) },
		"validDays":         func(v *yaml.Node) { p.Int(v, at.Key("validDays"), 1, &a.ValidDays) },
		"history":           func(v *yaml.Node) { p.Strs(v, at.Key("history"), &a.History) },
	})
}

// weights reads weights: {performance: {dimension: w}, capability: {...}}.
// An unknown axis or dimension is an error naming the valid ones.
func (p *parser) weights(n *yaml.Node, at yamlmap.Field, a *Assessment) {
	a.Weights = map[string]float64{}
	set := yamlmap.Keys{}
	for _, axis := range assess.Axes {
		set[axis] = func(v *yaml.Node) {
			axisAt := at.Key(axis)
			dims := yamlmap.Keys{}
			for _, d := range assess.Dimensions[axis] {
				dims[d] = func(v *yaml.Node) {
					var w float64
					p.Float(v, axisAt.Key(d), &w)
					a.Weights[d] = w
				}
			}
			p.Fields(v, axisAt, dims)
			if v.Kind != yaml.MappingNode {
				return
			}
			sum := 0.0
			for _, d := range assess.Dimensions[axis] {
				w, ok := a.Weights[d]
				if !ok {
					w = assess.DefaultWeights[d]
				}
				sum += w
			}
			if sum <= 0 {
				p.Errorf(v, axisAt, "the weights of the axis sum to 0; give at least one dimension a weight above 0")
			}
		}
	}
	p.Fields(n, at, set)
}

func (p *parser) taxonomy(n *yaml.Node, at yamlmap.Field, a *Assessment) {
	p.Strs(n, at, &a.Taxonomy)
	seen := map[string]bool{}
	for i, d := range a.Taxonomy {
		item := n
		if n.Kind == yaml.SequenceNode && i < len(n.Content) {
			item = n.Content[i]
		}
		switch {
		case strings.TrimSpace(d) == "":
			p.Errorf(item, at.Index(i), "expected a domain name, got an empty string")
		case seen[d]:
			p.Errorf(item, at.Index(i), "domain %q is listed twice", d)
		}
		seen[d] = true
	}
	if n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		p.Errorf(n, at, "expected at least one domain; leave the key out for AAAF's 12")
	}
}

// latencyBaselines reads {complexity: milliseconds} for levels 1 to 5.
func (p *parser) latencyBaselines(n *yaml.Node, at yamlmap.Field, a *Assessment) {
	if n.Kind != yaml.MappingNode {
		p.Errorf(n, at, "expected a mapping of complexity levels 1 to 5 to milliseconds")
		return
	}
	a.LatencyBaselineMs = map[int]float64{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		level, err := strconv.Atoi(k.Value)
		if err != nil || level < 1 || level > 5 {
			p.Errorf(k, at, "unknown level %q; expected a complexity level from 1 to 5", k.Value)
			continue
		}
		ms, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || ms <= 0 {
			p.Errorf(v, at.Key(strconv.Itoa(level)), "expected a number of milliseconds above 0")
			continue
		}
		a.LatencyBaselineMs[level] = ms
	}
}

// resolveAssessment makes the history paths relative to the config's folder.
func (c *Config) resolveAssessment() {
	if c.Assessment == nil {
		return
	}
	for i, h := range c.Assessment.History {
		c.Assessment.History[i] = c.Path(h)
	}
}
