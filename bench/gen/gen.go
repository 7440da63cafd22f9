package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Options are the generator's flags.
type Options struct {
	N          int
	Workload   string // checks or rubric
	Provider   string // exec, openai or http
	Out        string
	Port       int
	Asserts    []string // of equals, contains, regex, json; checks workload only
	JSONCheck  string   // schema or js
	Seed       uint64
	FailEvery  int    // every k-th case fails one check: equals, or the rubric's answer criterion
	Agent      string // promptfoo exec agent (argv)
	AgentPlain string // evalgate plain agent (stdin)
}

// Case is one benchmark case and what every check expects of its output.
type Case struct {
	ID     string
	Input  string
	A, B   int  // the numbers to add
	Fail   bool // expects a wrong answer: one check fails
	Expect Expect
}

// Expect holds the expectation of each of the four checks.
type Expect struct {
	Equals    string // the whole output
	Contains  string // a substring of it
	Regex     string // a pattern it matches
	JSONPath  string // a top-level field of the output parsed as JSON
	JSONValue int    // and its value
}

// mulberry32 returns the seeded generator shared by every format: each call
// yields a float64 in [0, 1), computed exactly as the 32-bit JavaScript
// reference does.
func mulberry32(seed uint32) func() float64 {
	t := seed
	return func() float64 {
		t += 0x6d2b79f5
		r := (t ^ t>>15) * (1 | t)
		r = (r + (r^r>>7)*(61|r)) ^ r
		return float64(r^r>>14) / 4294967296
	}
}

// BuildCases builds the n cases of the workload. With failEvery k > 0, every
// k-th case expects a wrong answer in its equals check.
func BuildCases(n int, seed uint32, failEvery int) []Case {
	rnd := mulberry32(seed)
	cases := make([]Case, 0, n)
	for i := range n {
		id := "t" + strconv.Itoa(i)
		a := int(math.Floor(rnd() * 1000))
		b := int(math.Floor(rnd() * 1000))
		s := a + b
		output := fmt.Sprintf(`{"id":"%s","answer":%d,"text":"The sum of %d and %d is %d"}`, id, s, a, b, s)
		equals := output
		fail := failEvery > 0 && (i+1)%failEvery == 0
		if fail {
			equals = strings.Replace(output, fmt.Sprintf(`"answer":%d`, s), fmt.Sprintf(`"answer":%d`, s+1), 1)
		}
		cases = append(cases, Case{
			ID:    id,
			Input: fmt.Sprintf("task %s: add %d %d", id, a, b),
			A:     a,
			B:     b,
			Fail:  fail,
			Expect: Expect{
				Equals:    equals,
				Contains:  fmt.Sprintf(`"answer":%d`, s),
				Regex:     `^\{"id":"` + id + `","answer":\d+,`,
				JSONPath:  "answer",
				JSONValue: s,
			},
		})
	}
	return cases
}

// Criteria are the three judged criteria of the case in the rubric
// workload, one per field of the answer, in the one form the mock judge
// decides (bench/mockllm): The output's "<field>" field is <JSON value>.
// A failing case's answer criterion names a wrong sum.
func (c *Case) Criteria() []string {
	s := c.A + c.B
	answer := s
	if c.Fail {
		answer = s + 1
	}
	return []string{
		fmt.Sprintf(`The output's "id" field is %s.`, q(c.ID)),
		fmt.Sprintf(`The output's "answer" field is %d.`, answer),
		fmt.Sprintf(`The output's "text" field is %s.`, q(fmt.Sprintf("The sum of %d and %d is %d", c.A, c.B, s))),
	}
}

var writers = map[string]func(*Options, []Case) error{
	"promptfoo": writePromptfoo,
	"evalgate":  writeEvalgate,
	"jsonl":     writeJSONL,
}

// jsonText encodes v as compact JSON the way JavaScript's JSON.stringify
// does for these values: no HTML escaping, no trailing newline.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // only strings, ints and the fixed shapes below reach here: they always encode
	return strings.TrimSuffix(b.String(), "\n")
}

func q(s string) string { return jsonText(s) }

func providerBlock(o *Options) (string, error) {
	switch o.Provider {
	case "exec":
		return "providers:\n  - id: " + q("exec:"+o.Agent) + "\n    label: agent-exec\n", nil
	case "openai":
		return "providers:\n  - id: openai:chat:mock-model\n    label: agent-openai-compatible\n    config:\n" +
			"      apiBaseUrl: " + q(o.baseURL()) + "\n      apiKey: sk-mock-not-a-real-key\n      temperature: 0\n", nil
	case "http":
		return "providers:\n  - id: " + q(fmt.Sprintf("http://127.0.0.1:%d/v1/chat/completions", o.Port)) + "\n    label: agent-http\n    config:\n" +
			"      method: POST\n      headers:\n        Content-Type: application/json\n" +
			"      body:\n        model: mock-model\n        messages:\n          - role: user\n            content: \"{{prompt}}\"\n" +
			"      transformResponse: json.choices[0].message.content\n", nil
	}
	return "", fmt.Errorf("unknown provider %q (have: exec, openai, http)", o.Provider)
}

