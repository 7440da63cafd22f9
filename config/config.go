// Package config reads evalgate.yaml, the project file that says which suites
// to run, which agent to drive, which judge decides rubric criteria, and
// which gates the run must pass. Every setting also has a flag; flags win.
//
// Relative paths in the file (suites, baseline, out, agent.dir,
// systemPromptFile, judge.calibration) are relative to the file's own
// folder, and so are the folder exec agents and judges run in and the
// project's .evalgate/ (Path): a config works the same from any working
// directory. Paths given on the command line are the caller's to resolve,
// against the working directory.
//
// The files the config makes evalgate read and pass on (systemPromptFile,
// sent to the model; judge.calibration, which says whether the judge may
// be trusted) must lie in the repository: relative, and inside Root once
// ".." and symbolic links are resolved. A config from a pull request then
// cannot send /proc/self/environ, or a file a link points at, to its model.
package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/spelling"
	"github.com/evalgate/evalgate/internal/yamlmap"
	"github.com/evalgate/evalgate/suites"
)

// DefaultFile is the name of the project file Find looks for.
const DefaultFile = "evalgate.yaml"

// Config is the parsed project file.
type Config struct {
	File string // the file it was read from; "" for the zero config
	Dir  string // the folder relative paths are resolved against

	Suites []string
	// suites holds, for each of Suites, the path as written and its place
	// in the file, for CheckSuites.
	suites      []writtenPath
	Agent       Agent
	Judge       Judge
	Assessment  *Assessment // the assessment: section; nil without one (assessment.go)
	Concurrency int
	Timeout     time.Duration
	Trials      int
	Baseline    string
	Gates       []string
	Out         string
	// Trust is the trust: block (config/trust.go); nil when absent: run
	// then computes no trust scorecard.
	Trust *Trust
	// User is the user: block: the simulated user of open conversations.
	User User
	// History is the history: block (config/history.go); nil when absent:
	// run then reads and records no history.
	History *History
	// Explain is the explain setting: whether run prints what each failing
	// check expected and got (cli); nil when unset.
	Explain *bool
	// Pricing prices the model calls an agent reports through
	// OpenTelemetry, by model name (docs/otel.md).
	Pricing map[string]Pricing
	// OTel is the otel: block: where the run is sent as a trace
	// (docs/otel.md).
	OTel OTelExport
}

// OTelExport is where a run is sent as a trace; Endpoint is "" when it
// is not.
type OTelExport struct {
	Endpoint string
	// Forward sends the agents' spans too; true unless the file says
	// forward: false.
	Forward bool
}

// User configures the user simulator, the model that plays the user of a
// task's open conversation (docs/worlds.md).
type User struct {
	Simulator *OpenAI // nil when absent
}

// Agent says how to drive the agent under test. Exactly one of Exec, Plain
// and OpenAI is set in a valid config.
type Agent struct {
	Exec       []string
	Plain      []string
	OpenAI     *OpenAI
	ModelClass string
	Env        map[string]string
	Dir        string // working directory of exec and plain agents
	// Version is the agent's version, for the trust scorecard: semver,
	// never "latest".
	Version string
	// Health is a command run once before the tasks, with the agent's
	// environment and folder; it must exit 0 (DESIGN §12).
	Health []string
	// MCP serves each trial's tools over the Model Context Protocol to an
	// exec or plain agent (DESIGN §13).
	MCP bool
	// OTel receives the spans an exec or plain agent sends through
	// OpenTelemetry (docs/otel.md).
	OTel bool
}

// OpenAI configures an OpenAI-compatible chat completions endpoint, for an
// agent driven by the runner or for a judge.
type OpenAI struct {
	BaseURL   string
	Model     string
	APIKeyEnv string
	// APIKeyEnvAt is where the file sets apiKeyEnv, for a message about
	// the variable it names.
	APIKeyEnvAt      diag.Pos
	SystemPrompt     string
	SystemPromptFile string
	MaxTurns         int
	Temperature      *float64
	Pricing          Pricing
}

// Pricing turns token usage into cost: dollars per million input and
// output tokens. It is the chat wire's own type, so what the file says is
// what the agent and the judge price with.
type Pricing = chat.Pricing

