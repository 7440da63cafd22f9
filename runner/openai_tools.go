package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/evalgate/evalgate/suites"
)

// functionName is what chat completions APIs accept as a function name,
// compiled when first used (see mcpToolName).
var functionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// FunctionNames maps tool names to function names matching
// ^[a-zA-Z0-9_-]{1,64}$, reversibly: a legal name is kept as it is; any
// other character becomes '_' and the name is cut to 64 bytes
// (crm:lookup → crm_lookup); a name that would then collide with another
// tool's function name is cut to 55 bytes and gets '_' and the first 8 hex
// digits of the SHA-256 of the tool name. The result is deterministic and
// no two tools share a function name.
func FunctionNames(tools []string) map[string]string {
	out := make(map[string]string, len(tools))
	taken := make(map[string]bool, len(tools))
	// Legal names first, so a tool already named crm_lookup keeps its name
	// whatever the order of the list.
	for _, name := range tools {
		if _, done := out[name]; !done && functionName().MatchString(name) {
			out[name] = name
			taken[name] = true
		}
	}
	for _, name := range tools {
		if _, done := out[name]; done {
			continue
		}
		fn := sanitize(name, 64)
		if taken[fn] {
			sum := sha256.Sum256([]byte(name))
			base := sanitize(name, 55) + "_" + hex.EncodeToString(sum[:4])
			fn = base
			for i := 2; taken[fn]; i++ {
				suffix := "_" + strconv.Itoa(i)
				fn = base[:min(len(base), 64-len(suffix))] + suffix
			}
		}
		out[name] = fn
		taken[fn] = true
	}
	return out
}

// sanitize replaces every byte outside [a-zA-Z0-9_-] with '_' and cuts the
// result to n bytes; an empty name becomes "tool".
func sanitize(name string, n int) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > n {
		b = b[:n]
	}
	if len(b) == 0 {
		return "tool"
	}
	return string(b)
}

// functionSet is a suite's tools as the model sees them, built once per
// suite and shared by its trials.
type functionSet struct {
	encoded json.RawMessage   // the request's "tools" array; nil without tools
	toTool  map[string]string // function name -> tool name
}

// tool maps a function name the model called back to the tool name; a
// name the request never offered is passed on as it is, so the fixtures
// answer it as an unknown tool.
func (fs *functionSet) tool(fn string) string {
	if name, ok := fs.toTool[fn]; ok {
		return name
	}
	return fn
}

type functionSpec struct {
	Type     string       `json:"type"`
	Function functionDecl `json:"function"`
}

type functionDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// functions returns the function set of a suite's tools, from the cache
// when the same list was seen before.
func (o *OpenAI) functions(tools []suites.Tool) (*functionSet, error) {
	if len(tools) == 0 {
		return &functionSet{}, nil
	}
	key := &tools[0]
	if fs, ok := o.tools.Load(key); ok {
		return fs.(*functionSet), nil
	}
	fs, err := newFunctionSet(tools)
	if err != nil {
		return nil, err
	}
	o.tools.Store(key, fs)
	return fs, nil
}

func newFunctionSet(tools []suites.Tool) (*functionSet, error) {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	toFn := FunctionNames(names)
	fs := &functionSet{toTool: make(map[string]string, len(tools))}
	specs := make([]functionSpec, len(tools))
	for i, t := range tools {
		params := t.InputSchema
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		fn := toFn[t.Name]
		fs.toTool[fn] = t.Name
		specs[i] = functionSpec{Type: "function", Function: functionDecl{Name: fn, Description: t.Description, Parameters: params}}
	}
	b, err := json.Marshal(specs)
	if err != nil {
		return nil, fmt.Errorf("could not encode the suite's tools: %w", err)
	}
	fs.encoded = b
	return fs, nil
}
