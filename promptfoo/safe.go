package promptfoo

import (
	"fmt"
	"regexp"
	"strings"
)

// A sheet's suite renders its prompt as each row loads, and a suite on a
// pull request is its author's input (DESIGN §17): a template must not be
// able to loop, call or multiply its way to a hang or to gigabytes. So a
// prompt a sheet's suite renders may use only what is linear in its vars:
// {{ var }}, {{ var.key }} and {{ var["key"] }}, filters that take nothing
// (upper, lower, trim, length, …) or default('literal'), {% if %}, {% elif %},
// {% else %} and {% endif %} over comparisons, and comments. Whatever else
// a prompt uses ({% for %}, range(), arithmetic, filters with arguments),
// the import copies the sheet's rows, rendered once, as it does for
// inline tests.

// MaxSheetPrompt bounds the text of a prompt a sheet's suite renders.
const MaxSheetPrompt = 64 << 10

// maxRendered bounds a prompt rendered with a row: the limit for a task
// made from a row (suites.MaxTaskBytes).
const maxRendered = 4 << 20

var (
	tagRE     = regexp.MustCompile(`(?s)\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}`)
	pathRE    = `[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*|\s*\[\s*(?:'[^'\\]*'|"[^"\\]*"|\d{1,9})\s*\])*`
	literalRE = `'[^'\\]*'|"[^"\\]*"|-?\d{1,9}(?:\.\d{1,9})?`
	filterRE  = `(?:upper|lower|trim|title|capitalize|length|count|string|safe|escape|e|first|last|wordcount|abs|int|float|(?:default|d)\s*\(\s*(?:` + literalRE + `)\s*\))`
	outputRE  = regexp.MustCompile(`^(?:` + pathRE + `|` + literalRE + `)(?:\s*\|\s*` + filterRE + `)*$`)
	condRE    = regexp.MustCompile(`^\s*(?:(` + pathRE + `)|` + literalRE + `|==|!=|<=|>=|<|>|\(|\))`)
)

// sheetSafe says why a sheet's suite may not render template s as rows
// load; "" when it may.
func sheetSafe(s string) string {
	if len(s) > MaxSheetPrompt {
		return fmt.Sprintf("the prompt is over %d bytes", MaxSheetPrompt)
	}
	for _, tag := range tagRE.FindAllString(s, -1) {
		open, body := tag[:2], strings.Trim(tag[2:len(tag)-2], "-+ \t\r\n")
		switch open {
		case "{#":
			continue
		case "{{":
			if !outputRE.MatchString(body) {
				return fmt.Sprintf("%s is more than a var with plain filters", tag)
			}
			continue
		}
		word, rest, _ := strings.Cut(body, " ")
		switch word {
		case "else", "endif":
			if strings.TrimSpace(rest) != "" {
				return fmt.Sprintf("%s is not a plain {%% %s %%}", tag, word)
			}
		case "if", "elif":
			if !plainCondition(rest) {
				return fmt.Sprintf("%s is more than a comparison of vars", tag)
			}
		default:
			return fmt.Sprintf("%s is not an if", tag)
		}
	}
	return ""
}

// plainCondition reports whether c is made of vars, literals, comparisons
// and parentheses, with no call: no "(" right after a name.
func plainCondition(c string) bool {
	afterName := false
	for c = strings.TrimSpace(c); c != ""; c = strings.TrimSpace(c) {
		m := condRE.FindStringSubmatch(c)
		if m == nil || (afterName && m[0] == "(") {
			return false
		}
		switch m[1] {
		case "", "and", "or", "not", "in", "is":
			afterName = false
		default:
			afterName = true
		}
		c = c[len(m[0]):]
	}
	return true
}

// renderBound is an upper bound on the length of template s rendered with
// vars whose longest, as text, is longest: each {{ }} writes at most one
// var, escaped (6 bytes a byte at most).
func renderBound(s string, longest int) int {
	return len(s) + strings.Count(s, "{{")*longest*6
}
