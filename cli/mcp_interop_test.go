package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/results"
)

// mcpExample is the example MCP agent, written against the official MCP
// TypeScript SDK that its install.sh installs.
const mcpExample = "../examples/mcp-agent"

// TestMCPInteropWithTheTypeScriptSDK runs the example MCP agent, an
// independent MCP client, over streamable HTTP and over `evalgate mcp
// stdio`: it lists the tools, calls a fixtured tool with matching and
// non-matching arguments, gets the injected error and reads the memory
// resource. Each run's trace, checks and findings equal those of the same
// calls made over evalgate/1. Without the SDK installed the test skips,
// unless EVALGATE_REQUIRE_MCP_SDK=1 (CI installs it) makes that a failure.
func TestMCPInteropWithTheTypeScriptSDK(t *testing.T) {
	requireInstalled(t, "the MCP TypeScript SDK", mcpExample, filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json"), "EVALGATE_REQUIRE_MCP_SDK")
	example, err := filepath.Abs(mcpExample)
	assert.NilError(t, err)
	want := runMCPInterop(t, "agent:\n  exec: [node, "+mcpTwin(t)+"]\n")
	assert.Assert(t, want.res.Passed)
	assert.Assert(t, is.Len(want.trace, 2))

	neverClose, err := filepath.Abs(filepath.Join(testdata, "mcp", "never-close.mjs"))
	assert.NilError(t, err)
	stdioEnv := "  env:\n    EVALGATE_BIN: " + os.Args[0] + "\n    " + asEvalgate + ": '1'\n"
	for _, tc := range []struct{ name, agent string }{
		{name: "streamable HTTP", agent: "agent:\n  plain: [node, " + filepath.Join(example, "agent.mjs") + "]\n  mcp: true\n"},
		{name: "evalgate mcp stdio", agent: "agent:\n  plain: [node, " + filepath.Join(example, "agent.mjs") + ", --stdio]\n  mcp: true\n" + stdioEnv},
		// The client is never closed: the agent still ends once its answer
		// is written, as the server holds no stream of it open.
		{name: "never closed", agent: "agent:\n  plain: [node, --import, " + neverClose + ", " + filepath.Join(example, "agent.mjs") + "]\n  mcp: true\n  env:\n    NEVER_CLOSE: sdk\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want.same(t, runMCPInterop(t, tc.agent))
		})
	}
}

// requireInstalled skips t unless file, under dir, which dir's install.sh
// installs, is there; with require set to 1 in the environment (CI installs
// it) its absence is a failure instead.
func requireInstalled(t *testing.T, what, dir, file, require string) {
	t.Helper()
	_, err := os.Stat(filepath.Join(dir, file))
	switch {
	case err == nil:
	case os.Getenv(require) == "1":
		t.Fatalf("%s is not installed (run %s/install.sh): %v", what, dir, err)
	default:
		t.Skipf("%s is not installed; run %s/install.sh", what, dir)
	}
}

// mcpTrial is what an interop test compares of the one trial of the
// example's suite: its result and its trace.
type mcpTrial struct {
	res   results.Trial
	trace []fixtures.Call
}

// same checks got made the calls of m over MCP, with the same trace (ids
// and times aside), checks and findings.
func (m mcpTrial) same(t *testing.T, got mcpTrial) {
	t.Helper()
	same := cmp.Options{
		cmpopts.IgnoreFields(fixtures.Call{}, "ID", "StartMs", "DurationMs"),
		cmpopts.IgnoreFields(results.Trial{}, "LatencyMs"),
		cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) }),
	}
	assert.Check(t, is.DeepEqual(got.res, m.res, same...))
	assert.Check(t, is.DeepEqual(got.trace, m.trace, same...))
	if assert.Check(t, len(got.trace) > 0) {
		assert.Check(t, strings.HasPrefix(got.trace[0].ID, "mcp-"), "the call came over MCP: %s", got.trace[0].ID)
	}
}

// mcpTwin is the example agent's twin over evalgate/1.
func mcpTwin(t *testing.T) string {
	t.Helper()
	twin, err := filepath.Abs(filepath.Join(testdata, "mcp", "evalgate1.mjs"))
	assert.NilError(t, err)
	return twin
}

// mcpExampleSuites is the example's suite folder, found before any test
// changes the working folder.
var mcpExampleSuites, _ = filepath.Abs(filepath.Join(mcpExample, "evals"))

// runMCPInterop runs the example's suite with the agent lines of
// evalgate.yaml given, which must pass, and returns its one trial.
func runMCPInterop(t *testing.T, agent string) mcpTrial {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"evalgate.yaml": "suites: [" + mcpExampleSuites + "]\n" + agent})
	r := runCLI(t, dir, nil, "run", "--transcripts")
	files, err := filepath.Glob(filepath.Join(dir, "evalgate-out", "transcripts", "*", "*.json"))
	assert.NilError(t, err)
	assert.Assert(t, is.Len(files, 1), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Assert(t, r.code == ExitPass, "stdout:\n%s\nstderr:\n%s\ntranscript:\n%s", r.stdout, r.stderr, regrReadFile(t, files[0]))
	run := regrReadRun(t, filepath.Join(dir, "evalgate-out"))
	var tx struct {
		ToolCalls []fixtures.Call `json:"toolCalls"`
	}
	assert.NilError(t, json.Unmarshal([]byte(regrReadFile(t, files[0])), &tx))
	return mcpTrial{res: run.Suites[0].Tasks[0].Trials[0], trace: tx.ToolCalls}
}
