package escape

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "plain text, ünïcode ≥ 0.9", "plain text, ünïcode ≥ 0.9"},
		{"newlines and tabs", "two\nlines\r\ttab", `two\nlines\r\ttab`},
		{"escape and bell", "\x1b[31mred\x07", `\x1b[31mred\x07`},
		{"delete", "del\x7f", `del\x7f`},
		{"not UTF-8", "bad \xff byte", `bad \xff byte`},
		{"C1 control", "c1 \u009b control", `c1 \x9b control`},
		{"line separators", "line\u2028para\u2029", `line\u2028para\u2029`},
		{"bidi override", "a\u202eb\u2066c", `a\u202eb\u2066c`},
		{"workflow command", "::error::forged", `\x3a:error::forged`},
		{"workflow command after spaces", "  \u00a0::error::forged", "  \u00a0\\x3a:error::forged"},
		{"forged line", "x\n::error::forged", `x\n::error::forged`},
		{"colons inside", "a::b", "a::b"},
		{"old workflow command", "see ##[error]forged", `see ##\x5berror]forged`},
		{"hashes", "###[x ##", `###\x5bx ##`},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(tc.in)
			assert.Check(t, is.Equal(got, tc.want))
			assert.Check(t, is.Equal(Text(got), got), "escaping twice changes nothing")
			assert.Check(t, !strings.ContainsAny(got, "\n\r\x1b\x07"))
		})
	}
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"one line", "evalgate: fine", "evalgate: fine"},
		{"lines kept", "invalid suites:\na.yaml:1:1: x\n", "invalid suites:\na.yaml:1:1: x\n"},
		{"forged line", "invalid:\n::error::forged\x1b[31m", "invalid:\n\\x3a:error::forged\\x1b[31m"},
		{"carriage return", "a\r\n::x::y", `a\r` + "\n" + `\x3a:x::y`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Check(t, is.Equal(Lines(tc.in), tc.want))
		})
	}
}

func TestTextCleanAllocatesNothing(t *testing.T) {
	s := "acme.support.evals.refunds/status-in-transit: score 0.50 < 1.00"
	assert.Equal(t, testing.AllocsPerRun(100, func() { _ = Text(s) }), 0.0)
}
