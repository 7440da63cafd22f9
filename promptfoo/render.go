package promptfoo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// How promptfoo writes a test's vars into a prompt (its renderPrompt), and
// how the import does the same with the template subset of template.go:
//
//  1. string vars lose one trailing newline, and a var holding {{ other }}
//     gets the other var's value written in (up to 5 rounds);
//  2. a prompt that is JSON (a chat prompt) has each of its strings
//     rendered, and is written back as JSON.stringify(…, null, 2) does;
//  3. any other prompt is rendered with vars that are themselves rendered
//     first (a var may hold a template), unless it has a tag that is not
//     closed on its line, which promptfoo writes as it is.

// templates are the templates compiled, by their text: a config's few
// prompts are rendered once for every test. It keeps up to maxCached, so
// that the values of a sheet's rows, each its own, do not grow it.
var (
	templates sync.Map
	cached    atomic.Int64
)

const maxCached = 1024

type compiled struct {
	t   *template
	err error
}

func compileCached(s string) (*template, error) {
	if c, ok := templates.Load(s); ok {
		return c.(compiled).t, c.(compiled).err
	}
	t, err := compileTemplate(s)
	if len(s) <= 4096 && cached.Add(1) <= maxCached {
		templates.Store(s, compiled{t, err})
	}
	return t, err
}

// renderString renders s with vars, as Nunjucks' renderString; a text
// with no tag is itself. fixed is the part of the render's budget of
// steps that does not grow with the template and its vars.
func renderString(s string, vars map[string]any, fixed int) (string, error) {
	if !strings.Contains(s, "{{") && !strings.Contains(s, "{%") && !strings.Contains(s, "{#") {
		return s, nil
	}
	t, err := compileCached(s)
	if err != nil {
		return "", err
	}
	return t.render(vars, fixed)
}

