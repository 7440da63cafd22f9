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
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/internal/chat"
	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/yamlmap"
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
	// BaselineAt is where the file sets baseline, for a message about a
	// baseline that cannot be read.
	BaselineAt diag.Pos
	Gates      []string
	Out        string
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
	// environment and folder; it must exit 0 (docs/trust.md,
	// "Observability").
	Health []string
	// MCP serves each trial's tools over the Model Context Protocol to an
	// exec or plain agent (docs/mcp.md).
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
	data, err := inputfile.Kind{What: "a config file", Limit: MaxFileBytes}.Read(path)
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
	root, err := yamlmap.Parse(path, data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return c, nil
	}
	p := &parser{Reader: yamlmap.Reader{File: path, Naming: yamlmap.BySetting, Root: "config"}}
	p.config(root, c)
	if len(p.Errs) > 0 {
		return nil, p.Errs
	}
	c.resolve()
	p.checkInRepo(c)
	if len(p.Errs) > 0 {
		return nil, p.Errs
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

// parser reads the file's settings, naming each problem's field by its
// setting (agent.openai: ...), as the docs and the flags name them.
type parser struct {
	yamlmap.Reader
	// inRepo are the settings that must name a file in the repository,
	// with their place in the file; checkInRepo checks them once resolved.
	inRepo []repoFile
}

// repoFile is a setting naming a file that must lie in the repository.
type repoFile struct {
	node *yaml.Node
	at   yamlmap.Field // the setting, e.g. agent.openai.systemPromptFile
	path *string       // the setting's value, resolved against the config's folder
}

// repoStr reads a string setting that names a file in the repository.
func (p *parser) repoStr(n *yaml.Node, at yamlmap.Field, dst *string) {
	p.Str(n, at, dst)
	p.inRepo = append(p.inRepo, repoFile{node: n, at: at, path: dst})
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
			p.Errorf(f.node, f.at, "%q is an absolute path; name a file in the repository, relative to %s, such as prompts/agent.md", written, c.folderName())
			continue
		}
		real, err := resolveLinks(*f.path)
		if err != nil {
			p.Errorf(f.node, f.at, "could not resolve %q: %v", written, err)
			continue
		}
		if within(root, real) {
			continue
		}
		msg := fmt.Sprintf("%q leads outside the repository", written)
		if within(root, absPath(*f.path)) {
			msg += " through a symbolic link (to " + real + ")"
		}
		p.Errorf(f.node, f.at, "%s; name a file inside %s", msg, root)
	}
}

// command accepts a list (argv) or a string (run by /bin/sh -c).
func (p *parser) command(n *yaml.Node, at yamlmap.Field, dst *[]string) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		*dst = []string{"/bin/sh", "-c", n.Value}
		return
	}
	p.Strs(n, at, dst)
	if len(*dst) == 0 {
		p.Errorf(n, at, "expected a non-empty command")
	}
}

