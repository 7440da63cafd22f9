package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/evalgate/evalgate/internal/loopback"
	"github.com/evalgate/evalgate/internal/mcpserver"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// Variables an MCP agent finds in its environment.
const (
	EnvMCPURL    = "EVALGATE_MCP_URL"    // the trial's streamable HTTP endpoint
	EnvMCPConfig = "EVALGATE_MCP_CONFIG" // a file in the common mcpServers shape naming it
)

// mcpToolName is what MCP accepts as a tool name as it is. It is compiled
// when first used: only runs that serve MCP need it, and compiling its
// counted repetition took more memory than the rest of the package's
// initialisation, in every evalgate command.
var mcpToolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })

// MCP serves each trial's tools and memory over the Model Context Protocol
// to the exec or plain agent it wraps (docs/mcp.md). Every trial gets an
// endpoint of its own on one loopback listener, answered by the trial's
// Tools exactly as tool_call lines are, and closed when the trial ends;
// the agent finds it in EVALGATE_MCP_URL and EVALGATE_MCP_CONFIG. The
// listener starts with the first trial; Close stops it.
type MCP struct {
	Agent Agent

	once  sync.Once
	srv   *mcpserver.Server
	dir   string // holds the trials' EVALGATE_MCP_CONFIG files
	err   error
	tools sync.Map // &tools[0] -> *mcpserver.Toolset
	n     atomic.Int64
}

var _ Agent = (*MCP)(nil)

// Run runs one trial of the wrapped agent with its MCP endpoint open.
// A client that goes over the trial's quota (mcpQuota) ends the trial
// there, as an output-too-large error; an agent that answered and then
// idled until the timeout is told so.
func (m *MCP) Run(ctx context.Context, req *Request, tools Tools) *Outcome {
	m.once.Do(m.start)
	if m.err != nil {
		return &Outcome{Fatal: m.err}
	}
	ctx, end := context.WithCancel(ctx)
	defer end()
	e, err := m.srv.Open(ctx, mcpserver.Trial{
		Tools:           m.served(req.Tools),
		Memory:          req.Memory,
		Answer:          tools,
		MaxDepth:        MaxDepth,
		MaxRequestBytes: DefaultMaxLineBytes,
		Quota:           mcpQuota,
		WhenOver:        func(*loopback.QuotaError) { end() },
	})
	if err != nil {
		return &Outcome{Fatal: err}
	}
	defer e.Close()
	cfg := filepath.Join(m.dir, "trial-"+strconv.FormatInt(m.n.Add(1), 10)+".json")
	if err := writeMCPConfig(cfg, e.URL); err != nil {
		return &Outcome{Fatal: err}
	}
	defer os.Remove(cfg)
	r := *req
	r.Env = append(slices.Clip(req.Env), EnvMCPURL+"="+e.URL, EnvMCPConfig+"="+cfg)
	// Whether a request was in progress as the trial's context ended,
	// noted before the agent's end cuts its requests off.
	var busy bool
	noted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { busy = e.Busy(); close(noted) })
	out := m.Agent.Run(ctx, &r, tools)
	if stop() {
		close(noted) // the agent ended before its context
	}
	<-noted
	e.Close()
	if over := e.Over(); over != nil {
		return &Outcome{
			Err:    &AgentError{Kind: results.ErrOutputTooLarge, Message: "the agent's MCP client went over its trial's quota of " + over.Quota()},
			Usage:  out.Usage,
			Stderr: out.Stderr,
		}
	}
	if out.Err != nil && out.Err.Kind == results.ErrTimeout && out.Wrote > 0 && !busy {
		out.Err.Message += fmt.Sprintf(": answered (%s), then did not exit; end the program once its answer is written (an MCP client left open can keep it running)", countText(out.Wrote, "byte", "bytes"))
	}
	return out
}

// mcpQuota is what the clients of one trial may send: as many bytes as an
// evalgate/1 agent may write, and loopback's default numbers of requests
// and sessions.
var mcpQuota = loopback.Quota{Bytes: DefaultMaxOutputBytes}

func (m *MCP) start() {
	m.dir, m.err = configDir(memoryDirs())
	if m.err != nil {
		m.err = fmt.Errorf("could not make a folder for MCP configs: %w", m.err)
		return
	}
	m.srv, m.err = mcpserver.Listen()
}

// configDir makes the folder of the trials' EVALGATE_MCP_CONFIG files (its
// owner's only) in the first of parents that takes it, else in the
// system's temporary folder.
func configDir(parents []string) (string, error) {
	for _, p := range parents {
		if dir, err := os.MkdirTemp(p, "evalgate-mcp-"); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", "evalgate-mcp-")
}

// memoryDirs are the folders held in memory where the system has them: a
// trial writes and removes a config file, which on a disk's file system
// cost a run serving MCP a tenth of its CPU (about 120 µs a trial on ext4
// against 11 µs on tmpfs); the files are small and live for a trial.
func memoryDirs() []string {
	var dirs []string
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if runtime.GOOS == "linux" {
		dirs = append(dirs, "/dev/shm")
	}
	return dirs
}

// Close stops the listener and removes the config files.
func (m *MCP) Close() error {
	var err error
	if m.srv != nil {
		err = m.srv.Close()
	}
	if m.dir != "" {
		err = errors.Join(err, os.RemoveAll(m.dir))
	}
	return err
}

// writeMCPConfig writes the file of EVALGATE_MCP_CONFIG, readable by its
// owner only: the URL is the trial's only key.
func writeMCPConfig(path, url string) error {
	type server struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	}
	b, _ := json.Marshal(map[string]map[string]server{"mcpServers": {"evalgate": {Type: "http", URL: url}}}) // always encodes
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("could not write the trial's MCP config: %w", err)
	}
	return nil
}

// served is a suite's tools as MCP serves them (MCPTools), made ready once
// for all the suite's trials: the cache holds the toolset of each list
// seen before.
func (m *MCP) served(tools []suites.Tool) *mcpserver.Toolset {
	if len(tools) == 0 {
		return nil
	}
	key := &tools[0]
	if ts, ok := m.tools.Load(key); ok {
		return ts.(*mcpserver.Toolset)
	}
	ts, _ := m.tools.LoadOrStore(key, mcpserver.NewToolset(MCPTools(tools)))
	return ts.(*mcpserver.Toolset)
}

// MCPTools maps a suite's tools to the tools an MCP server offers. A name
// matching ^[A-Za-z0-9_.-]{1,128}$ is served as it is; any other is served
// under its FunctionNames name, which matches a stricter pattern and so
// never takes the name of another tool.
func MCPTools(tools []suites.Tool) []mcpserver.Tool {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	fn := FunctionNames(names)
	out := make([]mcpserver.Tool, len(tools))
	for i, t := range tools {
		served := t.Name
		if !mcpToolName().MatchString(served) {
			served = fn[t.Name]
		}
		out[i] = mcpserver.Tool{Served: served, Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	return out
}
