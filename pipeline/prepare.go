package pipeline

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/internal/memtune"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/spelling"
	"github.com/evalgate/evalgate/otelexport"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
	"github.com/evalgate/evalgate/traces"
)

// prepare validates flags, config, suites and gates: every problem here is
// exit 2, found before any agent runs.
func (c *Env) prepare(f *Flags, paths []string) (*job, error) {
	cfg, err := c.LoadConfig(f.Config)
	if err != nil {
		return nil, invalid(err)
	}
	if len(paths) == 0 {
		if err := cfg.CheckSuites(); err != nil {
			return nil, invalid(err)
		}
		paths = cfg.Suites
	}
	if len(paths) == 0 {
		if none := c.NoConfig(cfg); none != "" {
			return nil, invalid(errors.New(none + ", or name the suite files or folders to run"))
		}
		return nil, invalid(fmt.Errorf("no suites to run: pass suite files or folders, or list them under \"suites\" in %s", filepath.ToSlash(cfg.File)))
	}
	if err := c.MaskSecrets(cfg); err != nil {
		return nil, runError(err)
	}
	all, err := suites.LoadWith(memtune.Load, paths...)
	if err != nil {
		c.reportSuiteErrors(err, cmp.Or(f.Out, cfg.Out, "evalgate-out"))
		return nil, invalid(fmt.Errorf("invalid suites:\n%w", err))
	}
	if len(all) == 0 {
		// Every file found was data another suite reads.
		return nil, invalid(fmt.Errorf("no suite files in %s", strings.Join(paths, ", ")))
	}
	gs, err := compileGates(cfg, f.Gates)
	if err != nil {
		return nil, err
	}
	j := &job{c: c, cfg: cfg, flags: f, gates: gs, all: all}
	sel := runner.Selection{Tasks: f.Tasks, Tags: f.Tags, Mode: f.Mode}
	if f.Shard != "" {
		if j.shard, err = parseShard(f.Shard); err != nil {
			return nil, invalid(err)
		}
		sel.Shard = shardFilter(*j.shard)
	}
	if f.Balance != "" {
		if j.shard == nil {
			return nil, invalid(errors.New("--balance goes with --shard i/n: it says how the shards share the tasks"))
		}
		if err := j.balanceShards(all, &sel, f.Balance); err != nil {
			return nil, err
		}
	}
	switch f.Mode {
	case "", "golden", "rubric", "adversarial", "regression", "live-shadow":
	default:
		return nil, invalid(fmt.Errorf("--mode: expected one of golden, rubric, adversarial, regression, live-shadow, got %q", f.Mode))
	}
	j.plan = runner.Plan(all, sel)
	unknown := unselected(all, sel)
	if len(j.plan) == 0 {
		whole := sel
		whole.Shard = nil
		if j.shard == nil || len(runner.Plan(all, whole)) == 0 {
			return nil, invalid(errors.New(strings.Join(append([]string{"no task matches the selection (--task, --tag, --mode, --shard)"}, unknown...), "; ")))
		}
		// More shards than the tasks fill: this one runs nothing, and
		// says so, rather than failing its matrix job.
		c.Say(c.Stderr, "evalgate: shard %d of %d has no task (the other shards have them all): it runs none\n", j.shard.Index, j.shard.Count)
	}
	for _, u := range unknown {
		// The others select tasks: a misspelt one must not pass unseen.
		c.Say(c.Stderr, "evalgate: warning: %s; it selects nothing\n", u)
	}
	if err := c.checkKeys(cfg, j.plan); err != nil {
		return nil, err
	}
	if endpoint := cmp.Or(f.OTLPEndpoint, cfg.OTel.Endpoint); endpoint != "" {
		j.export = otelexport.New(endpoint, cfg.OTel.Endpoint == "" || cfg.OTel.Forward)
	}
	if j.agent, err = c.newAgent(j, cfg, f); err != nil {
		if none := c.NoConfig(cfg); none != "" && errors.Is(err, errNoAgent) {
			err = fmt.Errorf("%w (%s)", err, none)
		}
		return nil, invalid(err)
	}
	j.out = cmp.Or(f.Out, cfg.Out, "evalgate-out")
	j.baseline = cmp.Or(f.Baseline, cfg.Baseline)
	if err := j.prepareAssessment(all); err != nil {
		return nil, err
	}
	if err := j.prepareHistory(); err != nil {
		return nil, err
	}
	return j, nil
}