func (p *parser) config(n *yaml.Node, c *Config) {
	var root yamlmap.Field
	p.Fields(n, root, yamlmap.Keys{
		"assessment": func(v *yaml.Node) { p.assessment(v, root.Key("assessment"), c) }, // assessment.go

		"suites":      func(v *yaml.Node) { p.suites(v, root.Key("suites"), c) },
		"agent":       func(v *yaml.Node) { p.agent(v, root.Key("agent"), &c.Agent) },
		"judge":       func(v *yaml.Node) { p.judge(v, root.Key("judge"), &c.Judge) },
		"concurrency": func(v *yaml.Node) { p.Int(v, root.Key("concurrency"), 1, &c.Concurrency) },
		"trials":      func(v *yaml.Node) { p.Int(v, root.Key("trials"), 1, &c.Trials) },
		"timeout": func(v *yaml.Node) {
			d, err := time.ParseDuration(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
				p.Errorf(v, root.Key("timeout"), "expected a positive duration such as 90s or 2m")
				return
			}
			c.Timeout = d
		},
		"baseline": func(v *yaml.Node) {
			p.Str(v, root.Key("baseline"), &c.Baseline)
			c.BaselineAt = p.Pos(v)
		},
		"gates": func(v *yaml.Node) { p.gates(v, root.Key("gates"), &c.Gates) },
		"out":   func(v *yaml.Node) { p.Str(v, root.Key("out"), &c.Out) },
		"explain": func(v *yaml.Node) {
			c.Explain = new(bool)
			p.Bool(v, root.Key("explain"), c.Explain)
		},
		"trust":   func(v *yaml.Node) { c.Trust = p.trust(v, root.Key("trust")) },
		"history": func(v *yaml.Node) { c.History = p.history(v, root.Key("history")) }, // history.go
		"pricing": func(v *yaml.Node) { c.Pricing = p.pricingTable(v, root.Key("pricing")) },
		"otel": func(v *yaml.Node) {
			c.OTel.Forward = true
			otel := root.Key("otel")
			p.Fields(v, otel, yamlmap.Keys{
				"endpoint": func(v *yaml.Node) { p.Str(v, otel.Key("endpoint"), &c.OTel.Endpoint) },
				"forward":  func(v *yaml.Node) { p.Bool(v, otel.Key("forward"), &c.OTel.Forward) },
			})
			if c.OTel.Endpoint == "" {
				p.Errorf(v, otel, "endpoint is required: the OTLP/HTTP address of a collector, such as http://127.0.0.1:4318")
			}
		},
		"user": func(v *yaml.Node) {
			user := root.Key("user")
			p.Fields(v, user, yamlmap.Keys{
				"simulator": func(v *yaml.Node) { c.User.Simulator = p.openai(v, user.Key("simulator"), false) },
			})
		},
	})
}

