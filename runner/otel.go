package runner

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/traces"
)

// OTel receives, for each trial of the agent it wraps (exec, plain or
// MCP), the spans the agent sends through OpenTelemetry (docs/otel.md):
// the trial's endpoint of one receiver per run is in the agent's
// environment (traces.Endpoint.Env), and what arrived while the agent
// ran, and up to Grace after it ended, is the Outcome's Spans. When the
// agent reported no usage, the tokens of its model calls, priced by
// Pricing, are its usage: a usage line wins, and the two are never added.
// The receiver starts with the first trial; Close stops it.
type OTel struct {
	Agent Agent
	// Grace is how long spans still in flight when the agent ends are
	// waited for; DefaultExitGrace when 0.
	Grace time.Duration
	// Pricing prices a model call's tokens by the model it names
	// (gen_ai.response.model, else gen_ai.request.model).
	Pricing map[string]chat.Pricing
	// Parent is the span a trial's spans are children of, given to the
	// agent as TRACEPARENT: the trial's span of an exported run; nil
	// makes one up per trial.
	Parent func(req *Request) traces.Parent

	once sync.Once
	rcv  *traces.Receiver
	err  error

	mu       sync.Mutex
	unpriced map[string]bool
}

var _ Agent = (*OTel)(nil)

// Run runs one trial of the wrapped agent with its trial's endpoint open.
func (o *OTel) Run(ctx context.Context, req *Request, tools Tools) *Outcome {
	o.once.Do(func() { o.rcv, o.err = traces.Listen() })
	if o.err != nil {
		return &Outcome{Fatal: o.err}
	}
	ep, err := o.rcv.Open(ctx)
	if err != nil {
		return &Outcome{Fatal: err}
	}
	defer ep.Close()
	r := *req
	parent := traces.NewParent()
	if o.Parent != nil {
		parent = o.Parent(req)
	}
	r.Env = append(slices.Clip(req.Env), ep.Env(parent)...)
	out := o.Agent.Run(ctx, &r, tools)
	if out.Fatal != nil {
		return out
	}
	ep.Settle(orDefault(o.Grace, DefaultExitGrace))
	out.Spans = ep.Close()
	if !out.Usage.Reported {
		if u := out.Spans.Usage(o.Pricing); u.Reported {
			out.Usage = Usage{Model: u.Model, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUsd: u.CostUsd, Reported: true}
			o.noteUnpriced(u.Unpriced)
		}
	}
	return out
}

func (o *OTel) noteUnpriced(models []string) {
	if len(models) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.unpriced == nil {
		o.unpriced = map[string]bool{}
	}
	for _, m := range models {
		o.unpriced[m] = true
	}
}

// Unpriced lists, sorted, the models whose calls reported tokens that
// Pricing does not price: their cost counted as 0.
func (o *OTel) Unpriced() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for m := range o.unpriced {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// Close stops the receiver.
func (o *OTel) Close() error {
	if o.rcv != nil {
		return o.rcv.Close()
	}
	return nil
}
