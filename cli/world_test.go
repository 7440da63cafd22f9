package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/runner"
)

// worldSuite is a retail world: the agent must refund order A-1 and leave
// A-2 alone.
const worldSuite = `suiteId: acme.retail.evals.world
version: 1.0.0
modes: [golden]
tools:
  - name: get_order
  - name: refund_order
    sideEffect: true
fixtures:
  state:
    orders:
      A-1: {status: delivered, total: 40}
      A-2: {status: delivered, total: 15}
  toolResponses:
    - tool: get_order
      from: /orders/{args.orderId}
    - tool: refund_order
      effect:
        - {op: test, path: "/orders/{args.orderId}/status", value: delivered}
        - {op: replace, path: "/orders/{args.orderId}/status", value: refunded}
      from: /orders/{args.orderId}
tasks:
  - taskId: refund-a1
    input: {message: "Please refund my order A-1.", orderId: A-1}
    expected:
      kind: golden
      match: {strategy: contains, value: refunded}
      state: {orders: {A-1: {status: refunded}}}
      unchanged: [/orders/A-2]
      goldCalls:
        - {tool: refund_order, args: {orderId: A-1}}
`

// twoOrders begins a suite with a world of two orders, get_order reading
// them and the refund_order fixture left for the test to write.
func twoOrders(name string) string {
	return "suiteId: acme.retail.evals." + name + `
version: 1.0.0
modes: [golden]
fixtures:
  state: {orders: {A-1: {status: delivered}, A-2: {status: delivered}}}
  toolResponses:
    - tool: get_order
      from: /orders/{args.orderId}
    - tool: refund_order
`
}

// worldAgent speaks evalgate/1: it looks the order up, refunds it and
// says so. With the file $WORLD_MISTAKE present it refunds the order that
// file names instead, and says exactly the same words.
const worldAgent = `import json, os, sys

def send(obj):
    print(json.dumps(obj), flush=True)

task = json.loads(sys.stdin.readline())
order = task["input"]["orderId"]
mistake = os.environ.get("WORLD_MISTAKE", "")
if mistake and os.path.exists(mistake):
    order = open(mistake).read().strip()
send({"type": "tool_call", "id": "c1", "name": "get_order", "arguments": {"orderId": order}})
json.loads(sys.stdin.readline())
send({"type": "tool_call", "id": "c2", "name": "refund_order", "arguments": {"orderId": order}})
res = json.loads(sys.stdin.readline())
if res.get("isError"):
    send({"type": "final", "output": "I could not refund your order."})
else:
    send({"type": "final", "output": "Your order has been refunded."})
`

// TestWorldRegression is the "done when": the agent's words stay
// the same but it refunds the wrong order; the end-state checks catch it,
// and the scorecard names the task and the checks, without a value of the
// world.
func TestWorldRegression(t *testing.T) {
	dir := t.TempDir()
	mistake := filepath.Join(dir, "mistake")
	writeFiles(t, dir, map[string]string{
		"evals/world.yaml": worldSuite,
		"agent.py":         worldAgent,
		"evalgate.yaml":    "suites: [evals/]\nagent:\n  exec: [python3, agent.py]\n  env: {WORLD_MISTAKE: " + mistake + "}\ntimeout: 30s\n",
	})
	good := filepath.Join(dir, "good")
	r := runCLI(t, dir, nil, "run", "--out", good, "--trials", "2")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	r = runCLI(t, dir, nil, "baseline", "promote", good, "--out", ".evalgate/baseline.json")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)

	assert.NilError(t, os.WriteFile(mistake, []byte("A-2"), 0o644))
	out := filepath.Join(dir, "out")
	r = runCLI(t, dir, nil, "run", "--out", out, "--trials", "2", "--baseline", ".evalgate/baseline.json", "--gate", "regression.newFailures == 0")
	assert.Equal(t, r.code, 1, r.stdout+r.stderr)

	run, err := results.Read(filepath.Join(out, "results.json"))
	assert.NilError(t, err)
	task := run.Suites[0].Tasks[0]
	assert.Equal(t, task.Passed, false)
	for _, trial := range task.Trials {
		got := map[string]string{}
		for _, c := range trial.Checks {
			got[c.ID] = map[bool]string{true: "passed"}[c.Passed] + c.Reason
		}
		assert.DeepEqual(t, got, map[string]string{"match": "passed", "state": "mismatch", "unchanged": "changed", "goldState": "mismatch"})
	}
	assert.Equal(t, run.Regression.NewFailures, 1)

	card := regrReadFile(t, filepath.Join(out, "scorecard.md"))
	assert.Check(t, is.Contains(card, "#### Newly failing (1)"))
	assert.Check(t, is.Contains(card, "`acme.retail.evals.world` / `refund-a1`"))
	assert.Check(t, is.Contains(card, "`goldState (mismatch), state (mismatch), unchanged (changed); 0/2 trials passed`"), card)
	// Every output but the transcripts is content-free.
	files, err := os.ReadDir(out)
	assert.NilError(t, err)
	var checked []string
	for _, e := range files {
		f := e.Name()
		if e.IsDir() || strings.HasPrefix(f, "transcripts") || strings.HasPrefix(f, ".") {
			continue
		}
		checked = append(checked, f)
		text := regrReadFile(t, filepath.Join(out, f))
		for _, value := range []string{"delivered", "A-2", "Your order"} {
			assert.Check(t, !strings.Contains(text, value), "%s carries %q", f, value)
		}
	}
	assert.Check(t, is.Contains(strings.Join(checked, " "), "results.json"))
	assert.Check(t, len(checked) >= 5, "checked only %v", checked)
}