// Judge configures the rubric judge.
type Judge struct {
	OpenAI      *OpenAI
	Exec        []string
	Samples     int
	Concurrency int
	// Calibration is a file written by `evalgate calibrate` with the judge's
	// measured agreement; empty when none.
	Calibration string
}

// Error is a problem in the config file, with its position: evalgate's one
// positioned error, rendered as `file:line:col: message`.
type Error = diag.Error

// Errors is every problem found in a config file, in the order found.
type Errors = diag.Errors

// MaxFileBytes bounds a config file, which is YAML parsed whole: a
// project file is a few hundred bytes, and the YAML parser takes up to
// 150 bytes of memory for each byte of a file.
const MaxFileBytes = 1 << 20

// Load reads a config file. A missing default file is not an error: Load
// returns the zero config with Dir set to the working directory. The file
// must be a regular file of at most MaxFileBytes, or /dev/null (no
// settings): /dev/zero or a FIFO is an error rather than all of memory or
// a hang.
func Load(path string, explicit bool) (*Config, error) {
	data, err := readFile(path)
	if err != nil {
		if !explicit && errors.Is(err, os.ErrNotExist) {
			return &Config{}, nil
		}
		return nil, err
	}
	return Parse(path, data)
}

// readFile reads a config file: a regular file once links are resolved
// (a FIFO would hang the read, a device fill memory), through MaxFileBytes.
// os.DevNull is the one device allowed: `--config /dev/null` runs with no
// settings.
func readFile(path string) ([]byte, error) {
	if path == os.DevNull {
		return nil, nil
	}
	data, err := inputfile.Read(path, MaxFileBytes)
	if nr, ok := errors.AsType[*inputfile.NotRegularError](err); ok {
		return nil, Errors{{Pos: diag.Pos{File: path}, Message: "expected a config file (a regular file), found " + nr.What()}}
	}
	if tl, ok := errors.AsType[*inputfile.TooLargeError](err); ok {
		return nil, Errors{{Pos: diag.Pos{File: path}, Message: fmt.Sprintf("the file is %d bytes; expected a config of at most %d bytes (1 MiB)", tl.Size, MaxFileBytes)}}
	}
	if err != nil {
		return nil, fmt.Errorf("could not read config %q: %w", path, err)
	}
	return data, nil
}

// Parse parses the content of a config file read from path.
func Parse(path string, data []byte) (*Config, error) {
	// Dir stays relative when path is, so suite files keep repository-relative
	// names in reports and annotations.
	c := &Config{File: path, Dir: filepath.Dir(path)}
	p := &parser{file: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := suites.YAMLErrorLine(data, err)
		return nil, Errors{{Pos: diag.Pos{File: path, Line: line, Col: 1}, Message: "invalid YAML: " + msg}}
	}
	if len(doc.Content) == 0 {
		return c, nil
	}
	p.config(doc.Content[0], c)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	c.resolve()
	p.checkInRepo(c)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return c, nil
}

// resolve makes relative paths relative to the config's folder.
func (c *Config) resolve() {
	c.resolveAssessment()
	for i, s := range c.Suites {
		c.Suites[i] = c.Path(s)
	}
	if c.Baseline != "" && !strings.Contains(c.Baseline, ":") {
		c.Baseline = c.Path(c.Baseline)
	}
	if c.Out != "" {
		c.Out = c.Path(c.Out)
	}
	if c.Agent.Dir == "" {
		c.Agent.Dir = c.Path(".")
	} else {
		c.Agent.Dir = c.Path(c.Agent.Dir)
	}
	for _, o := range []*OpenAI{c.Agent.OpenAI, c.Judge.OpenAI} {
		if o != nil && o.SystemPromptFile != "" {
			o.SystemPromptFile = c.Path(o.SystemPromptFile)
		}
	}
	if c.Judge.Calibration != "" {
		c.Judge.Calibration = c.Path(c.Judge.Calibration)
	}
	if c.Trust != nil {
		for i, h := range c.Trust.History {
			if !strings.Contains(h, ":") { // git:<ref>:<path> stays as it is
				c.Trust.History[i] = c.Path(h)
			}
		}
	}
}

