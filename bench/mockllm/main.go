// Command mockllm is an OpenAI-compatible chat completions server for the
// benchmark: it answers at once, on loopback only, as the agent under test
// and as the judge of its answers.
//
// As the agent: when the last user message reads "task <id>: add <a> <b>",
// the reply's content is the line the bench agents print,
//
//	{"id":"<id>","answer":<a+b>,"text":"The sum of <a> and <b> is <a+b>"}
//
// As the judge: a request from evalgate's judge.openai or from promptfoo's
// llm-rubric (judge.go tells them apart) gets a verdict per criterion in the
// format that tool expects. The mock decides criteria of one form,
// `The output's "<field>" field is <JSON value>.`, by reading the output as
// JSON; any other criterion is not met.
//
// Any other prompt is echoed back as {"echo":"<prompt>"}. It serves
// POST /v1/chat/completions (also /chat/completions and /v1/completions),
// GET /stats (the counts below) and POST /reset (zero them):
//
//	{"requests":R,"agent":A,"judge":J,"llmRubric":L,"met":M,"unmet":U}
//
// R counts every completion request, A the task prompts, J evalgate's judge
// requests, L promptfoo's llm-rubric requests, and M and U the criteria the
// judge found met and not met.
//
//	go run ./bench/mockllm -addr 127.0.0.1:18080
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "listen address; loopback only")
	flag.Parse()
	srv, err := newServer(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mockllm:", err)
		os.Exit(2)
	}
	log.Printf("mockllm listening on http://%s", *addr)
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "mockllm:", err)
		os.Exit(3)
	}
}

// newServer refuses any address that is not on loopback.
func newServer(addr string) (*http.Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("could not read address %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("refusing address %q: loopback only", addr)
	}
	m := &mock{}
	return &http.Server{Addr: addr, Handler: m.routes(), ReadHeaderTimeout: 10 * time.Second}, nil
}

// mock counts the completions it served.
type mock struct {
	requests, agent, judge, llmRubric, met, unmet atomic.Int64
}

// stats are the counts GET /stats returns.
type stats struct {
	Requests  int64 `json:"requests"`
	Agent     int64 `json:"agent"`
	Judge     int64 `json:"judge"`
	LLMRubric int64 `json:"llmRubric"`
	Met       int64 `json:"met"`
	Unmet     int64 `json:"unmet"`
}

func (m *mock) counters() []*atomic.Int64 {
	return []*atomic.Int64{&m.requests, &m.agent, &m.judge, &m.llmRubric, &m.met, &m.unmet}
}

func (m *mock) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", m.chat)
	mux.HandleFunc("POST /chat/completions", m.chat)
	mux.HandleFunc("POST /v1/completions", m.chat)
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(stats{
			Requests: m.requests.Load(), Agent: m.agent.Load(), Judge: m.judge.Load(),
			LLMRubric: m.llmRubric.Load(), Met: m.met.Load(), Unmet: m.unmet.Load(),
		})
	})
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, _ *http.Request) {
		for _, c := range m.counters() {
			c.Store(0)
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

type chatRequest struct {
	Model    string `json:"model"`
	Prompt   string `json:"prompt"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type chatResponse struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   usage    `json:"usage"`
}

type choice struct {
	Index        int     `json:"index"`
	Message      message `json:"message"`
	Text         string  `json:"text"`
	FinishReason string  `json:"finish_reason"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func (m *mock) chat(w http.ResponseWriter, r *http.Request) {
	n := m.requests.Add(1)
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "could not read the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	prompt := req.Prompt
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			prompt = text(req.Messages[i].Content)
			break
		}
	}
	model := req.Model
	if model == "" {
		model = "mock-model"
	}
	content := m.reply(prompt)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(chatResponse{
		ID:      "chatcmpl-mock-" + strconv.FormatInt(n, 10),
		Object:  "chat.completion",
		Created: time.Now().Unix(),
		Model:   model,
		Choices: []choice{{Message: message{Role: "assistant", Content: content}, Text: content, FinishReason: "stop"}},
		Usage:   usage{PromptTokens: 8, CompletionTokens: 16, TotalTokens: 24},
	})
}

// reply is the content answering prompt, counted by kind.
func (m *mock) reply(prompt string) string {
	kind, output, criteria := parseJudge(prompt)
	switch kind {
	case evalgateJudge:
		m.judge.Add(1)
	case promptfooRubric:
		m.llmRubric.Add(1)
	default:
		if _, _, _, err := parse(prompt); err == nil {
			m.agent.Add(1)
		}
		return Answer(prompt)
	}
	content, met, unmet := judgeAnswer(kind, output, criteria)
	m.met.Add(int64(met))
	m.unmet.Add(int64(unmet))
	return content
}

// text is a message's content: a string, or the text parts of an array.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

var errNotTask = errors.New("not a task prompt")

// Answer is the deterministic reply to a prompt: the bench agents' line for
// "task <id>: add <a> <b>", else {"echo":"<prompt>"}.
func Answer(prompt string) string {
	id, a, b, err := parse(prompt)
	if err != nil {
		e, _ := json.Marshal(map[string]string{"echo": prompt})
		return string(e)
	}
	s := a + b
	return fmt.Sprintf(`{"id":"%s","answer":%d,"text":"The sum of %d and %d is %d"}`, id, s, a, b, s)
}

func parse(prompt string) (id string, a, b int, err error) {
	f := strings.Fields(prompt)
	if len(f) != 5 || f[0] != "task" || f[2] != "add" {
		return "", 0, 0, errNotTask
	}
	if a, err = strconv.Atoi(f[3]); err != nil {
		return "", 0, 0, errNotTask
	}
	if b, err = strconv.Atoi(f[4]); err != nil {
		return "", 0, 0, errNotTask
	}
	return strings.TrimSuffix(f[1], ":"), a, b, nil
}