var (
	partialTagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)(\{%[^%]*$|\{\{[^}]*$|\{#[^#]*$)`) })
	rawTagRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{%\s*raw\s*%\}`) })
	endRawTagRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{%\s*endraw\s*%\}`) })
	simpleVarRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`) })
	// promptfoo's extractVariablesFromTemplate
	templateVarRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\{\{[\s]*([^{}\s|]+)[\s]*(?:\|[^}]+)?\}\}|\{%[\s]*(?:if|for)[\s]+([^{}\s]+)[\s]*.*?%\}`)
	})
	commentRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)\{#.*?#\}`) })
	rootNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z_]\w*)`) })
)

// partialTags reports whether promptfoo writes s as it is: a tag opened
// and not closed on its line, and no {% raw %} around it.
func partialTags(s string) bool {
	return partialTagRE().MatchString(s) && !(rawTagRE().MatchString(s) && endRawTagRE().MatchString(s))
}

// prepareVars is what promptfoo does to a test's vars before it renders
// a prompt (step 1 above), on a copy. Assertions see these vars too.
func prepareVars(vars map[string]any) map[string]any {
	out := make(map[string]any, len(vars))
	for k, v := range vars {
		if s, ok := v.(string); ok {
			v = strings.TrimSuffix(s, "\n")
		}
		out[k] = v
	}
	for round := 0; round < 5; round++ {
		changed := false
		for _, k := range jsKeys(out) {
			s, ok := out[k].(string)
			if !ok {
				continue
			}
			m := simpleVarRE().FindStringSubmatchIndex(s)
			if m == nil {
				continue
			}
			other, ok := out[s[m[2]:m[3]]]
			if !ok || other == undefined {
				continue
			}
			var b strings.Builder
			if jsString(&b, other, 0) != nil || len(s)+b.Len() > maxRendered {
				continue
			}
			out[k] = s[:m[0]] + b.String() + s[m[1]:]
			changed = true
		}
		if !changed {
			break
		}
	}
	return out
}

// referencesUndefined reports whether template s names a var vars does
// not have (env aside), as promptfoo decides it.
func referencesUndefined(s string, vars map[string]any) bool {
	s = commentRE().ReplaceAllString(s, "")
	for _, m := range templateVarRE().FindAllStringSubmatch(s, -1) {
		name := m[1]
		if name == "" {
			name = m[2]
		}
		root := rootNameRE().FindString(name)
		if root == "" || root == "env" {
			continue
		}
		if _, ok := vars[root]; !ok {
			return true
		}
	}
	return false
}

// renderPrompt writes vars (already prepared) into the prompt raw as
// promptfoo does. A chat prompt (JSON) renders to its JSON text; chat is
// then its messages, compact, in their own order, for an agent that takes
// messages. The error says what could not be rendered.
func renderPrompt(raw string, vars map[string]any, fixed int) (text string, chat json.RawMessage, err error) {
	if doc, ok := parseOrdered(raw); ok {
		rendered, err := renderJSON(doc, vars, fixed, 0)
		if err != nil {
			return "", nil, err
		}
		var b strings.Builder
		if !jsonStringify(&b, rendered, "  ", "", 0) {
			return "", nil, errors.New("the prompt renders to nothing")
		}
		if isChat(rendered) {
			var c strings.Builder
			jsonStringify(&c, rendered, "", "", 0)
			chat = json.RawMessage(c.String())
		}
		return b.String(), chat, nil
	}
	rendered := make(map[string]any, len(vars))
	for k, v := range vars {
		if s, ok := v.(string); ok && !referencesUndefined(s, vars) && !partialTags(s) {
			r, err := renderString(s, vars, fixed)
			if err != nil {
				return "", nil, fmt.Errorf("the var %s: %w", k, err)
			}
			v = r
		}
		rendered[k] = v
	}
	if partialTags(raw) {
		return raw, nil, nil
	}
	text, err = renderString(raw, rendered, fixed)
	return text, nil, err
}

// isChat reports whether a rendered JSON prompt is a list of chat
// messages: objects with a role.
func isChat(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, m := range list {
		o, ok := m.(orderedObject)
		if !ok || o.get("role") == nil {
			return false
		}
	}
	return true
}

// renderJSON renders each string of a JSON document (promptfoo's
// renderVarsInObject).
func renderJSON(v any, vars map[string]any, fixed, depth int) (any, error) {
	if depth > 256 {
		return nil, errors.New("the prompt nests deeper than 256 levels")
	}
	switch x := v.(type) {
	case string:
		return renderString(x, vars, fixed)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := renderJSON(e, vars, fixed, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case orderedObject:
		out := orderedObject{keys: x.keys, vals: make([]any, len(x.vals))}
		for i, e := range x.vals {
			r, err := renderJSON(e, vars, fixed, depth+1)
			if err != nil {
				return nil, err
			}
			out.vals[i] = r
		}
		return out, nil
	}
	return v, nil
}

// orderedObject is a JSON object that keeps its keys' order, as
// JavaScript's objects do (integer keys aside).
type orderedObject struct {
	keys []string
	vals []any
}

func (o orderedObject) get(k string) any {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i]
		}
	}
	return nil
}

// order is o's keys as JavaScript lists them: integer keys first,
// rising, then the others as they were set.
func (o orderedObject) order() []string {
	var ints, keys []string
	for _, k := range o.keys {
		if _, ok := arrayIndex(k); ok {
			ints = append(ints, k)
		} else {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(ints, func(a, b string) int { x, _ := arrayIndex(a); y, _ := arrayIndex(b); return x - y })
	return append(ints, keys...)
}

func (o orderedObject) stringify(b *strings.Builder, indent, prefix string, depth int) bool {
	keys := o.order()
	m := make(map[string]any, len(o.keys))
	for i, k := range o.keys {
		m[k] = o.vals[i]
	}
	inner := prefix + indent
	b.WriteByte('{')
	n := 0
	for _, k := range keys {
		if m[k] == undefined {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		if indent != "" {
			b.WriteString("\n" + inner)
		}
		jsQuote(b, k)
		b.WriteByte(':')
		if indent != "" {
			b.WriteByte(' ')
		}
		jsonStringify(b, m[k], indent, inner, depth+1)
		n++
	}
	if n > 0 && indent != "" {
		b.WriteString("\n" + prefix)
	}
	b.WriteByte('}')
	return true
}

// parseOrdered parses s as JSON.parse does, keeping objects' key order;
// ok is false when s is not JSON.
func parseOrdered(s string) (v any, ok bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeOrdered(dec, 0)
	if err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

func decodeOrdered(dec *json.Decoder, depth int) (any, error) {
	if depth > 256 {
		return nil, errors.New("too deep")
	}
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		switch x {
		case '[':
			out := []any{}
			for dec.More() {
				e, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, e)
			}
			_, err := dec.Token()
			return out, err
		case '{':
			o := orderedObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				e, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				if i := slices.Index(o.keys, k); i >= 0 {
					o.vals[i] = e // the last one counts, where the first stood
					continue
				}
				o.keys, o.vals = append(o.keys, k), append(o.vals, e)
			}
			_, err := dec.Token()
			return o, err
		}
		return nil, errors.New("unexpected delimiter")
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	return t, nil
}

// compactJSON is data as JSON.stringify writes it with no indent, for a
// YAML or JSON file a var names.
func compactJSON(v any) string {
	var b strings.Builder
	jsonStringify(&b, v, "", "", 0)
	return b.String()
}