// Root is the folder the files the config names must stay in: the top of
// the git work tree holding the config's folder (the nearest folder at or
// above it with a .git), else the config's folder itself; symbolic links
// resolved.
func (c *Config) Root() string {
	dir := absPath(c.Dir)
	if real, err := resolveLinks(c.Dir); err == nil {
		dir = real
	}
	if top, ok := workTree(dir); ok {
		return top
	}
	return dir
}

// folderName names the config's folder in a message.
func (c *Config) folderName() string {
	if c.File == "" {
		return "the working directory"
	}
	return filepath.Base(c.File) + "'s folder"
}

// absPath is p made absolute against the working directory, cleaned; p
// itself when the working directory is unknown.
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// resolveLinks is the file the system opens for p: absolute, with every
// symbolic link and ".." resolved in the order the system does (a ".."
// after a link leaves the link's target, not the link's folder), as far as
// p exists; a file not written yet (a calibration) resolves through the
// folders above it that do. A relative p is taken from the working
// directory, its links resolved too.
func resolveLinks(p string) (string, error) {
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		if wd, err = filepath.EvalSymlinks(wd); err != nil {
			return "", err
		}
		p = wd + string(filepath.Separator) + p // not Join: it would clean ".." away before the links
	}
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		i := strings.LastIndexByte(p, filepath.Separator)
		if i <= 0 {
			return "", err
		}
		rest = append([]string{p[i+1:]}, rest...)
		p = p[:i]
	}
}

// within reports whether path, absolute and clean, is root or lies under it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Path resolves p against the config's folder unless it is absolute.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || c.Dir == "" || c.Dir == "." {
		return p
	}
	return filepath.Join(c.Dir, p)
}

type parser struct {
	file string
	errs Errors
	// inRepo are the settings that must name a file in the repository,
	// with their place in the file; checkInRepo checks them once resolved.
	inRepo []repoFile
}

// repoFile is a setting naming a file that must lie in the repository.
type repoFile struct {
	node  *yaml.Node
	where string  // the setting, e.g. agent.openai.systemPromptFile
	path  *string // the setting's value, resolved against the config's folder
}

// repoStr reads a string setting that names a file in the repository.
func (p *parser) repoStr(n *yaml.Node, where string, dst *string) {
	p.str(n, where, dst)
	p.inRepo = append(p.inRepo, repoFile{node: n, where: where, path: dst})
}

// checkInRepo reports each repoStr setting that is an absolute path or
// resolves, through ".." or a symbolic link, to a place outside c.Root.
func (p *parser) checkInRepo(c *Config) {
	if len(p.inRepo) == 0 {
		return
	}
	root := c.Root()
	for _, f := range p.inRepo {
		written := f.node.Value
		if written == "" {
			continue
		}
		if filepath.IsAbs(written) {
			p.errorf(f.node, "%s: %q is an absolute path; name a file in the repository, relative to %s, such as prompts/agent.md", f.where, written, c.folderName())
			continue
		}
		real, err := resolveLinks(*f.path)
		if err != nil {
			p.errorf(f.node, "%s: could not resolve %q: %v", f.where, written, err)
			continue
		}
		if within(root, real) {
			continue
		}
		msg := fmt.Sprintf("%s: %q leads outside the repository", f.where, written)
		if within(root, absPath(*f.path)) {
			msg += " through a symbolic link (to " + real + ")"
		}
		p.errorf(f.node, "%s; name a file inside %s", msg, root)
	}
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, &Error{Pos: diag.Pos{File: p.file, Line: n.Line, Col: n.Column}, Message: fmt.Sprintf(format, args...)})
}

// fields walks a mapping, calling set for each known key and reporting
// unknown keys with the list of allowed ones.
func (p *parser) fields(n *yaml.Node, where string, set map[string]func(*yaml.Node)) {
	yamlmap.Fields(n, set, func(at *yaml.Node, problem yamlmap.Problem, key string) {
		switch problem {
		case yamlmap.NotMapping:
			p.errorf(at, "%s: expected a mapping", where)
		case yamlmap.Unknown:
			if near := spelling.Nearest(key, slices.Sorted(maps.Keys(set)), max(1, len(key)/3)); near != "" {
				p.errorf(at, "%s: unknown key %q; did you mean %q?", where, key, near)
				return
			}
			p.errorf(at, "%s: unknown key %q; expected one of %s", where, key, keyList(set))
		case yamlmap.Repeated:
			p.errorf(at, "%s: key %q is set twice", where, key)
		}
	})
}

