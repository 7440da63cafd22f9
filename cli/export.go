package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/evalgate/evalgate/suites"
)

func init() {
	register("export", "export a suite: --openwop strips evalgate's extensions and lists what was lost", exportCmd)
}

func exportCmd(_ context.Context, c *Command, args []string) error {
	fs := c.newFlags("export", "--openwop FILE")
	openwop := fs.Bool("openwop", false, "write a strictly openwop-portable copy of the suite to stdout")
	if err := parse(fs, args); err != nil {
		return err
	}
	if !*openwop || fs.NArg() != 1 {
		return invalid(errors.New("export: expected --openwop and one suite file"))
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		return invalid(fmt.Errorf("could not read suite %q: %w", path, err))
	}
	out, lost, err := suites.ExportOpenWOP(path, data)
	if err != nil {
		return invalid(err)
	}
	if _, err := c.Stdout.Write(out); err != nil {
		return err
	}
	for _, l := range lost {
		fmt.Fprintf(c.Stderr, "evalgate: dropped %s (an evalgate extension)\n", l)
	}
	if len(lost) > 0 {
		fmt.Fprintf(c.Stderr, "evalgate: %d extension(s) dropped; the exported suite is strictly openwop-portable\n", len(lost))
	}
	return nil
}
