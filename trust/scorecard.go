package trust

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/evalgate/evalgate/results"
)

// Dimension points and level bounds (docs/trust.md).
const (
	MaxPoints = 20 // per dimension

	// MinDimensionTL3 is the fewest points a dimension may have at TL3.
	MinDimensionTL3 = 15
	// MinDimensionTL4 is the seed's per-dimension minimum for TL4: 90%
	// of each dimension's 20 points.
	MinDimensionTL4 = 18
	// MinPassingTL4 is how many passing trials the history of the last
	// HistoryWindow must hold for TL4.
	MinPassingTL4 = 50
)

// HistoryWindow is how far back the runtime adjustments and TL4's history
// look, from the run being scored.
const HistoryWindow = 30 * 24 * time.Hour

// Levels, TL0 to TL4: the lowest score of each, and its name.
var Levels = []struct {
	Min  float64
	Name string
}{
	{0, "Draft"}, {25, "Assisted"}, {50, "Supervised"}, {70, "Autonomous"}, {90, "Trusted"},
}

// Scorecard is trust.json: the whole scorecard with its evidence.
type Scorecard struct {
	Score       float64     `json:"score"` // 0-100, one decimal
	Level       int         `json:"level"` // 0-4
	LevelName   string      `json:"levelName"`
	Dimensions  Dimensions  `json:"dimensions"`
	Adjustments Adjustments `json:"adjustments"`
	// Next says what the next level needs; empty at TL4.
	Next []string `json:"next"`
}

// Dimensions are the five dimensions, in the seed's order.
type Dimensions struct {
	ContractClarity  Dimension `json:"contractClarity"`
	Idempotency      Dimension `json:"idempotency"`
	Observability    Dimension `json:"observability"`
	ErrorContainment Dimension `json:"errorContainment"`
	Governance       Dimension `json:"governance"`
}

// Dimension is one dimension's points, its band, the evidence of each
// point earned and the evidence missing for each point not earned.
type Dimension struct {
	Points   int      `json:"points"` // 0-20
	Band     string   `json:"band"`   // Bands
	Evidence []string `json:"evidence"`
	Missing  []string `json:"missing"`

	// items keeps the points each missing evidence is worth, for Next.
	items []item
}

// Bands name a dimension's points: 0-4 absent, 5-9 weak, 10-14 partial,
// 15-17 strong, 18-20 proven.
var Bands = []struct {
	Min  int
	Name string
}{
	{0, "absent"}, {5, "weak"}, {10, "partial"}, {15, "strong"}, {18, "proven"},
}

// Adjustments are the runtime adjustments from the history of the last
// HistoryWindow: +0.1 per passing trial (at most +5), −5 per unhandled
// error, −3 per timeout.
type Adjustments struct {
	Runs            int     `json:"-"` // earlier runs inside the window
	PassingTrials   int     `json:"passingTrials"`
	UnhandledErrors int     `json:"unhandledErrors"`
	Timeouts        int     `json:"timeouts"`
	Points          float64 `json:"points"`
}

// list is each dimension with its name, in order.
func (d *Dimensions) list() []struct {
	Name string
	Dim  *Dimension
} {
	return []struct {
		Name string
		Dim  *Dimension
	}{
		{"contractClarity", &d.ContractClarity}, {"idempotency", &d.Idempotency}, {"observability", &d.Observability},
		{"errorContainment", &d.ErrorContainment}, {"governance", &d.Governance},
	}
}

// Titles are the dimensions' names in prose, by their JSON names.
var Titles = map[string]string{
	"contractClarity":  "Contract Clarity",
	"idempotency":      "Idempotency",
	"observability":    "Observability",
	"errorContainment": "Error Containment",
	"governance":       "Governance",
}

// item is one rule of a dimension: the points it is worth and, once
// decided, what showed it or what was missing.
type item struct {
	points int
	earned int
	text   string
}

// add records a rule's outcome: earned of its points, with text as the
// evidence when earned is all of them and as the missing evidence
// otherwise (a part earned is evidence and missing at once).
func (d *Dimension) add(points, earned int, evidence, missing string) {
	d.Points += earned
	if earned > 0 {
		d.Evidence = append(d.Evidence, fmt.Sprintf("%s (+%d)", evidence, earned))
	}
	if earned < points {
		d.Missing = append(d.Missing, fmt.Sprintf("%s (+%d)", missing, points-earned))
		d.items = append(d.items, item{points: points, earned: earned, text: missing})
	}
}

// finish sets the band and makes the lists non-nil, as trust.json writes them.
func (d *Dimension) finish() {
	for _, b := range Bands {
		if d.Points >= b.Min {
			d.Band = b.Name
		}
	}
	if d.Evidence == nil {
		d.Evidence = []string{}
	}
	if d.Missing == nil {
		d.Missing = []string{}
	}
}

// Input is what a scorecard is computed from.
type Input struct {
	Run  *results.Run // the run scored
	Repo Repo         // the repository's facts
	// History are earlier runs; those that finished within HistoryWindow
	// before Run (and are not Run itself) count.
	History []*results.Run
	// Store are the earlier runs a history store holds (docs/history.md),
	// counted as History is; a run in both counts once.
	Store []Past
	// Tally, when set, holds the run's evidence counted task by task
	// (NewTally); Run's tasks are then not read for it.
	Tally *Tally
}

