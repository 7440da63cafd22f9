package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/results"
)

const assessConfig = "../examples/assessment/evalgate.yaml"

// steadyAssessConfig is the assessment example's config with an hour as
// every complexity level's expected latency (assessment.latencyBaselineMs),
// so that the speed dimension is 1 however slowly a loaded machine runs
// the agent, as it is where the README's badge is made.
func steadyAssessConfig(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(assessConfig)
	assert.NilError(t, err)
	example, err := filepath.Abs(filepath.Dir(assessConfig))
	assert.NilError(t, err)
	config := string(data)
	for from, to := range map[string]string{
		"suites: [evals/]":          "suites: [" + filepath.Join(example, "evals") + "/]",
		"exec: [go, run, ../agent]": "exec: [go, run, " + filepath.Join(example, "..", "agent") + "]",
		"\nassessment:\n":           "\nassessment:\n  latencyBaselineMs: {1: 3600000, 2: 3600000, 3: 3600000, 4: 3600000, 5: 3600000}\n",
	} {
		assert.Assert(t, strings.Count(config, from) == 1, "%s no longer holds %q", assessConfig, from)
		config = strings.Replace(config, from, to, 1)
	}
	path := filepath.Join(t.TempDir(), "evalgate.yaml")
	assert.NilError(t, os.WriteFile(path, []byte(config), 0o644))
	return path
}

