// Package assess computes the AAAF dual-axis assessment of an agent from its
// results (docs/assessment.md, #12): a Performance and a Capability axis, each
// a weighted composite of measured dimensions, mapped to a tier.
//
// It is pure: Assess reads task results (results.Run, several shards
// combined as one run) and Options, and returns an Assessment with every
// dimension's value or nil and the reason, the evidence counts behind it,
// the composites re-weighted over the measured dimensions, the tiers and
// their colours, and whether an axis is provisional (fewer than 20 tasks
// for performance, 30 for capability).
//
//	a := assess.Assess([]*results.Run{run}, assess.Options{History: hist})
//	fmt.Println(a.Performance.Tier, a.Capability.Tier)
//
// Tiers are compared with a tolerance of 1e-9, as gates are: a composite of
// 0.6 computed as 0.5999999999999999 is still Proficient.
//
// Package report renders an Assessment (JSON, SVG, PNG, Markdown, Open
// Badges); package gates reads its summary, results.Assessment.
package assess
