package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestQuoteStderr: the lines of a failing agent's stderr that carry its
// error, for each language's way of printing a stack.
func TestQuoteStderr(t *testing.T) {
	many := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%d\n", prefix, i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, stderr string
		want         []string
		frames, cut  int
	}{
		{name: "empty", stderr: "\n\n"},
		{name: "short: all of it", stderr: "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    x\nNameError: name 'x' is not defined\n",
			want: []string{"Traceback (most recent call last):", `  File "a.py", line 1, in <module>`, "    x", "NameError: name 'x' is not defined"}},
		{name: "python", stderr: "Traceback (most recent call last):\n" + strings.Repeat("  File \"a.py\", line 4, in f\n    f(n - 1)\n    ~^^^^^\n", 5) + "ValueError: bad\n",
			want: []string{"ValueError: bad"}, frames: 16},
		{name: "go panic", stderr: "panic: boom\n\ngoroutine 1 [running]:\n" + strings.Repeat("main.f(...)\n\t/src/main.go:5 +0x1d\n", 6) + "exit status 2\n",
			want: []string{"panic: boom", "", "exit status 2"}, frames: 13},
		{name: "java", stderr: "Exception in thread \"main\" java.lang.IllegalStateException: no key\n" + many("\tat Agent.run(Agent.java:", 12) + "\t... 3 more\n",
			want: []string{`Exception in thread "main" java.lang.IllegalStateException: no key`}, frames: 13},
		{name: "ruby", stderr: "agent.rb:3:in `answer': undefined method (NoMethodError)\n" + many("\tfrom agent.rb:", 12),
			want: []string{"agent.rb:3:in `answer': undefined method (NoMethodError)"}, frames: 12},
		{name: "no stack, too long: the end", stderr: many("line ", 30), want: strings.Split(strings.TrimSpace(many("line ", 30)), "\n")[18:], cut: 18},
		{name: "escaped and cut", stderr: "\x1b[31m" + strings.Repeat("é", 300) + "\n",
			want: []string{`\x1b[31m` + strings.Repeat("é", stderrQuoteLineRune-1-len("\x1b[31m")) + "…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := quoteStderr([]byte(tc.stderr))
			assert.DeepEqual(t, q.lines, tc.want)
			assert.Equal(t, q.frames, tc.frames)
			assert.Equal(t, q.cut, tc.cut)
		})
	}
}