// TestWorldHandler runs a handler fixture through a real exec agent: the
// handler changes the world, the end-state check reads it; a handler that
// crashes makes the task an error of kind handler, never a pass.
func TestWorldHandler(t *testing.T) {
	dir := t.TempDir()
	suite := twoOrders("handler") + `      handler: [python3, handlers/refund.py]
tasks:
  - taskId: refund-a1
    input: {orderId: A-1}
    expected:
      kind: golden
      state: {orders: {A-1: {status: refunded}}}
      unchanged: [/orders/A-2]
`
	handler := `import json, os, sys
if os.path.exists("crash"):
    sys.exit(4)
for line in sys.stdin:
    req = json.loads(line)
    order = req["call"]["arguments"]["orderId"]
    print(json.dumps({"result": {"refunded": order}, "patch": [{"op": "replace", "path": "/orders/" + order + "/status", "value": "refunded"}]}), flush=True)
`
	writeFiles(t, dir, map[string]string{
		"evals/world.yaml":         suite,
		"evals/handlers/refund.py": handler,
		"agent.py":                 worldAgent,
		"evalgate.yaml":            "suites: [evals/]\nagent:\n  exec: [python3, agent.py]\ntimeout: 30s\n",
	})
	r := runCLI(t, dir, nil, "run", "--out", "out")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)

	assert.NilError(t, os.WriteFile(filepath.Join(dir, "evals", "crash"), nil, 0o644))
	r = runCLI(t, dir, nil, "run", "--out", "out2")
	assert.Equal(t, r.code, 1, r.stdout+r.stderr)
	run, err := results.Read(filepath.Join(dir, "out2", "results.json"))
	assert.NilError(t, err)
	task := run.Suites[0].Tasks[0]
	assert.Equal(t, task.Status, results.StatusError)
	assert.Equal(t, task.ErrorKind, results.ErrHandler)
	assert.Equal(t, task.ErrorMessage, `handler "python3" ended before answering call 1 (exit status 4)`)
}

// convAgent holds a conversation over evalgate/1: it answers the input and
// each user line with a reply, calling tools on the way, and says goodbye
// with its final line. With $CONV_EARLY set it ends after its first reply.
const convAgent = `import json, os, sys

def send(obj):
    print(json.dumps(obj), flush=True)

def read():
    return json.loads(sys.stdin.readline())

def call(i, name, args):
    send({"type": "tool_call", "id": "c%d" % i, "name": name, "arguments": args})
    return read()

task = read()
assert task["type"] == "task"
if os.environ.get("CONV_EARLY"):
    send({"type": "final", "output": "Which order?"})
    sys.exit(0)
send({"type": "reply", "output": "Which order?"})
user = read()
assert user["type"] == "user", user
order = user["content"].split()[-1].rstrip(".")
status = call(1, "get_order", {"orderId": order})["content"]["status"]
send({"type": "reply", "output": "Order %s is %s. Please confirm the refund." % (order, status)})
user = read()
assert user == {"type": "user", "content": "Yes, go ahead."}, user
call(2, "refund_order", {"orderId": order})
send({"type": "reply", "output": "Order %s is refunded."  % order})
user = read()
send({"type": "final", "output": "You are welcome. " + user["content"]})
`

