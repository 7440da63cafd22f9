package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// A judge request is recognised by the shape of its last user message:
//
//   - evalgate's judge.openai writes "## Agent output" then "## Criteria (n)"
//     and a numbered list, and wants {"criteria": [{"met": …, "reason": …}]},
//     one entry per criterion;
//   - promptfoo's llm-rubric writes "<Output>…</Output>" then
//     "<Rubric>…</Rubric>", one criterion per request, and wants
//     {"reason": …, "pass": …, "score": …}.
const (
	egOutput   = "## Agent output\n"
	egCriteria = "\n\n## Criteria ("
	pfOutput   = "<Output>\n"
	pfRubric   = "\n</Output>\n<Rubric>\n"
	pfEnd      = "\n</Rubric>"
)

// criterionRule is the one form of criterion the mock judge can decide:
// The output's "<field>" field is <JSON value>.
var criterionRule = regexp.MustCompile(`^The output's "([^"]+)" field is (.+)\.$`)

// Verdict decides one criterion about output the way the mock judge does:
// met when the output is a JSON object whose field has the value the
// criterion names. A criterion of any other form is not met, never a
// silent pass. reason says which way it went, in a few words.
func Verdict(output, criterion string) (met bool, reason string) {
	m := criterionRule.FindStringSubmatch(strings.TrimSpace(criterion))
	if m == nil {
		return false, "no rule for this criterion"
	}
	var want any
	if json.Unmarshal([]byte(m[2]), &want) != nil {
		return false, "the criterion's value is not JSON"
	}
	var obj map[string]any
	if json.Unmarshal([]byte(strings.TrimSpace(output)), &obj) != nil {
		return false, "the output is not a JSON object"
	}
	got, ok := obj[m[1]]
	switch {
	case !ok:
		return false, fmt.Sprintf("the output has no %q field", m[1])
	case !reflect.DeepEqual(got, want):
		return false, fmt.Sprintf("the %q field has another value", m[1])
	}
	return true, fmt.Sprintf("the %q field has that value", m[1])
}

// judgeKind tells a judge request from an agent's prompt.
type judgeKind int

const (
	notJudge judgeKind = iota
	evalgateJudge
	promptfooRubric
)

// parseJudge recognises a judge request in the last user message and
// returns the output to judge and its criteria.
func parseJudge(prompt string) (kind judgeKind, output string, criteria []string) {
	if rest, ok := strings.CutPrefix(prompt, pfOutput); ok {
		if out, rubric, ok := strings.Cut(rest, pfRubric); ok {
			if rubric, ok := strings.CutSuffix(rubric, pfEnd); ok {
				return promptfooRubric, out, []string{rubric}
			}
		}
	}
	_, rest, ok := strings.Cut(prompt, egOutput)
	if !ok {
		return notJudge, "", nil
	}
	out, list, ok := strings.Cut(rest, egCriteria)
	if !ok {
		return notJudge, "", nil
	}
	head, list, _ := strings.Cut(list, "\n")
	n, err := strconv.Atoi(strings.TrimSuffix(head, ")"))
	if err != nil {
		return notJudge, "", nil
	}
	for i := 1; i <= n; i++ {
		line, next, _ := strings.Cut(list, "\n")
		c, ok := strings.CutPrefix(line, strconv.Itoa(i)+". ")
		if !ok {
			return notJudge, "", nil
		}
		criteria = append(criteria, c)
		list = next
	}
	return evalgateJudge, out, criteria
}

type (
	egAnswer struct {
		Criteria []egVerdict `json:"criteria"`
	}
	egVerdict struct {
		Met    bool   `json:"met"`
		Reason string `json:"reason"`
	}
	pfAnswer struct {
		Reason string  `json:"reason"`
		Pass   bool    `json:"pass"`
		Score  float64 `json:"score"`
	}
)

// judgeAnswer is the reply's content for a judge request, in the format
// its tool expects, and how many of its criteria were met and not met.
func judgeAnswer(kind judgeKind, output string, criteria []string) (content string, met, unmet int) {
	verdicts := make([]egVerdict, len(criteria))
	for i, c := range criteria {
		verdicts[i].Met, verdicts[i].Reason = Verdict(output, c)
		if verdicts[i].Met {
			met++
		} else {
			unmet++
		}
	}
	var v any = egAnswer{verdicts}
	if kind == promptfooRubric {
		a := pfAnswer{Reason: verdicts[0].Reason, Pass: verdicts[0].Met}
		if a.Pass {
			a.Score = 1
		}
		v = a
	}
	b, _ := json.Marshal(v) // fixed shapes of strings and booleans: they always encode
	return string(b), met, unmet
}
