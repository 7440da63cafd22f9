package promptfoo

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// promptfoo renders prompts, assertion values and vars with Nunjucks.
// The import renders them itself, with the part of Nunjucks whose cost is
// bounded by what it is given (docs/migrating-from-promptfoo.md says
// which): output tags, filters and operators over vars and literals,
// {% if %}, {% for %} over a var, {% set %}, {% raw %} and comments, with
// JavaScript's meaning of values (Nunjucks compiles to JavaScript: a list
// writes as "a,b", a number as JavaScript writes it, [] is true). There is
// no call: no range(), no cycler, no method, no include or import, so a
// template reads nothing but its vars, and every render is held to a
// budget of steps and of output bytes. A config, and a suite on a pull
// request, are their author's input (docs/security.md).

// MaxTemplate bounds the text of a template the import or a sheet's suite
// renders.
const MaxTemplate = 64 << 10

// maxRendered bounds what a template writes: the limit for a task made
// from a row (suites.MaxTaskBytes).
const maxRendered = 4 << 20

// errBudget is a render that went over its budget of steps or bytes.
var errBudget = errors.New("the template would take more than its budget of steps or output")

// template is a compiled template.
type template struct {
	nodes []tnode
	size  int // the template's length, for the budget
}

type (
	tnode any
	// textNode is text written as it is.
	textNode string
	// outNode writes an expression's value.
	outNode struct{ e texpr }
	// ifNode writes the body of the first condition that holds.
	ifNode struct {
		conds  []texpr
		bodies [][]tnode
		els    []tnode
	}
	// forNode writes its body for each item of a list (or each key and
	// value of an object, with two names).
	forNode struct {
		names []string
		iter  texpr
		body  []tnode
		els   []tnode
	}
	// setNode sets names to a value, or to what its body writes.
	setNode struct {
		names []string
		e     texpr
		body  []tnode
	}
)

type (
	texpr    any
	litExpr  struct{ v any }
	nameExpr struct {
		name string
	}
	memberExpr struct{ obj, key texpr }
	filterExpr struct {
		name string
		args []texpr // the value filtered first
	}
	unaryExpr struct {
		op string
		x  texpr
	}
	binaryExpr struct {
		op   string
		l, r texpr
	}
	condExpr struct{ cond, then, els texpr }
	isExpr   struct {
		x    texpr
		test string
		arg  texpr
		not  bool
	}
	listExpr struct{ items []texpr }
	dictExpr struct{ keys, vals []texpr }
)

// undefinedT is JavaScript's undefined: a var that is not there, a member
// an object does not have. nil is null.
type undefinedT struct{}

var undefined = undefinedT{}

// compileTemplate compiles s; the error says why s is not in the subset
// (or not a template at all).
func compileTemplate(s string) (*template, error) {
	if len(s) > MaxTemplate {
		return nil, fmt.Errorf("the template is over %d bytes", MaxTemplate)
	}
	p := &tparser{src: s}
	nodes, end, err := p.nodes(nil)
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, fmt.Errorf("{%% %s %%} closes nothing", end)
	}
	return &template{nodes: nodes, size: len(s)}, nil
}

// tparser parses a template.
type tparser struct {
	src string
	pos int
	// trimNext is set after a tag that ends with "-": the text after it
	// starts with its whitespace removed.
	trimNext bool
}

// nodes parses until a tag named in ends (or the end of the text); end is
// the tag's whole body ("endif", "elif x > 1"), "" at the end.
func (p *tparser) nodes(ends []string) (out []tnode, end string, err error) {
	for p.pos < len(p.src) {
		i := nextTag(p.src, p.pos)
		text := p.src[p.pos:i]
		if p.trimNext {
			text = strings.TrimLeftFunc(text, isJSSpace)
			p.trimNext = false
		}
		if i < len(p.src) && i+2 < len(p.src) && p.src[i+2] == '-' {
			text = strings.TrimRightFunc(text, isJSSpace)
		}
		if text != "" {
			out = append(out, textNode(text))
		}
		p.pos = i
		if i >= len(p.src) {
			break
		}
		open := p.src[i : i+2]
		closer := map[string]string{"{{": "}}", "{%": "%}", "{#": "#}"}[open]
		j := strings.Index(p.src[i+2:], closer)
		if j < 0 {
			return nil, "", fmt.Errorf("%s is not closed", open)
		}
		inner := p.src[i+2 : i+2+j]
		p.pos = i + 2 + j + 2
		inner = strings.TrimPrefix(inner, "-")
		if strings.HasSuffix(inner, "-") {
			inner = strings.TrimSuffix(inner, "-")
			p.trimNext = true
		}
		switch open {
		case "{#":
			continue
		case "{{":
			e, err := parseExpr(inner)
			if err != nil {
				return nil, "", fmt.Errorf("{{%s}}: %w", inner, err)
			}
			out = append(out, outNode{e})
			continue
		}
		body := strings.TrimSpace(inner)
		word, rest := body, ""
		if i := strings.IndexFunc(body, unicode.IsSpace); i >= 0 {
			word, rest = body[:i], strings.TrimSpace(body[i:])
		}
		if slices.Contains(ends, word) {
			return out, body, nil
		}
		n, err := p.statement(word, rest)
		if err != nil {
			return nil, "", fmt.Errorf("{%% %s %%}: %w", body, err)
		}
		if n != nil {
			out = append(out, n)
		}
	}
	if len(ends) > 0 {
		return nil, "", fmt.Errorf("{%% %s %%} is missing", ends[len(ends)-1])
	}
	return out, "", nil
}

