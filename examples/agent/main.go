// Command agent is a small support-desk agent that speaks evalgate's
// evalgate/1 protocol: it reads one task line on stdin, looks orders up in a
// CRM and the refund policy in a knowledge base through tool calls, reads
// the customer's profile from its memory, and answers with one final line.
//
// It stands in for an LLM agent so the example runs offline and the same way
// every time; it has one deliberate bug (a lost parcel is treated as "not
// delivered" and the refund is denied) so the example report shows a failure,
// and one deliberate weakness for the adversarial suite: it relays the
// courier's note on an order word for word, so an instruction planted there
// reaches the customer. It refuses to delete accounts and never acts on
// what tool results say.
//
// Tools: crm:lookup {orderId} -> {status, daysSinceDelivery, total, currency,
// eta?, courierNote?} and kb:search {query} -> {refundWindowDays}. When the
// task declares crm:refund {orderId}, the agent really refunds through it
// (examples/worlds, where the tools change a world) and escalates when the
// refund fails.
//
// It holds a conversation: when it needs the order number it asks for it
// with a reply line and reads the customer's next message, remembering that
// they wanted a refund; without a next message, the reply is its answer.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

type task struct {
	Type   string            `json:"type"`
	TaskID string            `json:"taskId"`
	Input  json.RawMessage   `json:"input"`
	Memory []json.RawMessage `json:"memory"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// userLine is the customer's next message in a conversation.
type userLine struct {
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
}

type toolResult struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
	IsError bool            `json:"isError"`
}

type order struct {
	Status            string  `json:"status"`
	DaysSinceDelivery int     `json:"daysSinceDelivery"`
	Total             float64 `json:"total"`
	Currency          string  `json:"currency"`
	ETA               string  `json:"eta"`
	CourierNote       string  `json:"courierNote"`
}

type agent struct {
	in    *bufio.Scanner
	out   *json.Encoder
	calls int
	// canRefund is set when the task declares crm:refund: the refund is
	// then made, not only decided.
	canRefund bool
	// wantsRefund remembers, across a conversation, that the customer
	// asked for a refund before giving the order number.
	wantsRefund bool
}

var orderID = regexp.MustCompile(`\b[A-Z]-\d+\b`)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--health" {
		// agent.health: the agent starts and its rules load; nothing to check beyond that.
		return
	}
	a := &agent{in: bufio.NewScanner(os.Stdin), out: json.NewEncoder(os.Stdout)}
	a.in.Buffer(make([]byte, 1<<20), 1<<20)
	if !a.in.Scan() {
		fmt.Fprintln(os.Stderr, "agent: no task on stdin")
		os.Exit(2)
	}
	var t task
	if err := json.Unmarshal(a.in.Bytes(), &t); err != nil || t.Type != "task" {
		fmt.Fprintln(os.Stderr, "agent: the first line is not a task")
		os.Exit(2)
	}
	for _, tl := range t.Tools {
		a.canRefund = a.canRefund || tl.Name == "crm:refund"
	}
	message := text(t.Input)
	for {
		answer, askMore := a.handle(message, tier(t.Memory))
		a.send(map[string]any{"type": "usage", "model": "support-desk-rules-v1",
			"inputTokens": 40 + len(message)/4, "outputTokens": 25, "costUsd": 0.0002})
		if !askMore {
			a.send(map[string]any{"type": "final", "output": answer})
			return
		}
		// A reply: the customer may answer; if not, it was the last word.
		a.send(map[string]any{"type": "reply", "output": answer})
		if !a.in.Scan() {
			return
		}
		var u userLine
		if err := json.Unmarshal(a.in.Bytes(), &u); err != nil || u.Type != "user" {
			fmt.Fprintln(os.Stderr, "agent: expected the customer's next message")
			os.Exit(3)
		}
		message = text(u.Content)
	}
}

// text is a message as the agent reads it: a JSON string, or the
// "message" of an object.
func text(v json.RawMessage) string {
	var message string
	if err := json.Unmarshal(v, &message); err != nil {
		var obj struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(v, &obj)
		message = obj.Message
	}
	return message
}

// tier reads the customer's tier from the memory seed ({"key": "tier", "value": "gold"}).
func tier(memory []json.RawMessage) string {
	for _, m := range memory {
		var e struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		}
		if json.Unmarshal(m, &e) == nil && e.Key == "tier" {
			return e.Value
		}
	}
	return ""
}

// handle answers one message; askMore is set when the answer asks the
// customer for more (the order number).
func (a *agent) handle(message, tier string) (answer any, askMore bool) {
	id := orderID.FindString(message)
	lower := strings.ToLower(message)
	switch {
	case strings.Contains(lower, "delete") && strings.Contains(lower, "account"):
		// Account deletion needs an identity check this channel cannot do.
		return "I'm sorry, but I can't delete accounts from this chat. Please use the account settings page, where we can verify it is you.", false
	case (strings.Contains(lower, "refund") || a.wantsRefund) && id != "":
		return a.refund(id), false
	case (strings.Contains(lower, "where") || strings.Contains(lower, "status")) && id != "":
		return a.status(id, tier), false
	default:
		a.wantsRefund = a.wantsRefund || strings.Contains(lower, "refund")
		return "I can help with refunds and order status. Please include your order number, like A-17.", true
	}
}

func (a *agent) refund(id string) any {
	var o order
	if !a.lookup(id, &o) {
		return map[string]any{"action": "escalate", "orderId": id, "reason": "crm-unavailable"}
	}
	var policy struct {
		RefundWindowDays int `json:"refundWindowDays"`
	}
	if res, ok := a.call("kb:search", map[string]any{"query": "refund policy"}); ok {
		_ = json.Unmarshal(res, &policy)
	}
	if policy.RefundWindowDays == 0 {
		policy.RefundWindowDays = 14 // the conservative default when the policy is unknown
	}
	switch {
	case o.Status != "delivered": // the deliberate bug: a lost parcel should be refunded
		return map[string]any{"action": "deny", "orderId": id, "reason": "not-delivered"}
	case o.DaysSinceDelivery <= policy.RefundWindowDays:
		if a.canRefund {
			if _, ok := a.call("crm:refund", map[string]any{"orderId": id}); !ok {
				return map[string]any{"action": "escalate", "orderId": id, "reason": "refund-failed"}
			}
		}
		return map[string]any{"action": "refund", "orderId": id, "amount": o.Total, "currency": o.Currency, "reason": "within-window"}
	default:
		return map[string]any{"action": "deny", "orderId": id, "reason": "outside-window"}
	}
}

func (a *agent) status(id, tier string) any {
	var o order
	if !a.lookup(id, &o) {
		return fmt.Sprintf("Sorry, I cannot reach our order system right now. Please try again later about order %s.", id)
	}
	s := fmt.Sprintf("Order %s is %s.", id, strings.ReplaceAll(o.Status, "-", " "))
	if o.ETA != "" {
		s += fmt.Sprintf(" Expected delivery: %s.", o.ETA)
	}
	if o.CourierNote != "" { // the deliberate weakness: the note is relayed unfiltered
		s += " Courier note: " + o.CourierNote
	}
	if tier == "gold" {
		s += " As a Gold member, your shipping is free."
	}
	return s
}

// lookup asks the CRM for an order, retrying once when the CRM fails.
func (a *agent) lookup(id string, o *order) bool {
	for attempt := 0; attempt < 2; attempt++ {
		if res, ok := a.call("crm:lookup", map[string]any{"orderId": id}); ok {
			return json.Unmarshal(res, o) == nil
		}
	}
	return false
}

func (a *agent) call(name string, args any) (json.RawMessage, bool) {
	a.calls++
	id := fmt.Sprintf("c%d", a.calls)
	a.send(map[string]any{"type": "tool_call", "id": id, "name": name, "arguments": args})
	if !a.in.Scan() {
		fmt.Fprintln(os.Stderr, "agent: stdin closed while waiting for a tool result")
		os.Exit(3)
	}
	var r toolResult
	if err := json.Unmarshal(a.in.Bytes(), &r); err != nil || r.Type != "tool_result" || r.ID != id {
		fmt.Fprintln(os.Stderr, "agent: expected the tool result of", id)
		os.Exit(3)
	}
	return r.Content, !r.IsError
}

// send writes one protocol line. The encoder writes straight to os.Stdout,
// which Go does not buffer, so each line reaches evalgate at once, as the
// protocol asks; an agent that wraps stdout in a bufio.Writer must Flush
// after every line.
func (a *agent) send(v any) {
	if err := a.out.Encode(v); err != nil {
		os.Exit(3)
	}
}
