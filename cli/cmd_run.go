package cli

import (
	"context"
	"flag"

	"github.com/evalgate/evalgate/pipeline"
)

// runFlagSet is the flags of `evalgate run`; each one overrides the config.
func (c *Command) runFlagSet(f *pipeline.Flags) *flag.FlagSet {
	fs := c.newFlags("run", "[suite files or folders...]")
	fs.StringVar(&f.Config, "config", "", "project `file` (default: evalgate.yaml here or in the nearest folder above, up to the repository root)")
	fs.StringVar(&f.AgentCmd, "agent-cmd", "", "agent `command` speaking evalgate/1 JSON Lines, run with /bin/sh -c")
	fs.StringVar(&f.Out, "out", "", "output `folder` (default evalgate-out)")
	fs.Var((*countFlag)(&f.Concurrency), "concurrency", "agents running at once (default 8)")
	fs.Var((*durationFlag)(&f.Timeout), "timeout", "per-task timeout, e.g. 90s (default 120s; a task's timeoutMs wins)")
	fs.Var((*countFlag)(&f.Trials), "trials", "trials per task, overriding the suites' trials")
	fs.StringVar(&f.Mode, "mode", "", "run only suites declaring this `mode`, in this mode (golden, rubric, adversarial, regression, live-shadow)")
	fs.Var((*listFlag)(&f.Tasks), "task", "run only these task `ids` (repeatable, comma-separated)")
	fs.Var((*listFlag)(&f.Tags), "tag", "run only tasks carrying one of these `tags`, on the task or its suite (repeatable)")
	fs.StringVar(&f.Baseline, "baseline", "", "baseline results: a results.json, a folder holding one, an EvalSummary, git:<ref>:<path> or github-artifact:<name>")
	fs.Var((*repeatFlag)(&f.Gates), "gate", "gate `expression` that must hold (repeatable; replaces the config's gates)")
	fs.StringVar(&f.Shard, "shard", "", "run shard `i/n`, e.g. 2/4 (the second of four)")
	fs.StringVar(&f.Balance, "balance", "", "with --shard, assign tasks to shards by their past latency in this `results` (a results.json, a folder holding one, a baseline or git:<ref>:<path>) instead of by hash")
	fs.BoolVar(&f.Transcripts, "transcripts", false, "write per-task transcripts (inputs, outputs, tool calls: not content-free)")
	fs.BoolVar(&f.OTel, "otel", false, "receive the spans the agent sends through OpenTelemetry (agent.otel: in evalgate.yaml; docs/otel.md)")
	fs.StringVar(&f.OTLPEndpoint, "otlp-endpoint", "", "send the run as a trace to this OTLP/HTTP `url` (otel.endpoint in evalgate.yaml; docs/otel.md)")
	fs.BoolVar(&f.NoColor, "no-color", false, "no colour in the terminal report (NO_COLOR is honoured too)")
	fs.BoolVar(&f.Quiet, "quiet", false, "print only the verdict")
	fs.Var(optionalBool{&f.Explain}, "explain", "print what each failing check expected and got, quoting the task and the agent (the default on a terminal outside CI; explain: in evalgate.yaml; never written to an output file)")
	fs.BoolVar(&f.NoPublish, "no-publish", false, "in GitHub Actions, publish nothing (job summary, annotations, step outputs, comment): `evalgate publish` does it in a later step, the one that holds the token")
	historyFlags(fs, &f.History) // run_history.go
	fs.BoolVar(&f.NoCache, "no-cache", false, "ask the rubric judge again instead of reusing cached verdicts (kept in .evalgate/cache/judge beside evalgate.yaml)")
	return fs
}

func runCmd(ctx context.Context, c *Command, args []string) error {
	var f pipeline.Flags
	fs := c.runFlagSet(&f)
	if err := parse(fs, args); err != nil {
		return err
	}
	return c.env.Run(ctx, &f, fs.Args())
}
