package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/testenv"
	"github.com/evalgate/evalgate/internal/waittest"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/trust"
)

// otelAgent holds the example agent that reports its model and tool calls
// through the OpenTelemetry Node SDK, which its install.sh installs.
const otelAgent = "../examples/otel-agent"

// TestOTelWithTheNodeSDK runs the example agent, written on the
// OpenTelemetry Node SDK, as a user runs it, with the SDK's protobuf and
// JSON exporters: its suite of trace and events checks passes; its tokens
// and cost come from its chat spans, priced by the config's pricing, and
// a gate on cost holds or fails by them; nothing its spans' content
// attributes held reaches an output; and breaking its tool loop fails the
// trace check that looks for the tool, by name. Without the SDK installed
// the test skips, unless EVALGATE_REQUIRE_OTEL_SDK=1 (CI installs it)
// makes that a failure.
func TestOTelWithTheNodeSDK(t *testing.T) {
	requireInstalled(t, "the OpenTelemetry Node SDK", otelAgent, filepath.Join("node_modules", "@opentelemetry", "sdk-node", "package.json"), "EVALGATE_REQUIRE_OTEL_SDK")
	example, err := filepath.Abs(otelAgent)
	assert.NilError(t, err)
	config := func(t *testing.T, env string) string {
		t.Helper()
		src, err := os.ReadFile(filepath.Join(example, "evalgate.yaml"))
		assert.NilError(t, err)
		cfg := strings.Replace(string(src), "  otel: true\n", "  otel: true\n  env: {"+env+"}\n", 1)
		cfg = strings.Replace(cfg, "out: ../../evalgate-out/otel-agent", "out: "+t.TempDir(), 1)
		path := filepath.Join(example, "evalgate-test-"+strings.ReplaceAll(t.Name(), "/", "-")+".yaml")
		assert.NilError(t, os.WriteFile(path, []byte(cfg), 0o644))
		t.Cleanup(func() { os.Remove(path) })
		return path
	}
	for _, exporter := range []string{"proto", "json"} {
		t.Run(exporter, func(t *testing.T) {
			out := t.TempDir()
			r := runCLI(t, "", nil, "run", "--config", config(t, "ORDER_AGENT_EXPORTER: "+exporter), "--out", out,
				"--gate", "agentCostUsd > 0.0005 && agentCostUsd < 0.002")
			assert.Assert(t, is.Equal(r.code, ExitPass), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			run := readRunResults(t, out)
			for _, task := range run.Suites[0].Tasks {
				tr := task.Trials[0]
				assert.Check(t, tr.UsageReported)
				assert.Check(t, tr.Tokens.Input > 0 && tr.Tokens.Output > 0, "%+v", tr.Tokens)
				want := 2.5e-6*float64(tr.Tokens.Input) + 10e-6*float64(tr.Tokens.Output)
				assert.Check(t, math.Abs(tr.AgentCostUsd-want) < 1e-12, "cost %v, want %v", tr.AgentCostUsd, want)
				assert.Check(t, is.Equal(tr.ToolCalls, 1))
				assert.Assert(t, tr.Spans != nil)
				assert.Check(t, is.Equal(tr.Spans.Count, 4))
				assert.Check(t, is.Equal(tr.Spans.Dropped+tr.Spans.Refused+tr.Spans.Invalid, int64(0)))
			}
			assertNoContent(t, out, "Where is order", "orderId", "shippedOn")

			r = runCLI(t, "", nil, "run", "--config", config(t, "ORDER_AGENT_EXPORTER: "+exporter), "--out", t.TempDir(), "--gate", "agentCostUsd < 0.0005")
			assert.Check(t, is.Equal(r.code, ExitGateFail), "a cost gate fails by the spans' cost\nstdout:\n%s", r.stdout)
		})
	}
	t.Run("a broken tool loop", func(t *testing.T) {
		r := runCLI(t, "", nil, "run", "--config", config(t, "ORDER_AGENT_SKIP_TOOLS: '1'"), "--out", t.TempDir(), "--explain")
		assert.Check(t, is.Equal(r.code, ExitGateFail), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Check(t, is.Contains(r.stdout, `looks-up-the-order (trace): expected spans of operation "execute_tool", tool "lookup_order" numbering == 1; none in error, got invoke_agent order-status [task.completed]; chat mock-orders-1`))
	})
}

// TestOTelWithTheGoSDK runs the example agent written on the OpenTelemetry
// Go SDK (examples/otel-agent/goagent, protobuf over HTTP, the only
// encoding its exporter has) on the example's suite and pricing: it
// passes, with the same spans, tokens and cost the Node agent reports.
func TestOTelWithTheGoSDK(t *testing.T) {
	dir := goExample(t)
	r := runCLI(t, dir, nil, "run")
	assert.Assert(t, is.Equal(r.code, ExitPass), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	run := readRunResults(t, filepath.Join(dir, "out"))
	for _, task := range run.Suites[0].Tasks {
		tr := task.Trials[0]
		assert.Check(t, tr.UsageReported)
		want := 2.5e-6*float64(tr.Tokens.Input) + 10e-6*float64(tr.Tokens.Output)
		assert.Check(t, math.Abs(tr.AgentCostUsd-want) < 1e-12, "cost %v, want %v", tr.AgentCostUsd, want)
		assert.Check(t, tr.Tokens.Input > 0 && tr.Tokens.Output > 0, "%+v", tr.Tokens)
		assert.Check(t, is.Equal(tr.ToolCalls, 1))
		assert.Check(t, is.Equal(tr.Spans.Count, 4))
		assert.Check(t, is.Equal(tr.Spans.List[0].Name, "invoke_agent order-status"))
		assert.Check(t, is.Equal(tr.Spans.List[0].Parent, -1))
		for _, sp := range tr.Spans.List[1:] {
			assert.Check(t, is.Equal(sp.Parent, 0), "%s is not a child of the agent's span", sp.Name)
		}
	}
	assertNoContent(t, filepath.Join(dir, "out"), "Where is order", "orderId", "shippedOn")
}

// TestTrustScenarioEventsFromSpans scores the Go agent's run with the
// example's tasks tagged as seed 003's scenarios: its unknown-order task
// reports error.handled in its spans, so error-handling counts; its
// shipped-order task reports no budget.exceeded, so budget-exceeded does
// not, and trust.json says which event was missing.
func TestTrustScenarioEventsFromSpans(t *testing.T) {
	dir := goExample(t)
	src, err := os.ReadFile(filepath.Join(otelAgent, "evals", "orders.yaml"))
	assert.NilError(t, err)
	suite := strings.Replace(string(src), "  - taskId: shipped-order\n", "  - taskId: shipped-order\n    tags: [budget-exceeded]\n", 1)
	suite = strings.Replace(suite, "  - taskId: unknown-order\n", "  - taskId: unknown-order\n    tags: [error-handling]\n", 1)
	cfg, err := os.ReadFile(filepath.Join(dir, "evalgate.yaml"))
	assert.NilError(t, err)
	cfg = regexp.MustCompile(`(?m)^suites: \[.*\]$`).ReplaceAll(cfg, []byte("suites: [evals/]"))
	writeFiles(t, dir, map[string]string{"evals/orders.yaml": suite, "evalgate.yaml": string(cfg) + "trust: {}\n"})
	r := runCLI(t, dir, nil, "run")
	assert.Assert(t, is.Equal(r.code, ExitPass), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	var sc trust.Scorecard
	data, err := os.ReadFile(filepath.Join(dir, "out", "trust.json"))
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(data, &sc))
	ec := sc.Dimensions.ErrorContainment
	assert.Check(t, is.Contains(ec.Evidence, "scenario error-handling: 1 task, passing; the spans sent report error.handled (+2)"), "%+v", ec)
	assert.Check(t, is.Contains(ec.Missing, "scenario budget-exceeded: the spans of [acme.orders.evals.otel/shipped-order] have no budget.exceeded event (+2)"), "%+v", ec)
}

// TestOTelAgentEnvironment gives a plain agent, with --otel, its trial's
// endpoint, the protocol and a TRACEPARENT, and not the collector headers
// the environment holds; an openai agent cannot have it.
func TestOTelAgentEnvironment(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer collector-secret-9")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evalgate.yaml": "suites: [evals/]\nagent:\n  plain: [/bin/sh, -c, 'env | grep ^OTEL_ | sort; echo TRACEPARENT=$TRACEPARENT']\n",
		"evals/s.yaml": `suiteId: acme.t.evals.env
version: 1.0.0
modes: [golden]
tasks:
  - taskId: env
    input: x
    expected:
      kind: golden
      assert:
        - {id: endpoint, expr: 'output matches "(?m)^OTEL_EXPORTER_OTLP_ENDPOINT=http://127[.]0[.]0[.]1:[0-9]+/[0-9a-f]{64}$"'}
        - {id: protocol, expr: 'output matches "(?m)^OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf$"'}
        - {id: traceparent, expr: 'output matches "(?m)^TRACEPARENT=00-[0-9a-f]{32}-[0-9a-f]{16}-01$"'}
        - {id: no-headers, expr: 'output contains "collector-secret-9"', negate: true}
        - {id: no-spans, trace: {}, negate: true}
`,
	})
	r := runCLI(t, dir, nil, "run", "--otel")
	assert.Check(t, is.Equal(r.code, ExitPass), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	writeFiles(t, dir, map[string]string{"evalgate.yaml": "suites: [evals/]\nagent:\n  openai: {baseURL: http://127.0.0.1:9/v1, model: m}\n"})
	r = runCLI(t, dir, nil, "run", "--otel")
	assert.Check(t, is.Equal(r.code, ExitInvalid))
	assert.Check(t, is.Contains(r.stderr, "--otel: applies to exec and plain agents"))
}

// readRunResults reads the results.json of an output folder.
func readRunResults(t *testing.T, out string) *results.Run {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	assert.NilError(t, err)
	var run results.Run
	assert.NilError(t, json.Unmarshal(b, &run))
	return &run
}

// assertNoContent checks no file of an output folder holds any of words.
func assertNoContent(t *testing.T, out string, words ...string) {
	t.Helper()
	err := filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, w := range words {
			assert.Check(t, !strings.Contains(string(b), w), "%s holds %q", path, w)
		}
		return nil
	})
	assert.NilError(t, err)
}

