package promptfoo

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
)

// The filters of Nunjucks a template may use, with Nunjucks' meaning, and
// promptfoo's own load (JSON.parse). Each writes at most a constant
// times what it reads, or is held to the output budget where an argument
// sets its size (center, indent).
var filterNames = []string{
	"abs", "capitalize", "center", "d", "default", "dump", "e", "escape", "first", "float",
	"indent", "int", "join", "last", "length", "list", "load", "lower", "nl2br", "replace",
	"reverse", "round", "safe", "sort", "string", "sum", "title", "trim", "truncate", "upper",
	"urlencode", "wordcount",
}

func knownFilter(name string) bool { return slices.Contains(filterNames, name) }

func (r *renderer) filter(name string, args []any) (any, error) {
	v := args[0]
	arg := func(i int, def any) any {
		if i < len(args) && args[i] != undefined {
			return args[i]
		}
		return def
	}
	text := func(v any) (string, error) {
		if v == nil || v == undefined {
			return "", nil
		}
		return r.str(v)
	}
	switch name {
	case "safe":
		return v, nil
	case "string":
		return r.str(v)
	case "upper", "lower", "trim", "capitalize", "title", "escape", "e", "nl2br", "urlencode":
		s, err := text(v)
		if err != nil {
			return nil, err
		}
		return stringFilter(name, s), nil
	case "length":
		switch x := norm(v).(type) {
		case string:
			return float64(len(utf16.Encode([]rune(x)))), nil
		case []any:
			return float64(len(x)), nil
		case map[string]any:
			return float64(len(x)), nil
		case orderedObject:
			return float64(len(x.keys)), nil
		case nil, undefinedT:
			return 0.0, nil
		}
		return undefined, nil
	case "first", "last":
		switch x := norm(v).(type) {
		case []any:
			if len(x) == 0 {
				return undefined, nil
			}
			if name == "first" {
				return norm(x[0]), nil
			}
			return norm(x[len(x)-1]), nil
		case string:
			u := utf16.Encode([]rune(x))
			if len(u) == 0 {
				return undefined, nil
			}
			if name == "first" {
				return string(utf16.Decode(u[:1])), nil
			}
			return string(utf16.Decode(u[len(u)-1:])), nil
		}
		return undefined, nil
	case "join":
		list, ok := norm(v).([]any)
		if !ok {
			return v, nil
		}
		sep, err := text(arg(1, ""))
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(list))
		for i, e := range list {
			if e == nil || e == undefined {
				continue
			}
			if parts[i], err = r.str(e); err != nil {
				return nil, err
			}
		}
		return r.concat(strings.Join(parts, sep), "")
	case "default", "d":
		def := arg(1, "")
		if truthy(arg(2, false)) {
			if truthy(v) {
				return v, nil
			}
			return def, nil
		}
		if v == undefined {
			return def, nil
		}
		return v, nil
	case "replace":
		return r.replace(v, arg(1, undefined), arg(2, undefined), arg(3, undefined))
	case "truncate":
		s, err := text(v)
		if err != nil {
			return nil, err
		}
		u := utf16.Encode([]rune(s))
		n := int(clampNumber(toNumber(arg(1, 255.0))))
		if len(u) <= n {
			return s, nil
		}
		end := "..."
		if e := arg(3, undefined); e != undefined {
			if end, err = text(e); err != nil {
				return nil, err
			}
		}
		cut := n
		if !truthy(arg(2, false)) {
			cut = -1
			for i := min(n, len(u)-1); i >= 0; i-- {
				if u[i] == ' ' {
					cut = i
					break
				}
			}
			if cut < 0 {
				cut = n
			}
		}
		return string(utf16.Decode(u[:cut])) + end, nil
	case "wordcount":
		s, err := text(v)
		if err != nil {
			return nil, err
		}
		n := len(wordRE().FindAllStringIndex(s, -1))
		if n == 0 {
			return nil, nil
		}
		return float64(n), nil
	case "abs":
		return math.Abs(toNumber(v)), nil
	case "int", "float":
		s, err := text(v)
		if err != nil {
			return nil, err
		}
		f := parseNumberPrefix(s, name == "int")
		if math.IsNaN(f) {
			return arg(1, 0.0), nil
		}
		return f, nil
	case "round":
		x := toNumber(v)
		p := math.Pow(10, clampNumber(toNumber(arg(1, 0.0))))
		switch m, _ := arg(2, "common").(string); m {
		case "ceil":
			return math.Ceil(x*p) / p, nil
		case "floor":
			return math.Floor(x*p) / p, nil
		}
		return math.Floor(x*p+0.5) / p, nil
	case "reverse":
		switch x := norm(v).(type) {
		case string:
			u := utf16.Encode([]rune(x))
			slices.Reverse(u)
			return string(utf16.Decode(u)), nil
		case []any:
			out := slices.Clone(x)
			slices.Reverse(out)
			return out, nil
		}
		return v, nil
	case "list":
		switch x := norm(v).(type) {
		case string:
			var out []any
			for _, u := range utf16.Encode([]rune(x)) {
				out = append(out, string(utf16.Decode([]uint16{u})))
			}
			return out, nil
		case []any:
			return x, nil
		default:
			if keys, get, ok := objectOf(x); ok {
				var out []any
				for _, k := range keys {
					out = append(out, orderedObject{keys: []string{"key", "value"}, vals: []any{k, get(k)}})
				}
				return out, nil
			}
		}
		return nil, errors.New("list filter: type not iterable")
	case "sort":
		list, ok := norm(v).([]any)
		if !ok {
			return v, nil
		}
		out := slices.Clone(list)
		rev := truthy(arg(1, false))
		caseSens := truthy(arg(2, false))
		key := func(e any) any {
			if s, ok := e.(string); ok && !caseSens {
				return strings.ToLower(s)
			}
			return e
		}
		slices.SortStableFunc(out, func(a, b any) int {
			x, y := key(norm(a)), key(norm(b))
			c := 0
			if compare("<", x, y) {
				c = -1
			} else if compare(">", x, y) {
				c = 1
			}
			if rev {
				c = -c
			}
			return c
		})
		return out, nil
	case "sum":
		list, ok := norm(v).([]any)
		if !ok {
			return 0.0, nil
		}
		total := any(toNumber(arg(2, 0.0)))
		for _, e := range list {
			var err error
			if total, err = r.binary(binaryExpr{op: "+", l: litExpr{total}, r: litExpr{norm(e)}}, nil); err != nil {
				return nil, err
			}
		}
		return total, nil
	case "dump":
		indent := ""
		switch x := norm(arg(1, undefined)).(type) {
		case float64:
			indent = strings.Repeat(" ", int(min(10, max(0, x))))
		case string:
			indent = x
			if len(indent) > 10 {
				indent = indent[:10]
			}
		}
		var b strings.Builder
		if !jsonStringify(&b, v, indent, "", 0) {
			return undefined, nil
		}
		return r.concat(b.String(), "")
	case "load":
		s, err := text(v)
		if err != nil {
			return nil, err
		}
		var out any
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			return nil, fmt.Errorf("load filter: %v", err)
		}
		return out, nil
	case "center":
		s, err := text(v)
		if err != nil {
			return nil, err
		}
		w := int(clampNumber(toNumber(arg(1, 80.0))))
		n := len(utf16.Encode([]rune(s)))
		if w <= n {
			return s, nil
		}
		if w > maxRendered {
			return nil, errBudget
		}
		pre := (w - n) / 2
		return strings.Repeat(" ", pre) + s + strings.Repeat(" ", w-n-pre), r.step(w / 64)
	case "indent":
		s, err := text(v)
		if err != nil {
			return nil, err
		}
		w := int(clampNumber(toNumber(arg(1, 4.0))))
		lines := strings.Split(s, "\n")
		if w*len(lines)+len(s) > maxRendered {
			return nil, errBudget
		}
		pad := strings.Repeat(" ", w)
		for i := range lines {
			if i > 0 || truthy(arg(2, false)) {
				if i > 0 && lines[i] == "" {
					continue
				}
				lines[i] = pad + lines[i]
			}
		}
		return strings.Join(lines, "\n"), r.step(len(lines))
	}
	return nil, fmt.Errorf("the filter %q is not rendered here", name)
}

var wordRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9_]+`) })

// stringFilter applies a filter that maps a text to a text.
func stringFilter(name, s string) string {
	switch name {
	case "upper":
		// JavaScript's toUpperCase writes ß as SS; Go keeps it.
		return strings.ReplaceAll(strings.ToUpper(s), "ß", "SS")
	case "lower":
		return strings.ToLower(s)
	case "trim":
		return strings.TrimFunc(s, isJSSpace)
	case "capitalize":
		r := []rune(strings.ToLower(s))
		if len(r) > 0 {
			r[0] = unicode.ToUpper(r[0])
		}
		return string(r)
	case "title":
		words := strings.Split(s, " ")
		for i, w := range words {
			words[i] = stringFilter("capitalize", w)
		}
		return strings.Join(words, " ")
	case "escape", "e":
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;").Replace(s)
	case "nl2br":
		return strings.NewReplacer("\r\n", "<br />\n", "\n", "<br />\n").Replace(s)
	case "urlencode":
		return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
	}
	return s
}

func (r *renderer) replace(v, old, repl, maxCount any) (any, error) {
	var s string
	switch x := norm(v).(type) {
	case string:
		s = x
	case float64:
		s = jsNumber(x)
	default:
		return v, nil
	}
	o, err := r.str(old)
	if err != nil {
		return nil, err
	}
	n, err := r.str(repl)
	if err != nil {
		return nil, err
	}
	limit := -1
	if maxCount != undefined {
		limit = int(clampNumber(toNumber(maxCount)))
	}
	if o == "" {
		u := utf16.Encode([]rune(s))
		if (len(u)+1)*len(n)+len(s) > maxRendered {
			return nil, errBudget
		}
		var b strings.Builder
		b.WriteString(n)
		for _, c := range u {
			b.WriteString(string(utf16.Decode([]uint16{c})))
			b.WriteString(n)
		}
		return b.String(), r.step(len(u))
	}
	count := strings.Count(s, o)
	if limit >= 0 {
		count = min(count, limit)
	}
	if len(s)+count*(len(n)-len(o)) > maxRendered {
		return nil, errBudget
	}
	return strings.Replace(s, o, n, limit), r.step(count)
}

func clampNumber(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return max(-1e9, min(1e9, math.Trunc(f)))
}

// parseNumberPrefix is JavaScript's parseInt(s, 10) (integer) or
// parseFloat(s): the number at the start of s, NaN when there is none.
func parseNumberPrefix(s string, integer bool) float64 {
	s = strings.TrimLeftFunc(s, isJSSpace)
	end := 0
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	digits := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
		digits++
	}
	if !integer {
		if end < len(s) && s[end] == '.' {
			end++
			for end < len(s) && s[end] >= '0' && s[end] <= '9' {
				end++
				digits++
			}
		}
		if digits > 0 && end < len(s) && (s[end] == 'e' || s[end] == 'E') {
			e := end + 1
			if e < len(s) && (s[e] == '+' || s[e] == '-') {
				e++
			}
			if e < len(s) && s[e] >= '0' && s[e] <= '9' {
				for e < len(s) && s[e] >= '0' && s[e] <= '9' {
					e++
				}
				end = e
			}
		}
	}
	if digits == 0 {
		if !integer && strings.HasPrefix(s, "Infinity") {
			return math.Inf(1)
		}
		return math.NaN()
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s[:end], "."), 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// jsonStringify writes JSON.stringify(v, null, indent); false when v has
// no JSON (undefined).
func jsonStringify(b *strings.Builder, v any, indent, prefix string, depth int) bool {
	if depth > 256 || b.Len() > maxRendered {
		return false
	}
	switch x := norm(v).(type) {
	case undefinedT:
		return false
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(jsNumber(x))
		}
	case string:
		jsQuote(b, x)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return true
		}
		b.WriteByte('[')
		inner := prefix + indent
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if indent != "" {
				b.WriteString("\n" + inner)
			}
			if !jsonStringify(b, e, indent, inner, depth+1) {
				b.WriteString("null")
			}
		}
		if indent != "" {
			b.WriteString("\n" + prefix)
		}
		b.WriteByte(']')
	case map[string]any:
		return orderedObject{keys: jsKeys(x), vals: valuesOf(x, jsKeys(x))}.stringify(b, indent, prefix, depth)
	case orderedObject:
		return x.stringify(b, indent, prefix, depth)
	default:
		b.WriteString("null")
	}
	return true
}

func valuesOf(m map[string]any, keys []string) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// jsQuote writes s as JSON.stringify quotes a string: only ", \ and the
// control characters escaped (and lone surrogates, which Go's strings
// cannot hold).
func jsQuote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteRune(c)
			}
		}
	}
	b.WriteByte('"')
}