// Ordered shapes, so the encoding keeps the reference's key order.
type (
	pfTest struct {
		Description string     `json:"description"`
		Vars        pfVars     `json:"vars"`
		Assert      []pfAssert `json:"assert"`
	}
	pfVars struct {
		Input string `json:"input"`
	}
	pfAssert struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
	pfSchema struct {
		Type       string             `json:"type"`
		Required   []string           `json:"required"`
		Properties map[string]pfConst `json:"properties"`
	}
	pfConst struct {
		Const int `json:"const"`
	}
)

// baseURL is the mock LLM's API root.
func (o *Options) baseURL() string { return fmt.Sprintf("http://127.0.0.1:%d/v1", o.Port) }

// promptfooGrader is the rubric workload's grading provider: the mock LLM.
func promptfooGrader(o *Options) string {
	return "defaultTest:\n  options:\n    provider:\n      id: openai:chat:mock-judge\n      config:\n" +
		"        apiBaseUrl: " + q(o.baseURL()) + "\n        apiKey: sk-mock-not-a-real-key\n        temperature: 0\n"
}

func promptfooAsserts(o *Options, c *Case) ([]pfAssert, error) {
	if o.Workload == "rubric" {
		var out []pfAssert
		for _, cr := range c.Criteria() {
			out = append(out, pfAssert{"llm-rubric", cr})
		}
		return out, nil
	}
	kinds, jsonCheck := o.Asserts, o.JSONCheck
	var out []pfAssert
	for _, k := range kinds {
		switch k {
		case "equals":
			out = append(out, pfAssert{"equals", c.Expect.Equals})
		case "contains":
			out = append(out, pfAssert{"contains", c.Expect.Contains})
		case "regex":
			out = append(out, pfAssert{"regex", c.Expect.Regex})
		case "json":
			p, v := c.Expect.JSONPath, c.Expect.JSONValue
			if jsonCheck == "js" {
				out = append(out, pfAssert{"javascript", fmt.Sprintf("JSON.parse(output).%s === %d", p, v)})
			} else {
				out = append(out, pfAssert{"is-json", pfSchema{Type: "object", Required: []string{p}, Properties: map[string]pfConst{p: {v}}}})
			}
		default:
			return nil, fmt.Errorf("unknown assert kind %q (have: equals, contains, regex, json)", k)
		}
	}
	return out, nil
}

func writePromptfoo(o *Options, cases []Case) error {
	var y strings.Builder
	if o.Workload == "rubric" {
		fmt.Fprintf(&y, "# generated by bench/gen: n=%d provider=%s seed=%d workload=rubric\n", o.N, o.Provider, o.Seed)
		fmt.Fprintf(&y, "description: eval-gate benchmark (rubric, %s, n=%d)\n", o.Provider, o.N)
	} else {
		fmt.Fprintf(&y, "# generated by bench/gen: n=%d provider=%s seed=%d asserts=%s\n", o.N, o.Provider, o.Seed, strings.Join(o.Asserts, ","))
		fmt.Fprintf(&y, "description: eval-gate benchmark (%s, n=%d)\n", o.Provider, o.N)
	}
	y.WriteString("prompts:\n  - \"{{input}}\"\n")
	pb, err := providerBlock(o)
	if err != nil {
		return err
	}
	y.WriteString(pb)
	if o.Workload == "rubric" {
		y.WriteString(promptfooGrader(o))
	}
	y.WriteString("tests:\n")
	for i := range cases {
		c := &cases[i]
		as, err := promptfooAsserts(o, c)
		if err != nil {
			return err
		}
		y.WriteString("  - ")
		y.WriteString(jsonText(pfTest{Description: c.ID, Vars: pfVars{c.Input}, Assert: as})) // a JSON flow mapping is YAML
		y.WriteByte('\n')
	}
	return writeFile(o.Out, "promptfooconfig.yaml", y.String())
}

type (
	jlCase struct {
		ID      string `json:"id"`
		Input   string `json:"input"`
		Asserts []any  `json:"asserts"`
	}
	jlField struct {
		Type  string `json:"type"`
		Path  string `json:"path"`
		Value int    `json:"value"`
	}
)

