package judges

import (
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

func TestWorldChecks(t *testing.T) {
	initial := `{"orders":{"A-1":{"status":"delivered"},"A-2":{"status":"delivered"}},"refunds":[]}`
	type testCase struct {
		name          string
		state         string // expected.state
		unchanged     []string
		gold          string // the world of the gold calls; "" for no goldCalls
		goldIgnore    []string
		expr          string
		final, before string // the worlds; "" for none
		want          []results.Check
	}
	run := func(t *testing.T, tc testCase) {
		task := &suites.Task{Expected: suites.Expected{Kind: suites.KindGolden, Unchanged: tc.unchanged}}
		if tc.state != "" {
			task.Expected.State = json.RawMessage(tc.state)
		}
		if tc.gold != "" {
			task.Expected.GoldCalls = []suites.GoldCall{{Tool: "refund"}}
			task.Expected.GoldIgnore = tc.goldIgnore
		}
		if tc.expr != "" {
			task.Expected.Assert = []*suites.Check{{ID: "world", Kind: suites.CheckExpr, Expr: tc.expr, Weight: 1}}
		}
		obs := &Observation{Output: json.RawMessage(`"Your order was refunded."`)}
		if tc.final != "" {
			obs.State, obs.InitialState = json.RawMessage(tc.final), json.RawMessage(tc.before)
		}
		if tc.gold != "" && tc.final != "" {
			obs.GoldState = json.RawMessage(tc.gold)
		}
		got, _ := Golden(task, obs)
		assert.DeepEqual(t, got, tc.want)
	}
	right := `{"orders":{"A-1":{"status":"refunded"},"A-2":{"status":"delivered"}},"refunds":[{"orderId":"A-1"}]}`
	wrong := `{"orders":{"A-1":{"status":"delivered"},"A-2":{"status":"refunded"}},"refunds":[{"orderId":"A-2"}]}`
	pass := func(id string) results.Check { return results.Check{ID: id, Kind: id, Weight: 1, Passed: true} }
	fail := func(id, reason string) results.Check {
		return results.Check{ID: id, Kind: id, Weight: 1, Reason: reason}
	}
	for _, tc := range []testCase{
		{name: "the right order refunded", state: `{"orders":{"A-1":{"status":"refunded"}}}`, unchanged: []string{"/orders/A-2"},
			final: right, before: initial, want: []results.Check{pass("state"), pass("unchanged")}},
		{name: "the wrong order refunded", state: `{"orders":{"A-1":{"status":"refunded"}}}`, unchanged: []string{"/orders/A-2"},
			final: wrong, before: initial, want: []results.Check{fail("state", ReasonMismatch), fail("unchanged", ReasonChanged)}},
		{name: "the whole world unchanged", unchanged: []string{""}, final: initial, before: initial, want: []results.Check{pass("unchanged")}},
		{name: "a member added", unchanged: []string{"/orders/A-3"}, final: `{"orders":{"A-3":{}}}`, before: initial,
			want: []results.Check{fail("unchanged", ReasonChanged)}},
		{name: "missing from both", unchanged: []string{"/orders/A-3"}, final: initial, before: initial, want: []results.Check{pass("unchanged")}},
		{name: "arrays element by element", state: `{"refunds":[{"orderId":"A-1"}]}`, final: right, before: initial, want: []results.Check{pass("state")}},
		{name: "the gold world", gold: right, final: right, before: initial, want: []results.Check{pass("goldState")}},
		{name: "not the gold world", gold: right, final: wrong, before: initial, want: []results.Check{fail("goldState", ReasonMismatch)}},
		{name: "more than the gold world", gold: right, final: `{"orders":{"A-1":{"status":"refunded"},"A-2":{"status":"delivered"}},"refunds":[{"orderId":"A-1"}],"log":["x"]}`, before: initial,
			want: []results.Check{fail("goldState", ReasonMismatch)}},
		{name: "ignored parts", gold: right, goldIgnore: []string{"/log", "/refunds/0/id"},
			final: `{"orders":{"A-1":{"status":"refunded"},"A-2":{"status":"delivered"}},"refunds":[{"orderId":"A-1","id":7}],"log":["x"]}`, before: initial,
			want: []results.Check{pass("goldState")}},
		{name: "gold without a world", gold: right, want: []results.Check{fail("goldState", ReasonNoWorld)}},
		{name: "no world", state: `{}`, unchanged: []string{""}, want: []results.Check{fail("state", ReasonNoWorld), fail("unchanged", ReasonNoWorld)}},
		{name: "an expression over both worlds", expr: `len(state.refunds) == len(initialState.refunds) + 1 && state.refunds[0].orderId == "A-1"`,
			final: right, before: initial, want: []results.Check{{ID: "world", Kind: "expr", Weight: 1, Passed: true}}},
		{name: "an expression that fails", expr: `state.orders["A-2"].status == initialState.orders["A-2"].status`,
			final: wrong, before: initial, want: []results.Check{{ID: "world", Kind: "expr", Weight: 1, Reason: ReasonMismatch}}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
