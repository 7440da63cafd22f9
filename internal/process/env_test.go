package process

import (
	"slices"
	"strconv"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestScrubEnv(t *testing.T) {
	type testCase struct {
		name   string
		parent []string
		drop   []string
		extra  map[string]string
		want   []string
	}
	run := func(t *testing.T, tc testCase) {
		got := ScrubEnv(tc.parent, tc.drop, tc.extra)
		assert.Check(t, is.DeepEqual(tc.want, got), "ScrubEnv")
	}
	for _, tc := range []testCase{
		{
			name: "tokens removed, the rest kept in order",
			parent: []string{
				"PATH=/usr/bin", "GITHUB_TOKEN=ghs_1", "HOME=/root", "GH_TOKEN=gho_2",
				"ACTIONS_RUNTIME_TOKEN=r", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=i", "ACTIONS_CACHE_URL=u",
				"INPUT_GITHUB-TOKEN=t", "INPUT_GITHUB_TOKEN=t", "INPUT_CONFIG=evalgate.yaml",
				"GITHUB_SHA=abc", "github_token=lower", "EVALGATE_CACHE_KEY=k",
			},
			want: []string{"PATH=/usr/bin", "HOME=/root", "INPUT_CONFIG=evalgate.yaml", "GITHUB_SHA=abc"},
		},
		{
			name:   "judge key dropped",
			parent: []string{"JUDGE_API_KEY=sk-j", "OPENAI_API_KEY=sk-o", "LANG=C"},
			drop:   []string{"JUDGE_API_KEY", ""},
			want:   []string{"OPENAI_API_KEY=sk-o", "LANG=C"},
		},
		{
			name:   "extra added sorted, expanded against the unscrubbed parent",
			parent: []string{"JUDGE_API_KEY=sk-j", "OPENAI_API_KEY=sk-o", "MODE=old", "GITHUB_TOKEN=ghs"},
			drop:   []string{"JUDGE_API_KEY", "OPENAI_API_KEY"},
			extra: map[string]string{
				"OPENAI_API_KEY": "${OPENAI_API_KEY}",
				"MODE":           "new-$MODE",
				"GH_TOKEN":       "$GITHUB_TOKEN",
				"EMPTY":          "${NOT_SET}",
			},
			want: []string{"EMPTY=", "GH_TOKEN=ghs", "MODE=new-old", "OPENAI_API_KEY=sk-o"},
		},
		{
			name: "the runner's file commands never reach a child, not even through extra",
			parent: []string{
				"GITHUB_ENV=/t/set_env", "GITHUB_OUTPUT=/t/set_output", "GITHUB_PATH=/t/add_path",
				"GITHUB_STEP_SUMMARY=/t/summary", "GITHUB_STATE=/t/save_state", "GITHUB_WORKSPACE=/w",
			},
			extra: map[string]string{"GITHUB_ENV": "$GITHUB_ENV", "github_output": "/t/o"},
			want:  []string{"GITHUB_WORKSPACE=/w"},
		},
		{
			name:   "entries without a value are kept",
			parent: []string{"ODD", "A=1=2"},
			want:   []string{"ODD", "A=1=2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestChildEnv: the environment a child gets keeps the last of a variable
// named twice, where it stands, as os/exec's Cmd did, with few variables
// and with many; a NUL is refused; the caller's slice is never written.
func TestChildEnv(t *testing.T) {
	many := make([]string, 100)
	for i := range many {
		many[i] = "V" + strconv.Itoa(i) + "=x"
	}
	for _, tc := range []struct {
		name    string
		env     []string
		want    []string
		wantErr bool
	}{
		{name: "none twice", env: []string{"A=1", "B=2"}, want: []string{"A=1", "B=2", "M=9"}},
		{name: "the last kept where it stands", env: []string{"A=1", "B=2", "A=3"}, want: []string{"B=2", "A=3", "M=9"}},
		{name: "the extra replaces", env: []string{"M=1", "B=2"}, want: []string{"B=2", "M=9"}},
		{name: "names, not values", env: []string{"A=B=1", "A=2", "AB=3"}, want: []string{"A=2", "AB=3", "M=9"}},
		{name: "many", env: append(slices.Clone(many), "V7=y"), want: append(slices.Delete(slices.Clone(many), 7, 8), "V7=y", "M=9")},
		{name: "many, none twice", env: many, want: append(slices.Clone(many), "M=9")},
		{name: "NUL", env: []string{"A=1\x00B=2"}, wantErr: true},
		{name: "NUL among many", env: append(slices.Clone(many), "A=\x00"), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.env)
			got, err := childEnv(tc.env, "M=9")
			assert.Check(t, is.DeepEqual(tc.env, before), "the caller's environment was written")
			if tc.wantErr {
				assert.ErrorIs(t, err, errEnvNUL)
				return
			}
			assert.NilError(t, err)
			assert.Check(t, is.DeepEqual(tc.want, got))
		})
	}
}
