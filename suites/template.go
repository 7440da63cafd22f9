package suites

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/jsonpointer"
)

// canaryText is the per-run canary's placeholder (fixtures replaces it),
// which a template keeps as literal text.
const canaryText = "{{canary}}"

// Template is the text of a stateful fixture's pointer or string value,
// with placeholders {args.NAME} for the call's arguments ({args.NAME.0}
// reaches into an array or object argument). It is parsed when the suite
// loads, so a bad placeholder is a load error at its line.
type Template struct {
	Text  string
	parts []templatePart
}

// templatePart is literal text, or an argument when arg is set: the path
// into the arguments, its first element the argument's name.
type templatePart struct {
	lit string
	arg []string
}

// ParseTemplate parses text. A placeholder is "{" NAME ("." NAME)* "}"
// where the first NAME is "args"; any other word in braces is an error
// (a typo such as {arg.id} or {args id}), so that it never passes as
// literal text. "{{canary}}" and braces around anything that is not a
// word, such as "{}" or "{ \"a\": 1 }", are literal.
func ParseTemplate(text string) (Template, error) {
	t := Template{Text: text}
	lit := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		if strings.HasPrefix(text[i:], canaryText) {
			i += len(canaryText) - 1
			continue
		}
		if i+1 >= len(text) || !isWordByte(text[i+1]) {
			continue
		}
		end := strings.IndexByte(text[i:], '}')
		if end < 0 {
			return t, fmt.Errorf("placeholder %q has no closing \"}\"", text[i:])
		}
		inner := text[i+1 : i+end]
		path := strings.Split(inner, ".")
		if path[0] != "args" || len(path) < 2 || !allWords(path[1:]) {
			return t, fmt.Errorf("unknown placeholder %q: expected {args.NAME}, such as {args.orderId}, or {args.NAME.0} for a part of an argument", text[i:i+end+1])
		}
		if i > lit {
			t.parts = append(t.parts, templatePart{lit: text[lit:i]})
		}
		t.parts = append(t.parts, templatePart{arg: path[1:]})
		i += end
		lit = i + 1
	}
	if len(t.parts) > 0 && lit < len(text) {
		t.parts = append(t.parts, templatePart{lit: text[lit:]})
	}
	return t, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func allWords(ws []string) bool {
	for _, w := range ws {
		if w == "" {
			return false
		}
		for i := 0; i < len(w); i++ {
			if !isWordByte(w[i]) {
				return false
			}
		}
	}
	return true
}

// Templated reports whether the text holds a placeholder.
func (t Template) Templated() bool { return len(t.parts) > 0 }

// Whole reports whether the text is exactly one placeholder: such a
// string value takes the argument's JSON value, of any type.
func (t Template) Whole() bool { return len(t.parts) == 1 && t.parts[0].arg != nil }

// sample is the text with every placeholder replaced by "x", for checking
// the shape of a templated pointer when the suite loads.
func (t Template) sample() string {
	if !t.Templated() {
		return t.Text
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.arg != nil {
			b.WriteString("x")
		} else {
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// value returns the value of a placeholder's path in args (decoded with
// jsonvalue.Decode), or an error naming the missing argument.
func (p templatePart) value(args any) (any, error) {
	cur := args
	for i, seg := range p.arg {
		var ok bool
		switch x := cur.(type) {
		case map[string]any:
			cur, ok = x[seg]
		case []any:
			n, err := strconv.Atoi(seg)
			if ok = err == nil && n >= 0 && n < len(x); ok {
				cur = x[n]
			}
		}
		if !ok {
			if i == 0 {
				return nil, fmt.Errorf("missing argument %q", seg)
			}
			return nil, fmt.Errorf("argument %q has no %q", strings.Join(p.arg[:i], "."), seg)
		}
	}
	return cur, nil
}

// Value renders the template for a call with arguments args: a template
// that is exactly one placeholder gives the argument's value, any other
// one a string (see Render).
func (t Template) Value(args any) (any, error) {
	if t.Whole() {
		return t.parts[0].value(args)
	}
	if !t.Templated() {
		return t.Text, nil
	}
	return t.Render(args, false)
}

// Render writes the template for a call with arguments args. A string
// argument is written as it is, a number or boolean as its JSON text;
// null, objects and arrays are errors. In a pointer, each argument's text
// is escaped as one reference token (RFC 6901: "~" as "~0", "/" as
// "~1"), so that an argument cannot reach outside its segment.
func (t Template) Render(args any, pointer bool) (string, error) {
	if !t.Templated() {
		return t.Text, nil
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.arg == nil {
			b.WriteString(p.lit)
			continue
		}
		v, err := p.value(args)
		if err != nil {
			return "", err
		}
		var text string
		switch x := v.(type) {
		case string:
			text = x
		case json.Number:
			text = x.String()
		case float64:
			text = strconv.FormatFloat(x, 'g', -1, 64)
		case bool:
			text = strconv.FormatBool(x)
		case nil:
			return "", fmt.Errorf("argument %q is null, which has no text to put in %q", strings.Join(p.arg, "."), t.Text)
		default:
			return "", fmt.Errorf("argument %q is an object or an array, which has no text to put in %q", strings.Join(p.arg, "."), t.Text)
		}
		if pointer {
			text = jsonpointer.Escape(text)
		}
		b.WriteString(text)
	}
	return b.String(), nil
}