func writeJSONL(o *Options, cases []Case) error {
	var b strings.Builder
	for i := range cases {
		c := &cases[i]
		asserts := []any{}
		if o.Workload == "rubric" {
			for _, cr := range c.Criteria() {
				asserts = append(asserts, pfAssert{"llm-rubric", cr})
			}
		}
		for _, k := range o.Asserts {
			switch k {
			case "equals":
				asserts = append(asserts, pfAssert{"equals", c.Expect.Equals})
			case "contains":
				asserts = append(asserts, pfAssert{"contains", c.Expect.Contains})
			case "regex":
				asserts = append(asserts, pfAssert{"regex", c.Expect.Regex})
			case "json":
				asserts = append(asserts, jlField{"json_field", c.Expect.JSONPath, c.Expect.JSONValue})
			}
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(jsonText(jlCase{c.ID, c.Input, asserts}))
	}
	b.WriteByte('\n')
	return writeFile(o.Out, "cases.jsonl", b.String())
}

type (
	egSuite struct {
		SuiteID string   `json:"suiteId"`
		Version string   `json:"version"`
		Modes   []string `json:"modes"`
		Tasks   []egTask `json:"tasks"`
	}
	egTask struct {
		TaskID   string     `json:"taskId"`
		Input    string     `json:"input"`
		Expected egExpected `json:"expected"`
	}
	egExpected struct {
		Kind   string        `json:"kind"`
		Match  *egMatch      `json:"match,omitempty"`
		Rubric []egCriterion `json:"rubric,omitempty"`
		Assert []egCheck     `json:"assert,omitempty"`
	}
	egCriterion struct {
		Criterion string  `json:"criterion"`
		Weight    float64 `json:"weight"`
	}
	egMatch struct {
		Strategy string `json:"strategy"`
		Value    string `json:"value"`
	}
	egCheck struct {
		Expr string `json:"expr"`
	}
)

// evalgateTask expresses a case's checks in an evalgate suite: equals as
// the exact match, the other three as expr assertions.
func evalgateTask(c *Case, kinds []string) egTask {
	t := egTask{TaskID: c.ID, Input: c.Input, Expected: egExpected{Kind: "golden"}}
	for _, k := range kinds {
		switch k {
		case "equals":
			t.Expected.Match = &egMatch{Strategy: "exact", Value: c.Expect.Equals}
		case "contains":
			t.Expected.Assert = append(t.Expected.Assert, egCheck{"output contains " + q(c.Expect.Contains)})
		case "regex":
			t.Expected.Assert = append(t.Expected.Assert, egCheck{"output matches " + q(c.Expect.Regex)})
		case "json":
			t.Expected.Assert = append(t.Expected.Assert, egCheck{fmt.Sprintf("fromJSON(output).%s == %d", c.Expect.JSONPath, c.Expect.JSONValue)})
		}
	}
	return t
}

// evalgateRubricTask expresses a case's criteria as a rubric task, each of
// weight 1: all three decided by the judge in one request.
func evalgateRubricTask(c *Case) egTask {
	t := egTask{TaskID: c.ID, Input: c.Input, Expected: egExpected{Kind: "rubric"}}
	for _, cr := range c.Criteria() {
		t.Expected.Rubric = append(t.Expected.Rubric, egCriterion{Criterion: cr, Weight: 1})
	}
	return t
}

func writeEvalgate(o *Options, cases []Case) error {
	s := egSuite{
		SuiteID: fmt.Sprintf("bench.evalgate.evals.%s-%d", o.Provider, o.N),
		Version: "1.0.0",
		Modes:   []string{"golden"},
		Tasks:   make([]egTask, len(cases)),
	}
	if o.Workload == "rubric" {
		s.SuiteID = fmt.Sprintf("bench.evalgate.evals.rubric-%s-%d", o.Provider, o.N)
		s.Modes = []string{"rubric"}
	}
	for i := range cases {
		if o.Workload == "rubric" {
			s.Tasks[i] = evalgateRubricTask(&cases[i])
		} else {
			s.Tasks[i] = evalgateTask(&cases[i], o.Asserts)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("could not encode the suite: %w", err)
	}
	if err := writeFile(o.Out, "evalgate.suite.json", b.String()); err != nil {
		return err
	}
	cfg := fmt.Sprintf("# generated by bench/gen: n=%d provider=%s\nsuites: [evalgate.suite.json]\n", o.N, o.Provider)
	if o.Workload == "rubric" {
		cfg = fmt.Sprintf("# generated by bench/gen: n=%d provider=%s workload=rubric\nsuites: [evalgate.suite.json]\n", o.N, o.Provider)
	}
	if o.Provider == "exec" {
		cfg += "agent:\n  plain: [" + q(o.AgentPlain) + "]\n"
	} else {
		cfg += fmt.Sprintf("agent:\n  openai: {baseURL: %s, model: mock-model}\n", q(o.baseURL()))
	}
	if o.Workload == "rubric" {
		cfg += fmt.Sprintf("judge:\n  openai: {baseURL: %s, model: mock-judge}\n  samples: 1\n", q(o.baseURL()))
	}
	return writeFile(o.Out, "evalgate.yaml", cfg)
}

func writeFile(dir, name, data string) error {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		return fmt.Errorf("could not write %q: %w", path, err)
	}
	return nil
}
