package judges

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestMajority(t *testing.T) {
	type testCase struct {
		name    string
		samples [][]bool
		want    []bool
	}
	run := func(t *testing.T, tc testCase) {
		assert.Check(t, is.DeepEqual(tc.want, Majority(tc.samples)), "Majority")
	}
	testCases := []testCase{
		{name: "one sample is its own verdict", samples: [][]bool{{true, false}}, want: []bool{true, false}},
		{name: "two of three", samples: [][]bool{{true, false}, {true, true}, {false, false}}, want: []bool{true, false}},
		{name: "a tie is not met", samples: [][]bool{{true, false}, {false, true}}, want: []bool{false, false}},
		{name: "two of four is a tie", samples: [][]bool{{true}, {true}, {false}, {false}}, want: []bool{false}},
		{name: "three of four", samples: [][]bool{{true}, {true}, {false}, {true}}, want: []bool{true}},
		{name: "unanimous", samples: [][]bool{{true, true}, {true, true}, {true, true}}, want: []bool{true, true}},
		{name: "no samples", samples: nil, want: nil},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestParseAnswer(t *testing.T) {
	type testCase struct {
		name        string
		text        string
		want        int
		wantMet     []bool
		wantReasons []string
		wantErr     string
	}
	run := func(t *testing.T, tc testCase) {
		met, reasons, err := parseAnswer([]byte(tc.text), tc.want)
		if tc.wantErr != "" {
			assert.Assert(t, err != nil && err.Error() == tc.wantErr, "error = %v, want %q", err, tc.wantErr)
			return
		}
		assert.NilError(t, err)
		assert.Check(t, is.DeepEqual(tc.wantMet, met), "met")
		assert.Check(t, is.DeepEqual(tc.wantReasons, reasons), "reasons")
	}
	testCases := []testCase{
		{
			name: "plain object", want: 2,
			text:    `{"criteria":[{"met":true,"reason":"a"},{"met":false,"reason":"b"}]}`,
			wantMet: []bool{true, false}, wantReasons: []string{"a", "b"},
		},
		{
			name: "code fence", want: 1,
			text:    "```json\n{\"criteria\":[{\"met\":true,\"reason\":\"ok\"}]}\n```",
			wantMet: []bool{true}, wantReasons: []string{"ok"},
		},
		{
			name: "prose around the object", want: 1,
			text:    "Here is my verdict:\n{\"criteria\":[{\"met\":false}]}\nHope it helps.",
			wantMet: []bool{false}, wantReasons: []string{""},
		},
		{name: "too few entries", want: 2, text: `{"criteria":[{"met":true}]}`, wantErr: "the judge answered 1 criteria, want 2"},
		{name: "too many entries", want: 1, text: `{"criteria":[{"met":true},{"met":true}]}`, wantErr: "the judge answered 2 criteria, want 1"},
		{name: "missing met", want: 1, text: `{"criteria":[{"reason":"x"}]}`, wantErr: `the judge's answer for criterion 1 has no "met"`},
		{
			name: "met is a string", want: 1, text: `{"criteria":[{"met":"yes"}]}`,
			wantErr: `the judge's answer is not the expected JSON object {"criteria": [{"met": true, "reason": "..."}]}: unexpected string at criteria/met`,
		},
		{name: "not JSON", want: 1, text: `I think it is fine.`, wantErr: "the judge did not answer with a JSON object"},
		{name: "empty", want: 1, text: "  \n", wantErr: "the judge answered nothing"},
		{name: "an array, not an object", want: 1, text: `[{"met":true}]`, wantErr: "the judge answered 0 criteria, want 1"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
