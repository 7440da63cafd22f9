package judges

import (
	"github.com/evalgate/evalgate/jsonpatch"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// worldChecks runs the end-state checks of a golden task (docs/worlds.md):
// "state", the final world contains the expected JSON subset;
// "unchanged", every listed pointer has the value it had at the start
// (a pointer missing from both counts as unchanged); and "goldState", the
// final world equals the one the gold calls leave, but for goldIgnore. Like every check,
// they record a verdict and a fixed reason, never a value of the world.
func worldChecks(e *suites.Expected, obs *Observation) []results.Check {
	if e.State == nil && len(e.Unchanged) == 0 && len(e.GoldCalls) == 0 {
		return nil
	}
	var final, initial any
	world := obs.State != nil && obs.InitialState != nil
	if world {
		var err1, err2 error
		final, err1 = jsonvalue.Decode(obs.State)
		initial, err2 = jsonvalue.Decode(obs.InitialState)
		world = err1 == nil && err2 == nil
	}
	var checks []results.Check
	if e.State != nil {
		c := results.Check{ID: suites.CheckState, Kind: suites.CheckState, Weight: 1, Reason: ReasonNoWorld}
		if want, err := jsonvalue.Decode(e.State); world && err == nil {
			c.Reason = verdict(jsonvalue.Subset(want, final))
		}
		c.Passed = c.Reason == ""
		checks = append(checks, c)
	}
	if len(e.Unchanged) > 0 {
		c := results.Check{ID: suites.CheckUnchanged, Kind: suites.CheckUnchanged, Weight: 1, Reason: ReasonNoWorld}
		if world {
			c.Reason = ""
			for _, p := range e.Unchanged {
				a, errA := jsonpatch.Get(initial, p)
				b, errB := jsonpatch.Get(final, p)
				if (errA == nil) != (errB == nil) || errA == nil && !jsonvalue.Equal(a, b) {
					c.Reason = ReasonChanged
					break
				}
			}
		}
		c.Passed = c.Reason == ""
		checks = append(checks, c)
	}
	if len(e.GoldCalls) > 0 {
		c := results.Check{ID: suites.CheckGoldState, Kind: suites.CheckGoldState, Weight: 1, Reason: ReasonNoWorld}
		if gold, err := jsonvalue.Decode(obs.GoldState); world && err == nil {
			c.Reason = verdict(jsonvalue.Equal(withoutPointers(final, e.GoldIgnore), withoutPointers(gold, e.GoldIgnore)))
		}
		c.Passed = c.Reason == ""
		checks = append(checks, c)
	}
	return checks
}

// withoutPointers returns doc without the values at ptrs (those it has).
func withoutPointers(doc any, ptrs []string) any {
	for _, p := range ptrs {
		if p == "" {
			return nil
		}
		if next, err := jsonpatch.Apply(doc, []jsonpatch.Op{{Op: jsonpatch.Remove, Path: p}}); err == nil {
			doc = next
		}
	}
	return doc
}