func keyList(set map[string]func(*yaml.Node)) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, strconv.Quote(k))
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func (p *parser) str(n *yaml.Node, where string, dst *string) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errorf(n, "%s: expected a string", where)
		return
	}
	*dst = n.Value
}

func (p *parser) boolean(n *yaml.Node, where string, dst *bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		p.errorf(n, "%s: expected true or false", where)
		return
	}
	*dst = n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
}

func (p *parser) strs(n *yaml.Node, where string, dst *[]string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			p.errorf(n, "%s: expected a string or a list of strings", where)
			return
		}
		*dst = []string{n.Value}
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				p.errorf(e, "%s: expected a list of strings", where)
				return
			}
			out = append(out, e.Value)
		}
		*dst = out
	default:
		p.errorf(n, "%s: expected a string or a list of strings", where)
	}
}

// command accepts a list (argv) or a string (run by /bin/sh -c).
func (p *parser) command(n *yaml.Node, where string, dst *[]string) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		*dst = []string{"/bin/sh", "-c", n.Value}
		return
	}
	p.strs(n, where, dst)
	if len(*dst) == 0 {
		p.errorf(n, "%s: expected a non-empty command", where)
	}
}

func (p *parser) int(n *yaml.Node, where string, min int, dst *int) {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < min {
		p.errorf(n, "%s: expected an integer >= %d", where, min)
		return
	}
	*dst = v
}

func (p *parser) float(n *yaml.Node, where string, dst *float64) {
	v, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 {
		p.errorf(n, "%s: expected a number >= 0", where)
		return
	}
	*dst = v
}

func (p *parser) config(n *yaml.Node, c *Config) {
	p.fields(n, "config", map[string]func(*yaml.Node){
		"assessment": func(v *yaml.Node) { p.assessment(v, c) }, // assessment.go

		"suites":      func(v *yaml.Node) { p.suites(v, c) },
		"agent":       func(v *yaml.Node) { p.agent(v, &c.Agent) },
		"judge":       func(v *yaml.Node) { p.judge(v, &c.Judge) },
		"concurrency": func(v *yaml.Node) { p.int(v, "concurrency", 1, &c.Concurrency) },
		"trials":      func(v *yaml.Node) { p.int(v, "trials", 1, &c.Trials) },
		"timeout": func(v *yaml.Node) {
			d, err := time.ParseDuration(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
				p.errorf(v, "timeout: expected a positive duration such as 90s or 2m")
				return
			}
			c.Timeout = d
		},
		"baseline": func(v *yaml.Node) { p.str(v, "baseline", &c.Baseline) },
		"gates":    func(v *yaml.Node) { p.gates(v, &c.Gates) },
		"out":      func(v *yaml.Node) { p.str(v, "out", &c.Out) },
		"explain": func(v *yaml.Node) {
			c.Explain = new(bool)
			p.boolean(v, "explain", c.Explain)
		},
		"trust":   func(v *yaml.Node) { c.Trust = p.trust(v) },
		"history": func(v *yaml.Node) { c.History = p.history(v) }, // history.go
		"pricing": func(v *yaml.Node) { c.Pricing = p.pricingTable(v) },
		"otel": func(v *yaml.Node) {
			c.OTel.Forward = true
			p.fields(v, "otel", map[string]func(*yaml.Node){
				"endpoint": func(v *yaml.Node) { p.str(v, "otel.endpoint", &c.OTel.Endpoint) },
				"forward":  func(v *yaml.Node) { p.boolean(v, "otel.forward", &c.OTel.Forward) },
			})
			if c.OTel.Endpoint == "" {
				p.errorf(v, "otel: endpoint is required: the OTLP/HTTP address of a collector, such as http://127.0.0.1:4318")
			}
		},
		"user": func(v *yaml.Node) {
			p.fields(v, "user", map[string]func(*yaml.Node){
				"simulator": func(v *yaml.Node) { c.User.Simulator = p.openai(v, "user.simulator", false) },
			})
		},
	})
}

