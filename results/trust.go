package results

// Health is the outcome of the agent's health command (config
// agent.health), run once before the tasks: whether it exited 0, and
// otherwise how it ended, in evalgate's own words ("exit status 1").
type Health struct {
	Passed  bool   `json:"passed"`
	Message string `json:"message,omitempty"`
}

// Trust levels, TL0 to TL4 (docs/trust.md).
const (
	MinTrustLevel = 0
	MaxTrustLevel = 4
)

// Trust is the trust scorecard of a run in short, as results.json keeps
// it: the total, the level and each dimension's points. trust.json holds
// the whole scorecard with its evidence (package trust).
type Trust struct {
	Score      float64         `json:"score"` // 0-100
	Level      int             `json:"level"` // 0-4
	LevelName  string          `json:"levelName"`
	Dimensions TrustDimensions `json:"dimensions"`
	// BaselineLevel and BaselineScore are the baseline's, when the
	// baseline carries a scorecard: a lower level is a demotion.
	BaselineLevel *int     `json:"baselineLevel,omitempty"`
	BaselineScore *float64 `json:"baselineScore,omitempty"`
}

// Demoted reports whether the level fell below the baseline's.
func (t *Trust) Demoted() bool {
	return t != nil && t.BaselineLevel != nil && t.Level < *t.BaselineLevel
}

// TrustDimensions are the points, 0-20, of the five dimensions.
type TrustDimensions struct {
	ContractClarity  int `json:"contractClarity"`
	Idempotency      int `json:"idempotency"`
	Observability    int `json:"observability"`
	ErrorContainment int `json:"errorContainment"`
	Governance       int `json:"governance"`
}

// check puts the trust summary's numbers in range.
func (t *Trust) check(c *checker) {
	if t == nil {
		return
	}
	c.in("", "/trust/score", t.Score, 0, 100, "a score from 0 to 100")
	c.in("", "/trust/level", float64(t.Level), MinTrustLevel, MaxTrustLevel, "a level from 0 to 4")
	if t.BaselineLevel != nil {
		c.in("", "/trust/baselineLevel", float64(*t.BaselineLevel), MinTrustLevel, MaxTrustLevel, "a level from 0 to 4")
	}
	if t.BaselineScore != nil {
		c.in("", "/trust/baselineScore", *t.BaselineScore, 0, 100, "a score from 0 to 100")
	}
	d := t.Dimensions
	for _, p := range []struct {
		name   string
		points int
	}{
		{"contractClarity", d.ContractClarity}, {"idempotency", d.Idempotency}, {"observability", d.Observability},
		{"errorContainment", d.ErrorContainment}, {"governance", d.Governance},
	} {
		c.in("/trust/dimensions/", p.name, float64(p.points), 0, 20, "points from 0 to 20")
	}
}

// SuiteTools counts a suite's declared tools, the contract the trust
// scorecard reads: how many, how many declare an inputSchema, how many a
// side effect. Counts only, never names or schemas.
type SuiteTools struct {
	Declared   int `json:"declared"`
	WithSchema int `json:"withSchema"`
	SideEffect int `json:"sideEffect"`
}
