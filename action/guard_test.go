package action

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

func TestGuardRunnerFiles(t *testing.T) {
	type testCase struct {
		name    string
		before  *string // nil: no file
		change  func(path string)
		wantErr string
		after   *string // nil: no file
	}
	str := func(s string) *string { return &s }
	run := func(t *testing.T, tc testCase) {
		path := filepath.Join(t.TempDir(), "set_output")
		if tc.before != nil {
			assert.NilError(t, os.WriteFile(path, []byte(*tc.before), 0o644))
		}
		env := map[string]string{"GITHUB_OUTPUT": path}
		g := GuardRunnerFiles(func(k string) string { return env[k] })
		if tc.change != nil {
			tc.change(path)
		}
		err := g.Check()
		if tc.wantErr == "" {
			assert.NilError(t, err)
		} else {
			assert.ErrorContains(t, err, tc.wantErr)
		}
		data, err := os.ReadFile(path)
		if tc.after == nil {
			assert.Assert(t, os.IsNotExist(err), "the file is there: %q", data)
			return
		}
		assert.NilError(t, err)
		assert.Equal(t, string(data), *tc.after)
	}
	appendLine := func(path string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		assert.NilError(t, err)
		_, _ = f.WriteString("passed=true\n")
		f.Close()
	}
	for _, tc := range []testCase{
		{name: "untouched", before: str("a=1\n"), after: str("a=1\n")},
		{name: "no file, none made", after: nil},
		{name: "appended to", before: str("a=1\n"), change: appendLine,
			wantErr: "$GITHUB_OUTPUT changed while the agents ran", after: str("a=1\n")},
		{name: "emptied", before: str("a=1\n"), change: func(p string) { os.WriteFile(p, nil, 0o644) },
			wantErr: "put back as it was", after: str("a=1\n")},
		{name: "made where there was none", change: appendLine,
			wantErr: "$GITHUB_OUTPUT changed", after: nil},
		// Read through the one reader of input files: neither is read whole,
		// and the link is replaced, not written through.
		{name: "replaced by a link to /dev/zero", before: str("a=1\n"), change: func(p string) {
			assert.NilError(t, os.Remove(p))
			assert.NilError(t, os.Symlink("/dev/zero", p))
		}, wantErr: "put back as it was", after: str("a=1\n")},
		{name: "grown past what is read", before: str("a=1\n"), change: func(p string) {
			assert.NilError(t, os.Truncate(p, maxRunnerFile+1))
		}, wantErr: "put back as it was", after: str("a=1\n")},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
