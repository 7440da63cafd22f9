package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/pipeline"
	"github.com/evalgate/evalgate/suites"
)

// exportCmd writes the openwop form of a suite to stdout and reports, on
// stderr, what happened to each extension. It exits 1 when a task was lost:
// left out, or kept with --keep-unscoreable, because only extensions
// scored it.
func exportCmd(_ context.Context, c *Command, args []string) error {
	fs := c.newFlags("export", "--openwop [--keep-unscoreable] FILE")
	openwop := fs.Bool("openwop", false, "write the suite to stdout in openwop form, without evalgate's extensions")
	keep := fs.Bool("keep-unscoreable", false, "keep the tasks that only evalgate extensions score, without their scoring (still exit 1)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if !*openwop || len(pos) != 1 {
		return invalid(errors.New("export: expected --openwop and one suite file"))
	}
	path := pos[0]
	data, err := suites.ReadFile(path)
	if err != nil {
		return invalid(err)
	}
	out, rep, err := suites.ExportOpenWOP(path, data, *keep)
	var errs suites.Errors
	switch {
	case errors.As(err, &errs):
		return invalid(err)
	case err != nil:
		return err
	}
	if _, err := c.Stdout.Write(out); err != nil {
		return err
	}
	for _, l := range rep.Notes(*keep) {
		c.env.Say(c.Stderr, "evalgate: %s\n", l)
	}
	tasks := rep.Tasks
	c.env.Say(c.Stderr, "evalgate: %s\n", rep.Summary())
	lost := len(rep.Unscoreable)
	switch {
	case lost == 0 && len(rep.Extensions) == 0:
		fmt.Fprintln(c.Stderr, "evalgate: the suite is strictly openwop-portable as it is")
		return nil
	case lost == 0:
		fmt.Fprintln(c.Stderr, "evalgate: every task keeps a scoring an openwop runner can use: the export is strictly openwop-portable")
		return nil
	case out == nil:
		return &pipeline.Error{Outcome: pipeline.GateFailed, Err: fmt.Errorf(
			"every task of %s is scored only by evalgate extensions, so nothing was written; --keep-unscoreable writes the tasks without their scoring", path)}
	case *keep:
		return &pipeline.Error{Outcome: pipeline.GateFailed, Err: fmt.Errorf(
			"%d of %d %s kept without scoring: no openwop runner can score %s, so the export is not portable",
			lost, tasks, words.Plural(tasks, "task", "tasks"), words.Plural(lost, "it", "them"))}
	}
	return &pipeline.Error{Outcome: pipeline.GateFailed, Err: fmt.Errorf(
		"%d of %d %s left out: only evalgate extensions score %s; the rest is strictly openwop-portable",
		lost, tasks, words.Plural(tasks, "task", "tasks"), words.Plural(lost, "it", "them"))}
}