// nextTag is the index of the next {{, {% or {# at or after i; len(s)
// when there is none.
func nextTag(s string, i int) int {
	for {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 || i+j+1 >= len(s) {
			return len(s)
		}
		if c := s[i+j+1]; c == '{' || c == '%' || c == '#' {
			return i + j
		}
		i += j + 1
	}
}

func (p *tparser) statement(word, rest string) (tnode, error) {
	switch word {
	case "if":
		return p.ifStatement(rest)
	case "for":
		return p.forStatement(rest)
	case "set":
		return p.setStatement(rest)
	case "raw", "verbatim":
		end := endRawRE()[word].FindStringIndex(p.src[p.pos:])
		if end == nil {
			return nil, fmt.Errorf("{%% end%s %%} is missing", word)
		}
		text := p.src[p.pos : p.pos+end[0]]
		p.pos += end[1]
		return textNode(text), nil
	case "":
		return nil, errors.New("an empty tag")
	}
	return nil, fmt.Errorf("the tag %q is not rendered here (only if, for, set, raw and comments are)", word)
}

// endRawRE finds the tag that ends a raw block.
var endRawRE = sync.OnceValue(func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		"raw":      regexp.MustCompile(`\{%-?\s*endraw\s*-?%\}`),
		"verbatim": regexp.MustCompile(`\{%-?\s*endverbatim\s*-?%\}`),
	}
})

func (p *tparser) ifStatement(cond string) (tnode, error) {
	n := ifNode{}
	for {
		c, err := parseExpr(cond)
		if err != nil {
			return nil, err
		}
		body, end, err := p.nodes([]string{"elif", "elseif", "else", "endif"})
		if err != nil {
			return nil, err
		}
		n.conds = append(n.conds, c)
		n.bodies = append(n.bodies, body)
		word, rest := end, ""
		if i := strings.IndexFunc(end, unicode.IsSpace); i >= 0 {
			word, rest = end[:i], strings.TrimSpace(end[i:])
		}
		switch word {
		case "endif":
			return n, nil
		case "else":
			els, _, err := p.nodes([]string{"endif"})
			if err != nil {
				return nil, err
			}
			n.els = els
			return n, nil
		}
		cond = rest
	}
}

var forRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^(.*?)\s+in\s+(.*)$`) })

func (p *tparser) forStatement(rest string) (tnode, error) {
	m := forRE().FindStringSubmatch(rest)
	if m == nil {
		return nil, errors.New("expected for NAME in VALUE")
	}
	names, iter := m[1], m[2]
	n := forNode{}
	for _, name := range strings.Split(names, ",") {
		name = strings.TrimSpace(name)
		if !isName(name) {
			return nil, fmt.Errorf("%q is not a name", name)
		}
		n.names = append(n.names, name)
	}
	if len(n.names) > 2 {
		return nil, errors.New("for takes one or two names")
	}
	e, err := parseExpr(iter)
	if err != nil {
		return nil, err
	}
	n.iter = e
	body, end, err := p.nodes([]string{"else", "endfor"})
	if err != nil {
		return nil, err
	}
	n.body = body
	if end == "else" {
		if n.els, _, err = p.nodes([]string{"endfor"}); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (p *tparser) setStatement(rest string) (tnode, error) {
	names, value, hasValue := strings.Cut(rest, "=")
	n := setNode{}
	for _, name := range strings.Split(names, ",") {
		name = strings.TrimSpace(name)
		if !isName(name) {
			return nil, fmt.Errorf("%q is not a name", name)
		}
		n.names = append(n.names, name)
	}
	if !hasValue {
		body, _, err := p.nodes([]string{"endset"})
		if err != nil {
			return nil, err
		}
		n.body = body
		return n, nil
	}
	e, err := parseExpr(value)
	if err != nil {
		return nil, err
	}
	n.e = e
	return n, nil
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// Expressions.

type tok struct {
	kind byte // 'n' name, 's' string, '0' number, 'o' operator
	text string
	str  string
	num  float64
}

func lexExpr(s string) ([]tok, error) {
	var out []tok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					switch s[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case 'r':
						b.WriteByte('\r')
					default:
						b.WriteByte(s[j])
					}
					continue
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, errors.New("a string is not closed")
			}
			out = append(out, tok{kind: 's', text: s[i : j+1], str: b.String()})
			i = j + 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
				j++
			}
			f, err := strconv.ParseFloat(s[i:j], 64)
			if err != nil {
				return nil, err
			}
			out = append(out, tok{kind: '0', text: s[i:j], num: f})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			j := i
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
					break
				}
				j += n
			}
			if j == i {
				return nil, fmt.Errorf("unexpected %q", s[i:i+1])
			}
			out = append(out, tok{kind: 'n', text: s[i:j]})
			i = j
		default:
			op := ""
			for _, o := range []string{"===", "!==", "==", "!=", "<=", ">=", "//", "**", "(", ")", "[", "]", "{", "}", ",", ":", ".", "|", "<", ">", "+", "-", "*", "/", "%", "~", "="} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unexpected %q", s[i:i+1])
			}
			out = append(out, tok{kind: 'o', text: op})
			i += len(op)
		}
	}
	return out, nil
}

// exprParser parses an expression with Nunjucks' precedence.
type exprParser struct {
	toks  []tok
	i     int
	depth int
}

// maxExprDepth bounds the nesting of an expression: parsing recurses.
const maxExprDepth = 64

func parseExpr(s string) (texpr, error) {
	toks, err := lexExpr(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, errors.New("an empty expression")
	}
	p := &exprParser{toks: toks}
	e, err := p.inlineIf()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q", p.toks[p.i].text)
	}
	return e, nil
}

func (p *exprParser) peek(kind byte, text string) bool {
	return p.i < len(p.toks) && p.toks[p.i].kind == kind && p.toks[p.i].text == text
}

func (p *exprParser) skip(kind byte, text string) bool {
	if p.peek(kind, text) {
		p.i++
		return true
	}
	return false
}

func (p *exprParser) inlineIf() (texpr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxExprDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxExprDepth)
	}
	then, err := p.or()
	if err != nil {
		return nil, err
	}
	if !p.skip('n', "if") {
		return then, nil
	}
	cond, err := p.or()
	if err != nil {
		return nil, err
	}
	var els texpr = litExpr{undefined}
	if p.skip('n', "else") {
		if els, err = p.or(); err != nil {
			return nil, err
		}
	}
	return condExpr{cond: cond, then: then, els: els}, nil
}

func (p *exprParser) binary(ops []string, kind byte, next func() (texpr, error)) (texpr, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		op := ""
		for _, o := range ops {
			if p.skip(kind, o) {
				op = o
				break
			}
		}
		if op == "" {
			return l, nil
		}
		r, err := next()
		if err != nil {
			return nil, err
		}
		l = binaryExpr{op: op, l: l, r: r}
	}
}

func (p *exprParser) or() (texpr, error)  { return p.binary([]string{"or"}, 'n', p.and) }
func (p *exprParser) and() (texpr, error) { return p.binary([]string{"and"}, 'n', p.not) }

func (p *exprParser) not() (texpr, error) {
	if p.skip('n', "not") {
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return unaryExpr{op: "not", x: x}, nil
	}
	return p.in()
}

func (p *exprParser) in() (texpr, error) {
	l, err := p.is()
	if err != nil {
		return nil, err
	}
	for {
		negate := false
		if p.peek('n', "not") && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == 'n' && p.toks[p.i+1].text == "in" {
			p.i += 2
			negate = true
		} else if !p.skip('n', "in") {
			return l, nil
		}
		r, err := p.is()
		if err != nil {
			return nil, err
		}
		l = binaryExpr{op: "in", l: l, r: r}
		if negate {
			l = unaryExpr{op: "not", x: l}
		}
	}
}

func (p *exprParser) is() (texpr, error) {
	x, err := p.compare()
	if err != nil {
		return nil, err
	}
	if !p.skip('n', "is") {
		return x, nil
	}
	n := isExpr{x: x, not: p.skip('n', "not")}
	if p.i >= len(p.toks) || p.toks[p.i].kind != 'n' {
		return nil, errors.New("expected a test after is")
	}
	n.test = p.toks[p.i].text
	p.i++
	switch n.test {
	case "defined", "undefined", "none", "null", "string", "number", "odd", "even", "truthy", "falsy", "mapping", "iterable", "lower", "upper":
	case "equalto", "eq", "sameas", "ne", "gt", "lt", "ge", "le", "greaterthan", "lessthan", "divisibleby":
		if n.arg, err = p.concat(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("the test %q is not rendered here", n.test)
	}
	return n, nil
}

func (p *exprParser) compare() (texpr, error) {
	return p.binary([]string{"===", "!==", "==", "!=", "<=", ">=", "<", ">"}, 'o', p.concat)
}
func (p *exprParser) concat() (texpr, error) { return p.binary([]string{"~"}, 'o', p.add) }
func (p *exprParser) add() (texpr, error)    { return p.binary([]string{"+", "-"}, 'o', p.mul) }
func (p *exprParser) mul() (texpr, error) {
	return p.binary([]string{"*", "//", "/", "%"}, 'o', p.pow)
}
func (p *exprParser) pow() (texpr, error) { return p.binary([]string{"**"}, 'o', p.unaryFiltered) }

func (p *exprParser) unaryFiltered() (texpr, error) {
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	return p.filters(x)
}

func (p *exprParser) unary() (texpr, error) {
	for _, op := range []string{"-", "+"} {
		if p.skip('o', op) {
			p.depth++
			defer func() { p.depth-- }()
			if p.depth > maxExprDepth {
				return nil, fmt.Errorf("nested deeper than %d levels", maxExprDepth)
			}
			x, err := p.unary()
			if err != nil {
				return nil, err
			}
			return unaryExpr{op: op, x: x}, nil
		}
	}
	return p.postfix()
}

func (p *exprParser) filters(x texpr) (texpr, error) {
	for p.skip('o', "|") {
		if p.i >= len(p.toks) || p.toks[p.i].kind != 'n' {
			return nil, errors.New("expected a filter name after |")
		}
		name := p.toks[p.i].text
		p.i++
		if !knownFilter(name) {
			return nil, fmt.Errorf("the filter %q is not rendered here", name)
		}
		f := filterExpr{name: name, args: []texpr{x}}
		if p.skip('o', "(") {
			for !p.skip('o', ")") {
				if len(f.args) > 1 && !p.skip('o', ",") {
					return nil, errors.New("expected , or ) in the filter's arguments")
				}
				a, err := p.inlineIf()
				if err != nil {
					return nil, err
				}
				f.args = append(f.args, a)
			}
		}
		x = f
	}
	return x, nil
}

func (p *exprParser) postfix() (texpr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.skip('o', "."):
			if p.i >= len(p.toks) || p.toks[p.i].kind != 'n' && p.toks[p.i].kind != '0' {
				return nil, errors.New("expected a name after the dot")
			}
			x = memberExpr{obj: x, key: litExpr{p.toks[p.i].text}}
			p.i++
		case p.skip('o', "["):
			k, err := p.inlineIf()
			if err != nil {
				return nil, err
			}
			if !p.skip('o', "]") {
				return nil, errors.New("expected ]")
			}
			x = memberExpr{obj: x, key: k}
		case p.peek('o', "("):
			return nil, errors.New("a call is not rendered here (no range(), no methods): only vars, literals, operators and filters")
		default:
			return x, nil
		}
	}
}

func (p *exprParser) primary() (texpr, error) {
	if p.i >= len(p.toks) {
		return nil, errors.New("the expression ends too soon")
	}
	t := p.toks[p.i]
	p.i++
	switch t.kind {
	case 's':
		return litExpr{t.str}, nil
	case '0':
		return litExpr{t.num}, nil
	case 'n':
		switch t.text {
		case "true", "True":
			return litExpr{true}, nil
		case "false", "False":
			return litExpr{false}, nil
		case "none", "None", "null":
			return litExpr{nil}, nil
		}
		return nameExpr{t.text}, nil
	}
	switch t.text {
	case "(":
		e, err := p.inlineIf()
		if err != nil {
			return nil, err
		}
		if !p.skip('o', ")") {
			return nil, errors.New("expected )")
		}
		return e, nil
	case "[":
		var l listExpr
		for !p.skip('o', "]") {
			if len(l.items) > 0 && !p.skip('o', ",") {
				return nil, errors.New("expected , or ]")
			}
			if p.skip('o', "]") {
				break
			}
			e, err := p.inlineIf()
			if err != nil {
				return nil, err
			}
			l.items = append(l.items, e)
		}
		return l, nil
	case "{":
		var d dictExpr
		for !p.skip('o', "}") {
			if len(d.keys) > 0 && !p.skip('o', ",") {
				return nil, errors.New("expected , or }")
			}
			k, err := p.inlineIf()
			if err != nil {
				return nil, err
			}
			if !p.skip('o', ":") {
				return nil, errors.New("expected a colon after the key")
			}
			v, err := p.inlineIf()
			if err != nil {
				return nil, err
			}
			d.keys, d.vals = append(d.keys, k), append(d.vals, v)
		}
		return d, nil
	}
	return nil, fmt.Errorf("unexpected %q", t.text)
}

// Rendering.

// renderer renders one template under a budget.
type renderer struct {
	steps, maxSteps int
	out             strings.Builder
}

// frame holds the names a template sets: a for loop's own, or the
// template's.
type frame struct {
	vars   map[string]any
	parent *frame
	// vars0 marks the frame of the template's vars, which a set never
	// changes: it sets the name in the template's own frame instead.
	vars0 bool
}

func (f *frame) lookup(name string) (any, bool) {
	for ; f != nil; f = f.parent {
		if v, ok := f.vars[name]; ok {
			if _, undef := v.(undefinedT); !undef {
				return v, true
			}
		}
	}
	return nil, false
}

// set sets name where it is already set, else in f, as Nunjucks' set does.
func (f *frame) set(name string, v any) {
	for g := f; g != nil && !g.vars0; g = g.parent {
		if _, ok := g.vars[name]; ok {
			g.vars[name] = v
			return
		}
	}
	f.vars[name] = v
}

// render writes t with vars. Its budget is fixed steps and 16 more for
// each byte of the template and its vars, and maxRendered bytes of
// output: a sheet's suite, which renders its prompt for each row as it
// loads, gives a small fixed part, so that rows load in time linear in
// their size.
func (t *template) render(vars map[string]any, fixed int) (string, error) {
	r := &renderer{maxSteps: fixed + 16*(t.size+sizeOf(vars, 0))}
	top := &frame{vars: map[string]any{}}
	ctx := &frame{vars: vars, vars0: true}
	top.parent = ctx
	if err := r.nodes(t.nodes, top); err != nil {
		return "", err
	}
	return r.out.String(), nil
}

// sizeOf is about how many bytes v takes as text, to scale the budget.
func sizeOf(v any, depth int) int {
	if depth > 64 {
		return 0
	}
	switch x := v.(type) {
	case string:
		return len(x)
	case []any:
		n := 1
		for _, e := range x {
			n += sizeOf(e, depth+1) + 1
		}
		return n
	case map[string]any:
		n := 1
		for k, e := range x {
			n += len(k) + sizeOf(e, depth+1) + 1
		}
		return n
	case orderedObject:
		n := 1
		for i, k := range x.keys {
			n += len(k) + sizeOf(x.vals[i], depth+1) + 1
		}
		return n
	}
	return 8
}

func (r *renderer) step(n int) error {
	r.steps += n
	if r.steps > r.maxSteps {
		return errBudget
	}
	return nil
}

func (r *renderer) write(s string) error {
	if r.out.Len()+len(s) > maxRendered {
		return errBudget
	}
	r.out.WriteString(s)
	return r.step(1 + len(s)/64)
}

func (r *renderer) nodes(ns []tnode, f *frame) error {
	for _, n := range ns {
		if err := r.node(n, f); err != nil {
			return err
		}
	}
	return nil
}

func (r *renderer) node(n tnode, f *frame) error {
	if err := r.step(1); err != nil {
		return err
	}
	switch n := n.(type) {
	case textNode:
		return r.write(string(n))
	case outNode:
		v, err := r.eval(n.e, f)
		if err != nil {
			return err
		}
		if v == nil || v == undefined {
			return nil
		}
		s, err := r.str(v)
		if err != nil {
			return err
		}
		return r.write(s)
	case ifNode:
		for i, c := range n.conds {
			v, err := r.eval(c, f)
			if err != nil {
				return err
			}
			if truthy(v) {
				return r.nodes(n.bodies[i], f)
			}
		}
		return r.nodes(n.els, f)
	case forNode:
		return r.loop(n, f)
	case setNode:
		var v any
		if n.body != nil {
			sub := &renderer{maxSteps: r.maxSteps - r.steps}
			if err := sub.nodes(n.body, f); err != nil {
				return err
			}
			if err := r.step(sub.steps); err != nil {
				return err
			}
			v = sub.out.String()
		} else {
			var err error
			if v, err = r.eval(n.e, f); err != nil {
				return err
			}
		}
		for _, name := range n.names {
			f.set(name, v)
		}
		return nil
	}
	return fmt.Errorf("unknown node %T", n)
}

func (r *renderer) loop(n forNode, f *frame) error {
	it, err := r.eval(n.iter, f)
	if err != nil {
		return err
	}
	inner := &frame{vars: map[string]any{}, parent: f}
	var items [][2]any // key (or the item), value
	switch x := it.(type) {
	case []any:
		for _, e := range x {
			if len(n.names) == 2 {
				items = append(items, [2]any{member(e, 0.0), member(e, 1.0)})
			} else {
				items = append(items, [2]any{e})
			}
		}
	case string:
		if len(n.names) == 1 {
			for _, u := range utf16.Encode([]rune(x)) {
				items = append(items, [2]any{string(utf16.Decode([]uint16{u}))})
			}
		}
	default:
		if keys, get, ok := objectOf(x); ok && len(n.names) == 2 {
			for _, k := range keys {
				items = append(items, [2]any{k, get(k)})
			}
		}
	}
	if len(items) == 0 {
		return r.nodes(n.els, f)
	}
	// One frame for the loop, as Nunjucks has: what the body sets stays
	// from one pass to the next.
	for i, item := range items {
		inner.vars[n.names[0]] = item[0]
		if len(n.names) == 2 {
			inner.vars[n.names[1]] = item[1]
		}
		l := float64(len(items))
		inner.vars["loop"] = orderedObject{
			keys: []string{"index", "index0", "revindex", "revindex0", "first", "last", "length"},
			vals: []any{float64(i + 1), float64(i), l - float64(i), l - float64(i) - 1, i == 0, i == len(items)-1, l},
		}
		if err := r.nodes(n.body, inner); err != nil {
			return err
		}
	}
	return nil
}

// objectOf is v as an object: its keys in the order JavaScript lists
// them and a lookup; ok is false for what is not an object.
func objectOf(v any) (keys []string, get func(string) any, ok bool) {
	switch x := v.(type) {
	case map[string]any:
		return jsKeys(x), func(k string) any { return norm(x[k]) }, true
	case orderedObject:
		return x.order(), func(k string) any { return norm(x.get(k)) }, true
	}
	return nil, nil, false
}

func isObject(v any) bool {
	_, _, ok := objectOf(v)
	return ok
}

// jsKeys are an object's keys in the order JavaScript lists them: the
// integer keys rising, then the others (sorted here, as a Go map keeps no
// order).
func jsKeys(m map[string]any) []string {
	var ints, others []string
	for k := range m {
		if n, err := strconv.ParseUint(k, 10, 32); err == nil && strconv.FormatUint(n, 10) == k {
			ints = append(ints, k)
		} else {
			others = append(others, k)
		}
	}
	slices.SortFunc(ints, func(a, b string) int {
		x, _ := strconv.ParseUint(a, 10, 32)
		y, _ := strconv.ParseUint(b, 10, 32)
		return int(int64(x) - int64(y))
	})
	slices.Sort(others)
	return append(ints, others...)
}

func (r *renderer) eval(e texpr, f *frame) (any, error) {
	if err := r.step(1); err != nil {
		return nil, err
	}
	switch e := e.(type) {
	case litExpr:
		return e.v, nil
	case nameExpr:
		if v, ok := f.lookup(e.name); ok {
			return norm(v), nil
		}
		return undefined, nil
	case memberExpr:
		obj, err := r.eval(e.obj, f)
		if err != nil {
			return nil, err
		}
		k, err := r.eval(e.key, f)
		if err != nil {
			return nil, err
		}
		return member(obj, k), nil
	case listExpr:
		out := make([]any, 0, len(e.items))
		for _, it := range e.items {
			v, err := r.eval(it, f)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case dictExpr:
		out := orderedObject{}
		for i := range e.keys {
			k, err := r.eval(e.keys[i], f)
			if err != nil {
				return nil, err
			}
			v, err := r.eval(e.vals[i], f)
			if err != nil {
				return nil, err
			}
			ks, err := r.str(k)
			if err != nil {
				return nil, err
			}
			if i := slices.Index(out.keys, ks); i >= 0 {
				out.vals[i] = v
				continue
			}
			out.keys, out.vals = append(out.keys, ks), append(out.vals, v)
		}
		return out, nil
	case condExpr:
		c, err := r.eval(e.cond, f)
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			return r.eval(e.then, f)
		}
		return r.eval(e.els, f)
	case unaryExpr:
		x, err := r.eval(e.x, f)
		if err != nil {
			return nil, err
		}
		switch e.op {
		case "not":
			return !truthy(x), nil
		case "-":
			return -toNumber(x), nil
		}
		return toNumber(x), nil
	case binaryExpr:
		return r.binary(e, f)
	case isExpr:
		x, err := r.eval(e.x, f)
		if err != nil {
			return nil, err
		}
		var arg any
		if e.arg != nil {
			if arg, err = r.eval(e.arg, f); err != nil {
				return nil, err
			}
		}
		return isTest(e.test, x, arg) != e.not, nil
	case filterExpr:
		args := make([]any, len(e.args))
		for i, a := range e.args {
			v, err := r.eval(a, f)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		return r.filter(e.name, args)
	}
	return nil, fmt.Errorf("unknown expression %T", e)
}

func (r *renderer) binary(e binaryExpr, f *frame) (any, error) {
	l, err := r.eval(e.l, f)
	if err != nil {
		return nil, err
	}
	switch e.op { // the short-circuits give an operand, as in JavaScript
	case "and":
		if !truthy(l) {
			return l, nil
		}
		return r.eval(e.r, f)
	case "or":
		if truthy(l) {
			return l, nil
		}
		return r.eval(e.r, f)
	}
	rv, err := r.eval(e.r, f)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case "==":
		return looseEq(l, rv), nil
	case "!=":
		return !looseEq(l, rv), nil
	case "===":
		return strictEq(l, rv), nil
	case "!==":
		return !strictEq(l, rv), nil
	case "<", ">", "<=", ">=":
		return compare(e.op, l, rv), nil
	case "~":
		a, err := r.str(l)
		if err != nil {
			return nil, err
		}
		b, err := r.str(rv)
		if err != nil {
			return nil, err
		}
		return r.concat(a, b)
	case "+":
		lp, rp := primitive(l), primitive(rv)
		_, ls := lp.(string)
		_, rs := rp.(string)
		if ls || rs {
			a, err := r.str(lp)
			if err != nil {
				return nil, err
			}
			b, err := r.str(rp)
			if err != nil {
				return nil, err
			}
			return r.concat(a, b)
		}
		return toNumber(lp) + toNumber(rp), nil
	case "-":
		return toNumber(l) - toNumber(rv), nil
	case "*":
		return toNumber(l) * toNumber(rv), nil
	case "/":
		return toNumber(l) / toNumber(rv), nil
	case "//":
		return math.Floor(toNumber(l) / toNumber(rv)), nil
	case "%":
		return math.Mod(toNumber(l), toNumber(rv)), nil
	case "**":
		return math.Pow(toNumber(l), toNumber(rv)), nil
	case "in":
		return inOp(l, rv)
	}
	return nil, fmt.Errorf("unknown operator %s", e.op)
}

func (r *renderer) concat(a, b string) (string, error) {
	if len(a)+len(b) > maxRendered {
		return "", errBudget
	}
	return a + b, r.step(1 + (len(a)+len(b))/64)
}

// str is String(v) in JavaScript, held to the output budget.
func (r *renderer) str(v any) (string, error) {
	var b strings.Builder
	if err := jsString(&b, v, 0); err != nil {
		return "", err
	}
	return b.String(), r.step(1 + b.Len()/64)
}

// jsString writes String(v): undefined and null as themselves at the top,
// as "" inside a list; a list joined with commas; an object as
// "[object Object]".
func jsString(b *strings.Builder, v any, depth int) error {
	if b.Len() > maxRendered || depth > 64 {
		return errBudget
	}
	switch x := norm(v).(type) {
	case undefinedT:
		b.WriteString("undefined")
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		b.WriteString(jsNumber(x))
	case string:
		b.WriteString(x)
	case []any:
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if e == nil || e == undefined {
				continue
			}
			if err := jsString(b, e, depth+1); err != nil {
				return err
			}
		}
	default:
		b.WriteString("[object Object]")
	}
	return nil
}

// norm makes the numbers of YAML and JSON one kind, float64, as
// JavaScript's.
func norm(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case int32:
		return float64(x)
	case float32:
		return float64(x)
	}
	return v
}

// jsNumber writes a number as JavaScript's String(n) does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		e, _ := strconv.Atoi(exp)
		sign := "+"
		if e < 0 {
			sign = "-"
			e = -e
		}
		return mant + "e" + sign + strconv.Itoa(e)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func truthy(v any) bool {
	switch x := norm(v).(type) {
	case nil, undefinedT:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

// primitive is JavaScript's ToPrimitive: a list or object becomes its
// String.
func primitive(v any) any {
	switch x := norm(v).(type) {
	case []any, map[string]any, orderedObject:
		var b strings.Builder
		_ = jsString(&b, x, 0)
		return b.String()
	default:
		return x
	}
}

func toNumber(v any) float64 {
	switch x := primitive(v).(type) {
	case nil:
		return 0
	case undefinedT:
		return math.NaN()
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		s := strings.TrimFunc(x, isJSSpace)
		if s == "" {
			return 0
		}
		if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
			n, err := strconv.ParseUint(h, 16, 64)
			if err != nil {
				return math.NaN()
			}
			return float64(n)
		}
		switch s {
		case "Infinity", "+Infinity":
			return math.Inf(1)
		case "-Infinity":
			return math.Inf(-1)
		}
		if strings.ContainsAny(s, "_xXnN") { // Go's syntax is wider than JavaScript's
			return math.NaN()
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	}
	return math.NaN()
}

func looseEq(a, b any) bool {
	a, b = norm(a), norm(b)
	an := a == nil || a == undefined
	bn := b == nil || b == undefined
	if an || bn {
		return an && bn
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return x == y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x == y
		}
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	case []any, map[string]any, orderedObject:
		switch b.(type) {
		case []any, map[string]any, orderedObject:
			return false // two objects are equal only when they are one
		}
		return looseEq(primitive(a), b)
	}
	switch b.(type) {
	case []any, map[string]any, orderedObject:
		return looseEq(a, primitive(b))
	}
	return toNumber(a) == toNumber(b)
}

func strictEq(a, b any) bool {
	a, b = norm(a), norm(b)
	switch x := a.(type) {
	case nil:
		return b == nil
	case undefinedT:
		return b == undefined
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}

func compare(op string, a, b any) bool {
	a, b = primitive(a), primitive(b)
	if x, ok := a.(string); ok {
		if y, ok := b.(string); ok {
			c := slices.Compare(utf16.Encode([]rune(x)), utf16.Encode([]rune(y)))
			switch op {
			case "<":
				return c < 0
			case ">":
				return c > 0
			case "<=":
				return c <= 0
			}
			return c >= 0
		}
	}
	x, y := toNumber(a), toNumber(b)
	switch op {
	case "<":
		return x < y
	case ">":
		return x > y
	case "<=":
		return x <= y
	}
	return x >= y
}

// inOp is Nunjucks' "in": an item of a list, a substring, a key.
func inOp(key, v any) (any, error) {
	switch x := norm(v).(type) {
	case []any:
		for _, e := range x {
			if strictEq(e, key) {
				return true, nil
			}
		}
		return false, nil
	case string:
		var b strings.Builder
		_ = jsString(&b, key, 0)
		return strings.Contains(x, b.String()), nil
	default:
		if keys, _, ok := objectOf(x); ok {
			var b strings.Builder
			_ = jsString(&b, key, 0)
			return slices.Contains(keys, b.String()), nil
		}
	}
	return nil, errors.New(`cannot use "in" operator to search in a value that is not a list, a string or an object`)
}

// member is obj[key] in JavaScript, undefined for what is not there.
func member(obj, key any) any {
	obj = norm(obj)
	key = norm(key)
	switch x := obj.(type) {
	case map[string]any, orderedObject:
		keys, get, _ := objectOf(x)
		var b strings.Builder
		_ = jsString(&b, key, 0)
		if slices.Contains(keys, b.String()) {
			return get(b.String())
		}
	case []any:
		if k, ok := arrayIndex(key); ok {
			if k < len(x) {
				return norm(x[k])
			}
			return undefined
		}
		if key == "length" {
			return float64(len(x))
		}
	case string:
		u := utf16.Encode([]rune(x))
		if k, ok := arrayIndex(key); ok {
			if k < len(u) {
				return string(utf16.Decode(u[k : k+1]))
			}
			return undefined
		}
		if key == "length" {
			return float64(len(u))
		}
	}
	return undefined
}

func arrayIndex(key any) (int, bool) {
	switch k := key.(type) {
	case float64:
		if k >= 0 && k == math.Trunc(k) && k < 1<<31 {
			return int(k), true
		}
	case string:
		if n, err := strconv.ParseUint(k, 10, 31); err == nil && strconv.FormatUint(n, 10) == k {
			return int(n), true
		}
	}
	return 0, false
}

func isTest(test string, x, arg any) bool {
	x = norm(x)
	switch test {
	case "defined":
		return x != undefined
	case "undefined":
		return x == undefined
	case "none", "null":
		return x == nil
	case "string":
		_, ok := x.(string)
		return ok
	case "number":
		_, ok := x.(float64)
		return ok
	case "odd", "even":
		n := toNumber(x)
		if test == "odd" {
			return math.Mod(n, 2) == 1
		}
		return math.Mod(n, 2) == 0
	case "truthy":
		return truthy(x)
	case "falsy":
		return !truthy(x)
	case "mapping":
		return isObject(x)
	case "iterable":
		switch x.(type) {
		case []any, string:
			return true
		}
		return false
	case "lower", "upper":
		s, ok := x.(string)
		if !ok {
			return false
		}
		if test == "lower" {
			return strings.ToLower(s) == s
		}
		return strings.ToUpper(s) == s
	case "equalto", "eq", "sameas":
		return strictEq(x, arg)
	case "ne":
		return !strictEq(x, arg)
	case "gt", "greaterthan":
		return compare(">", x, arg)
	case "lt", "lessthan":
		return compare("<", x, arg)
	case "ge":
		return compare(">=", x, arg)
	case "le":
		return compare("<=", x, arg)
	case "divisibleby":
		return math.Mod(toNumber(x), toNumber(arg)) == 0
	}
	return false
}

func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' }
