package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/internal/signedcache"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// UserSimulator plays the user of an open conversation (task `user`):
// given the user's hidden instructions and the conversation so far, it
// writes the user's next message, or says the user is done.
type UserSimulator interface {
	// Next returns the user's next message. convo alternates the user's
	// messages and the agent's, starting with the task's input. usage is
	// what the answer cost, zero when it came from a cache.
	Next(ctx context.Context, instructions string, convo []string) (msg string, done bool, usage Usage, err error)
}

// StopToken is what the simulated user says, alone, when it is done.
const StopToken = "###STOP###"

// simulatorPrompt is the system prompt of the simulated user; the task's
// instructions follow it.
const simulatorPrompt = `You are playing a customer who is talking to a support agent. Follow your instructions below; do not reveal them, and give information only when the agent asks for it. Write only the customer's next message, briefly. When your goal is met, or cannot be met, answer with exactly ` + StopToken + ` and nothing else.

Your instructions:
`

// Simulator is a UserSimulator backed by an OpenAI-compatible model, with
// its answers cached on disk like judge verdicts (internal/signedcache): a
// conversation that goes the same way again costs nothing and gets the
// same answers, so re-runs are deterministic.
type Simulator struct {
	Model *OpenAI // the model's endpoint, name, key, pricing and client
	// CacheDir holds the cached answers; no cache when "".
	CacheDir string
	// CacheKey is the secret the entries are signed with; without one,
	// nothing is read or written (see judges.Cache.Key).
	CacheKey string

	once  sync.Once
	cache *signedcache.Cache
}

var _ UserSimulator = (*Simulator)(nil)

// DefaultSimulatorCacheDir is where the CLI keeps the simulator's answers,
// beside the judge's.
const DefaultSimulatorCacheDir = ".evalgate/cache/user"

// simAnswer is one cached answer.
type simAnswer struct {
	Message string `json:"message"`
	Done    bool   `json:"done"`
}

// Next asks the cache, then the model.
func (s *Simulator) Next(ctx context.Context, instructions string, convo []string) (string, bool, Usage, error) {
	key := s.AnswerKey(instructions, convo)
	var cached simAnswer
	if s.entries().Get(key, &cached) {
		return cached.Message, cached.Done, Usage{}, nil
	}
	msgs := []chat.Message{{Role: "system", Content: ptr(simulatorPrompt + instructions)}}
	for i, m := range convo {
		// The user's own messages are the model's; the agent's are what it
		// answers.
		role := "user"
		if i%2 == 0 {
			role = "assistant"
		}
		msgs = append(msgs, chat.Message{Role: role, Content: ptr(m)})
	}
	zero := 0.0
	resp, aerr, fatal := s.Model.complete(ctx, &Request{}, &chat.Request{Model: s.Model.Model, Messages: msgs, Temperature: &zero})
	switch {
	case fatal != nil:
		return "", false, Usage{}, fatal
	case aerr != nil:
		return "", false, Usage{}, fmt.Errorf("%s", aerr.Message)
	}
	var usage Usage
	if resp.Usage != nil {
		usage = Usage{Model: resp.Model, InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens,
			CostUsd: s.Model.Pricing.Cost(resp.Usage.PromptTokens, resp.Usage.CompletionTokens), Reported: true}
	}
	text := strings.TrimSpace(resp.Choices[0].Message.Text())
	done := strings.Contains(text, StopToken)
	if done {
		text = ""
	}
	s.entries().Put(key, simAnswer{Message: text, Done: done})
	return text, done, usage, nil
}

// Rejected is how many cached answers were ignored because their MAC did
// not verify.
func (s *Simulator) Rejected() int { return s.entries().Rejected() }

// entries is the signed store of the cache's folder.
func (s *Simulator) entries() *signedcache.Cache {
	s.once.Do(func() { s.cache = &signedcache.Cache{Dir: s.CacheDir, Name: "user", Secret: s.CacheKey} })
	return s.cache
}

func ptr(s string) *string { return &s }

// AnswerKey is the cache key of one answer: a hash of the model, the
// simulator's prompt, the instructions and the conversation so far (the
// user's messages, the input first, and the agent's, alternating).
func (s *Simulator) AnswerKey(instructions string, convo []string) string {
	data, _ := json.Marshal(struct { // strings always encode
		BaseURL, Model, Prompt, Instructions string
		Convo                                []string
	}{s.Model.BaseURL, s.Model.Model, simulatorPrompt, instructions, convo})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// simulation is the state of one trial's open conversation.
type simulation struct {
	sim   UserSimulator
	user  *suites.SimulatedUser
	convo []string // the user's messages and the agent's, alternating
	sent  int      // messages the simulator wrote
	usage Usage
}

// nextTurn returns the user's message after the agent's n-th reply
// (0-based), scripted or simulated; ok is false when the conversation is
// over and the reply is the final output.
func (r *Request) nextTurn(ctx context.Context, n int, reply json.RawMessage) (msg json.RawMessage, ok bool, aerr *AgentError) {
	if n < len(r.Turns) {
		return r.Turns[n], true, nil
	}
	sim := r.sim
	if sim == nil {
		return nil, false, nil
	}
	if sim.sim == nil {
		return nil, false, &AgentError{Kind: results.ErrSimulator, Message: "the task is an open conversation (user), and no user simulator is configured (user.simulator in evalgate.yaml)"}
	}
	max := sim.user.MaxTurns
	if max <= 0 {
		max = suites.DefaultUserMaxTurns
	}
	if sim.convo == nil {
		sim.convo = []string{inputText(r.Input)}
	}
	sim.convo = append(sim.convo, inputText(reply))
	if sim.sent >= max {
		return nil, false, nil
	}
	text, done, usage, err := sim.sim.Next(ctx, sim.user.Instructions, sim.convo)
	sim.usage.Add(usage)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, contextError(ctx, r)
		}
		return nil, false, &AgentError{Kind: results.ErrSimulator, Message: "the user simulator gave no answer", Detail: err.Error()}
	}
	if done {
		return nil, false, nil
	}
	sim.sent++
	sim.convo = append(sim.convo, text)
	return jsonText(text), true, nil
}
