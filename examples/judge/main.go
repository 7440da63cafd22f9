// Command judge is an example exec judge for evalgate's rubric criteria. It
// speaks the exec judge protocol (docs/judges.md): it reads one JSON object on
// stdin,
//
//	{"criteria":[{"criterion":"...","weight":0.3}],"input":...,"output":...,"trace":[...]}
//
// and writes one verdict per criterion, in order, on stdout:
//
//	{"criteria":[{"met":true,"reason":"..."}]}
//
// A graded criterion (one with a "scale", docs/judges.md) gets a level
// instead: the top of its scale when the rule holds, the bottom when not, as
// {"level":4,"reason":"..."}; a model would use the levels in between.
//
// It is a stand-in for a model judge, so the example runs offline and the
// same way every time: it recognises a criterion by its keywords and decides
// it with a fixed heuristic over the agent's reply (a pattern, a word list).
// A criterion it has no rule for is "not met", never a silent pass. A real
// project points judge.openai at a model, or judge.exec at its own grader,
// and calibrates it first (`evalgate calibrate`, docs/judges.md).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

type request struct {
	Criteria []struct {
		Criterion string  `json:"criterion"`
		Weight    float64 `json:"weight"`
		Scale     *struct {
			Min int `json:"min"`
			Max int `json:"max"`
		} `json:"scale"`
	} `json:"criteria"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

type verdict struct {
	Met    bool   `json:"met"`
	Reason string `json:"reason"`
}

// answer is a verdict as written, with the level of a graded criterion.
type answer struct {
	verdict
	Level *int `json:"level,omitempty"`
}

// rule decides the criteria whose text contains one of its keywords.
type rule struct {
	keywords []string
	decide   func(reply string) verdict
}

var (
	orderID = regexp.MustCompile(`\b[A-Z]-\d+\b`)
	isoDate = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	status  = regexp.MustCompile(`(?i)\bis (in transit|delivered|shipped|processing|lost|out for delivery)\b`)
)

// rules are tried in order; the first whose keyword appears in the
// criterion decides it.
var rules = []rule{
	{[]string{"asks for the order number", "asks for an order number"}, func(r string) verdict {
		return words(r, "asks for it", "does not ask for it", "order number")
	}},
	{[]string{"order number", "order id"}, func(r string) verdict {
		if id := orderID.FindString(r); id != "" {
			return verdict{true, "names order " + id}
		}
		return verdict{false, "names no order number"}
	}},
	{[]string{"delivery date", "when it will arrive"}, func(r string) verdict {
		if d := isoDate.FindString(r); d != "" {
			return verdict{true, "gives the date " + d}
		}
		return verdict{false, "gives no date"}
	}},
	{[]string{"status"}, func(r string) verdict {
		if s := status.FindString(r); s != "" {
			return verdict{true, "says the order " + s}
		}
		return verdict{false, "states no status"}
	}},
	{[]string{"refuses"}, func(r string) verdict {
		return words(r, "declines", "complies", "i can't", "i cannot", "i won't", "i will not", "unable to", "not able to", "must decline")
	}},
	{[]string{"apolog"}, func(r string) verdict {
		return words(r, "apologises", "does not apologise", "sorry", "apolog")
	}},
	{[]string{"escalat", "human agent"}, func(r string) verdict {
		return words(r, "offers a person", "offers no person to talk to", "escalat", "colleague", "human agent")
	}},
	{[]string{"next step", "what to do"}, func(r string) verdict {
		return words(r, "says what to do next", "leaves the customer without a next step", "try again", "please include", "contact us", "reply with")
	}},
	{[]string{"free shipping"}, func(r string) verdict {
		return words(r, "mentions free shipping", "does not mention free shipping", "shipping is free", "free shipping")
	}},
	{[]string{"polite", "courteous", "friendly"}, func(r string) verdict {
		if v := words(r, "", "", "stupid", "idiot", "shut up", "whatever"); v.Met {
			return verdict{false, "is rude"}
		}
		return words(r, "is polite", "has no courtesy words", "please", "thank", "sorry", "happy to", "i can help")
	}},
}

// words is met when the reply contains one of the phrases, ignoring case.
func words(reply, yes, no string, phrases ...string) verdict {
	lower := strings.ToLower(reply)
	for _, p := range phrases {
		if strings.Contains(lower, p) {
			return verdict{true, yes}
		}
	}
	return verdict{false, no}
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "judge: could not read the request:", err)
		os.Exit(2)
	}
	reply := text(req.Output)
	out := struct {
		Criteria []answer `json:"criteria"`
	}{Criteria: make([]answer, 0, len(req.Criteria))}
	for _, c := range req.Criteria {
		a := answer{verdict: decide(strings.ToLower(c.Criterion), reply)}
		if c.Scale != nil {
			level := c.Scale.Min
			if a.Met {
				level = c.Scale.Max
			}
			a.Level = &level
		}
		out.Criteria = append(out.Criteria, a)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		os.Exit(3)
	}
}

func decide(criterion, reply string) verdict {
	for _, r := range rules {
		for _, k := range r.keywords {
			if strings.Contains(criterion, k) {
				return r.decide(reply)
			}
		}
	}
	return verdict{false, "the example judge has no rule for this criterion"}
}

// text is the reply as text: a JSON string as itself, anything else as JSON.
func text(output json.RawMessage) string {
	var s string
	if json.Unmarshal(output, &s) == nil {
		return s
	}
	return string(output)
}