// TestConversation is a scripted conversation of three turns after the
// input, through a real exec agent: each turn's expect scores the reply to
// it, the task's expected the final output and the world.
func TestConversation(t *testing.T) {
	dir := t.TempDir()
	suite := twoOrders("conversation") + `      effect: [{op: replace, path: "/orders/{args.orderId}/status", value: refunded}]
tasks:
  - taskId: refund-talk
    input: Hi, I need a refund.
    turns:
      - user: It is order A-1.
        expect:
          match: {strategy: contains, value: confirm}
          assert:
            - {id: looked-up, toolCalled: get_order, args: {orderId: A-1}}
            - {id: not-yet, toolNotCalled: refund_order}
      - user: Yes, go ahead.
        expect:
          match: {strategy: regex, value: "^Order A-1 is refunded\\.$"}
      - user: Thanks, bye.
    expected:
      kind: golden
      match: {strategy: exact, value: "You are welcome. Thanks, bye."}
      state: {orders: {A-1: {status: refunded}}}
      unchanged: [/orders/A-2]
`
	writeFiles(t, dir, map[string]string{
		"evals/conv.yaml": suite,
		"agent.py":        convAgent,
		"evalgate.yaml":   "suites: [evals/]\nagent:\n  exec: [python3, agent.py]\ntimeout: 30s\n",
	})
	checks := func(out string) map[string]string {
		t.Helper()
		run, err := results.Read(filepath.Join(dir, out, "results.json"))
		assert.NilError(t, err)
		got := map[string]string{}
		for _, c := range run.Suites[0].Tasks[0].Trials[0].Checks {
			got[c.ID] = map[bool]string{true: "passed"}[c.Passed] + c.Reason
		}
		return got
	}
	r := runCLI(t, dir, nil, "run", "--out", "out", "--transcripts")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var tx report.Transcript
	assert.NilError(t, json.Unmarshal([]byte(regrReadFile(t, filepath.Join(dir, "out", "transcripts", "acme.retail.evals.conversation", "refund-talk.trial-1.json"))), &tx))
	canonical := func(raw json.RawMessage) string {
		v, err := jsonvalue.Decode(raw)
		assert.NilError(t, err)
		return string(jsonvalue.Canonical(v))
	}
	var replies []string
	for _, r := range tx.Replies {
		replies = append(replies, canonical(r))
	}
	assert.DeepEqual(t, replies, []string{`"Which order?"`, `"Order A-1 is delivered. Please confirm the refund."`, `"Order A-1 is refunded."`})
	assert.Equal(t, canonical(tx.Output), `"You are welcome. Thanks, bye."`)
	assert.Equal(t, canonical(tx.State), `{"orders":{"A-1":{"status":"refunded"},"A-2":{"status":"delivered"}}}`)
	assert.DeepEqual(t, tx.ToolCalls[1].Effects, []fixtures.Effect{{Op: "replace", Path: "/orders/A-1/status"}})
	assert.DeepEqual(t, checks("out"), map[string]string{
		"match": "passed", "state": "passed", "unchanged": "passed",
		"turns[0].match": "passed", "turns[0].looked-up": "passed", "turns[0].not-yet": "passed", "turns[1].match": "passed",
	})

	t.Setenv("CONV_EARLY", "1")
	r = runCLI(t, dir, nil, "run", "--out", "early")
	assert.Equal(t, r.code, 1, r.stdout+r.stderr)
	assert.DeepEqual(t, checks("early"), map[string]string{
		"match": "mismatch", "state": "mismatch", "unchanged": "passed",
		"turns[0].match": "not-reached", "turns[0].looked-up": "not-reached", "turns[0].not-yet": "not-reached", "turns[1].match": "not-reached",
	})
}

