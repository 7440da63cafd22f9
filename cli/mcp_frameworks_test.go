package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// mcpFrameworks holds the example order-status agent written on the MCP
// clients of three frameworks, with the Node they need, which its
// install.sh installs.
const mcpFrameworks = "../examples/mcp-frameworks"

// TestMCPInteropWithFrameworks runs the example agent of each framework
// (the Vercel AI SDK, the OpenAI Agents SDK, LangChain.js's MCP adapters),
// as a user runs it, against a stand-in model: each lists the tools and
// reads the memory resource through its framework's MCP client, hands the
// tools to its framework's agent loop, which calls them, and prints the
// model's answer. Each run's trace, checks and findings equal those of the
// same calls made over evalgate/1, and the model was offered the suite's
// tool with its schema. An agent whose client is never closed still ends
// once its answer is written: the server holds no request of it open.
// Without the frameworks installed the test skips,
// unless EVALGATE_REQUIRE_MCP_FRAMEWORKS=1 (CI installs them) makes that a
// failure.
func TestMCPInteropWithFrameworks(t *testing.T) {
	requireInstalled(t, "the MCP frameworks", mcpFrameworks, filepath.Join("node_modules", ".bin", "node"), "EVALGATE_REQUIRE_MCP_FRAMEWORKS")
	node, err := filepath.Abs(filepath.Join(mcpFrameworks, "node_modules", ".bin", "node"))
	assert.NilError(t, err)
	frameworks, err := filepath.Abs(mcpFrameworks)
	assert.NilError(t, err)
	want := runMCPInterop(t, "agent:\n  exec: [node, "+mcpTwin(t)+"]\n")
	assert.Assert(t, want.res.Passed)

	neverClose, err := filepath.Abs(filepath.Join(testdata, "mcp", "never-close.mjs"))
	assert.NilError(t, err)
	type testCase struct {
		name, agent, neverClose string
	}
	run := func(t *testing.T, tc testCase) {
		model := newStandInModel(t)
		command := fmt.Sprintf("[%s, %s]", node, filepath.Join(frameworks, tc.agent))
		env := fmt.Sprintf("    OPENAI_BASE_URL: %s/v1\n    OPENAI_API_KEY: stand-in\n", model.URL)
		if tc.neverClose != "" {
			command = fmt.Sprintf("[%s, --import, %s, %s]", node, neverClose, filepath.Join(frameworks, tc.agent))
			env += "    NEVER_CLOSE: " + tc.neverClose + "\n"
		}
		want.same(t, runMCPInterop(t, "agent:\n  plain: "+command+"\n  mcp: true\n  env:\n"+env))
		assert.Check(t, is.Equal(model.requests(), 3), "the model's turns: look the order up, the replaced one, answer")
	}
	for _, tc := range []testCase{
		{name: "Vercel AI SDK", agent: "ai-sdk.mjs"},
		{name: "OpenAI Agents SDK", agent: "openai-agents.mjs"},
		{name: "LangChain.js", agent: "langchain.mjs"},
		{name: "OpenAI Agents SDK, never closed", agent: "openai-agents.mjs", neverClose: "openai-agents"},
		{name: "LangChain.js, never closed", agent: "langchain.mjs", neverClose: "langchain"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}

	t.Run("the example's evalgate.yaml", func(t *testing.T) {
		model := newStandInModel(t)
		t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
		t.Setenv("OPENAI_API_KEY", "stand-in")
		r := runCLI(t, "", nil, "run", "--config", filepath.Join(frameworks, "evalgate.yaml"), "--out", t.TempDir())
		assert.Check(t, is.Equal(r.code, ExitPass), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	})
}

// standInModel is an OpenAI-compatible chat model that plays the
// order-status agent's model deterministically: it asks for the lookup of
// the order, then of the order it replaced, one call a turn, then answers
// with the order's status and the error of the second lookup from the
// tool results it was sent, and the customer's tier from its
// instructions. A request that offers no crm tool whose schema names
// orderId is refused.
type standInModel struct {
	*httptest.Server
	mu sync.Mutex
	n  int
}

func newStandInModel(t *testing.T) *standInModel {
	t.Helper()
	m := &standInModel{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", m.complete)
	m.Server = httptest.NewServer(mux)
	t.Cleanup(m.Close)
	return m
}

func (m *standInModel) requests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n
}

// standInField finds the string value of a JSON member in a message's
// content as it came, whether the member is in a string (escaped) or a
// text part.
func standInField(name, content string) string {
	if m := regexp.MustCompile(name + `\\*"\s*:\s*\\*"([^"\\]+)`).FindStringSubmatch(content); m != nil {
		return m[1]
	}
	return ""
}

func (m *standInModel) complete(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.n++
	// Each completion has an id of its own, as a real model's: LangChain
	// keeps one message per id.
	id := fmt.Sprintf("chatcmpl-stand-in-%d", m.n)
	m.mu.Unlock()
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	lookup := ""
	for _, tl := range req.Tools {
		if strings.HasPrefix(tl.Function.Name, "crm") && strings.Contains(string(tl.Function.Parameters), `"orderId"`) {
			lookup = tl.Function.Name
		}
	}
	if lookup == "" {
		http.Error(w, `{"error":{"message":"no crm tool with an orderId in its schema was offered"}}`, http.StatusBadRequest)
		return
	}
	var input, instructions string
	var results []string
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			input += string(msg.Content)
		case "system", "developer":
			instructions += string(msg.Content)
		case "tool":
			results = append(results, string(msg.Content))
		}
	}
	message := map[string]any{"role": "assistant"}
	finish := "tool_calls"
	switch len(results) {
	case 0, 1:
		order := standInField("orderId", input)
		if len(results) == 1 {
			order = standInField("replaces", input)
		}
		args, _ := json.Marshal(map[string]string{"orderId": order})
		message["content"] = nil
		message["tool_calls"] = []map[string]any{{
			"id": fmt.Sprintf("call_%d", len(results)+1), "type": "function",
			"function": map[string]string{"name": lookup, "arguments": string(args)},
		}}
	default:
		answer := map[string]string{"status": standInField("status", results[0]), "replaced": "found", "tier": standInField("tier", instructions)}
		if strings.Contains(results[1], "order not found") {
			answer["replaced"] = "order not found"
		}
		b, _ := json.Marshal(answer)
		message["content"] = string(b)
		finish = "stop"
	}
	usage := map[string]int{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": message, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	delta := map[string]any{"role": "assistant", "content": message["content"]}
	if calls, ok := message["tool_calls"].([]map[string]any); ok {
		calls[0]["index"] = 0
		delta["tool_calls"] = calls
	}
	for _, chunk := range []map[string]any{
		{"choices": []map[string]any{{"index": 0, "delta": delta}}},
		{"choices": []map[string]any{{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, "usage": usage},
	} {
		chunk["id"], chunk["object"], chunk["created"], chunk["model"] = id, "chat.completion.chunk", 1, req.Model
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
