package promptfoo

import (
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// templateCases are templates in the subset and the vars they render
// with; want is what Nunjucks writes (TestTemplateMatchesNunjucks checks
// it against Nunjucks itself when it is installed).
var templateCases = []struct {
	tmpl string
	vars string // JSON
	want string
}{
	{"Answer: {{ question }}", `{"question": "What?"}`, "Answer: What?"},
	{"{{ missing }}|{{ none }}|{{ n }}|{{ f }}|{{ t }}", `{"none": null, "n": 3, "f": 1.5, "t": true}`, "||3|1.5|true"},
	{"{{ list }}|{{ obj }}|{{ nested }}", `{"list": ["a", 1, null, true], "obj": {"a": 1}, "nested": [[1, 2], [3]]}`, "a,1,,true|[object Object]|1,2,3"},
	{"{{ big }} {{ 0.000001 }} {{ 0.0000001 }} {{ 100 }} {{ 2.50 }}", `{"big": 1e21}`, "1e+21 0.000001 1e-7 100 2.5"},
	{"{{- q.a.b -}} {{ q['k'] }} {{ l[0] }} {{ l.length }} {{ s[1] }} {{ s.length }}", `{"q": {"a": {"b": "x"}, "k": "y"}, "l": ["z"], "s": "héllo"}`, "xy z 1 é 5"},
	{"  {{- x }}  \n{%- if x %} a {% endif -%}  \n b", `{"x": 1}`, "1 a b"},
	{"{% if formal %}Dear customer,{% elif tone == 'warm' and not (x in y) %}Hi{% else %}Hey{% endif %} {{ q }}", `{"tone": "warm", "x": "a", "y": "bcd", "q": "?"}`, "Hi ?"},
	{"{% if empty %}yes{% else %}no{% endif %} {% if zero %}y{% else %}n{% endif %} {% if e %}y{% else %}n{% endif %}", `{"empty": [], "zero": 0, "e": ""}`, "yes n n"},
	{"{% if n == '3' %}loose{% endif %} {% if n === '3' %}strict{% endif %} {% if a != b %}ne{% endif %}", `{"n": 3, "a": 1, "b": "1"}`, "loose  "},
	{"{% if n > 2 and n <= 3 %}in{% endif %} {% if 'b' > 'a' %}str{% endif %} {% if '10' < '9' %}lex{% endif %} {% if '10' < 9 %}num{% endif %}", `{"n": 3}`, "in str lex "},
	{"{% for i in items %}{{ loop.index }}:{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}", `{"items": ["a", "b", "c"]}`, "1:a, 2:b, 3:c"},
	{"{% for i in items %}{{ i }}{% else %}none{% endfor %}|{% for c in s %}[{{ c }}]{% endfor %}", `{"items": [], "s": "ab"}`, "none|[a][b]"},
	{"{% for k, v in obj %}{{ k }}={{ v }};{% endfor %}", `{"obj": {"b": 2, "a": 1, "10": "x", "2": "y"}}`, "2=y;10=x;a=1;b=2;"},
	{"{% for a, b in pairs %}{{ a }}{{ b }} {% endfor %}", `{"pairs": [[1, 2], ["x", "y"]]}`, "12 xy "},
	{"{% for x in xs %}{% for y in ys %}{{ x }}{{ y }} {% endfor %}{% endfor %}", `{"xs": [1, 2], "ys": ["a", "b"]}`, "1a 1b 2a 2b "},
	{"{% set x = 'a' %}{% for i in [1, 2] %}{% set x = x ~ i %}{% set y = i %}{% endfor %}{{ x }}{{ y }}", `{}`, "a12"},
	{"{% set greeting %}Hello {{ name }}{% endset %}{{ greeting | upper }}", `{"name": "Ann"}`, "HELLO ANN"},
	{"{{ q | upper | trim }} {{ name | default('you') }} {{ n | length }} {{ none | default('d') }} {{ e | default('d', true) }}", `{"q": " hi ", "n": [1, 2], "none": null, "e": ""}`, "HI you 2  d"},
	{"{{ s | title }} {{ s | capitalize }} {{ s | replace('a', 'o') }} {{ s | truncate(7) }} {{ s | wordcount }}", `{"s": "a banana and an apple"}`, "A Banana And An Apple A banana and an apple o bonono ond on opple a... 5"},
	{"{{ l | join(', ') }} {{ l | first }} {{ l | last }} {{ l | reverse | join }} {{ l | sort | join('-') }}", `{"l": ["b", "c", "a"]}`, "b, c, a b a acb a-b-c"},
	{"{{ obj | dump }} {{ l | dump }} {{ s | dump }}", `{"obj": {"b": [1, "x"], "a": null}, "l": [1, 2.5], "s": "q\"\n"}`, `{"a":null,"b":[1,"x"]} [1,2.5] "q\"\n"`},
	{"{{ '{\"a\": [1, 2]}' | load | dump }}", `{}`, `{"a":[1,2]}`},
	{"{{ n + 1 }} {{ n ~ 1 }} {{ s + 1 }} {{ n * 2 }} {{ n / 4 }} {{ n // 2 }} {{ n % 2 }} {{ n ** 2 }} {{ -n }}", `{"n": 3, "s": "x"}`, "4 31 x1 6 0.75 1 1 9 -3"},
	{"{{ 'a' if x else 'b' }} {{ 'c' if y }}|{{ x and 'yes' }} {{ y or 'no' }}", `{"x": 1, "y": 0}`, "a |yes no"},
	{"{% if x is defined %}d{% endif %}{% if z is undefined %}u{% endif %}{% if n is none %}n{% endif %}{% if 4 is even %}e{% endif %}{% if s is string %}s{% endif %}", `{"x": 1, "n": null, "s": "q"}`, "dunes"},
	{"{% raw %}{{ not rendered }}{% endraw %} {# a comment #}x {%raw%}{% if %}{%endraw%} y", `{}`, "{{ not rendered }} x {% if %} y"},
	{"{%\nif x\n%}{{ x }}{%\tendif %}|{% for i\tin\nxs %}{% set last = i %}{% if loop.first %}{% set seen = 'first' %}{% endif %}{{ seen }}{% endfor %}", `{"x": 1, "xs": [1, 2]}`, "1|firstfirst"},
	{"{{ x | int }} {{ y | float }} {{ z | int(7) }} {{ 3.14159 | round(2) }} {{ -4 | abs }}", `{"x": "42abc", "y": "2.5kg", "z": "no"}`, "42 2.5 7 3.14 4"},
	{"{{ s | escape }} {{ s | safe }}", `{"s": "<a href='x'>&</a>"}`, "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt; <a href='x'>&</a>"},
	{"{{ [1, 2] }} {{ {'a': 1}['a'] }} {{ 'ab' ~ ['c'] }}", `{}`, "1,2 1 abc"},
	{"{% for m in messages %}{{ loop.index0 }} {{ m.role }}: {{ m.content | trim }}\n{% endfor %}{{ messages | length }}", `{"messages": [{"role": "user", "content": " hi "}, {"role": "assistant", "content": "yo"}]}`, "0 user: hi\n1 assistant: yo\n2"},
	{"{{ 10 / 3 }} {{ 0.1 + 0.2 }} {{ 2 ** 0.5 }} {{ 7 // 2 }} {{ -7 % 3 }} {{ 1 / 0 }} {{ 'a' * 2 }}", `{}`, "3.3333333333333335 0.30000000000000004 1.4142135623730951 3 -1 Infinity NaN"},
	{"{{ x | replace('\n', ' ') | truncate(9, true) }}|{{ x | round }}|{{ n | round(1, 'floor') }}|{{ l | join('\n') }}", `{"x": "a\nb\nc d e f g", "n": 2.77, "l": ["p", "q"]}`, "a b c d e...|NaN|2.7|p\nq"},
	{"{{ x is defined and x }}|{{ y is defined and y }}|{{ not x }}|{{ x or y }}|{{ y or 'none' }}", `{"x": "v"}`, "v|false|false|v|none"},
	{"{{ obj.missing.deeper }}|{{ obj['a'] }}|{{ list[5] }}|{{ list[-1] }}|{{ s.missing }}", `{"obj": {"a": 1}, "list": [1], "s": "str"}`, "|1|||"},
	{"{{ x | default('d') }}|{{ x | d('d') }}|{{ none | default('d') }}|{{ f | default('d') }}|{{ f | default('d', true) }}", `{"none": null, "f": false}`, "d|d||false|d"},
	{"{{ word | upper }}{{ word | capitalize }}{{ 'éa' | upper }} {{ 'HELLO world' | title }}", `{"word": "straße"}`, "STRASSEStraßeÉA Hello World"},
	{"{% if 'b' in l %}in{% endif %} {% if 'z' not in l %}out{% endif %} {% if 'k' in o %}key{% endif %}", `{"l": ["a", "b"], "o": {"k": 1}}`, "in out key"},
}

// TestTemplate renders each case with the import's engine.
func TestTemplate(t *testing.T) {
	for _, tc := range templateCases {
		var vars map[string]any
		assert.NilError(t, json.Unmarshal([]byte(tc.vars), &vars))
		tmpl, err := compileTemplate(tc.tmpl)
		assert.NilError(t, err, tc.tmpl)
		got, err := tmpl.render(vars, importSteps)
		assert.NilError(t, err, tc.tmpl)
		assert.Equal(t, got, tc.want, tc.tmpl)
	}
}

// TestTemplateMatchesNunjucks renders the cases with Nunjucks itself (as
// promptfoo configures it: no autoescape), from the promptfoo install of
// bench/install-promptfoo.sh, and requires the same text.
func TestTemplateMatchesNunjucks(t *testing.T) {
	nunjucks := filepath.Join(cmp.Or(os.Getenv("PF_HOME"), "/tmp/evalgate-bench-pf"), "promptfoo", "node_modules", "nunjucks")
	if _, err := os.Stat(nunjucks); err != nil {
		t.Skip("promptfoo's Nunjucks is not installed (bench/install-promptfoo.sh)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	var in []map[string]any
	for _, tc := range templateCases {
		var vars map[string]any
		assert.NilError(t, json.Unmarshal([]byte(tc.vars), &vars))
		in = append(in, map[string]any{"t": tc.tmpl, "v": vars})
	}
	data, err := json.Marshal(in)
	assert.NilError(t, err)
	script := `const n = require(process.argv[1]); const env = n.configure({autoescape: false}); env.addFilter('load', (s) => JSON.parse(s));
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(cases.map((c) => { try { return env.renderString(c.t, c.v); } catch (e) { return 'ERROR ' + e.message; } })));`
	cmd := exec.Command("node", "-e", script, nunjucks)
	cmd.Stdin = strings.NewReader(string(data))
	out, err := cmd.Output()
	assert.NilError(t, err)
	var want []string
	assert.NilError(t, json.Unmarshal(out, &want))
	for i, tc := range templateCases {
		assert.Check(t, want[i] == tc.want, "%q: Nunjucks writes %q, the case says %q", tc.tmpl, want[i], tc.want)
	}
}

// TestTemplateOutsideSubset: what could read a file, loop without a bound
// or call code does not compile.
func TestTemplateOutsideSubset(t *testing.T) {
	for _, s := range []string{
		"{% for i in range(100000000) %}x{% endfor %}",
		"{{ range(10) }}",
		"{{ cycler('a') }}",
		"{{ x.upper() }}",
		"{% include 'x.txt' %}",
		"{% import 'm.njk' as m %}",
		"{% macro m() %}{% endmacro %}",
		"{% extends 'base' %}",
		"{{ x | random }}",
		"{% if x %}no end",
		"{{ unclosed",
		"{{ x | nosuchfilter }}",
		strings.Repeat("a", MaxTemplate+1),
		"{{ " + strings.Repeat("(", 100) + "x" + strings.Repeat(")", 100) + " }}",
	} {
		_, err := compileTemplate("{{ '' }}" + s)
		assert.Check(t, err != nil, "%q compiled", s)
	}
}

// TestTemplateBudget: a template whose work grows faster than what it is
// given stops at its budget, in time, with errBudget.
func TestTemplateBudget(t *testing.T) {
	items := make([]any, 1000)
	for i := range items {
		items[i] = "x"
	}
	vars := map[string]any{"xs": items, "s": strings.Repeat("y", 64<<10), "lines": strings.Repeat("y\n", 1000)}
	for _, s := range []string{
		"{% for a in xs %}{% for b in xs %}{% for c in xs %}{{ a }}{% endfor %}{% endfor %}{% endfor %}",
		"{% for a in xs %}{% for b in xs %}{{ s }}{% endfor %}{% endfor %}",
		"{{ s | replace('', s) }}",
		"{{ s | center(1000000000) }}",
		"{{ lines | indent(100000) }}",
		"{% set t = s ~ s ~ s ~ s ~ s %}{% set t = t ~ t ~ t ~ t ~ t %}{% set t = t ~ t ~ t ~ t ~ t %}{{ t }}",
	} {
		tmpl, err := compileTemplate(s)
		assert.NilError(t, err, s)
		_, err = tmpl.render(vars, importSteps)
		assert.Check(t, errors.Is(err, errBudget), "%q: %v", s, err)
	}
}

// FuzzTemplate: whatever compiles renders within its budget, without a
// panic.
func FuzzTemplate(f *testing.F) {
	for _, tc := range templateCases {
		f.Add(tc.tmpl)
	}
	vars := map[string]any{"q": "<a&b>", "question": "what?", "items": []any{"a", "b"}, "n": 3, "obj": map[string]any{"k": "v"}}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := compileTemplate(s)
		if err != nil {
			return
		}
		out, err := tmpl.render(vars, importSteps)
		if err == nil && len(out) > maxRendered {
			t.Fatalf("%q rendered %d bytes, over %d", s, len(out), maxRendered)
		}
	})
}