// Compute scores a run. It reads nothing: everything is in in.
func Compute(in Input) *Scorecard {
	var ev *evidence
	if in.Tally != nil {
		ev = in.Tally.ev
	} else {
		ev = gather(in.Run)
	}
	sc := &Scorecard{}
	sc.Dimensions.ContractClarity = contractClarity(ev)
	sc.Dimensions.Idempotency = idempotency(ev)
	sc.Dimensions.Observability = observability(ev, in.Run)
	sc.Dimensions.ErrorContainment = errorContainment(ev)
	sc.Dimensions.Governance = governance(&in.Repo)
	sum := 0
	for _, d := range sc.Dimensions.list() {
		d.Dim.finish()
		sum += d.Dim.Points
	}
	sc.Adjustments = adjust(in.Run, in.History, in.Store)
	sc.Score = math.Round(max(0, min(100, float64(sum)+sc.Adjustments.Points))*10) / 10
	sc.level(&in.Repo)
	return sc
}

// level applies the bands and the conditions of TL3 and TL4, and says what
// the next level needs.
func (sc *Scorecard) level(repo *Repo) {
	byScore := 0
	for i, l := range Levels {
		if sc.Score >= l.Min {
			byScore = i
		}
	}
	tl3 := sc.below(MinDimensionTL3)
	var tl4 []string
	if len(tl3) > 0 {
		tl4 = append(tl4, tl3...)
	}
	tl4 = append(tl4, sc.below(MinDimensionTL4)...)
	if !repo.signedOff() {
		tl4 = append(tl4, fmt.Sprintf("a tl4-signoff attestation in .evalgate/trust.yaml for agent version %s", versionOr(repo.AgentVersion)))
	}
	a := sc.Adjustments
	if a.PassingTrials < MinPassingTL4 {
		tl4 = append(tl4, fmt.Sprintf("history with at least %d passing trials in the last 30 days (has %d; record runs in a history store, history: in evalgate.yaml, or pass earlier results with --history or trust.history)", MinPassingTL4, a.PassingTrials))
	}
	if a.UnhandledErrors > 0 {
		tl4 = append(tl4, fmt.Sprintf("no unhandled error in the last 30 days of history (has %d)", a.UnhandledErrors))
	}
	tl4 = dedupe(tl4)

	level := byScore
	if level >= 3 && len(tl3) > 0 {
		level = 2
	}
	if level == 4 && len(tl4) > 0 {
		level = 3
	}
	sc.Level, sc.LevelName = level, Levels[level].Name
	sc.Next = []string{}
	if level == 4 {
		return
	}
	next := level + 1
	if need := Levels[next].Min - sc.Score; need > 0 {
		sc.Next = append(sc.Next, fmt.Sprintf("a score of %g for TL%d %s: %.1f more points; the largest missing: %s",
			Levels[next].Min, next, Levels[next].Name, need, sc.largestMissing(3)))
	}
	switch next {
	case 3:
		sc.Next = append(sc.Next, tl3...)
	case 4:
		sc.Next = append(sc.Next, tl4...)
	}
}

// below names the dimensions under min points, as what TL3 or TL4 needs.
func (sc *Scorecard) below(min int) []string {
	var out []string
	for _, d := range sc.Dimensions.list() {
		if d.Dim.Points < min {
			out = append(out, fmt.Sprintf("%s at %d points or more (has %d)", Titles[d.Name], min, d.Dim.Points))
		}
	}
	return out
}

// largestMissing lists the n missing evidences worth the most points.
func (sc *Scorecard) largestMissing(n int) string {
	type gap struct {
		points int
		text   string
	}
	var gaps []gap
	for _, d := range sc.Dimensions.list() {
		for _, it := range d.Dim.items {
			gaps = append(gaps, gap{it.points - it.earned, fmt.Sprintf("%s: %s (+%d)", Titles[d.Name], it.text, it.points-it.earned)})
		}
	}
	slices.SortStableFunc(gaps, func(a, b gap) int { return b.points - a.points })
	out := ""
	for i, g := range gaps {
		if i == n {
			break
		}
		if i > 0 {
			out += "; "
		}
		out += g.text
	}
	if out == "" {
		return "none; only the runtime adjustments can add more"
	}
	return out
}

// Summary is the scorecard in short, as results.json keeps it.
func (sc *Scorecard) Summary() *results.Trust {
	d := &sc.Dimensions
	return &results.Trust{
		Score:     sc.Score,
		Level:     sc.Level,
		LevelName: sc.LevelName,
		Dimensions: results.TrustDimensions{
			ContractClarity: d.ContractClarity.Points, Idempotency: d.Idempotency.Points, Observability: d.Observability.Points,
			ErrorContainment: d.ErrorContainment.Points, Governance: d.Governance.Points,
		},
	}
}

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func versionOr(v string) string {
	if v == "" {
		return "(agent.version is not set)"
	}
	return v
}