// gates reads the gate expressions and compiles them, so that a gate that
// does not compile is reported at its place in the file, like any other
// mistake in it.
func (p *parser) gates(n *yaml.Node, dst *[]string) {
	p.strs(n, "gates", dst)
	nodes := n.Content
	if n.Kind == yaml.ScalarNode {
		nodes = []*yaml.Node{n}
	}
	if len(nodes) != len(*dst) {
		return // not a list of strings: reported
	}
	_, err := gates.Compile(*dst)
	var errs gates.CompileErrors
	if !errors.As(err, &errs) {
		return
	}
	for _, e := range errs {
		v := nodes[e.Index]
		line, col, exact := exprPos(v, e.Line, e.Col)
		msg := e.Message
		if !exact && e.Line > 0 {
			msg = e.Where() + ": " + msg // where in the expression, when the file cannot say
		}
		p.errs = append(p.errs, &Error{Pos: diag.Pos{File: p.file, Line: line, Col: col}, Message: fmt.Sprintf("gates[%d]: %s", e.Index, msg)})
	}
}

// exprPos is the place in the file of line, col (from 1) of the expression
// in scalar n. It is exact on the first line of a scalar whose text is the
// expression as written (plain, or quoted without escapes); otherwise it is
// the scalar's own place.
func exprPos(n *yaml.Node, line, col int) (fileLine, fileCol int, exact bool) {
	if line != 1 || col < 1 || strings.Contains(n.Value, "\n") {
		return n.Line, n.Column, false
	}
	switch {
	case n.Style == 0:
		return n.Line, n.Column + col - 1, true
	case n.Style == yaml.SingleQuotedStyle && !strings.Contains(n.Value, "'"),
		n.Style == yaml.DoubleQuotedStyle && !strings.ContainsAny(n.Value, "\"\\"):
		return n.Line, n.Column + col, true
	}
	return n.Line, n.Column, false
}

func (p *parser) agent(n *yaml.Node, a *Agent) {
	p.fields(n, "agent", map[string]func(*yaml.Node){
		"exec":       func(v *yaml.Node) { p.command(v, "agent.exec", &a.Exec) },
		"plain":      func(v *yaml.Node) { p.command(v, "agent.plain", &a.Plain) },
		"openai":     func(v *yaml.Node) { a.OpenAI = p.openai(v, "agent.openai", true) },
		"modelClass": func(v *yaml.Node) { p.str(v, "agent.modelClass", &a.ModelClass) },
		"dir":        func(v *yaml.Node) { p.str(v, "agent.dir", &a.Dir) },
		"version":    func(v *yaml.Node) { p.str(v, "agent.version", &a.Version) },
		"health":     func(v *yaml.Node) { p.command(v, "agent.health", &a.Health) },
		"mcp":        func(v *yaml.Node) { p.boolean(v, "agent.mcp", &a.MCP) },
		"otel":       func(v *yaml.Node) { p.boolean(v, "agent.otel", &a.OTel) },
		"env": func(v *yaml.Node) {
			if v.Kind != yaml.MappingNode {
				p.errorf(v, "agent.env: expected a mapping of names to values")
				return
			}
			a.Env = map[string]string{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				k, val := v.Content[i], v.Content[i+1]
				if val.Kind != yaml.ScalarNode {
					p.errorf(val, "agent.env.%s: expected a string", k.Value)
					continue
				}
				a.Env[k.Value] = val.Value
			}
		},
	})
	set := 0
	for _, b := range []bool{a.Exec != nil, a.Plain != nil, a.OpenAI != nil} {
		if b {
			set++
		}
	}
	if set > 1 {
		p.errorf(n, "agent: set only one of \"exec\", \"plain\", \"openai\"")
	}
	if a.OTel && a.OpenAI != nil {
		p.errorf(n, "agent.otel: applies to exec and plain agents; an openai agent's calls are made by evalgate, which counts them itself")
	}
	if a.MCP && a.OpenAI != nil {
		p.errorf(n, "agent.mcp: applies to exec and plain agents; an openai agent's tools are answered by evalgate's own loop")
	}
	switch a.ModelClass {
	case "", "reasoning", "writing", "coding", "research", "classification", "general":
	default:
		p.errorf(n, "agent.modelClass: expected one of \"reasoning\", \"writing\", \"coding\", \"research\", \"classification\", \"general\", got %q", a.ModelClass)
	}
}

