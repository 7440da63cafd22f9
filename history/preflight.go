package history

import (
	"fmt"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/trust"
)

// Preflight answers whether the agent of rec, its newest record, is at
// level or above: its scorecard's level, and each of its five dimensions
// at the level's minimum (trust.MinDimensionTL3 at TL3,
// trust.MinDimensionTL4 at TL4). The reasons say what falls short; none
// when it is there.
func Preflight(rec *Record, level int) (ok bool, reasons []string) {
	if rec.Trust == nil {
		return false, []string{fmt.Sprintf("run %s has no trust scorecard (add a trust: block to evalgate.yaml)", rec.RunID)}
	}
	t := rec.Trust
	if t.Level < level {
		reasons = append(reasons, fmt.Sprintf("run %s is at TL%d %s (score %.1f), below TL%d %s", rec.RunID, t.Level, trust.Levels[t.Level].Name, t.Score, level, trust.Levels[level].Name))
	}
	min := 0
	switch {
	case level >= 4:
		min = trust.MinDimensionTL4
	case level == 3:
		min = trust.MinDimensionTL3
	}
	for _, d := range dimensions(t.Dimensions) {
		if d.points < min {
			reasons = append(reasons, fmt.Sprintf("%s has %d points; TL%d needs %d or more", trust.Titles[d.name], d.points, level, min))
		}
	}
	return len(reasons) == 0, reasons
}

type dimension struct {
	name   string
	points int
}

func dimensions(d results.TrustDimensions) []dimension {
	return []dimension{{"contractClarity", d.ContractClarity}, {"idempotency", d.Idempotency}, {"observability", d.Observability},
		{"errorContainment", d.ErrorContainment}, {"governance", d.Governance}}
}
