package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/judges"
)

// calibrationLabels: the quoted-word judge meets lines 1, 3 and 5; people
// said 1, 3 and 6 (0.8), and scored line 5 at 0.3. Hand-computed: accuracy
// 4/6, κ = 1/3, ρ = 10.5/√(13.5·16.5) ≈ 0.704.
const calibrationLabels = `{"input":"Refund A-17?","output":"We will refund you.","criterion":"Says \"refund\".","human":true}
{"input":"Refund A-17?","output":"No.","criterion":"Says \"refund\".","human":false}
{"output":"So sorry about that.","criterion":"Says \"sorry\".","human":1}
{"output":"Fine.","criterion":"Says \"sorry\".","human":0}
{"output":"It was refunded already.","criterion":"Says \"refund\".","human":0.3}
{"output":"Our apologies.","criterion":"Says \"sorry\".","human":0.8}
`

func calibrationProject(t *testing.T) string {
	judge, err := os.ReadFile(filepath.Join(testdata, "rubric", "judge.py"))
	assert.NilError(t, err)
	dir := rubricProject(t, "judge:\n  exec: [python3, judge.py]\n")
	writeFiles(t, dir, map[string]string{"judge.py": string(judge), "labels.jsonl": calibrationLabels})
	return dir
}

func TestCalibrate(t *testing.T) {
	type testCase struct {
		name         string
		args         []string
		wantCode     int
		wantPassed   bool
		wantCalInRun bool // results.json then says calibrated
	}
	run := func(t *testing.T, tc testCase) {
		dir := calibrationProject(t)
		res := runCLI(t, dir, nil, append([]string{"calibrate", "--config", "evalgate.yaml", "--labels", "labels.jsonl"}, tc.args...)...)
		assert.Equal(t, res.code, tc.wantCode, "stderr:\n%s", res.stderr)
		golden.Assert(t, res.stdout, filepath.Join(testdata, "calibrate", strings.ReplaceAll(tc.name, " ", "-")+".golden"))

		cal, err := judges.ReadCalibration(filepath.Join(dir, ".evalgate", "calibration.json"))
		assert.NilError(t, err)
		assert.Equal(t, cal.JudgeID, "exec:python3 judge.py")
		assert.Equal(t, cal.N, 6)
		assert.Equal(t, cal.Passed, tc.wantPassed)
		assert.Equal(t, cal.Confusion, judges.Confusion{BothMet: 2, JudgeOnly: 1, HumanOnly: 1, Neither: 2})

		res = runCLI(t, dir, nil, "run", "--config", "evalgate.yaml")
		assert.Equal(t, res.code, ExitPass, res.stderr)
		info := resultsOf(t, filepath.Join(dir, "out", "results.json")).Judge
		assert.Equal(t, info.Calibrated, tc.wantCalInRun)
		assert.Assert(t, info.Agreement != nil && *info.Agreement == *cal.Rho)
	}
	testCases := []testCase{
		{name: "below the bar", wantCode: ExitGateFail},
		{name: "over a lower bar", args: []string{"--min-agreement", "0.7"}, wantCode: ExitPass, wantPassed: true, wantCalInRun: true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestCalibrateWritesBesideTheConfig checks where docs/judges.md says the
// calibration goes: next to evalgate.yaml, whatever the working directory,
// named on the last line, and read there by the next run.
func TestCalibrateWritesBesideTheConfig(t *testing.T) {
	dir := calibrationProject(t)
	parent := filepath.Dir(dir)
	sub := filepath.Base(dir)
	res := runCLI(t, parent, nil, "calibrate", "--config", filepath.Join(sub, "evalgate.yaml"),
		"--labels", filepath.Join(sub, "labels.jsonl"), "--min-agreement", "0.7")
	assert.Equal(t, res.code, ExitPass, "stderr:\n%s", res.stderr)
	written := filepath.Join(sub, ".evalgate", "calibration.json")
	assert.Check(t, strings.HasSuffix(res.stdout, "wrote "+written+"; commit it: every run reads it to say whether the judge is calibrated\n"), res.stdout)
	_, err := os.Stat(filepath.Join(parent, ".evalgate"))
	assert.Check(t, os.IsNotExist(err), "nothing is written in the working directory")
	cal, err := judges.ReadCalibration(filepath.Join(dir, ".evalgate", "calibration.json"))
	assert.NilError(t, err)
	assert.Check(t, cal.Passed)

	res = runCLI(t, parent, nil, "run", "--config", filepath.Join(sub, "evalgate.yaml"))
	assert.Equal(t, res.code, ExitPass, res.stderr)
	assert.Check(t, resultsOf(t, filepath.Join(dir, "out", "results.json")).Judge.Calibrated)
}

func TestCalibrationIsForOneJudge(t *testing.T) {
	dir := calibrationProject(t)
	res := runCLI(t, dir, nil, "calibrate", "--config", "evalgate.yaml", "--labels", "labels.jsonl", "--min-agreement", "0.5")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	// The judge program changes: the calibration no longer describes it.
	writeFiles(t, dir, map[string]string{"judge.py": "# edited\n" + fileText(t, filepath.Join(dir, "judge.py"))})
	res = runCLI(t, dir, nil, "run", "--config", "evalgate.yaml")
	assert.Equal(t, res.code, ExitPass, res.stderr)
	info := resultsOf(t, filepath.Join(dir, "out", "results.json")).Judge
	assert.Assert(t, !info.Calibrated && info.Agreement == nil, "%+v", info)
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	assert.NilError(t, err)
	return string(b)
}

func TestCalibrateErrors(t *testing.T) {
	type testCase struct {
		name       string
		judge      string // the config's judge block
		labels     string
		args       []string
		wantCode   int
		wantStderr string
	}
	run := func(t *testing.T, tc testCase) {
		dir := calibrationProject(t)
		writeFiles(t, dir, map[string]string{"labels.jsonl": tc.labels})
		if tc.judge != "-" {
			writeFiles(t, dir, map[string]string{"evalgate.yaml": tc.judge})
		}
		args := append([]string{"calibrate", "--config", "evalgate.yaml"}, tc.args...)
		res := runCLI(t, dir, nil, args...)
		assert.Equal(t, res.code, tc.wantCode, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
		assert.Assert(t, strings.Contains(res.stderr, tc.wantStderr), "stderr:\n%s", res.stderr)
		_, err := os.Stat(filepath.Join(dir, ".evalgate", "calibration.json"))
		assert.Assert(t, os.IsNotExist(err), "a failed calibration writes nothing")
	}
	testCases := []testCase{
		{
			name: "bad labels file", judge: "-", args: []string{"--labels", "labels.jsonl"},
			labels:     calibrationLabels + "{\"output\":\"x\",\"human\":2}\n",
			wantCode:   ExitInvalid,
			wantStderr: "labels.jsonl:7: human: expected true, false or a number from 0 to 1; criterion is required",
		},
		{name: "no labels flag", judge: "-", labels: calibrationLabels, wantCode: ExitInvalid, wantStderr: "--labels is required"},
		{name: "missing labels file", judge: "-", args: []string{"--labels", "nope.jsonl"}, wantCode: ExitInvalid, wantStderr: `could not read labels "nope.jsonl"`},
		{
			name: "no judge configured", judge: "suites: [evals/]\n", args: []string{"--labels", "labels.jsonl"},
			labels: calibrationLabels, wantCode: ExitInvalid, wantStderr: "no judge configured",
		},
		{
			name: "judge that cannot start", judge: "judge:\n  exec: [./missing-judge]\n", args: []string{"--labels", "labels.jsonl"},
			labels: calibrationLabels, wantCode: ExitRunError, wantStderr: "judge unreachable: the judge was unreachable for",
		},
		{
			name: "judge that answers badly", judge: "judge:\n  exec: [sh, -c, 'echo nonsense']\n", args: []string{"--labels", "labels.jsonl"},
			labels: calibrationLabels, wantCode: ExitRunError, wantStderr: "did not answer with a JSON object",
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestCalibrateIgnoresPlantedVerdicts checks that verdicts planted in the
// judge cache cannot calibrate a judge: calibrate asks the judge again,
// says so on stderr, and measures the same agreement as before.
func TestCalibrateIgnoresPlantedVerdicts(t *testing.T) {
	dir := calibrationProject(t)
	env := map[string]string{"EVALGATE_CACHE_KEY": "calibration-secret-0123456789"}
	args := []string{"calibrate", "--config", "evalgate.yaml", "--labels", "labels.jsonl", "--min-agreement", "0.9"}
	res := runCLI(t, dir, env, args...)
	assert.Equal(t, res.code, ExitGateFail, "stderr:\n%s", res.stderr)
	honest := res.stdout

	// Every entry now agrees with the labels, without a valid MAC.
	entries, err := filepath.Glob(filepath.Join(dir, ".evalgate", "cache", "judge", "*", "*.json"))
	assert.NilError(t, err)
	assert.Equal(t, len(entries), 6)
	for _, e := range entries {
		assert.NilError(t, os.WriteFile(e, []byte(`{"met":[true],"reasons":["planted"]}`), 0o644))
	}
	res = runCLI(t, dir, env, args...)
	assert.Equal(t, res.code, ExitGateFail, "stderr:\n%s", res.stderr)
	assert.Equal(t, res.stdout, honest)
	assert.Assert(t, strings.Contains(res.stderr, "evalgate: warning: 6 judge cache entries in .evalgate/cache/judge failed their check and were ignored; the judge was asked again."), "stderr:\n%s", res.stderr)
}
