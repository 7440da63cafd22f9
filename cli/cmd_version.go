package cli

import (
	"context"
	"fmt"
)

func versionCmd(_ context.Context, c *Command, args []string) error {
	fs := c.newFlags("version", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return invalid(fmt.Errorf("version takes no arguments, got %q", fs.Arg(0)))
	}
	fmt.Fprintf(c.Stdout, "evalgate %s\n", version())
	return nil
}
