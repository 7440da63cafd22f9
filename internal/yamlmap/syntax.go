package yamlmap

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ErrorLine returns the line (from 1) of the problem that a yaml v3
// syntax error in data reports, and its message without the "yaml: line N:"
// prefix.
//
// yaml v3 prints one line number, and for most errors it is the line where
// the construct holding the problem starts (the parser's context mark: a
// list opened ten lines up) rather than the problem's own line (its problem
// mark). It prints the problem's line only when that construct starts on
// the document's first line. So ErrorLine parses the document again from
// the construct's line, where the construct does start on the first line,
// and reads the problem's line from that message. When the construct starts
// on another line, the message says where. A problem at the end of the
// file is on its last line.
func ErrorLine(data []byte, err error) (line int, msg string) {
	f := yamlFailureOf(err)
	problem, ctx := yamlLines(data, f)
	starts := lineStarts(data)
	last := len(starts)
	if last > 1 && starts[last-1] == len(data) {
		last-- // the file ends with a line break
	}
	problem = min(max(problem, 1), last)
	msg = f.msg
	if ctx > 0 && ctx < problem {
		msg += fmt.Sprintf(" (in the %s that starts at line %d)", cmp.Or(yamlContexts[f.msg], "value"), ctx)
	}
	return problem, msg
}

// yamlLines returns the 1-based lines of the problem of failure f of data,
// and of the construct it is in (0 when unknown).
func yamlLines(data []byte, f yamlFailure) (problem, ctx int) {
	switch {
	case yamlReaderProblems[f.msg]:
		return lineOfOffset(data, badYAMLChar(data)), 0
	case strings.HasPrefix(f.msg, "unknown anchor '"), strings.HasPrefix(f.msg, "anchor '"):
		name, _, _ := strings.Cut(f.msg[strings.IndexByte(f.msg, '\'')+1:], "'")
		return lineOfOffset(data, aliasOffset(data, name)), 0
	case yamlParserProblems[f.msg] && yamlContexts[f.msg] == "":
		return f.line + 1, 0 // a problem on its own; the parser prints 0-based lines
	}
	scanner := !yamlParserProblems[f.msg]
	ctx, problem, ok := yamlProblemLine(data, f, scanner)
	switch {
	case !ok && scanner:
		return f.line, 0 // what yaml v3 printed, 1-based
	case !ok:
		return f.line + 1, 0
	case f.msg == "could not find expected ':'":
		// A key without its ':' is noticed on the line after the key; the
		// key's line is where it is missing.
		return ctx, 0
	}
	return problem, ctx
}

// yamlProblemLine finds the 1-based lines of the construct (ctx) and of the
// problem of a failure f of data; ok is false when they cannot be told
// apart.
func yamlProblemLine(data []byte, f yamlFailure, scanner bool) (ctx, problem int, ok bool) {
	// printed turns the line yaml v3 printed into a 0-based one: the scanner
	// prints lines from 1, the parser from 0.
	printed := func(g yamlFailure) int {
		if scanner && g.line > 0 {
			return g.line - 1
		}
		return g.line
	}
	// With a blank line before the document, the construct never starts on
	// the first line, so the line printed is the construct's.
	shifted, ok := yamlShift(data)
	if !ok {
		return 0, 0, false
	}
	g, failed := yamlFail(shifted)
	if !failed || g.msg != f.msg || g.line == 0 {
		return 0, 0, false
	}
	ctx0 := printed(g) - 1
	starts := lineStarts(data)
	if ctx0 < 0 || ctx0 >= len(starts) {
		return 0, 0, false
	}
	// From the construct's line on, the construct starts on the first line,
	// and the line printed is the problem's. The blank line before it checks
	// that the construct is still the one that fails.
	rest := data[starts[ctx0]:]
	h, failed := yamlFail(rest)
	if !failed || h.msg != f.msg {
		return 0, 0, false
	}
	shiftedRest, ok := yamlShift(rest)
	if !ok {
		return 0, 0, false
	}
	if k, failed := yamlFail(shiftedRest); !failed || k.msg != f.msg || printed(k) != 1 {
		return 0, 0, false
	}
	return ctx0 + 1, ctx0 + printed(h) + 1, true
}

