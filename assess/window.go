package assess

import (
	"fmt"
	"github.com/evalgate/evalgate/internal/words"
	"math"
	"time"
)

// MinWindowRuns is how many runs, the assessed one included, consistency
// across runs and learning_rate's slope need.
const MinWindowRuns = 5

// Window is the history a store holds (docs/history.md): the earlier
// runs of the window, oldest first. With a Window, consistency is
// measured across the runs and learning_rate is the slope of the
// performance composite over them.
type Window struct {
	Runs []WindowRun
}

// WindowRun is one earlier run of the window: when it started, its
// aggregate score and pass rate, and its performance composite (nil when
// it was not assessed).
type WindowRun struct {
	Time        time.Time
	Score       float64
	PassRate    float64
	Performance *float64
}

// withWindow replaces the within-run consistency of perf with the one
// across the window's runs, when there is a window.
func (o Options) withWindow(perf []Dimension, score, passRate float64) []Dimension {
	if o.Window == nil {
		return perf
	}
	for i := range perf {
		if perf[i].Name == Consistency {
			perf[i] = o.consistencyAcross(score, passRate)
		}
	}
	return perf
}

// consistencyAcross: 1 − min(1, 0.6·cvScore + 0.4·cvPass) over the runs
// of the window and this one, each run's aggregate score and pass rate a
// sample.
func (o Options) consistencyAcross(score, passRate float64) Dimension {
	scores := []float64{score}
	passes := []float64{passRate}
	for _, r := range o.Window.Runs {
		scores = append(scores, r.Score)
		passes = append(passes, r.PassRate)
	}
	ev := map[string]int{"runs": len(scores)}
	if len(scores) < MinWindowRuns {
		return unmeasured(Consistency, fmt.Sprintf("the history window holds %d %s and this one; %d runs needed", len(scores)-1, words.Plural(len(scores)-1, "run", "runs"), MinWindowRuns), ev)
	}
	return measured(Consistency, 1-min(1, 0.6*cv(scores)+0.4*cv(passes)), ev)
}

// learningSlope: the least-squares slope of the performance composite
// over the window's runs and this one, against their start times, times
// the window's span: the gain the line fitted through them shows, /
// 0.30, clamped to 0..1.
func (o Options) learningSlope(now *float64) Dimension {
	type point struct {
		at time.Time
		p  float64
	}
	var pts []point
	for _, r := range o.Window.Runs {
		if r.Performance != nil {
			pts = append(pts, point{r.Time, *r.Performance})
		}
	}
	ev := map[string]int{"runs": len(pts)}
	if now == nil {
		return unmeasured(LearningRate, "no performance composite now", ev)
	}
	at := o.Now
	if len(pts) > 0 && !at.After(pts[len(pts)-1].at) {
		at = pts[len(pts)-1].at // no clock given: this run is the newest
	}
	pts = append(pts, point{at, *now})
	ev["runs"] = len(pts)
	if len(pts) < MinWindowRuns {
		return unmeasured(LearningRate, fmt.Sprintf("the history window holds %d assessed %s and this one; %d runs needed", len(pts)-1, words.Plural(len(pts)-1, "run", "runs"), MinWindowRuns), ev)
	}
	days := func(t time.Time) float64 { return t.Sub(pts[0].at).Hours() / 24 }
	var mx, my float64
	for _, q := range pts {
		mx += days(q.at)
		my += q.p
	}
	n := float64(len(pts))
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for _, q := range pts {
		sxy += (days(q.at) - mx) * (q.p - my)
		sxx += (days(q.at) - mx) * (days(q.at) - mx)
	}
	span := days(pts[len(pts)-1].at)
	if sxx == 0 || span <= 0 {
		return unmeasured(LearningRate, "the runs of the history window all started at the same time", ev)
	}
	ev["days"] = int(math.Round(span))
	return measured(LearningRate, clamp(sxy/sxx*span/learningSpan, 0, 1), ev)
}
