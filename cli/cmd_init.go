package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalgate/evalgate/scaffold"
)

// initCmd is `evalgate init`: package scaffold writes the files that are
// missing, keeps the ones already there (--force overwrites them), and adds
// to .gitignore the lines it lacks.
func initCmd(_ context.Context, c *Command, args []string) error {
	flags := c.newFlags("init", "[--template agent-audit [FILE...]]")
	var o scaffold.Options
	flags.StringVar(&o.Dir, "dir", ".", "the folder to scaffold, usually the repository root")
	flags.BoolVar(&o.Force, "force", false, "overwrite scaffold files already there (.gitignore is only ever extended)")
	flags.StringVar(&o.Template, "template", scaffold.Starter, "`name` of what to write: starter (a suite and a runnable agent) or agent-audit (grades agent definition FILEs; docs/audit.md)")
	if err := parse(flags, args); err != nil {
		return err
	}
	o.Files = flags.Args()
	if o.Template == scaffold.Starter && len(o.Files) > 0 {
		return invalid(fmt.Errorf("init takes no arguments, got %q; pass the folder with --dir", o.Files[0]))
	}
	err := scaffold.Init(c.Stdout, o)
	var bad *scaffold.InputError
	switch {
	case errors.As(err, &bad):
		return invalid(bad.Err)
	case err != nil:
		return runError(err)
	}
	return nil
}