// yamlFailure is a yaml v3 error message and the line it prints.
type yamlFailure struct {
	msg  string
	line int // 0 when the message has none
}

func yamlFailureOf(err error) yamlFailure {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, m, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(n); err == nil {
				return yamlFailure{msg: m, line: line}
			}
		}
	}
	return yamlFailure{msg: msg}
}

// yamlFail parses every document of data and returns how the first bad one
// fails; failed is false when all of them parse.
func yamlFail(data []byte) (f yamlFailure, failed bool) {
	defer func() {
		if recover() != nil {
			failed = false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err == io.EOF {
			return yamlFailure{}, false
		}
		if err != nil {
			return yamlFailureOf(err), true
		}
	}
}

// yamlShift returns data with a blank line before it (after a UTF-8 byte
// order mark); not ok for UTF-16, where a byte is not a character.
func yamlShift(data []byte) ([]byte, bool) {
	if bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) {
		return nil, false
	}
	bom := 0
	if bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}) {
		bom = 3
	}
	out := make([]byte, 0, len(data)+1)
	out = append(out, data[:bom]...)
	out = append(out, '\n')
	return append(out, data[bom:]...), true
}

// lineStarts returns the offset of each line of data, counting line breaks
// as YAML does: \r\n, \r, \n, NEL, LS and PS.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i := 0; i < len(data); i++ {
		switch {
		case data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n':
			i++
			starts = append(starts, i+1)
		case data[i] == '\r', data[i] == '\n':
			starts = append(starts, i+1)
		case data[i] == 0xC2 && i+1 < len(data) && data[i+1] == 0x85:
			i++
			starts = append(starts, i+1)
		case data[i] == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9):
			i += 2
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOfOffset returns the 1-based line holding byte off of data; 1 when off
// is negative.
func lineOfOffset(data []byte, off int) int {
	if off < 0 {
		return 1
	}
	line := 0
	for _, s := range lineStarts(data) {
		if s > off {
			break
		}
		line++
	}
	return line
}

// badYAMLChar returns the offset of the first byte that is not UTF-8 or is
// a character YAML does not allow; -1 when there is none.
func badYAMLChar(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		allowed := r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7E) || r == 0x85 ||
			(r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || r >= 0x10000
		if (r == utf8.RuneError && size <= 1) || !allowed {
			return i
		}
		i += size
	}
	return -1
}

// aliasOffset returns the offset of the first alias *name in data; -1 when
// there is none.
func aliasOffset(data []byte, name string) int {
	alias := []byte("*" + name)
	for from := 0; ; {
		i := bytes.Index(data[from:], alias)
		if i < 0 {
			return -1
		}
		end := from + i + len(alias)
		if end == len(data) || bytes.IndexByte([]byte(" \t\r\n,]}"), data[end]) >= 0 {
			return from + i
		}
		from = end
	}
}

// yamlParserProblems are the messages of yaml v3's parser, as opposed to its
// scanner.
var yamlParserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
	"found undefined tag handle":             true,
}

// yamlContexts names the construct a problem is found in, for the message:
// every parser problem reported with its construct, and the scanner's
// problems inside a quoted string (a scanner problem not listed is in a
// "value").
var yamlContexts = map[string]string{
	"did not find expected ',' or ']'":            "list",
	"did not find expected '-' indicator":         "list",
	"did not find expected ',' or '}'":            "mapping",
	"did not find expected key":                   "mapping",
	"did not find expected node content":          "value",
	"found undefined tag handle":                  "value",
	"found unexpected end of stream":              "quoted string",
	"found unexpected document indicator":         "quoted string",
	"found unknown escape character":              "quoted string",
	"did not find expected hexdecimal number":     "quoted string",
	"found invalid Unicode character escape code": "quoted string",
}

// yamlReaderProblems are the messages of yaml v3's reader, which never
// print a line.
var yamlReaderProblems = map[string]bool{
	"invalid leading UTF-8 octet":        true,
	"incomplete UTF-8 octet sequence":    true,
	"invalid trailing UTF-8 octet":       true,
	"invalid length of a UTF-8 sequence": true,
	"invalid Unicode character":          true,
	"control characters are not allowed": true,
}
