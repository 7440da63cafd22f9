package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/trust"
)

// TrustFile is the scorecard's file in the output folder (docs/trust.md).
const TrustFile = "trust.json"

// TrustInput gathers what a scorecard is computed from besides the run:
// the repository's facts, .evalgate/trust.yaml and the history (the
// config's trust.history and extra), each history entry anything a
// baseline may be, read as safely (it may come with a pull request). Every
// problem is the caller's exit 2.
func TrustInput(ctx context.Context, cfg *config.Config, extra []string, gatesConfigured int) (*trust.Input, error) {
	opts := trust.RepoOptions{
		Root:         cfg.Root(),
		Project:      cmp.Or(cfg.Dir, "."),
		AgentVersion: cfg.Agent.Version,
		Gates:        gatesConfigured,
	}
	opts.AgentPaths = agentPaths(cfg, opts.Root)
	files := extra
	if cfg.Trust != nil {
		opts.Owner = cfg.Trust.Owner
		files = append(append([]string(nil), cfg.Trust.History...), extra...)
	}
	repo, err := trust.ReadRepo(opts)
	if err != nil {
		return nil, err
	}
	in := &trust.Input{Repo: repo}
	for _, f := range files {
		h, err := regression.LoadResults(ctx, f, cfg.Dir)
		if err != nil {
			return nil, fmt.Errorf("trust history: %w", err)
		}
		in.History = append(in.History, h)
	}
	return in, nil
}

// agentPaths are the agent's files and folders as CODEOWNERS sees them:
// its folder and the arguments of its command that name something in it,
// relative to root with forward slashes, a folder ending in "/".
func agentPaths(cfg *config.Config, root string) []string {
	dir := cmp.Or(cfg.Agent.Dir, cfg.Dir, ".")
	candidates := []string{dir}
	for _, arg := range append(append([]string(nil), cfg.Agent.Exec...), cfg.Agent.Plain...) {
		if arg != "" && !strings.HasPrefix(arg, "-") {
			candidates = append(candidates, filepath.Join(dir, arg))
		}
	}
	var out []string
	for _, p := range candidates {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if fi.IsDir() {
			rel = strings.TrimPrefix(rel+"/", "./")
		}
		out = append(out, rel)
	}
	return out
}

// scoreTrust computes the run's scorecard when the config asks for one:
// run.Trust gets its summary, with the baseline's level beside it.
func scoreTrust(in *trust.Input, run *results.Run, base *results.Run) *trust.Scorecard {
	if in == nil {
		return nil
	}
	in.Run = run
	history := in.History
	if base != nil {
		in.History = append(append([]*results.Run(nil), history...), base)
	}
	sc := trust.Compute(*in)
	in.History = history
	run.Trust = sc.Summary()
	if base != nil && base.Trust != nil {
		level, score := base.Trust.Level, base.Trust.Score
		run.Trust.BaselineLevel, run.Trust.BaselineScore = &level, &score
	}
	return sc
}

// configuredGates counts the gates that are not the defaults.
func configuredGates(gs []*gates.Gate) int {
	n := 0
	for _, g := range gs {
		if !g.Default {
			n++
		}
	}
	return n
}

// TrustJSON renders trust.json.
func TrustJSON(sc *trust.Scorecard) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// PrintTrust prints the scorecard as a short table.
func PrintTrust(w io.Writer, sc *trust.Scorecard) {
	fmt.Fprintf(w, "trust: TL%d %s, %.1f of 100\n", sc.Level, sc.LevelName, sc.Score)
	d := &sc.Dimensions
	for _, row := range []struct {
		name string
		dim  *trust.Dimension
	}{
		{"Contract Clarity", &d.ContractClarity}, {"Idempotency", &d.Idempotency}, {"Observability", &d.Observability},
		{"Error Containment", &d.ErrorContainment}, {"Governance", &d.Governance},
	} {
		fmt.Fprintf(w, "  %-18s %2d/20  %s\n", row.name, row.dim.Points, row.dim.Band)
	}
	a := sc.Adjustments
	fmt.Fprintf(w, "  %-18s %+.1f   %d passing trials, %d unhandled errors, %d timeouts in the last 30 days\n", "history", a.Points, a.PassingTrials, a.UnhandledErrors, a.Timeouts)
	if len(sc.Next) > 0 && sc.Level < results.MaxTrustLevel {
		fmt.Fprintf(w, "next, TL%d %s needs:\n", sc.Level+1, trust.Levels[sc.Level+1].Name)
		for _, n := range sc.Next {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

// healthTimeout bounds the agent's health command.
const healthTimeout = 30 * time.Second

// checkHealth runs agent.health once before the tasks, with the agent's
// folder and environment, in its own process group: it must exit 0. A
// failure is reported and costs the scorecard its health points; the run
// goes on.
func (j *job) checkHealth(ctx context.Context) *results.Health {
	a := j.cfg.Agent
	if len(a.Health) == 0 {
		return nil
	}
	hctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	var stdout bytes.Buffer
	p, err := process.Run(hctx, process.Spec{Command: a.Health, Dir: a.Dir, Env: process.ScrubEnv(os.Environ(), judgeKeys(j.cfg), a.Env)}, &stdout)
	h := &results.Health{Passed: err == nil && p != nil && p.Success()}
	switch {
	case h.Passed:
		return h
	case p == nil:
		h.Message = "could not start the command"
	case errors.Is(err, context.DeadlineExceeded):
		h.Message = fmt.Sprintf("no exit within %s", healthTimeout)
	default:
		h.Message = p.Exit()
	}
	j.c.Say(j.c.Stderr, "evalgate: agent.health failed (%s); the run goes on, without the scorecard's health points\n", h.Message)
	return h
}

// writeTrust writes trust.json and the TL badge beside the score badge,
// when the run has a scorecard.
func (j *job) writeTrust(run *results.Run) error {
	if j.trust == nil {
		return nil
	}
	data, err := TrustJSON(j.trust)
	if err != nil {
		return fmt.Errorf("could not render %s: %w", TrustFile, err)
	}
	for name, b := range map[string][]byte{TrustFile: data, "trust-badge.svg": report.TrustBadge(run.Trust)} {
		if err := atomicfile.WriteFile(filepath.Join(j.out, name), b, 0o644, 0o755); err != nil {
			return fmt.Errorf("could not write %s: %w", name, err)
		}
	}
	return nil
}

// baseRun is the baseline's run; nil without a comparison.
func (cmp *comparison) baseRun() *results.Run {
	if cmp == nil {
		return nil
	}
	return cmp.base
}

// sayTrust prints the scorecard's level in one line, unless --quiet.
func (j *job) sayTrust() {
	if j.trust == nil || j.flags.Quiet {
		return
	}
	j.c.Say(j.c.Stdout, "\ntrust: TL%d %s, %.1f of 100; the evidence of every point is in %s\n",
		j.trust.Level, j.trust.LevelName, j.trust.Score, filepath.Join(j.out, TrustFile))
}
