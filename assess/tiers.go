package assess

import (
	"fmt"
	"slices"
	"strings"
)

// Tier is a band of composite scores on one axis, with AAAF's colour.
type Tier struct {
	Name   string
	Min    float64 // the lowest composite in the tier
	Colour string  // AAAF §4.2
	Rank   int     // 0 for the lowest tier
}

// Tiers lists each axis's tiers from the lowest (docs/assessment.md).
var Tiers = map[string][]Tier{
	Performance: {
		{"Novice", 0, "#9E9E9E", 0},
		{"Competent", 0.40, "#4CAF50", 1},
		{"Proficient", 0.60, "#2196F3", 2},
		{"Expert", 0.75, "#9C27B0", 3},
		{"Elite", 0.90, "#FFD700", 4},
	},
	Capability: {
		{"Narrow", 0, "#9E9E9E", 0},
		{"Functional", 0.30, "#4CAF50", 1},
		{"Versatile", 0.50, "#2196F3", 2},
		{"Specialist", 0.70, "#9C27B0", 3},
		{"Full-Stack", 0.85, "#FFD700", 4},
	},
}

// TierOf is the tier of a composite score on axis: the highest whose bound
// the score reaches, within a tolerance of 1e-9.
func TierOf(axis string, score float64) Tier {
	tiers := Tiers[axis]
	t := tiers[0]
	for _, c := range tiers[1:] {
		if score+tolerance >= c.Min {
			t = c
		}
	}
	return t
}

// LookupTier finds the tier of axis called name, exactly as spelt.
func LookupTier(axis, name string) (Tier, bool) {
	for _, t := range Tiers[axis] {
		if t.Name == name {
			return t, true
		}
	}
	return Tier{}, false
}

// TierNames lists the tier names of axis from the lowest, quoted and
// joined with " < " for a message: "Novice" < "Competent" < ....
func TierNames(axis string) string {
	names := make([]string, len(Tiers[axis]))
	for i, t := range Tiers[axis] {
		names[i] = `"` + t.Name + `"`
	}
	return strings.Join(names, " < ")
}

// DomainWarning is the warning for a task whose domain is not in taxonomy
// (AAAF's 12 when empty): domain_breadth does not count it. "" when the
// domain is in it, or empty.
func DomainWarning(taskID, domain string, taxonomy []string) string {
	if len(taxonomy) == 0 {
		taxonomy = DefaultTaxonomy
	}
	if domain == "" || slices.Contains(taxonomy, domain) {
		return ""
	}
	which := "the assessment taxonomy"
	if slices.Equal(taxonomy, DefaultTaxonomy) {
		which = "AAAF's taxonomy"
	}
	return fmt.Sprintf("task %q: domain %q is not in %s (%s), so domain_breadth does not count it; set assessment.taxonomy in evalgate.yaml to use domains of your own",
		taskID, domain, which, strings.Join(taxonomy, ", "))
}
