package cli

import (
	"math"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/judges"
)

// gradedLabels: people graded tool guidance 0, 1, 2 and 2; the judge below
// reads the level the output states and answers 0, 2, 2 and 1. By hand
// (judges.TestMeasureGraded): ρ = 0.5, quadratic-weighted κ = 7/11.
const gradedLabels = `{"output":"says 0","criterion":"Tool guidance.","scale":{"min":0,"max":2,"levels":{"0":"none","1":"names tools","2":"says when"}},"human":0}
{"output":"says 2","criterion":"Tool guidance.","scale":{"min":0,"max":2,"levels":{"0":"none","1":"names tools","2":"says when"}},"human":1}
{"output":"says 2","criterion":"Tool guidance.","scale":{"min":0,"max":2,"levels":{"0":"none","1":"names tools","2":"says when"}},"human":2}
{"output":"says 1","criterion":"Tool guidance.","scale":{"min":0,"max":2,"levels":{"0":"none","1":"names tools","2":"says when"}},"human":2}
`

// levelJudge answers the level an output states ("says 2"), for a graded
// criterion.
const levelJudge = `level=$(sed -n 's/.*"output":"says \([0-9]\)".*/\1/p')
echo "{\"criteria\":[{\"level\":$level,\"reason\":\"stated\"}]}"
`

func TestCalibrateGraded(t *testing.T) {
	dir := rubricProject(t, "judge:\n  exec: [sh, judge.sh]\n")
	writeFiles(t, dir, map[string]string{"judge.sh": levelJudge, "labels.jsonl": gradedLabels})
	res := runCLI(t, dir, nil, "calibrate", "--config", "evalgate.yaml", "--labels", "labels.jsonl")
	assert.Equal(t, res.code, ExitGateFail, "stderr:\n%s", res.stderr)
	golden.Assert(t, res.stdout, filepath.Join(testdata, "calibrate", "graded.golden"))

	cal, err := judges.ReadCalibration(filepath.Join(dir, ".evalgate", "calibration.json"))
	assert.NilError(t, err)
	assert.Equal(t, cal.N, 4)
	assert.Equal(t, *cal.Rho, 0.5)
	assert.Check(t, math.Abs(*cal.Kappa-7.0/11) < 1e-12, "κ = %v", *cal.Kappa)
	assert.Equal(t, cal.KappaWeights, "quadratic")
	assert.DeepEqual(t, cal.Scale, &judges.AgreementScale{Min: 0, Max: 2})
	assert.Equal(t, cal.Accuracy, 0.5)
}