// openai reads an OpenAI-compatible endpoint. The prompt, turns and
// temperature are the agent's: the judge has its own fixed prompt and
// temperature 0, so they are unknown keys under judge.openai.
func (p *parser) openai(n *yaml.Node, where string, agent bool) *OpenAI {
	o := &OpenAI{}
	keys := map[string]func(*yaml.Node){
		"baseURL": func(v *yaml.Node) { p.str(v, where+".baseURL", &o.BaseURL) },
		"model":   func(v *yaml.Node) { p.str(v, where+".model", &o.Model) },
		"apiKeyEnv": func(v *yaml.Node) {
			p.str(v, where+".apiKeyEnv", &o.APIKeyEnv)
			o.APIKeyEnvAt = diag.Pos{File: p.file, Line: v.Line, Col: v.Column}
		},
		"systemPrompt":     func(v *yaml.Node) { p.str(v, where+".systemPrompt", &o.SystemPrompt) },
		"systemPromptFile": func(v *yaml.Node) { p.repoStr(v, where+".systemPromptFile", &o.SystemPromptFile) },
		"maxTurns":         func(v *yaml.Node) { p.int(v, where+".maxTurns", 1, &o.MaxTurns) },
		"temperature": func(v *yaml.Node) {
			var t float64
			p.float(v, where+".temperature", &t)
			o.Temperature = &t
		},
		"pricing": func(v *yaml.Node) { p.pricing(v, where+".pricing", &o.Pricing) },
	}
	if !agent {
		for _, k := range []string{"systemPrompt", "systemPromptFile", "maxTurns", "temperature"} {
			delete(keys, k)
		}
	}
	p.fields(n, where, keys)
	if o.BaseURL == "" {
		p.errorf(n, "%s: baseURL is required", where)
	}
	if o.Model == "" {
		p.errorf(n, "%s: model is required", where)
	}
	if o.SystemPrompt != "" && o.SystemPromptFile != "" {
		p.errorf(n, "%s: set only one of \"systemPrompt\", \"systemPromptFile\"", where)
	}
	return o
}

func (p *parser) judge(n *yaml.Node, j *Judge) {
	p.fields(n, "judge", map[string]func(*yaml.Node){
		"openai":      func(v *yaml.Node) { j.OpenAI = p.openai(v, "judge.openai", false) },
		"exec":        func(v *yaml.Node) { p.command(v, "judge.exec", &j.Exec) },
		"samples":     func(v *yaml.Node) { p.int(v, "judge.samples", 1, &j.Samples) },
		"concurrency": func(v *yaml.Node) { p.int(v, "judge.concurrency", 1, &j.Concurrency) },
		"calibration": func(v *yaml.Node) { p.repoStr(v, "judge.calibration", &j.Calibration) },
	})
	if j.OpenAI != nil && j.Exec != nil {
		p.errorf(n, "judge: set only one of \"openai\", \"exec\"")
	}
}

// pricing reads one model's prices.
func (p *parser) pricing(n *yaml.Node, where string, dst *Pricing) {
	p.fields(n, where, map[string]func(*yaml.Node){
		"inputPerMTok":  func(v *yaml.Node) { p.float(v, where+".inputPerMTok", &dst.InputPerMTok) },
		"outputPerMTok": func(v *yaml.Node) { p.float(v, where+".outputPerMTok", &dst.OutputPerMTok) },
	})
}

// pricingTable reads the top-level pricing: model names to their prices.
func (p *parser) pricingTable(n *yaml.Node) map[string]Pricing {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "pricing: expected a mapping of model names to {inputPerMTok, outputPerMTok}")
		return nil
	}
	out := make(map[string]Pricing, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := out[k.Value]; dup {
			p.errorf(k, "pricing: model %q is priced twice", k.Value)
			continue
		}
		var pr Pricing
		p.pricing(v, "pricing."+k.Value, &pr)
		out[k.Value] = pr
	}
	return out
}
