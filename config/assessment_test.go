package config

import (
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseAssessment(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "evalgate.yaml")
	src := `
assessment:
  agent: {id: acme-support, name: Acme Support}
  organization: Acme
  weights:
    performance: {accuracy: 0.4, speed: 0}
    capability: {learning_rate: 0}
  taxonomy: [billing, shipping]
  latencyBaselineMs: {1: 2000, 5: 90000}
  validDays: 30
  history: [old/results.json]
`
	c, err := Parse(path, []byte(src))
	assert.NilError(t, err)
	want := &Assessment{
		AgentID: "acme-support", AgentName: "Acme Support", Organization: "Acme",
		Weights:           map[string]float64{"accuracy": 0.4, "speed": 0, "learning_rate": 0},
		Taxonomy:          []string{"billing", "shipping"},
		LatencyBaselineMs: map[int]float64{1: 2000, 5: 90000},
		ValidDays:         30,
		History:           []string{filepath.Join(dir, "old/results.json")},
	}
	assert.Check(t, is.DeepEqual(want, c.Assessment))
	o := c.Assessment.Options()
	assert.Equal(t, o.Agent.Name, "Acme Support")
	assert.Equal(t, o.Weights["accuracy"], 0.4)

	c, err = Parse(path, []byte("suites: [a]\n"))
	assert.NilError(t, err)
	assert.Assert(t, c.Assessment == nil)
	// the key alone turns the assessment on with AAAF's defaults
	c, err = Parse(path, []byte("assessment:\n"))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(&Assessment{}, c.Assessment))
}

func TestParseAssessmentErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{
			name: "unknown dimension names the axis's",
			src:  "assessment:\n  weights:\n    performance: {acuracy: 0.3}\n",
			want: []string{`evalgate.yaml:3:19: assessment.weights.performance: unknown key "acuracy"; did you mean "accuracy"?`},
		},
		{
			name: "a dimension of the other axis",
			src:  "assessment:\n  weights:\n    capability: {speed: 0.3}\n",
			want: []string{`evalgate.yaml:3:18: assessment.weights.capability: unknown key "speed"; expected one of "autonomy_level", "complexity_ceiling", "delegation_capability", "domain_breadth", "learning_rate", "orchestration_skills", "tool_proficiency"`},
		},
		{
			name: "unknown axis",
			src:  "assessment:\n  weights:\n    speed: {}\n",
			want: []string{`evalgate.yaml:3:5: assessment.weights: unknown key "speed"; expected one of "capability", "performance"`},
		},
		{
			name: "weights summing to 0",
			src:  "assessment:\n  weights:\n    performance: {task_completion_rate: 0, accuracy: 0, speed: 0, consistency: 0, review_compliance: 0}\n",
			want: []string{`evalgate.yaml:3:18: assessment.weights.performance: the weights of the axis sum to 0; give at least one dimension a weight above 0`},
		},
		{
			name: "bad values",
			src:  "assessment:\n  weights: {performance: {speed: -1}}\n  validDays: 0\n  latencyBaselineMs: {0: 100, 2: fast}\n  taxonomy: [code, code, '']\n  agent: {team: x}\n",
			want: []string{
				`evalgate.yaml:2:34: assessment.weights.performance.speed: expected a number >= 0`,
				`evalgate.yaml:3:14: assessment.validDays: expected an integer >= 1`,
				`evalgate.yaml:4:23: assessment.latencyBaselineMs: unknown level "0"; expected a complexity level from 1 to 5`,
				`evalgate.yaml:4:34: assessment.latencyBaselineMs.2: expected a number of milliseconds above 0`,
				`evalgate.yaml:5:20: assessment.taxonomy[1]: domain "code" is listed twice`,
				`evalgate.yaml:5:26: assessment.taxonomy[2]: expected a domain name, got an empty string`,
				`evalgate.yaml:6:11: assessment.agent: unknown key "team"; expected one of "id", "name"`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("evalgate.yaml", []byte(c.src))
			assert.Assert(t, err != nil)
			assert.Check(t, is.DeepEqual(c.want, strings.Split(err.Error(), "\n")))
		})
	}
}