// TestWorldsExample runs examples/worlds through the real example agent:
// four of five tasks pass, and the agent's deliberate bug (a lost parcel
// denied) is caught by the end-state check (goldState) alone.
func TestWorldsExample(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	// The config's go run ../agent, built once.
	code, stdout, stderr := runEvalgate(t, nil, "run", "--config", "../examples/worlds/evalgate.yaml", "--agent-cmd", buildExampleAgent(t), "--out", out)
	assert.Equal(t, code, ExitGateFail, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	r := regrReadRun(t, out)
	got := map[string]string{}
	for _, task := range r.Suites[0].Tasks {
		got[task.ID] = task.Status
	}
	assert.DeepEqual(t, got, map[string]string{
		"refund-within-window": "passed", "deny-outside-window": "passed", "refund-lost-parcel": "failed",
		"status-changes-nothing": "passed", "refund-conversation": "passed",
	})
	assert.Check(t, is.Contains(stdout, "4/5 passed"))
	assert.Check(t, is.Contains(stdout, "refund-lost-parcel  "), stdout)
	assert.Check(t, is.Contains(stdout, "worlds/evals/retail-world.yaml:66  0.00/1.00  goldState (mismatch)"), stdout)
}

// TestSimulatedConversation runs an open conversation whose user a
// loopback model plays: the agent asks, the simulated user answers from its
// hidden instructions and then says stop; the simulator's cost is reported
// apart from the agent's, and a second run replays every answer from the
// cache, asking the model nothing. The simulator's key never reaches the
// agent.
func TestSimulatedConversation(t *testing.T) {
	var asked atomic.Int32
	answers := []string{"It is order A-1.", runner.StopToken}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		n := int(asked.Add(1)) - 1
		if r.Header.Get("Authorization") != "Bearer sim-key" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		body, _ := json.Marshal(map[string]any{
			"model":   "user-model",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": answers[min(n, len(answers)-1)]}}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 10},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	suite := twoOrders("simulated") + `      effect: [{op: replace, path: "/orders/{args.orderId}/status", value: refunded}]
tasks:
  - taskId: open-refund
    input: Hi, I need a refund.
    user:
      instructions: You want order A-1 refunded. Give its number when asked.
      maxTurns: 3
    expected:
      kind: golden
      state: {orders: {A-1: {status: refunded}}}
      unchanged: [/orders/A-2]
`
	// The agent asks for the order, refunds the one it is told, and says
	// so; it fails when it can see the simulator's key.
	agent := `import json, os, sys
def send(obj):
    print(json.dumps(obj), flush=True)
def read():
    return json.loads(sys.stdin.readline())
read()
if os.environ.get("SIM_KEY"):
    send({"type": "error", "message": "the simulator key leaked"})
    sys.exit(0)
send({"type": "reply", "output": "Which order?"})
order = read()["content"].split()[-1].rstrip(".")
send({"type": "tool_call", "id": "c1", "name": "refund_order", "arguments": {"orderId": order}})
read()
send({"type": "reply", "output": "Order %s is refunded." % order})
`
	writeFiles(t, dir, map[string]string{
		"evals/sim.yaml": suite,
		"agent.py":       agent,
		"evalgate.yaml": "suites: [evals/]\nagent:\n  exec: [python3, agent.py]\ntimeout: 30s\n" +
			"user:\n  simulator: {baseURL: " + srv.URL + "/v1, model: user-model, apiKeyEnv: SIM_KEY, pricing: {inputPerMTok: 1, outputPerMTok: 10}}\n",
	})
	t.Setenv("SIM_KEY", "sim-key")
	trial := func(out string) results.Trial {
		t.Helper()
		r := runCLI(t, dir, nil, "run", "--out", out)
		assert.Equal(t, r.code, 0, r.stdout+r.stderr)
		regrValidResults(t, filepath.Join(dir, out))
		run, err := results.Read(filepath.Join(dir, out, "results.json"))
		assert.NilError(t, err)
		task := run.Suites[0].Tasks[0]
		assert.Equal(t, task.UserCostUsd, task.Trials[0].UserCostUsd)
		return task.Trials[0]
	}
	first := trial("out")
	assert.Equal(t, int(asked.Load()), 2, "one answer, then stop")
	assert.Equal(t, first.UserCostUsd, 2*(100*1+10*10)/1e6)
	assert.Equal(t, first.AgentCostUsd, 0.0)
	assert.Assert(t, first.Passed)

	again := trial("again")
	assert.Equal(t, int(asked.Load()), 2, "the replay asked the model nothing")
	assert.Equal(t, again.UserCostUsd, 0.0)
	assert.Assert(t, again.Passed)
	assert.Check(t, !strings.Contains(regrReadFile(t, filepath.Join(dir, "again", "results.json")), "order A-1"), "results hold no conversation")

	// Without the key, the run stops before the agent runs, and says which.
	r := runCLI(t, dir, map[string]string{"SIM_KEY": ""}, "run", "--out", "unset")
	assert.Equal(t, r.code, ExitInvalid, r.stdout+r.stderr)
	assert.Check(t, is.Contains(r.stderr, ": user.simulator.apiKeyEnv: the environment variable SIM_KEY is not set, and 1 task needs the simulated user;"))
}
