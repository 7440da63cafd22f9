package runner

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/chat"
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
// its answers cached on disk like judge verdicts: a conversation that goes
// the same way again costs nothing and gets the same answers, so re-runs
// are deterministic.
type Simulator struct {
	Model *OpenAI // the model's endpoint, name, key, pricing and client
	// CacheDir holds the cached answers; no cache when "".
	CacheDir string
	// CacheKey is the secret of the entries' MACs; see judges.Cache.Key.
	CacheKey string

	rejected atomic.Int64
}

var _ UserSimulator = (*Simulator)(nil)

// DefaultSimulatorCacheDir is where the CLI keeps the simulator's answers,
// beside the judge's.
const DefaultSimulatorCacheDir = ".evalgate/cache/user"

// simEntry is one cached answer.
type simEntry struct {
	Message string `json:"message"`
	Done    bool   `json:"done"`
	MAC     string `json:"mac"`
}

// Next asks the cache, then the model.
func (s *Simulator) Next(ctx context.Context, instructions string, convo []string) (string, bool, Usage, error) {
	key := s.key(instructions, convo)
	if e, ok := s.read(key); ok {
		return e.Message, e.Done, Usage{}, nil
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
	s.write(key, simEntry{Message: text, Done: done})
	return text, done, usage, nil
}

// Rejected is how many cached answers were ignored because their MAC did
// not verify.
func (s *Simulator) Rejected() int { return int(s.rejected.Load()) }

func ptr(s string) *string { return &s }

// key is the cache key of one answer: the model, the instructions and the
// conversation so far.
func (s *Simulator) key(instructions string, convo []string) string {
	data, _ := json.Marshal(struct { // strings always encode
		BaseURL, Model, Prompt, Instructions string
		Convo                                []string
	}{s.Model.BaseURL, s.Model.Model, simulatorPrompt, instructions, convo})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (s *Simulator) mac(key string, e simEntry) string {
	secret := s.CacheKey
	if secret == "" {
		secret = "evalgate user simulator cache key without a secret\x00" + s.Model.BaseURL + "\x00" + s.Model.Model
	}
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "evalgate user simulator cache v1\x00%s\x00%t\x00%s", key, e.Done, e.Message)
	return hex.EncodeToString(m.Sum(nil))
}

func (s *Simulator) path(key string) string {
	return filepath.Join(s.CacheDir, key[:2], key+".json")
}

func (s *Simulator) read(key string) (simEntry, bool) {
	if s.CacheDir == "" {
		return simEntry{}, false
	}
	data, err := os.ReadFile(s.path(key))
	if err != nil {
		return simEntry{}, false
	}
	var e simEntry
	if json.Unmarshal(data, &e) != nil {
		return simEntry{}, false
	}
	got, err1 := hex.DecodeString(e.MAC)
	want, _ := hex.DecodeString(s.mac(key, e))
	if err1 != nil || !hmac.Equal(got, want) {
		s.rejected.Add(1)
		return simEntry{}, false
	}
	return e, true
}

// write caches an answer; a cache that cannot be written only costs a
// new question next time.
func (s *Simulator) write(key string, e simEntry) {
	if s.CacheDir == "" {
		return
	}
	e.MAC = s.mac(key, e)
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	_ = atomicfile.WriteFile(s.path(key), data, 0o644, 0o755)
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
