package escape

import (
	"encoding/xml"
	"strings"
	"unicode/utf8"
)

// XML escapes text for an XML document (an SVG badge, JUnit), as the text
// of an element or the value of an attribute: the markup characters
// (& < > " ') and tab, line feed and carriage return become character
// references, exactly as encoding/xml writes them, and every character
// XML does not allow in a document becomes U+FFFD: the control characters
// other than those three, U+FFFE and U+FFFF, and bytes that are not UTF-8.
// One such character (a U+FFFE in an organization's name) made a whole
// badge invalid XML, which no viewer shows. It is the one escaping of
// what evalgate writes into XML; XMLChars is its second half, for text a
// template escapes itself.
func XML(s string) string {
	if xmlClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	_ = xml.EscapeText(&b, []byte(s)) // a Builder does not fail
	return b.String()
}

// XMLChars replaces every character XML does not allow in a document with
// U+FFFD, as XML does, and leaves the rest, markup included, as it is: for
// text that html/template (an HTML page with inline SVG) or encoding/xml
// escapes itself.
func XMLChars(s string) string {
	ok := true
	for _, r := range s {
		if r == utf8.RuneError || !xmlChar(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if !xmlChar(r) {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// xmlChar reports whether XML allows r in a document (its Char
// production).
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		'\u0020' <= r && r <= '\uD7FF' ||
		'\uE000' <= r && r <= '\uFFFD' ||
		'\U00010000' <= r && r <= '\U0010FFFF'
}

// xmlClean reports whether XML leaves s as it is: no markup character,
// nothing it writes as a reference, nothing XML forbids.
func xmlClean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || strings.IndexByte(`&<>"'`, c) >= 0 {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || !xmlChar(r) {
			return false
		}
		i += size
	}
	return true
}