// TestAssessExample runs the assessment-ready example through a real exec
// agent, as scripts/assessment-example.sh does, and checks every output of
// the assessment: assessment.json, the SVG and PNG badges, the Markdown
// and the Open Badges credential; that the same results give the same
// bytes; and that the README's badge is what the script produces.
func TestAssessExample(t *testing.T) {
	t.Parallel()
	agent := buildExampleAgent(t)
	assessConfig := steadyAssessConfig(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runEvalgate(t, nil, "run", "--config", assessConfig, "--agent-cmd", agent, "--out", out,
		"--gate", `assessment.performance.tier >= "Expert"`, "--gate", `assessment.capability.score >= 0.5`)
	assert.Equal(t, code, ExitPass, "%s%s", stdout, stderr)
	assert.Equal(t, stderr, "", "no domain outside the taxonomy")

	// run wrote the summary into results.json and the files beside it.
	r := regrReadRun(t, out)
	assert.Assert(t, r.Assessment != nil)
	assert.Equal(t, r.Assessment.ID, r.RunID)
	assert.Equal(t, r.Assessment.TaskCount, 30)
	assert.Equal(t, r.Assessment.Performance.Tier, "Elite")
	assert.Equal(t, r.Assessment.Capability.Tier, "Full-Stack")
	assert.Assert(t, r.Assessment.Capability.Dimensions["learning_rate"] == nil)
	assert.Equal(t, r.Assessment.Capability.Reasons["learning_rate"], "no history")
	for _, name := range []string{"assessment.json", "assessment.svg", "assessment.png", "assessment.md"} {
		_, err := os.Stat(filepath.Join(out, name))
		assert.NilError(t, err, name)
	}

	// assess, twice, with the id and the time pinned.
	pinned := []string{"--config", assessConfig, "--id", "acme-support-desk-example", "--now", "2026-11-26T00:00:00Z"}
	dirs := [2]string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	for _, dir := range dirs {
		for _, format := range []string{"all", "openbadge"} {
			code, stdout, stderr = runEvalgate(t, nil, append([]string{"assess", out, "--out", dir, "--format", format}, pinned...)...)
			assert.Equal(t, code, ExitPass, "%s%s", stdout, stderr)
		}
	}
	assert.Check(t, is.Contains(stdout, "wrote "+filepath.Join(dirs[1], "assessment.openbadge.json")))
	for _, name := range []string{"assessment.json", "assessment.svg", "assessment.png", "assessment.md", "assessment.openbadge.json"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		assert.NilError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], name))
		assert.NilError(t, err)
		assert.Assert(t, bytes.Equal(a, b), "%s differs between two assessments of the same results", name)
	}
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dirs[0], name))
		assert.NilError(t, err)
		return data
	}

	// assessment.json: AAAF §4.5's shape with the evidence.
	var doc struct {
		Type  string `json:"type"`
		Agent struct {
			ID, Name string
		} `json:"agent"`
		Assessment struct {
			ID         string `json:"id"`
			Timestamp  string `json:"timestamp"`
			ValidUntil string `json:"valid_until"`
		} `json:"assessment"`
		Performance, Capability struct {
			CompositeScore *float64            `json:"composite_score"`
			Tier           string              `json:"tier"`
			Provisional    bool                `json:"provisional"`
			Dimensions     map[string]*float64 `json:"dimensions"`
		}
		StandardsAlignment []any `json:"standards_alignment"`
		Evidence           struct {
			Tasks      int `json:"tasks"`
			Dimensions map[string]struct {
				Counts map[string]int `json:"counts"`
				Reason string         `json:"reason"`
			} `json:"dimensions"`
		} `json:"evidence"`
	}
	assert.NilError(t, json.Unmarshal(read("assessment.json"), &doc))
	assert.Equal(t, doc.Type, "AgentAssessmentBadge")
	assert.Equal(t, doc.Agent.ID, "acme-support-desk")
	assert.Equal(t, doc.Assessment.ID, "acme-support-desk-example")
	assert.Equal(t, doc.Assessment.Timestamp, "2026-11-26T00:00:00Z")
	assert.Equal(t, doc.Assessment.ValidUntil, "2027-02-24T00:00:00Z")
	assert.Equal(t, doc.Performance.Tier, "Elite")
	assert.Assert(t, !doc.Performance.Provisional && !doc.Capability.Provisional)
	assert.Equal(t, len(doc.Performance.Dimensions), 5)
	assert.Equal(t, len(doc.Capability.Dimensions), 7)
	assert.Assert(t, doc.Capability.Dimensions["learning_rate"] == nil)
	assert.Equal(t, doc.Evidence.Dimensions["learning_rate"].Reason, "no history")
	assert.DeepEqual(t, doc.Evidence.Dimensions["delegation_capability"].Counts, map[string]int{"tasks": 4})
	assert.Equal(t, doc.Evidence.Tasks, 30)
	assert.Assert(t, len(doc.StandardsAlignment) > 0)
	// content-free: no task input or output reached it
	assert.Assert(t, !bytes.Contains(read("assessment.json"), []byte("A-40")))

	// The SVG: well-formed XML, 300×150, the two tiers' colours.
	svg := read("assessment.svg")
	var root struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Height  string `xml:"height,attr"`
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			assert.Equal(t, err.Error(), "EOF", "the SVG is well-formed")
			break
		}
	}
	assert.NilError(t, xml.Unmarshal(svg, &root))
	assert.Equal(t, root.XMLName.Local, "svg")
	assert.Equal(t, root.Width+"×"+root.Height, "300×150")
	assert.Check(t, strings.Count(string(svg), `fill="#FFD700"`) == 2, "Elite and Full-Stack are gold")
	assert.Check(t, is.Contains(string(svg), "Acme Support Desk"))
	assert.Check(t, is.Contains(string(svg), "Valid until 2027-02-24"))

	// The PNG decodes, at 600×300.
	img, err := png.Decode(bytes.NewReader(read("assessment.png")))
	assert.NilError(t, err)
	assert.Equal(t, img.Bounds().Dx(), 600)
	assert.Equal(t, img.Bounds().Dy(), 300)

	md := string(read("assessment.md"))
	assert.Check(t, is.Contains(md, "| Performance | 0.95 | Elite |"))
	assert.Check(t, is.Contains(md, "| `learning_rate` | 0.1 | — | null: no history"))

	// The Open Badges 3.0 credential is valid against its schema.
	validateOpenBadge(t, read("assessment.openbadge.json"))

	// The README's badge is what scripts/assessment-example.sh produces.
	committed, err := os.ReadFile("../docs/assessment-example.svg")
	assert.NilError(t, err)
	assert.Assert(t, bytes.Equal(committed, svg), "docs/assessment-example.svg is out of date: run scripts/assessment-example.sh")

	// A baseline carrying an assessment: the movement is recorded.
	again := filepath.Join(t.TempDir(), "again")
	code, stdout, stderr = runEvalgate(t, nil, "run", "--config", assessConfig, "--agent-cmd", agent, "--out", again,
		"--baseline", filepath.Join(out, "results.json"))
	assert.Equal(t, code, ExitPass, "%s%s", stdout, stderr)
	r2 := regrReadRun(t, again)
	assert.Equal(t, r2.Assessment.BaselineRunID, r.RunID)
	assert.Assert(t, r2.Assessment.Performance.Delta != nil && !r2.Assessment.Performance.Flagged)
	sc, err := os.ReadFile(filepath.Join(again, "scorecard.md"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(sc), "### Assessment (AAAF dual axis)"))
}

