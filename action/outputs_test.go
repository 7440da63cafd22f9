package action

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
)

// parseOutputFile reads a GITHUB_OUTPUT file the way the Actions runner
// does (SetOutputFileCommand): "name=value" lines and "name<<DELIM" heredocs
// that end at a line equal to DELIM. A later value for a name wins.
func parseOutputFile(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	out := map[string]string{}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		eq, hd := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case hd >= 0 && (eq < 0 || hd < eq):
			name, delim := line[:hd], line[hd+2:]
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			assert.Assert(t, i < len(lines), "heredoc %q of %q never ends", delim, name)
			out[name] = strings.Join(val, "\n")
		case eq >= 0:
			out[line[:eq]] = line[eq+1:]
		default:
			t.Fatalf("line %d of the output file is not a command: %q", i+1, line)
		}
	}
	return out
}

func TestWriteOutputs(t *testing.T) {
	type testCase struct {
		name string
		outs map[string]string
	}
	run := func(t *testing.T, tc testCase) {
		path := filepath.Join(t.TempDir(), "output")
		env := envOf(map[string]string{"GITHUB_OUTPUT": path})
		assert.NilError(t, WriteOutputs(env, tc.outs))
		// Written twice, the second set wins, as the runner reads it.
		assert.NilError(t, WriteOutputs(env, tc.outs))
		assert.DeepEqual(t, parseOutputFile(t, path), tc.outs)
	}
	for _, tc := range []testCase{
		{name: "plain", outs: map[string]string{"passed": "true", "aggregate-score": "0.9167", "comment-url": ""}},
		{name: "injection attempts", outs: map[string]string{
			"passed":    "false",
			"scorecard": "evil\npassed<<EOF\ntrue\nEOF\npassed=true",
			"results":   "::set-output name=passed::true\n%0Apassed=true",
			"crlf":      "a\r\npassed=true\r\n",
			"fixed":     "x\n_GitHubActionsFileCommandDelimeter_\npassed=true\nghadelimiter_\nghadelimiter_00",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestWriteOutputsDelimiterIsRandom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output")
	env := envOf(map[string]string{"GITHUB_OUTPUT": path})
	assert.NilError(t, WriteOutputs(env, map[string]string{"a": "1", "b": "2"}))
	assert.NilError(t, WriteOutputs(env, map[string]string{"a": "1"}))
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	seen := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if _, delim, ok := strings.Cut(line, "<<"); ok {
			assert.Assert(t, strings.HasPrefix(delim, "ghadelimiter_") && len(delim) == len("ghadelimiter_")+32, delim)
			assert.Assert(t, !seen[delim], "delimiter %s used twice", delim)
			seen[delim] = true
		}
	}
	assert.Equal(t, len(seen), 3)
}

func TestWriteOutputsErrors(t *testing.T) {
	type testCase struct {
		name    string
		env     map[string]string
		outs    map[string]string
		wantErr string
	}
	dir := t.TempDir()
	run := func(t *testing.T, tc testCase) {
		err := WriteOutputs(envOf(tc.env), tc.outs)
		assert.ErrorContains(t, err, tc.wantErr)
	}
	for _, tc := range []testCase{
		{name: "no GITHUB_OUTPUT", env: map[string]string{}, outs: map[string]string{"a": "b"}, wantErr: "GITHUB_OUTPUT is not set"},
		{name: "name with heredoc", env: map[string]string{"GITHUB_OUTPUT": filepath.Join(dir, "o")},
			outs: map[string]string{"x<<EOF\npassed": "true"}, wantErr: `could not write output "x<<EOF\npassed"`},
		{name: "name with equals", env: map[string]string{"GITHUB_OUTPUT": filepath.Join(dir, "o")},
			outs: map[string]string{"passed=true": ""}, wantErr: "a name is letters"},
		{name: "unwritable", env: map[string]string{"GITHUB_OUTPUT": filepath.Join(dir, "missing", "o")},
			outs: map[string]string{"a": "b"}, wantErr: "could not write outputs to"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestAppendStepSummary(t *testing.T) {
	type testCase struct {
		name          string
		existing      int // bytes already in the summary file
		markdown      string
		wantTruncated bool
		wantSuffix    string
	}
	big := strings.Repeat("| task-0001 | ✅ | 1.00 |\n", MaxStepSummary/20)
	run := func(t *testing.T, tc testCase) {
		path := filepath.Join(t.TempDir(), "summary.md")
		if tc.existing > 0 {
			assert.NilError(t, os.WriteFile(path, []byte(strings.Repeat("x", tc.existing-1)+"\n"), 0o644))
		}
		env := envOf(map[string]string{"GITHUB_STEP_SUMMARY": path})
		truncated, err := AppendStepSummary(env, tc.markdown)
		assert.NilError(t, err)
		assert.Equal(t, truncated, tc.wantTruncated)
		data, err := os.ReadFile(path)
		assert.NilError(t, err)
		assert.Assert(t, len(data) <= MaxStepSummary, "summary is %d bytes", len(data))
		assert.Assert(t, utf8.Valid(data))
		assert.Assert(t, strings.HasSuffix(string(data), tc.wantSuffix), "ends %q", tail(string(data), 80))
	}
	for _, tc := range []testCase{
		{name: "small", markdown: "## evalgate\n\npassed", wantSuffix: "## evalgate\n\npassed\n"},
		{name: "appends", existing: 100, markdown: "## evalgate\n", wantSuffix: "x\n## evalgate\n"},
		{name: "too big", markdown: big, wantTruncated: true, wantSuffix: summaryNote},
		{name: "too big for what is left", existing: MaxStepSummary - 2000, markdown: strings.Repeat("ü", 4000), wantTruncated: true, wantSuffix: summaryNote},
		{name: "no room at all", existing: MaxStepSummary - 10, markdown: "## evalgate\n", wantTruncated: true, wantSuffix: "x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestTruncateMarkdown(t *testing.T) {
	type testCase struct {
		in   string
		n    int
		want string
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, truncateMarkdown(tc.in, tc.n), tc.want)
	}
	for i, tc := range []testCase{
		{in: "abc", n: 10, want: "abc"},
		{in: "line one\nline two\n", n: 12, want: "line one\n"},
		{in: "üüü", n: 3, want: "ü"},
		{in: "abc", n: 0, want: ""},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) { run(t, tc) })
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
