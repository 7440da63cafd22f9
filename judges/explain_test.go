package judges

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/suites"
)

// TestExplain scores a task with Golden, then explains each check that
// failed: the lines say what the check expected and what the trial gave.
func TestExplain(t *testing.T) {
	type testCase struct {
		name string
		task string // the task's YAML, under a suite's tasks:
		obs  Observation
		want []string
	}
	run := func(t *testing.T, tc testCase) {
		src := "suiteId: acme.x.evals.explain\nversion: 1.0.0\nmodes: [golden]\n" +
			"tools: [{name: \"crm:lookup\", inputSchema: {type: object, required: [orderId]}}]\ntasks:\n" + tc.task
		s, err := suites.Parse("explain.yaml", []byte(src))
		assert.NilError(t, err)
		task, err := s.Full(s.Tasks[0])
		assert.NilError(t, err)
		if tc.obs.Input == nil {
			tc.obs.Input = task.Input
		}
		checks, _ := Golden(task, &tc.obs)
		var got []string
		for _, e := range Explain(task, &tc.obs, checks, map[string]string{"rubric[0]": "no reason"}) {
			got = append(got, e.Lines()...)
		}
		assert.DeepEqual(t, got, tc.want)
	}
	out := func(v string) json.RawMessage { return json.RawMessage(v) }
	call := func(name, args string) fixtures.Call { return fixtures.Call{Name: name, Args: json.RawMessage(args)} }
	for _, tc := range []testCase{
		{
			name: "a passing task explains nothing",
			task: "  - {taskId: a, input: x, expected: {kind: golden, match: {strategy: contains, value: x}}}\n",
			obs:  Observation{Output: out(`"x"`)},
		},
		{
			name: "regex",
			task: "  - {taskId: a, input: x, expected: {kind: golden, match: {strategy: regex, value: '^A-\\d+$', ignoreCase: true}}}\n",
			obs:  Observation{Output: out(`{"id":"B-7"}`)},
			want: []string{`match (regex): expected to match /^A-\d+$/ (ignoring case), got "{\"id\":\"B-7\"}"`},
		},
		{
			name: "json-subset of a string output",
			task: "  - {taskId: a, input: x, expected: {kind: golden, match: {strategy: json-subset, value: {a: {b: 1}, c: [1]}}}}\n",
			obs:  Observation{Output: out(`"{\"a\": {\"b\": 2, \"z\": 0}, \"d\": 4}"`)},
			want: []string{
				`match (json-subset): expected JSON containing {"a":{"b":1},"c":[1]}, got {"a":{"b":2,"z":0},"d":4}`,
				`/a/b: expected 1, got 2`,
				`/c: missing, expected [1]`,
			},
		},
		{
			name: "json-match of a string that is not JSON",
			task: "  - {taskId: a, input: x, expected: {kind: golden, match: {strategy: json-match, value: {a: 1}}}}\n",
			obs:  Observation{Output: out(`"not json"`)},
			want: []string{`match (json-match): expected JSON equal to {"a":1}, got "not json", which is not JSON`},
		},
		{
			name: "a path that is not there",
			task: "  - {taskId: a, input: x, expected: {kind: golden, match: {strategy: exact, path: /order/status, value: ok}}}\n",
			obs:  Observation{Output: out(`{"order":{}}`)},
			want: []string{`match (exact at /order/status): expected a value at /order/status, got {"order":{}}`},
		},
		{
			name: "json-schema",
			task: "  - {taskId: a, input: x, expected: {kind: golden, match: {strategy: json-schema, value: {type: object}}}}\n",
			obs:  Observation{Output: out(`[1]`)},
			want: []string{`match (json-schema): expected JSON that satisfies the schema, got [1]`},
		},
		{
			name: "a long output is cut",
			task: "  - {taskId: a, input: x, expected: {kind: golden, match: {strategy: contains, value: x}}}\n",
			obs:  Observation{Output: out(`"` + strings.Repeat("y", 5000) + `"`)},
			want: []string{`match (contains): expected to contain "x", got "` + strings.Repeat("y", maxShownRunes-2) + `… (5000 bytes in all)`},
		},
		{
			name: "negated, toolOrder, latency and cost",
			task: `  - taskId: a
    input: x
    expected:
      kind: golden
      assert:
        - {id: not-x, expr: 'output == "x"', negate: true}
        - {id: order, toolOrder: ["kb:search", "crm:lookup"]}
        - {id: fast, maxLatencyMs: 100}
        - {id: cheap, maxCostUsd: 0.01}
`,
			obs: Observation{Output: out(`"x"`), Trace: []fixtures.Call{call("crm:lookup", `{}`), call("kb:search", `{}`)}, LatencyMs: 250, CostUsd: 0.5},
			want: []string{
				"not-x (expr): expected not `output == \"x\"` to hold, got \"x\"",
				"order (toolOrder): expected calls in the order kb:search, crm:lookup, got crm:lookup, kb:search",
				"fast (maxLatencyMs): expected at most 100 ms, got 250 ms",
				"cheap (maxCostUsd): expected at most $0.01, got $0.5",
			},
		},
		{
			name: "the world",
			task: `  - taskId: a
    input: x
    fixtures: {state: {orders: {A-1: {status: delivered}, A-2: {status: open}}}}
    expected:
      kind: golden
      state: {orders: {A-1: {status: refunded}}}
      unchanged: [/orders/A-2]
`,
			obs: Observation{Output: out(`"done"`),
				InitialState: out(`{"orders":{"A-1":{"status":"delivered"},"A-2":{"status":"open"}}}`),
				State:        out(`{"orders":{"A-1":{"status":"delivered"},"A-2":{"status":"refunded"}}}`)},
			want: []string{
				`state: expected the world to contain {"orders":{"A-1":{"status":"refunded"}}}, got {"orders":{"A-1":{"status":"delivered"},"A-2":{"status":"refunded"}}}`,
				`/orders/A-1/status: expected "refunded", got "delivered"`,
				`unchanged: expected no change at /orders/A-2, got 1 change`,
				`/orders/A-2: was {"status":"open"}, is {"status":"refunded"}`,
			},
		},
		{
			name: "a conversation's turn",
			task: `  - taskId: a
    input: hi
    turns:
      - user: my order is A-1
        expect: {match: {strategy: contains, value: A-1}}
    expected: {kind: golden, match: {strategy: contains, value: done}}
`,
			obs:  Observation{Output: out(`"all done"`), Replies: []json.RawMessage{out(`"which order?"`), out(`"looking"`)}},
			want: []string{`turns[0].match (contains): expected to contain "A-1", got "looking"`},
		},
		{
			name: "a count of calls",
			task: "  - {taskId: a, input: x, expected: {kind: golden, assert: [{toolCalled: \"crm:lookup\"}, {maxToolCalls: 1}]}}\n",
			obs:  Observation{Output: out(`"x"`), Trace: []fixtures.Call{call("crm:lookup", `{"id":1}`), call("crm:lookup", `{"id":1}`)}},
			want: []string{`assert[1] (maxToolCalls): expected at most 1 tool call, got 2`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestJSONDiffIsBounded: a diff says how many differences it leaves out.
func TestJSONDiffIsBounded(t *testing.T) {
	want := map[string]any{}
	got := map[string]any{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
		want[k], got[k] = k, k+"!"
	}
	lines := jsonDiff(want, got, false)
	assert.Equal(t, len(lines), maxDiffLines+1)
	assert.Equal(t, lines[len(lines)-1], "… and 3 more differences")
}
