package config

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/assess"
)

// Assessment is the `assessment:` section (DESIGN §11): who is assessed
// and how the AAAF dual-axis assessment weighs the evidence. Its presence
// makes `run` assess every run.
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

func (p *parser) assessment(n *yaml.Node, c *Config) {
	a := &Assessment{}
	c.Assessment = a
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // "assessment:" alone: AAAF's defaults
	}
	p.fields(n, "assessment", map[string]func(*yaml.Node){
		"agent": func(v *yaml.Node) {
			p.fields(v, "assessment.agent", map[string]func(*yaml.Node){
				"id":   func(v *yaml.Node) { p.str(v, "assessment.agent.id", &a.AgentID) },
				"name": func(v *yaml.Node) { p.str(v, "assessment.agent.name", &a.AgentName) },
			})
		},
		"organization":      func(v *yaml.Node) { p.str(v, "assessment.organization", &a.Organization) },
		"weights":           func(v *yaml.Node) { p.weights(v, a) },
		"taxonomy":          func(v *yaml.Node) { p.taxonomy(v, a) },
		"latencyBaselineMs": func(v *yaml.Node) { p.latencyBaselines(v, a) },
		"validDays":         func(v *yaml.Node) { p.int(v, "assessment.validDays", 1, &a.ValidDays) },
		"history":           func(v *yaml.Node) { p.strs(v, "assessment.history", &a.History) },
	})
}

// weights reads weights: {performance: {dimension: w}, capability: {...}}.
// An unknown axis or dimension is an error naming the valid ones.
func (p *parser) weights(n *yaml.Node, a *Assessment) {
	a.Weights = map[string]float64{}
	set := map[string]func(*yaml.Node){}
	for _, axis := range assess.Axes {
		set[axis] = func(v *yaml.Node) {
			where := "assessment.weights." + axis
			dims := map[string]func(*yaml.Node){}
			for _, d := range assess.Dimensions[axis] {
				dims[d] = func(v *yaml.Node) {
					var w float64
					p.float(v, where+"."+d, &w)
					a.Weights[d] = w
				}
			}
			p.fields(v, where, dims)
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
				p.errorf(v, "%s: the weights of the axis sum to 0; give at least one dimension a weight above 0", where)
			}
		}
	}
	p.fields(n, "assessment.weights", set)
}

func (p *parser) taxonomy(n *yaml.Node, a *Assessment) {
	p.strs(n, "assessment.taxonomy", &a.Taxonomy)
	seen := map[string]bool{}
	for i, d := range a.Taxonomy {
		at := n
		if n.Kind == yaml.SequenceNode && i < len(n.Content) {
			at = n.Content[i]
		}
		switch {
		case strings.TrimSpace(d) == "":
			p.errorf(at, "assessment.taxonomy[%d]: expected a domain name, got an empty string", i)
		case seen[d]:
			p.errorf(at, "assessment.taxonomy[%d]: domain %q is listed twice", i, d)
		}
		seen[d] = true
	}
	if n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		p.errorf(n, "assessment.taxonomy: expected at least one domain; leave the key out for AAAF's 12")
	}
}

// latencyBaselines reads {complexity: milliseconds} for levels 1 to 5.
func (p *parser) latencyBaselines(n *yaml.Node, a *Assessment) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "assessment.latencyBaselineMs: expected a mapping of complexity levels 1 to 5 to milliseconds")
		return
	}
	a.LatencyBaselineMs = map[int]float64{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		level, err := strconv.Atoi(k.Value)
		if err != nil || level < 1 || level > 5 {
			p.errorf(k, "assessment.latencyBaselineMs: unknown level %q; expected a complexity level from 1 to 5", k.Value)
			continue
		}
		ms, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || ms <= 0 {
			p.errorf(v, "assessment.latencyBaselineMs.%d: expected a number of milliseconds above 0", level)
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