// newAgent builds the agent driver: --agent-cmd, else the config's agent.
func (c *Env) newAgent(j *job, cfg *config.Config, f *Flags) (runner.Agent, error) {
	a := cfg.Agent
	otel := a.OTel || f.OTel
	drop := judgeKeys(cfg)
	if otel || f.OTLPEndpoint != "" || cfg.OTel.Endpoint != "" {
		// The headers an SDK sends its collector hold its credentials;
		// the agent's collector is evalgate's receiver.
		drop = append(drop, traces.HeaderVariables...)
	}
	env := process.ScrubEnv(os.Environ(), drop, a.Env)
	withMCP := func(agent runner.Agent) runner.Agent {
		if a.MCP {
			agent = &runner.MCP{Agent: agent}
		}
		if otel {
			o := &runner.OTel{Agent: agent, Pricing: cfg.Pricing}
			if j.export != nil {
				o.Parent = j.export.Parent
			}
			agent = o
		}
		return agent
	}
	switch {
	case f.AgentCmd != "":
		return withMCP(&runner.Exec{Command: []string{"/bin/sh", "-c", f.AgentCmd}, Env: env}), nil
	case len(a.Exec) > 0:
		return withMCP(&runner.Exec{Command: a.Exec, Dir: a.Dir, Env: env}), nil
	case len(a.Plain) > 0:
		return withMCP(&runner.Plain{Command: a.Plain, Dir: a.Dir, Env: env}), nil
	case a.OpenAI != nil && otel:
		return nil, errors.New("--otel: applies to exec and plain agents; an openai agent's calls are made by evalgate, which counts them itself")
	case a.OpenAI != nil:
		return c.newOpenAIAgent(cfg, cmp.Or(f.Concurrency, cfg.Concurrency))
	}
	return nil, errNoAgent
}

// errNoAgent is the error of a run with nothing to run.
var errNoAgent = errors.New("no agent to run: pass --agent-cmd, or set agent.exec, agent.plain or agent.openai in evalgate.yaml")

// judgeKeys lists the environment variables holding the judge's and the
// user simulator's credentials, kept from the agent's environment.
func judgeKeys(cfg *config.Config) []string {
	var keys []string
	if cfg.Judge.OpenAI != nil && cfg.Judge.OpenAI.APIKeyEnv != "" {
		keys = append(keys, cfg.Judge.OpenAI.APIKeyEnv)
	}
	if cfg.User.Simulator != nil && cfg.User.Simulator.APIKeyEnv != "" {
		keys = append(keys, cfg.User.Simulator.APIKeyEnv)
	}
	return keys
}

// compileGates returns the gates a run must pass: --gate, else the config's
// gates, else the defaults. A gate that does not compile is exit 2; the
// config's were compiled when it was read, with their place in the file.
func compileGates(cfg *config.Config, flagGates []string) ([]*gates.Gate, error) {
	exprs := cfg.Gates
	if len(flagGates) > 0 {
		exprs = flagGates
	}
	if len(exprs) == 0 {
		return gates.Defaults(), nil
	}
	gs, err := gates.Compile(exprs)
	var errs gates.CompileErrors
	if len(flagGates) > 0 && errors.As(err, &errs) {
		lines := make([]string, len(errs))
		for i, e := range errs {
			lines[i] = "--" + e.Error()
		}
		return nil, invalid(errors.New(strings.Join(lines, "\n")))
	}
	if err != nil {
		return nil, invalid(err)
	}
	return gs, nil
}

// unselected names each --task id and --tag that no loaded suite has,
// with the nearest one there is.
func unselected(all []*suites.Suite, sel runner.Selection) []string {
	if len(sel.Tasks) == 0 && len(sel.Tags) == 0 {
		return nil
	}
	var ids, tags []string
	for _, s := range all {
		tags = append(tags, s.Tags...)
		for _, t := range s.Tasks {
			ids = append(ids, t.ID)
			tags = append(tags, t.Tags...)
		}
	}
	var out []string
	unknown := func(what, name string, known []string) {
		if slices.Contains(known, name) {
			return
		}
		msg := fmt.Sprintf("no suite has %s %q", what, name)
		if near := spelling.Nearest(name, known, max(1, len(name)/3)); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		out = append(out, msg)
	}
	for _, id := range sel.Tasks {
		unknown("the task", id, ids)
	}
	for _, tag := range sel.Tags {
		unknown("the tag", tag, tags)
	}
	return out
}
