package report

import (
	"bytes"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

// hostile is text from an untrusted results file (a baseline, a shard):
// a forged workflow command, a colour, the bell and HTML.
const hostile = "x\n::error::forged \x1b[31m\a <img src=x onerror=alert(1)> | ## h"

// hostileRuns are diffRuns with hostile text in every field a renderer
// prints: ids, version, file, warnings, the baseline's run id.
func hostileRuns() (base, head *results.Run) {
	base, head = diffRuns()
	for _, r := range []*results.Run{base, head} {
		r.RunID = "run" + hostile
		for i := range r.Suites {
			s := &r.Suites[i]
			s.ID, s.Version, s.File = s.ID+hostile, "1.0.0"+hostile, "evals/s"+hostile+".yaml"
			for j := range s.Tasks {
				s.Tasks[j].ID += hostile
				s.Tasks[j].File = s.File
			}
		}
	}
	reg := head.Regression
	reg.BaselineRunID = "run" + hostile
	reg.Warnings = append(reg.Warnings, "warning"+hostile)
	for i := range reg.Tasks {
		reg.Tasks[i].SuiteID += hostile
		reg.Tasks[i].TaskID += hostile
		reg.Tasks[i].Change += hostile
	}
	return base, head
}

// TestHostileResultsAreEscaped: whatever an untrusted results file holds,
// the terminal report, the diff and the Markdown forms print no control
// character and no line that starts a workflow command, and the Markdown
// no HTML tag.
func TestHostileResultsAreEscaped(t *testing.T) {
	base, head := hostileRuns()
	var term bytes.Buffer
	tm := NewTerminal(TerminalOptions{Out: &term})
	for i := range head.Suites {
		tm.SuiteDone(&head.Suites[i])
	}
	tm.Finish(head)
	page, err := HTML(head)
	assert.NilError(t, err)
	for name, out := range map[string]string{
		"html":          string(page),
		"terminal":      term.String(),
		"diff":          Diff(base, head, DiffOptions{}),
		"diff markdown": Diff(base, head, DiffOptions{Markdown: true}),
		"scorecard":     Scorecard(head, ScorecardOptions{LinkBase: "https://github.com/acme/agent/blob/0123456/"}),
	} {
		assert.Check(t, strings.Contains(out, "forged"), "%s prints nothing of the hostile text:\n%s", name, out)
		assert.Check(t, !strings.ContainsAny(out, "\x1b\a"), "%s holds ESC or BEL:\n%q", name, out)
		for _, line := range strings.Split(out, "\n") {
			assert.Check(t, !strings.HasPrefix(strings.TrimSpace(line), "::"), "%s: %q", name, line)
		}
		if strings.Contains(name, "markdown") || name == "scorecard" {
			assert.Check(t, !strings.Contains(outsideCode(out), "<img"), "%s holds HTML outside code:\n%s", name, out)
		}
	}
}

// outsideCode is Markdown without its code spans, where HTML shows as text.
func outsideCode(md string) string {
	var b strings.Builder
	for md != "" {
		i := strings.IndexByte(md, '`')
		if i < 0 {
			b.WriteString(md)
			break
		}
		b.WriteString(md[:i])
		fence := md[i : i+len(md[i:])-len(strings.TrimLeft(md[i:], "`"))]
		rest := md[i+len(fence):]
		end := strings.Index(rest, fence)
		if end < 0 {
			b.WriteString(md[i:])
			break
		}
		md = rest[end+len(fence):]
	}
	return b.String()
}

// TestXMLOutputsHoldOnlyXMLCharacters: characters XML forbids in an
// untrusted results file (U+FFFE, U+FFFF, a NUL, a byte that is not
// UTF-8) are replaced in everything evalgate writes as XML or HTML: the
// JUnit report and the badges stay well-formed, and the HTML page, which
// holds inline SVG, holds none of them.
func TestXMLOutputsHoldOnlyXMLCharacters(t *testing.T) {
	const forbidden = "\uFFFE\uFFFF\x00\xff"
	_, head := hostileRuns()
	for i := range head.Suites {
		s := &head.Suites[i]
		s.ID += forbidden
		for j := range s.Tasks {
			s.Tasks[j].ID += forbidden
			s.Tasks[j].Status, s.Tasks[j].ErrorKind, s.Tasks[j].ErrorMessage = results.StatusError, "protocol", "agent said "+forbidden
		}
	}
	junit, err := JUnit(head)
	assert.NilError(t, err)
	assertXML(t, junit)
	assertXML(t, Badge(head))
	assertXML(t, TrustBadge(&results.Trust{Level: 1, LevelName: "Observed" + forbidden}))
	page, err := HTML(head)
	assert.NilError(t, err)
	for _, c := range []string{"\uFFFE", "\uFFFF", "\x00", "\xff"} {
		assert.Check(t, !bytes.Contains(page, []byte(c)), "the page holds %q", c)
	}
}
