// Package trust scores how far an agent may be trusted to act on its own:
// the Trust Scorecard of seed 003 (docs/trust.md), five dimensions of 0 to 20
// points (Contract Clarity, Idempotency, Observability, Error Containment,
// Governance), runtime adjustments from earlier runs, and a level from TL0
// Draft to TL4 Trusted.
//
// Every point comes from evidence: results.json (what the run measured:
// schemas checked, trials compared, faults injected, scenarios passed),
// the repository (an owner, versions, a changelog entry, gates) and human
// attestations in .evalgate/trust.yaml. A point not earned says which
// evidence is missing, and Scorecard.Next says what the next level needs.
// docs/trust.md quotes the rule of every point.
//
// Compute is pure: the caller gathers the facts (ReadRepo, ReadFile,
// results.Read) and Compute turns them into the scorecard.
//
//	sc := trust.Compute(trust.Input{Run: run, Repo: repo, History: history})
//	fmt.Printf("TL%d %s (%.1f)\n", sc.Level, sc.LevelName, sc.Score)
package trust
