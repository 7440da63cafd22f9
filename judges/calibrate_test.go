package judges

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/internal/chat"
)

func TestSpearman(t *testing.T) {
	type testCase struct {
		name   string
		x, y   []float64
		want   float64
		wantOK bool
	}
	run := func(t *testing.T, tc testCase) {
		got, ok := Spearman(tc.x, tc.y)
		assert.Equal(t, ok, tc.wantOK)
		assert.Assert(t, math.Abs(got-tc.want) < 1e-9, "ρ = %v, want %v", got, tc.want)
	}
	testCases := []testCase{
		{name: "same order", x: []float64{0.1, 0.4, 0.9}, y: []float64{0, 0.5, 1}, want: 1, wantOK: true},
		{name: "reversed", x: []float64{1, 2, 3, 4}, y: []float64{9, 7, 5, 1}, want: -1, wantOK: true},
		// y ranks 1, 2, 3.5, 5, 3.5: Σdxdy = 8, Σdx² = 10, Σdy² = 9.5, ρ = 8/√95.
		{name: "ties take average ranks", x: []float64{1, 2, 3, 4, 5}, y: []float64{5, 6, 7, 8, 7}, want: 8 / math.Sqrt(95), wantOK: true},
		// Binary against binary: ρ is the phi coefficient, (2·2 − 1·1)/√(3·3·3·3) = 1/3.
		{name: "binary verdicts", x: []float64{1, 1, 0, 0, 1, 0}, y: []float64{1, 0, 0, 0, 1, 1}, want: 1.0 / 3, wantOK: true},
		// Ranks x 1..4, y 1, 3, 2, 4: Σd² = 2, ρ = 1 − 6·2/(4·15) = 0.8.
		{name: "one swap in four", x: []float64{0.1, 0.2, 0.3, 0.4}, y: []float64{0, 0.6, 0.5, 1}, want: 0.8, wantOK: true},
		{name: "constant side is undefined", x: []float64{1, 1, 1}, y: []float64{0, 1, 1}, wantOK: false},
		{name: "one value is undefined", x: []float64{1}, y: []float64{1}, wantOK: false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestCohenKappa(t *testing.T) {
	type testCase struct {
		name   string
		a, b   string // "y" met, "n" not met
		want   float64
		wantOK bool
	}
	bools := func(s string) []bool {
		out := make([]bool, len(s))
		for i, c := range s {
			out[i] = c == 'y'
		}
		return out
	}
	run := func(t *testing.T, tc testCase) {
		got, ok := CohenKappa(bools(tc.a), bools(tc.b))
		assert.Equal(t, ok, tc.wantOK)
		assert.Assert(t, math.Abs(got-tc.want) < 1e-9, "κ = %v, want %v", got, tc.want)
	}
	testCases := []testCase{
		{name: "perfect", a: "yynn", b: "yynn", want: 1, wantOK: true},
		// po = 4/6, pe = .5·.5 + .5·.5 = .5, κ = (2/3 − 1/2)/(1/2) = 1/3.
		{name: "two disagreements in six", a: "yynnyn", b: "ynnnyy", want: 1.0 / 3, wantOK: true},
		// po = 0, pe = .5, κ = −1.
		{name: "always opposite", a: "ynyn", b: "nyny", want: -1, wantOK: true},
		// a yes 8/10, b yes 6/10: po = .8 (6 both yes, 2 both no),
		// pe = .8·.6 + .2·.4 = .56, κ = (.8 − .56)/(.44) = 6/11.
		{name: "unbalanced", a: "yyyyyyyynn", b: "yyyyyynnnn", want: 6.0 / 11, wantOK: true},
		// Both say yes every time: pe = 1, undefined.
		{name: "both constant", a: "yyy", b: "yyy", wantOK: false},
		{name: "empty", a: "", b: "", wantOK: false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestMeasure(t *testing.T) {
	judge := []float64{1, 1, 0, 0, 1, 0}
	human := []float64{1, 0.2, 0, 0.49, 0.5, 0.9}
	a := Measure(judge, human)
	want := Confusion{BothMet: 2, JudgeOnly: 1, HumanOnly: 1, Neither: 2}
	assert.Check(t, is.DeepEqual(want, a.Confusion), "confusion")
	assert.Equal(t, a.N, 6)
	assert.Assert(t, math.Abs(a.Accuracy-4.0/6) < 1e-9)
	assert.Assert(t, a.Kappa != nil && math.Abs(*a.Kappa-1.0/3) < 1e-9, "κ on the 0.5 threshold")
	// ρ uses the human scores themselves: judge ranks 5,5,2,2,5,2; human
	// ranks 6,2,1,3,4,5 → Pearson of the ranks.
	rho, ok := Spearman(judge, human)
	assert.Assert(t, ok)
	assert.Equal(t, *a.Rho, rho)

	undefined := Measure([]float64{1, 1}, []float64{1, 1})
	assert.Assert(t, undefined.Rho == nil && undefined.Kappa == nil)
	assert.Equal(t, undefined.Accuracy, 1.0)
}

func TestParseLabels(t *testing.T) {
	labels, err := ParseLabels("labels.jsonl", strings.NewReader(`{"input":"Where is C-3?","output":"C-3 is in transit.","criterion":"Names the order.","human":true}

{"output":{"reply":"hi"},"criterion":"Is polite.","human":0.75}
{"output":"x","criterion":"c","human":false}
`))
	assert.NilError(t, err)
	assert.Equal(t, len(labels), 3)
	assert.Equal(t, labels[0].Line, 1)
	assert.Equal(t, labels[0].Human, 1.0)
	assert.Equal(t, labels[1].Line, 3)
	assert.Equal(t, string(labels[1].Input), "null")
	assert.Equal(t, string(labels[1].Output), `{"reply":"hi"}`)
	assert.Equal(t, labels[1].Human, 0.75)
	assert.Equal(t, labels[2].Human, 0.0)
}

func TestParseLabelsErrors(t *testing.T) {
	type testCase struct {
		name  string
		input string
	}
	run := func(t *testing.T, tc testCase) {
		_, err := ParseLabels("labels.jsonl", strings.NewReader(tc.input))
		assert.Assert(t, err != nil)
		golden.Assert(t, err.Error()+"\n", filepath.Join("labels", tc.name+".golden"))
	}
	testCases := []testCase{
		{name: "every-problem", input: `{"output":"x","criterion":"c","human":true}
not json
{"output":"x","criterion":"","human":"yes"}
{"criterion":"c","human":1.5}
{"output":"x","criterion":"c","human":null,"score":1}
[1,2]
`},
		{name: "too-few", input: `{"output":"x","criterion":"c","human":true}` + "\n"},
		{name: "empty", input: ""},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestJudgeLabels(t *testing.T) {
	f, url := newFakeModel(t, func(_ int, req *chat.Request) (int, string) {
		// Met when the output the prompt shows says "yes".
		return 200, completion(verdicts(strings.Contains(req.Messages[1].Text(), "## Agent output\nyes")), 10, 1)
	})
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "m"})
	labels, err := ParseLabels("l.jsonl", strings.NewReader(`{"output":"yes","criterion":"c","human":true}
{"output":"no","criterion":"c","human":false}
{"output":"yes","criterion":"c","human":0.2}
`))
	assert.NilError(t, err)
	scores, err := JudgeLabels(context.Background(), j, labels)
	assert.NilError(t, err)
	assert.DeepEqual(t, scores, []float64{1, 0, 1})
	assert.Equal(t, f.callCount(), 3)
	for _, r := range f.requests {
		assert.Assert(t, strings.Contains(r.Messages[1].Text(), "1. c\n"))
	}
}

func TestCalibrationFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".evalgate", "calibration.json")
	missing, err := ReadCalibration(path)
	assert.NilError(t, err)
	assert.Assert(t, missing == nil)

	rho := 0.85
	c := &Calibration{JudgeID: "openai:m", Fingerprint: Fingerprint("id-1"), Labels: "l.jsonl", MinAgreement: 0.8, Passed: true,
		Date: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Agreement: Agreement{N: 10, Rho: &rho, Accuracy: 0.9}}
	assert.NilError(t, WriteCalibration(path, c))
	got, err := ReadCalibration(path)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(c, got), "calibration")
	assert.Assert(t, got.Matches("id-1"))
	assert.Assert(t, !got.Matches("id-2"))
}
