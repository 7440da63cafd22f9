package escape

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestXML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"acme", "acme"},
		{"Ünïcode ✓ 𝄞", "Ünïcode ✓ 𝄞"},
		{`<a href="x">&'`, "&lt;a href=&#34;x&#34;&gt;&amp;&#39;"},
		{"tab\tline\ncr\r", "tab&#x9;line&#xA;cr&#xD;"},
		{"acme\uFFFEcorp\uFFFF", "acme\uFFFDcorp\uFFFD"},
		{"nul\x00esc\x1bbel\x07", "nul\uFFFDesc\uFFFDbel\uFFFD"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"private \uE000 and \U0010FFFF", "private \uE000 and \U0010FFFF"},
	} {
		got := XML(tc.in)
		assert.Check(t, got == tc.want, "XML(%q) = %q, want %q", tc.in, got, tc.want)
		// As encoding/xml writes it, and a document holding it parses.
		var b bytes.Buffer
		assert.NilError(t, xml.EscapeText(&b, []byte(tc.in)))
		assert.Check(t, got == b.String(), "XML(%q) = %q, encoding/xml %q", tc.in, got, b.String())
		doc := `<svg a="` + got + `"><title>` + got + `</title></svg>`
		var v struct {
			A     string `xml:"a,attr"`
			Title string `xml:"title"`
		}
		assert.NilError(t, xml.Unmarshal([]byte(doc), &v), "%q", doc)
	}
}

func TestXMLChars(t *testing.T) {
	for in, want := range map[string]string{
		"<b>acme</b>":          "<b>acme</b>",
		"a\uFFFEb\x01c\td\xfe": "a\uFFFDb\uFFFDc\td\uFFFD",
		"":                     "",
	} {
		assert.Check(t, XMLChars(in) == want, "XMLChars(%q) = %q, want %q", in, XMLChars(in), want)
	}
	clean := strings.Repeat("clean text ", 10)
	assert.Equal(t, testing.AllocsPerRun(10, func() { XML(clean); XMLChars(clean) }), 0.0)
}
