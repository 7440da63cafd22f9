// Package escape makes text evalgate did not write safe to print: text from
// a suite, a file name, a gate, a baseline, an agent or a server. Once
// escaped it prints on the one line it was meant for, cannot move the
// cursor, colour the terminal or ring its bell, and cannot be read by a CI
// runner as a workflow command.
//
// Text is the one escaping function; Lines applies it to each line of a
// message evalgate composed of several lines. Renderers with rules of their
// own (Markdown, workflow-command encoding) apply Text first.
package escape

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text escapes what would act on a terminal or a CI log rather than show:
//
//   - every control character (bytes below 0x20, DEL, and U+0080–U+009F)
//     becomes \n, \r, \t or \xNN, so no newline, ESC or BEL is printed;
//   - the line and paragraph separators U+2028 and U+2029 and the
//     bidirectional embedding, override and isolate controls (U+202A–U+202E,
//     U+2066–U+2069), which reorder or break what a reader sees, become
//     \uNNNN;
//   - a byte that is not UTF-8 becomes \xNN;
//   - a leading "::" (after any white space) becomes "\x3a:", since GitHub
//     Actions reads a line starting with "::" as a workflow command, and
//     "##[" anywhere becomes "##\x5b", its older form.
//
// Text of text that needs none of this is the text itself, and Text of
// escaped text is the same text: escaping twice is harmless.
func Text(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	lead := true // still in the white space that starts s
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case separator(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case lead && strings.HasPrefix(s[i:], "::"):
			b.WriteString(`\x3a`)
		case strings.HasPrefix(s[i:], "##["):
			b.WriteString(`##\x5b`)
			size = len("##[")
		default:
			b.WriteRune(r)
		}
		lead = lead && unicode.IsSpace(r)
		i += size
	}
	return b.String()
}

// Lines escapes a message of several lines: each line by Text, the
// newlines between them kept. It is for what evalgate composes itself,
// such as an error listing one problem a line, so that no part of it,
// whatever it quotes, starts a line evalgate did not mean.
func Lines(s string) string {
	if clean(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Text(l)
	}
	return strings.Join(lines, "\n")
}

// clean reports whether s needs no escaping at all, the common case,
// which then costs no allocation.
func clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || (c == '#' && strings.HasPrefix(s[i:], "##[")) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || unicode.IsControl(r) || separator(r) {
			return false
		}
		i += size
	}
	return !strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "::")
}

// separator reports whether r breaks a line or reorders text without being
// a control character: U+2028, U+2029 and the bidirectional controls.
func separator(r rune) bool {
	return r == '\u2028' || r == '\u2029' || ('\u202a' <= r && r <= '\u202e') || ('\u2066' <= r && r <= '\u2069')
}
