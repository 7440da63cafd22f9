package cli

import (
	"context"
	"fmt"

	"github.com/evalgate/evalgate/history"
	"github.com/evalgate/evalgate/pipeline"
)

// historySubcommands are the commands of `evalgate history`.
var historySubcommands = []string{"list", "show", "trend", "flaky", "record", "prune", "migrate", "export"}

// historyCmd is `evalgate history list|show|trend|flaky|record|prune|
// migrate|export`: the records of the history store (docs/history.md).
func historyCmd(ctx context.Context, c *Command, args []string) error {
	if len(args) > 0 && isHelpArg(args[0]) {
		args = []string{"list", "--help"}
	}
	if len(args) == 0 {
		return unknownSubcommand("history", args, historySubcommands...)
	}
	sub := args[0]
	synopsis := map[string]string{
		"list": "list [--limit N]", "show": "show RUN", "trend": "trend [--suite S] [--task T]", "flaky": "flaky",
		"record": "record RESULTS", "prune": "prune --keep N", "migrate": "migrate", "export": "export --format csv|ndjson",
	}[sub]
	if synopsis == "" {
		return unknownSubcommand("history", args, historySubcommands...)
	}
	fs := c.newFlags("history", synopsis)
	r := &pipeline.HistoryRequest{Sub: sub}
	fs.StringVar(&r.Config, "config", "", "project `file` whose history: block names the store (default: evalgate.yaml here or in the nearest folder above, up to the repository root)")
	fs.StringVar(&r.Flags.Store, "store", "", "history `store`: dir:PATH, git:BRANCH, postgres: or a postgres:// URL (default: history.store, else "+history.DefaultStore+")")
	switch sub {
	case "list":
		fs.IntVar(&r.Limit, "limit", 20, "list the newest `N` records")
	case "trend":
		fs.StringVar(&r.Suite, "suite", "", "only this suite `id`")
		fs.StringVar(&r.Task, "task", "", "one task's outcome in each run instead: `<suiteId>/<taskId>`, or a task id one suite holds")
	case "prune":
		fs.IntVar(&r.Keep, "keep", 0, "keep the newest `N` records (of this repository, in a shared postgres: store)")
	case "export":
		fs.StringVar(&r.Format, "format", history.FormatNDJSON, "csv (one row per run and suite) or ndjson (each record, as stored)")
	}
	if sub == "trend" || sub == "flaky" {
		fs.StringVar(&r.Flags.Ref, "ref", "", "the window of this `ref` rather than the default branch's")
	}
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	want := map[string]int{"show": 1, "record": 1}[sub]
	if len(pos) != want {
		if want == 0 {
			return invalid(fmt.Errorf("history %s: unexpected argument %q", sub, pos[0]))
		}
		return invalid(fmt.Errorf("history %s: expected %s", sub, synopsis))
	}
	if want == 1 {
		r.Arg = pos[0]
	}
	return c.env.History(ctx, r)
}
