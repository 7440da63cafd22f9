//go:build unix

package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/waittest"
	"github.com/evalgate/evalgate/results"
	"gotest.tools/v3/assert"
)

func TestPlain(t *testing.T) {
	type testCase struct {
		name   string
		script string // run by /bin/sh -c
		input  string
		limits func(*Plain)
		// expire: the deadline passes once the script has written a pid
		// to $PIDFILE.
		expire bool
		want   wantOutcome
		// pidFile: the script writes a background child's pid to $PIDFILE,
		// which must be dead afterwards.
		pidFile bool
		stderr  string
	}
	run := func(t *testing.T, tc testCase) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		p := &Plain{
			Command: []string{"/bin/sh", "-c", tc.script},
			Env:     process.ScrubEnv(os.Environ(), nil, map[string]string{"PIDFILE": pidFile}),
		}
		if tc.limits != nil {
			tc.limits(p)
		}
		ctx := waittest.Context(t)
		if tc.expire {
			var expire func()
			ctx, expire = waittest.Timeout()
			waittest.Then(t, func() bool { return waittest.HasLine(pidFile) }, expire)
		}
		out := p.Run(ctx, testRequest(tc.input), nil)
		checkOutcome(t, out, tc.want)
		got := string(out.Stderr)
		assert.Check(t, got == tc.stderr, "stderr = %q, want %q", got, tc.stderr)
		if tc.pidFile {
			pid := waittest.Pid(t, pidFile)
			assert.Check(t, waittest.Exited(t, pid), "background child %d is still alive", pid)
		}
	}
	for _, tc := range []testCase{
		{
			name:   "string input as its text",
			script: `cat`,
			input:  `"hello \"world\"\nsecond line"`,
			want:   wantOutcome{output: `"hello \"world\"\nsecond line"`},
		},
		{
			name:   "object input as compact JSON",
			script: `cat`,
			input:  "{\n  \"a\": [1, 2.0],\n  \"b\": null\n}",
			want:   wantOutcome{output: `"{\"a\":[1,2.0],\"b\":null}"`},
		},
		{
			name:   "null input",
			script: `cat`,
			input:  `null`,
			want:   wantOutcome{output: `"null"`},
		},
		{
			name:   "one trailing newline removed",
			script: `read l; echo "$l"; echo`,
			input:  `"line"`,
			want:   wantOutcome{output: `"line\n"`},
		},
		{
			name:   "no trailing newline kept as is",
			script: `printf '%s' 42`,
			input:  `{}`,
			want:   wantOutcome{output: `"42"`},
		},
		{
			name:   "empty output",
			script: `true`,
			input:  `{}`,
			want:   wantOutcome{output: `""`},
		},
		{
			name:   "big input",
			script: `wc -c`,
			input:  `"` + strings.Repeat("x", 1<<20) + `"`,
			want:   wantOutcome{output: `"1048576"`},
		},
		{
			name:   "non-zero exit",
			script: `echo partial; echo oops >&2; exit 2`,
			input:  `{}`,
			want:   wantOutcome{kind: results.ErrAgentExit, message: "exit status 2 after 8 bytes of output"},
			stderr: "oops\n",
		},
		{
			name:   "non-zero exit before any output",
			script: `echo "cannot open agent.py" >&2; exit 2`,
			input:  `{}`,
			want:   wantOutcome{kind: results.ErrAgentExit, message: "exit status 2 before any output", mute: "exit status 2"},
			stderr: "cannot open agent.py\n",
		},
		{
			name:    "timeout kills the group",
			script:  `sleep 600 & echo $! > "$PIDFILE"; wait`,
			input:   `{}`,
			expire:  true,
			want:    wantOutcome{kind: results.ErrTimeout},
			pidFile: true,
		},
		{
			name:   "output over the cap",
			script: `yes`,
			input:  `{}`,
			limits: func(p *Plain) { p.MaxOutputBytes = 64 << 10 },
			want:   wantOutcome{kind: results.ErrOutputTooLarge, message: "more than 65536 bytes"},
		},
		{
			name:   "output at the cap",
			script: `printf 'abcd\n'`,
			input:  `{}`,
			limits: func(p *Plain) { p.MaxOutputBytes = 5 },
			want:   wantOutcome{output: `"abcd"`},
		},
		{
			name:   "stderr bounded",
			script: `printf 'abcdefgh' >&2; echo ok`,
			input:  `{}`,
			limits: func(p *Plain) { p.MaxStderrBytes = 3 },
			want:   wantOutcome{output: `"ok"`},
			stderr: "abc",
		},
		{
			name:   "trial variables",
			script: `echo "$EVALGATE_SUITE_ID/$EVALGATE_TASK_ID/$EVALGATE_TRIAL"`,
			input:  `{}`,
			want:   wantOutcome{output: `"acme.support.evals.refunds/refund-window/2"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// BenchmarkPlainShell measures the cost of one plain trial: a /bin/sh
// process that echoes its input.
func BenchmarkPlainShell(b *testing.B) {
	p := &Plain{Command: []string{"/bin/sh", "-c", `read l; echo "$l"`}, Env: process.ScrubEnv(os.Environ(), nil, nil)}
	req := testRequest(`"what is the refund window?"`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out := p.Run(ctx, req, nil)
		if out.Err != nil || out.Fatal != nil || string(out.Output) != `"what is the refund window?"` {
			b.Fatalf("unexpected outcome: output %s, err %v, fatal %v", out.Output, out.Err, out.Fatal)
		}
	}
}
