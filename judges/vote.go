package judges

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/evalgate/evalgate/internal/chat"
)

// ErrUnavailable marks a judge call that got no answer at all: the network
// failed, the API kept answering 429 or 5xx, refused the credentials, or the
// judge program could not be started. A judge that answered badly (wrong
// shape, non-zero exit) is available but wrong, and is not ErrUnavailable.
var ErrUnavailable = errors.New("judge unavailable")

// ErrRejected marks a judge call the API refused for its credentials (401,
// 403): the judge is reachable, and the key is missing or wrong. It is
// ErrUnavailable too: no call gets an answer.
var ErrRejected = errors.New("the judge rejected the credentials")

// rejected wraps an error as ErrRejected, keeping its message.
type rejected struct{ err error }

func (r *rejected) Error() string        { return r.err.Error() }
func (r *rejected) Unwrap() error        { return r.err }
func (r *rejected) Is(target error) bool { return target == ErrRejected }

// unavailable wraps an error as ErrUnavailable, keeping its message.
type unavailable struct{ err error }

func (u *unavailable) Error() string        { return u.err.Error() }
func (u *unavailable) Unwrap() error        { return u.err }
func (u *unavailable) Is(target error) bool { return target == ErrUnavailable }

// tally counts a judge's calls so a run can tell a judge that was down the
// whole time (exit 3) from one that failed now and then (those tasks are
// errors of kind judge).
type tally struct {
	calls       atomic.Int64
	unavailable atomic.Int64
	mu          sync.Mutex
	last        error
}

func (t *tally) record(err error) {
	t.calls.Add(1)
	if errors.Is(err, ErrUnavailable) {
		t.unavailable.Add(1)
		t.mu.Lock()
		t.last = err
		t.mu.Unlock()
	}
}

// err is nil unless at least one call was made and every one of them was
// unavailable.
func (t *tally) err() error {
	n := t.calls.Load()
	if n == 0 || t.unavailable.Load() != n {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case errors.Is(t.last, ErrRejected) && n == 1:
		return fmt.Errorf("the judge refused its only call: %w", t.last)
	case errors.Is(t.last, ErrRejected):
		return fmt.Errorf("the judge refused all %d calls: %w", n, t.last)
	case n == 1:
		return fmt.Errorf("the judge was unreachable for its only call: %w", t.last)
	}
	return fmt.Errorf("the judge was unreachable for all %d calls: %w", n, t.last)
}

// sampleFunc asks the judge once for a verdict on every criterion of req.
type sampleFunc func(ctx context.Context, req *RubricRequest) (*RubricVerdict, error)

// vote asks n samples (at least one) in turn and folds them with Majority,
// and the levels of graded criteria with Median.
// Cost and tokens add up over the samples; the reason kept for a criterion
// is the first one that agrees with the majority. The first failing sample
// fails the whole decision.
func vote(ctx context.Context, n int, req *RubricRequest, t *tally, sample sampleFunc) (*RubricVerdict, error) {
	n = max(n, 1)
	out := &RubricVerdict{}
	votes := make([][]bool, 0, n)
	levels := make([][]int, 0, n)
	reasons := make([][]string, 0, n)
	for range n {
		v, err := sample(ctx, req)
		if ctx.Err() == nil {
			t.record(err) // a cancelled call says nothing about the judge
		}
		if err != nil {
			return nil, err
		}
		out.CostUsd += v.CostUsd
		out.Tokens.Input += v.Tokens.Input
		out.Tokens.Output += v.Tokens.Output
		votes = append(votes, v.Met)
		levels = append(levels, v.Levels)
		reasons = append(reasons, v.Reasons)
	}
	out.Met = Majority(votes)
	agrees := func(s, i int) bool { return votes[s][i] == out.Met[i] }
	if graded(req.Criteria) {
		out.Levels = medians(req.Criteria, levels)
		for i, c := range req.Criteria {
			if c.Scale != nil {
				out.Met[i] = out.Levels[i] >= c.Scale.Max
			}
		}
		agrees = func(s, i int) bool {
			if req.Criteria[i].Scale != nil {
				return i < len(levels[s]) && levels[s][i] == out.Levels[i]
			}
			return votes[s][i] == out.Met[i]
		}
	}
	out.Reasons = make([]string, len(out.Met))
	for i := range out.Met {
		for s := range votes {
			if agrees(s, i) && i < len(reasons[s]) {
				out.Reasons[i] = reasons[s][i]
				break
			}
		}
	}
	return out, nil
}