func validateOpenBadge(t *testing.T, data []byte) {
	t.Helper()
	f, err := os.Open("testdata/assessment/ob_v3p0_achievementcredential_schema.json")
	assert.NilError(t, err)
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	assert.NilError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	assert.NilError(t, c.AddResource("ob.json", schemaDoc))
	sch, err := c.Compile("ob.json")
	assert.NilError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	assert.NilError(t, err)
	assert.NilError(t, sch.Validate(doc))
	// and a credential without a tier result type is not
	var m map[string]any
	assert.NilError(t, json.Unmarshal(data, &m))
	delete(m["credentialSubject"].(map[string]any), "achievement")
	broken, _ := json.Marshal(m)
	doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(broken))
	assert.NilError(t, err)
	assert.Assert(t, sch.Validate(doc) != nil, "the schema checks the subject")
}

// TestAssessErrors: what a newcomer gets wrong is exit 2 with one clear
// line.
func TestAssessErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "results.json")
	assert.NilError(t, results.Write(good, &results.Run{Schema: results.Schema, RunID: "r1", Suites: []results.Suite{}}))
	badConfig := filepath.Join(dir, "evalgate.yaml")
	assert.NilError(t, os.WriteFile(badConfig, []byte("assessment:\n  weights:\n    performance: {sped: 1}\n"), 0o644))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no results", []string{"assess"}, "evalgate: assess: expected one or more results.json files (or the folders holding them); several are the shards of one run\n"},
		{"missing file", []string{"assess", filepath.Join(dir, "nope.json")}, "evalgate: could not read results \"" + filepath.Join(dir, "nope.json") + "\": no such file or directory\n"},
		{"mistyped flag", []string{"assess", good, "--fromat", "svg"}, "--format"},
		{"bad format", []string{"assess", good, "--format", "gif"}, "evalgate: --format: expected one of all, json, svg, png, md, openbadge, got \"gif\"\n"},
		{"bad time", []string{"assess", good, "--now", "yesterday"}, "evalgate: --now: expected a time in RFC 3339 such as 2026-11-26T12:00:00Z, got \"yesterday\"\n"},
		{"bad config", []string{"assess", good, "--config", badConfig}, badConfig + `:3:19: assessment.weights.performance: unknown key "sped"; did you mean "speed"?`},
		{"baseline without assessment", []string{"assess", good, "--baseline", good}, "carries no assessment"},
		{"bad history", []string{"assess", good, "--history", badConfig}, "could not read the assessment history"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runEvalgate(t, nil, c.args...)
			assert.Equal(t, code, ExitInvalid, "%s%s", stdout, stderr)
			assert.Check(t, is.Contains(stderr, c.want))
			assert.Check(t, !strings.Contains(stderr, "*results.") && !strings.Contains(stderr, "struct"), "no Go type in %q", stderr)
		})
	}
}

// TestAssessGatesWithoutAssessment: a gate reading the assessment of a run
// whose config has no assessment: fails with the fix, and an unknown tier
// stops the run before it starts.
func TestAssessGatesWithoutAssessment(t *testing.T) {
	dir := exampleProject(t)
	t.Chdir(dir)
	code, stdout, _ := runEvalgate(t, nil, "run", "--gate", `assessment.performance.tier >= "Proficient"`)
	assert.Equal(t, code, ExitGateFail)
	assert.Check(t, is.Contains(stdout, "no assessment: add assessment: to evalgate.yaml"))
	code, _, stderr := runEvalgate(t, nil, "run", "--gate", `assessment.performance.tier >= "Pro"`)
	assert.Equal(t, code, ExitInvalid)
	assert.Check(t, is.Contains(stderr, `unknown performance tier "Pro"; the tiers are "Novice" < "Competent" < "Proficient" < "Expert" < "Elite"`))
}

// TestValidateWarnsOfDomains: validate and run warn, at the task's line,
// of a domain the assessment's taxonomy does not have; the suite is valid.
func TestValidateWarnsOfDomains(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"evalgate.yaml": "suites: [evals/]\nassessment:\n  taxonomy: [billing, shipping]\n",
		"evals/s.yaml": "suiteId: a.evals.b\nversion: 1.0.0\nmodes: [golden]\ntasks:\n" +
			"  - taskId: t1\n    metadata: {domain: billing, complexity: 2}\n    input: x\n    expected: {kind: golden, match: {strategy: exact, value: x}}\n" +
			"  - taskId: t2\n    metadata: {domain: code}\n    input: x\n    expected: {kind: golden, match: {strategy: exact, value: x}}\n",
	})
	t.Chdir(dir)
	code, stdout, stderr := runEvalgate(t, nil, "validate")
	assert.Equal(t, code, ExitPass, stdout)
	assert.Equal(t, stderr, `evals/s.yaml:9:5: warning: task "t2": domain "code" is not in the assessment taxonomy (billing, shipping), so domain_breadth does not count it; set assessment.taxonomy in evalgate.yaml to use domains of your own`+"\n")
}

