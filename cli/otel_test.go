package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/testenv"
	"github.com/evalgate/evalgate/results"
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