// TestExportToJaeger sends a run of the Go example agent, with its spans
// forwarded, to a real Jaeger (EVALGATE_JAEGER, the binary
// scripts/install-jaeger.sh builds; the test skips without it unless
// EVALGATE_REQUIRE_JAEGER=1), and reads the trace back from Jaeger's query
// API: the run, its suite, tasks and trials, the tool calls, and the
// agent's spans under their trial, with no content attribute. The
// collector's headers come from the environment and appear in no output.
func TestExportToJaeger(t *testing.T) {
	bin := os.Getenv("EVALGATE_JAEGER")
	if bin == "" {
		if os.Getenv("EVALGATE_REQUIRE_JAEGER") == "1" {
			t.Fatal("EVALGATE_JAEGER is not set: run scripts/install-jaeger.sh and set it to the path it prints")
		}
		t.Skip("EVALGATE_JAEGER is not set; scripts/install-jaeger.sh builds Jaeger")
	}
	otlp, query := jaeger(t, bin)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-collector-key=collector-secret-77")
	dir := goExample(t)
	// A rubric task beside the example's, decided by an exec judge: its
	// call is an evalgate.judge span, without the criterion or the reason.
	cfg, err := os.ReadFile(filepath.Join(dir, "evalgate.yaml"))
	assert.NilError(t, err)
	writeFiles(t, dir, map[string]string{
		"evalgate.yaml": strings.Replace(string(cfg), "suites: [", "suites: [judged/, ", 1) + "judge:\n  exec: [sh, judge.sh]\n",
		"judge.sh":      "cat >/dev/null\necho '{\"criteria\": [{\"met\": true, \"reason\": \"judge-reason-content-93\"}]}'\n",
		"judged/judged.yaml": `suiteId: acme.orders.evals.judged
version: 1.0.0
modes: [golden]
tasks:
  - taskId: judged-order
    input: Where is order A-17?
    expected:
      kind: rubric
      rubric:
        - {criterion: Says where the order is criterion-content-58., weight: 1}
`,
	})
	r := runCLI(t, dir, nil, "run", "--otlp-endpoint", otlp)
	assert.Assert(t, is.Equal(r.code, ExitPass), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Check(t, !strings.Contains(r.stderr, "warning"), "stderr:\n%s", r.stderr)
	assertNoContent(t, filepath.Join(dir, "out"), "collector-secret-77")

	type span struct {
		TraceID, SpanID, OperationName string
		References                     []struct{ SpanID string }
		Tags                           []struct {
			Key   string
			Value any
		}
	}
	var spans []span
	waittest.Until(t, "the run's trace in Jaeger", func() bool {
		resp, err := http.Get(query + "/api/traces?service=evalgate&limit=10")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var body struct{ Data []struct{ Spans []span } }
		if json.NewDecoder(resp.Body).Decode(&body) != nil || len(body.Data) == 0 {
			return false
		}
		spans = body.Data[0].Spans
		return len(spans) >= 1+2+3+3+3+12+1 // run, suites, tasks, trials, tool calls, the agent's, the judge's
	})
	byName := map[string][]span{}
	byID := map[string]span{}
	for _, s := range spans {
		byName[s.OperationName] = append(byName[s.OperationName], s)
		byID[s.SpanID] = s
		for _, tag := range s.Tags {
			assert.Check(t, !strings.Contains(tag.Key, "messages") && !strings.Contains(tag.Key, "arguments"), "span %s has content attribute %s", s.OperationName, tag.Key)
			v := fmt.Sprint(tag.Value)
			assert.Check(t, !strings.Contains(v, "content-58") && !strings.Contains(v, "content-93"), "span %s carries content in %s", s.OperationName, tag.Key)
		}
	}
	assert.Check(t, is.Len(byName["evalgate.run"], 1))
	assert.Check(t, is.Len(byName["evalgate.suite"], 2))
	assert.Check(t, is.Len(byName["evalgate.task"], 3))
	assert.Check(t, is.Len(byName["evalgate.trial"], 3))
	assert.Check(t, is.Len(byName["evalgate.tool_call"], 3))
	assert.Check(t, is.Len(byName["chat mock-orders-1"], 6))
	assert.Assert(t, is.Len(byName["evalgate.judge"], 1))
	judge := byName["evalgate.judge"][0]
	assert.Assert(t, is.Len(judge.References, 1))
	assert.Check(t, is.Equal(byID[judge.References[0].SpanID].OperationName, "evalgate.trial"), "the judge's span is not under its trial")
	tags := map[string]string{}
	for _, tag := range judge.Tags {
		tags[tag.Key] = fmt.Sprint(tag.Value)
	}
	assert.Check(t, is.Equal(tags["evalgate.judge.kind"], "rubric"))
	assert.Check(t, is.Equal(tags["evalgate.judge.outcome"], "passed"))
	assert.Check(t, is.Equal(tags["evalgate.score"], "1"))
	for _, agentSpan := range byName["invoke_agent order-status"] {
		assert.Assert(t, is.Len(agentSpan.References, 1))
		assert.Check(t, is.Equal(byID[agentSpan.References[0].SpanID].OperationName, "evalgate.trial"), "the agent's span is not under its trial")
	}
	assert.Check(t, is.Len(byName["invoke_agent order-status"], 3))
}

// TestExportUnreachable: a collector that cannot be reached is a warning
// naming it, its password redacted; the verdict and exit code stand.
func TestExportUnreachable(t *testing.T) {
	dir := goExample(t)
	r := runCLI(t, dir, nil, "run", "--otlp-endpoint", "http://user:collector-password-5@127.0.0.1:9")
	assert.Check(t, is.Equal(r.code, ExitPass), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Check(t, is.Contains(r.stderr, "evalgate: warning: could not send the run's trace to http://user:xxxxx@127.0.0.1:9"))
	assert.Check(t, !strings.Contains(r.stderr+r.stdout, "collector-password-5"))
}

// goExample is a project running the Go example agent on the example's
// suite with agent.otel, in a folder of its own.
func goExample(t *testing.T) string {
	t.Helper()
	agent := testenv.Build(t, "goagent", "../examples/otel-agent/goagent")
	example, err := filepath.Abs(otelAgent)
	assert.NilError(t, err)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(example, "evalgate.yaml"))
	assert.NilError(t, err)
	cfg := strings.Replace(string(src), "plain: [node_modules/.bin/node, agent.mjs]", "plain: ["+agent+"]", 1)
	cfg = strings.Replace(cfg, "suites: [evals/]", "suites: ["+filepath.Join(example, "evals")+"]", 1)
	cfg = strings.Replace(cfg, "out: ../../evalgate-out/otel-agent", "out: out", 1)
	writeFiles(t, dir, map[string]string{"evalgate.yaml": cfg})
	return dir
}

// jaeger starts Jaeger with an in-memory store on free loopback ports,
// until the test ends, and returns its OTLP/HTTP endpoint and query API.
func jaeger(t *testing.T, bin string) (otlp, query string) {
	t.Helper()
	port := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		assert.NilError(t, err)
		defer l.Close()
		return l.Addr().String()
	}
	otlpAddr, queryAddr, grpcAddr := port(), port(), port()
	cfg := fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces: {receivers: [otlp], processors: [], exporters: [jaeger_storage_exporter]}
  telemetry: {metrics: {level: none}, logs: {level: warn}}
extensions:
  jaeger_query: {storage: {traces: mem}, http: {endpoint: "%s"}, grpc: {endpoint: "%s"}}
  jaeger_storage: {backends: {mem: {memory: {max_traces: 1000}}}}
receivers:
  otlp: {protocols: {http: {endpoint: "%s"}}}
exporters:
  jaeger_storage_exporter: {trace_storage: mem}
`, queryAddr, grpcAddr, otlpAddr)
	path := filepath.Join(t.TempDir(), "jaeger.yaml")
	assert.NilError(t, os.WriteFile(path, []byte(cfg), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config", "file:"+path)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { cancel(); cmd.Wait() })
	query = "http://" + queryAddr
	waittest.Until(t, "Jaeger's query API", func() bool {
		resp, err := http.Get(query + "/api/services")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return "http://" + otlpAddr, query
}