// TestSuiteComplexityBounds: complexity 0 and 6 are errors at their place.
func TestSuiteComplexityBounds(t *testing.T) {
	dir := t.TempDir()
	suite := func(c int) string {
		return fmt.Sprintf("suiteId: a.evals.b\nversion: 1.0.0\nmodes: [golden]\ntasks:\n  - taskId: t1\n    metadata: {complexity: %d}\n    input: x\n    expected: {kind: golden, match: {strategy: exact, value: x}}\n", c)
	}
	writeFiles(t, dir, map[string]string{"zero.yaml": suite(0), "six.yaml": suite(6)})
	t.Chdir(dir)
	code, stdout, _ := runEvalgate(t, nil, "validate", "zero.yaml", "six.yaml")
	assert.Equal(t, code, ExitInvalid)
	assert.Check(t, is.Contains(stdout, "six.yaml:6:28: /tasks/0/metadata/complexity: expected a number <= 5, got 6 [schema]"))
	assert.Check(t, is.Contains(stdout, "zero.yaml:6:28: /tasks/0/metadata/complexity: expected a number >= 1, got 0 [schema]"))
}

// TestAssessShardsAndHistory: shards run with assessment: merge into one
// assessed run, assess takes the shards as one run, and an earlier
// assessment.json as history makes learning_rate measurable.
func TestAssessShardsAndHistory(t *testing.T) {
	t.Parallel()
	agent := buildExampleAgent(t)
	dir := t.TempDir()
	shards := []string{filepath.Join(dir, "s1"), filepath.Join(dir, "s2")}
	for i, out := range shards {
		code, stdout, stderr := runEvalgate(t, nil, "run", "--config", assessConfig, "--agent-cmd", agent, "--out", out, "--shard", fmt.Sprintf("%d/2", i+1),
			"--gate", "taskCount > 0") // a shard's share of a suite may miss its bar
		assert.Equal(t, code, ExitPass, "%s%s", stdout, stderr)
	}
	merged := filepath.Join(dir, "merged")
	code, stdout, stderr := runEvalgate(t, nil, "merge", "--config", assessConfig, "--out", merged, shards[0], shards[1])
	assert.Equal(t, code, ExitPass, "%s%s", stdout, stderr)
	r := regrReadRun(t, merged)
	assert.Assert(t, r.Assessment != nil)
	assert.Equal(t, r.Assessment.TaskCount, 30)
	_, err := os.Stat(filepath.Join(merged, "assessment.svg"))
	assert.NilError(t, err)

	// The shards given to assess are one run of 30 tasks.
	out := filepath.Join(dir, "assessed")
	history := filepath.Join(dir, "q3.json")
	assert.NilError(t, os.WriteFile(history, []byte(`{"type":"AgentAssessmentBadge","assessment":{"timestamp":"2026-08-01T00:00:00Z"},"performance":{"composite_score":0.8}}`), 0o644))
	code, stdout, stderr = runEvalgate(t, nil, "assess", shards[0], shards[1], "--config", assessConfig, "--out", out, "--format", "json", "--history", history)
	assert.Equal(t, code, ExitPass, "%s%s", stdout, stderr)
	assert.Check(t, is.Contains(stdout, "over 30 tasks"))
	var doc struct {
		Capability struct {
			Dimensions map[string]*float64 `json:"dimensions"`
		} `json:"capability"`
		Performance struct {
			CompositeScore float64 `json:"composite_score"`
		} `json:"performance"`
	}
	data, err := os.ReadFile(filepath.Join(out, "assessment.json"))
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(data, &doc))
	lr := doc.Capability.Dimensions["learning_rate"]
	assert.Assert(t, lr != nil, "learning_rate measured from the history")
	want := min(1, max(0, (doc.Performance.CompositeScore-0.8)/0.3))
	assert.Check(t, *lr > want-1e-9 && *lr < want+1e-9, "learning_rate %v, want %v", *lr, want)
}