// gates reads the gate expressions and compiles them, so that a gate that
// does not compile is reported at its place in the file, like any other
// mistake in it.
func (p *parser) gates(n *yaml.Node, at yamlmap.Field, dst *[]string) {
	p.Strs(n, at, dst)
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
		p.ErrorfAt(diag.Pos{File: p.File, Line: line, Col: col}, at.Index(e.Index), "%s", msg)
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

func (p *parser) agent(n *yaml.Node, at yamlmap.Field, a *Agent) {
	p.Fields(n, at, yamlmap.Keys{
		"exec":       func(v *yaml.Node) { p.command(v, at.Key("exec"), &a.Exec) },
		"plain":      func(v *yaml.Node) { p.command(v, at.Key("plain"), &a.Plain) },
		"openai":     func(v *yaml.Node) { a.OpenAI = p.openai(v, at.Key("openai"), true) },
		"modelClass": func(v *yaml.Node) { p.Str(v, at.Key("modelClass"), &a.ModelClass) },
		"dir":        func(v *yaml.Node) { p.Str(v, at.Key("dir"), &a.Dir) },
		"version":    func(v *yaml.Node) { p.Str(v, at.Key("version"), &a.Version) },
		"health":     func(v *yaml.Node) { p.command(v, at.Key("health"), &a.Health) },
		"mcp":        func(v *yaml.Node) { p.Bool(v, at.Key("mcp"), &a.MCP) },
		"otel":       func(v *yaml.Node) { p.Bool(v, at.Key("otel"), &a.OTel) },
		"env": func(v *yaml.Node) {
			env := at.Key("env")
			if v.Kind != yaml.MappingNode {
				p.Errorf(v, env, "expected a mapping of names to values")
				return
			}
			a.Env = map[string]string{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				k, val := v.Content[i], v.Content[i+1]
				if val.Kind != yaml.ScalarNode {
					p.Errorf(val, env.Key(k.Value), "expected a string")
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
		p.Errorf(n, at, "set only one of \"exec\", \"plain\", \"openai\"")
	}
	if a.OTel && a.OpenAI != nil {
		p.Errorf(n, at.Key("otel"), "applies to exec and plain agents; an openai agent's calls are made by evalgate, which counts them itself")
	}
	if a.MCP && a.OpenAI != nil {
		p.Errorf(n, at.Key("mcp"), "applies to exec and plain agents; an openai agent's tools are answered by evalgate's own loop")
	}
	switch a.ModelClass {
	case "", "reasoning", "writing", "coding", "research", "classification", "general":
	default:
		p.Errorf(n, at.Key("modelClass"), "expected one of \"reasoning\", \"writing\", \"coding\", \"research\", \"classification\", \"general\", got %q", a.ModelClass)
	}
}

// openai reads an OpenAI-compatible endpoint. The prompt, turns and
// temperature are the agent's: the judge has its own fixed prompt and
// temperature 0, so they are unknown keys under judge.openai.
func (p *parser) openai(n *yaml.Node, at yamlmap.Field, agent bool) *OpenAI {
	o := &OpenAI{}
	keys := yamlmap.Keys{
		"baseURL": func(v *yaml.Node) { p.Str(v, at.Key("baseURL"), &o.BaseURL) },
		"model":   func(v *yaml.Node) { p.Str(v, at.Key("model"), &o.Model) },
		"apiKeyEnv": func(v *yaml.Node) {
			p.Str(v, at.Key("apiKeyEnv"), &o.APIKeyEnv)
			o.APIKeyEnvAt = p.Pos(v)
		},
		"systemPrompt":     func(v *yaml.Node) { p.Str(v, at.Key("systemPrompt"), &o.SystemPrompt) },
		"systemPromptFile": func(v *yaml.Node) { p.repoStr(v, at.Key("systemPromptFile"), &o.SystemPromptFile) },
		"maxTurns":         func(v *yaml.Node) { p.Int(v, at.Key("maxTurns"), 1, &o.MaxTurns) },
		"temperature": func(v *yaml.Node) {
			var t float64
			p.Float(v, at.Key("temperature"), &t)
			o.Temperature = &t
		},
		"pricing": func(v *yaml.Node) { p.pricing(v, at.Key("pricing"), &o.Pricing) },
	}
	if !agent {
		for _, k := range []string{"systemPrompt", "systemPromptFile", "maxTurns", "temperature"} {
			delete(keys, k)
		}
	}
	p.Fields(n, at, keys)
	if o.BaseURL == "" {
		p.Errorf(n, at, "baseURL is required")
	}
	if o.Model == "" {
		p.Errorf(n, at, "model is required")
	}
	if o.SystemPrompt != "" && o.SystemPromptFile != "" {
		p.Errorf(n, at, "set only one of \"systemPrompt\", \"systemPromptFile\"")
	}
	return o
}

func (p *parser) judge(n *yaml.Node, at yamlmap.Field, j *Judge) {
	p.Fields(n, at, yamlmap.Keys{
		"openai":      func(v *yaml.Node) { j.OpenAI = p.openai(v, at.Key("openai"), false) },
		"exec":        func(v *yaml.Node) { p.command(v, at.Key("exec"), &j.Exec) },
		"samples":     func(v *yaml.Node) { p.Int(v, at.Key("samples"), 1, &j.Samples) },
		"concurrency": func(v *yaml.Node) { p.Int(v, at.Key("concurrency"), 1, &j.Concurrency) },
		"calibration": func(v *yaml.Node) { p.repoStr(v, at.Key("calibration"), &j.Calibration) },
	})
	if j.OpenAI != nil && j.Exec != nil {
		p.Errorf(n, at, "set only one of \"openai\", \"exec\"")
	}
}

// pricing reads one model's prices.
func (p *parser) pricing(n *yaml.Node, at yamlmap.Field, dst *Pricing) {
	p.Fields(n, at, yamlmap.Keys{
		"inputPerMTok":  func(v *yaml.Node) { p.Float(v, at.Key("inputPerMTok"), &dst.InputPerMTok) },
		"outputPerMTok": func(v *yaml.Node) { p.Float(v, at.Key("outputPerMTok"), &dst.OutputPerMTok) },
	})
}

// pricingTable reads the top-level pricing: model names to their prices.
func (p *parser) pricingTable(n *yaml.Node, at yamlmap.Field) map[string]Pricing {
	if n.Kind != yaml.MappingNode {
		p.Errorf(n, at, "expected a mapping of model names to {inputPerMTok, outputPerMTok}")
		return nil
	}
	out := make(map[string]Pricing, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := out[k.Value]; dup {
			p.Errorf(k, at, "model %q is priced twice", k.Value)
			continue
		}
		var pr Pricing
		p.pricing(v, at.Key(k.Value), &pr)
		out[k.Value] = pr
	}
	return out
}