// Majority folds samples of per-criterion verdicts into one: a criterion is
// met when more than half of the samples say so, so a tie is not met. Every
// sample must have the same length.
func Majority(samples [][]bool) []bool {
	if len(samples) == 0 {
		return nil
	}
	out := make([]bool, len(samples[0]))
	for i := range out {
		met := 0
		for _, s := range samples {
			if s[i] {
				met++
			}
		}
		out[i] = 2*met > len(samples)
	}
	return out
}

// answer is the structured reply of a judge: one entry per criterion, in
// the order they were asked.
type answer struct {
	Criteria []answerEntry `json:"criteria"`
}

type answerEntry struct {
	Met    *bool  `json:"met"`
	Reason string `json:"reason"`
}

// parseAnswer reads a judge's reply for want criteria:
// {"criteria":[{"met":true,"reason":"..."}]}. It forgives what models
// commonly wrap around JSON (a Markdown code fence, a sentence before or
// after the object) and nothing else: a missing or non-boolean met, or a
// count other than want, is an error.
func parseAnswer(text []byte, want int) ([]bool, []string, error) {
	body, err := answerObject(text)
	if err != nil {
		return nil, nil, err
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, nil, fmt.Errorf("the judge's answer is not the expected JSON object {\"criteria\": [{\"met\": true, \"reason\": \"...\"}]}: %s", jsonProblem(err))
	}
	if len(a.Criteria) != want {
		return nil, nil, fmt.Errorf("the judge answered %d criteria, want %d", len(a.Criteria), want)
	}
	met := make([]bool, want)
	reasons := make([]string, want)
	for i, e := range a.Criteria {
		if e.Met == nil {
			return nil, nil, fmt.Errorf("the judge's answer for criterion %d has no \"met\"", i+1)
		}
		met[i], reasons[i] = *e.Met, e.Reason
	}
	return met, reasons, nil
}

// answerObject finds the JSON object in a judge's reply: the reply itself,
// or inside a Markdown code fence or a sentence around it.
func answerObject(text []byte) ([]byte, error) {
	body := bytes.TrimSpace(stripFence(text))
	if len(body) == 0 {
		return nil, errors.New("the judge answered nothing")
	}
	if body[0] != '{' {
		start, end := bytes.IndexByte(body, '{'), bytes.LastIndexByte(body, '}')
		if start < 0 || end < start {
			return nil, errors.New("the judge did not answer with a JSON object")
		}
		body = body[start : end+1]
	}
	return body, nil
}

// stripFence removes a Markdown code fence around text: ```json ... ```.
func stripFence(text []byte) []byte {
	t := bytes.TrimSpace(text)
	if !bytes.HasPrefix(t, []byte("```")) {
		return t
	}
	t = t[3:]
	if nl := bytes.IndexByte(t, '\n'); nl >= 0 {
		t = t[nl+1:] // the info string: json
	} else {
		return nil
	}
	if end := bytes.LastIndex(t, []byte("```")); end >= 0 {
		t = t[:end]
	}
	return t
}

// jsonProblem describes a JSON decoding error without Go type names.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, chat.ErrUsageOutOfRange):
		return err.Error()
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		where := typ.Field
		if where == "" {
			where = "the top level"
		}
		return fmt.Sprintf("unexpected %s at %s", typ.Value, strings.ReplaceAll(where, ".", "/"))
	}
	return "invalid JSON"
}
