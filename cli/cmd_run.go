package cli

import (
	"context"
	"flag"
	"os"
	"time"

	"github.com/mattn/go-isatty"
)

// runFlags are the flags of `evalgate run`; each one overrides the config.
type runFlags struct {
	config      string
	agentCmd    string
	out         string
	concurrency int
	timeout     time.Duration
	trials      int
	mode        string
	tasks       listFlag
	tags        listFlag
	baseline    string
	gates       repeatFlag
	shard       string
	balance     string
	transcripts bool
	noColor     bool
	quiet       bool
	noCache     bool
	noPublish   bool
	explain     optionalBool
}

func (c *Command) runFlagSet(f *runFlags) *flag.FlagSet {
	fs := c.newFlags("run", "[suite files or folders...]")
	fs.StringVar(&f.config, "config", "", "project `file` (default: evalgate.yaml here or in the nearest folder above, up to the repository root)")
	fs.StringVar(&f.agentCmd, "agent-cmd", "", "agent `command` speaking evalgate/1 JSON Lines, run with /bin/sh -c")
	fs.StringVar(&f.out, "out", "", "output `folder` (default evalgate-out)")
	fs.Var((*countFlag)(&f.concurrency), "concurrency", "agents running at once (default 8)")
	fs.Var((*durationFlag)(&f.timeout), "timeout", "per-task timeout, e.g. 90s (default 120s; a task's timeoutMs wins)")
	fs.Var((*countFlag)(&f.trials), "trials", "trials per task, overriding the suites' trials")
	fs.StringVar(&f.mode, "mode", "", "run only suites declaring this `mode`, in this mode (golden, rubric, adversarial, regression, live-shadow)")
	fs.Var(&f.tasks, "task", "run only these task `ids` (repeatable, comma-separated)")
	fs.Var(&f.tags, "tag", "run only tasks carrying one of these `tags`, on the task or its suite (repeatable)")
	fs.StringVar(&f.baseline, "baseline", "", "baseline results: a results.json, a folder holding one, an EvalSummary, git:<ref>:<path> or github-artifact:<name>")
	fs.Var(&f.gates, "gate", "gate `expression` that must hold (repeatable; replaces the config's gates)")
	fs.StringVar(&f.shard, "shard", "", "run shard `i/n`, e.g. 2/4 (the second of four)")
	fs.StringVar(&f.balance, "balance", "", "with --shard, assign tasks to shards by their past latency in this `results` (a results.json, a folder holding one, a baseline or git:<ref>:<path>) instead of by hash")
	fs.BoolVar(&f.transcripts, "transcripts", false, "write per-task transcripts (inputs, outputs, tool calls: not content-free)")
	fs.BoolVar(&f.noColor, "no-color", false, "no colour in the terminal report (NO_COLOR is honoured too)")
	fs.BoolVar(&f.quiet, "quiet", false, "print only the verdict")
	fs.Var(&f.explain, "explain", "print what each failing check expected and got, quoting the task and the agent (the default on a terminal outside CI; explain: in evalgate.yaml; never written to an output file)")
	fs.BoolVar(&f.noPublish, "no-publish", false, "in GitHub Actions, publish nothing (job summary, annotations, step outputs, comment): `evalgate publish` does it in a later step, the one that holds the token")
	fs.BoolVar(&f.noCache, "no-cache", false, "ask the rubric judge again instead of reusing cached verdicts (kept in .evalgate/cache/judge beside evalgate.yaml)")
	return fs
}

func runCmd(ctx context.Context, c *Command, args []string) error {
	var f runFlags
	fs := c.runFlagSet(&f)
	if err := parse(fs, args); err != nil {
		return err
	}
	job, err := c.prepare(&f, fs.Args())
	if err != nil {
		return err
	}
	// Locked before anything is written there: a baseline artifact is
	// downloaded into the output folder.
	release, err := lockOut(job.out, anotherFolder)
	if err != nil {
		return err
	}
	defer release()
	if job.cmp, err = c.loadBaseline(ctx, job.baseline, baselineDir(f.baseline, job.cfg.Dir), job.out, job.all); err != nil {
		return err
	}
	if job.cfg.Trust != nil {
		if job.trustIn, err = trustInput(ctx, job.cfg, nil, configuredGates(job.gates)); err != nil {
			return invalid(err)
		}
	}
	return job.execute(ctx)
}

func (c *Command) colorEnabled(noColor bool) bool {
	if noColor || c.Getenv("NO_COLOR") != "" {
		return false
	}
	return c.isTerminal() || c.Getenv("FORCE_COLOR") != ""
}

func (c *Command) isTerminal() bool {
	if c.IsTerminal != nil {
		return c.IsTerminal()
	}
	f, ok := c.Stdout.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
