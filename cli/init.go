package cli

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed scaffold
var scaffold embed.FS

// scaffoldFiles maps the embedded templates to where init writes them.
var scaffoldFiles = []struct{ src, dst string }{
	{"scaffold/evalgate.yaml", "evalgate.yaml"},
	{"scaffold/starter.yaml", "evals/starter.yaml"},
	{"scaffold/agent.py", "evals/agent.py"},
	{"scaffold/workflow.yml", ".github/workflows/evalgate.yml"},
}

func init() {
	register("init", "scaffold evalgate.yaml, a starter suite and a GitHub workflow", initCmd)
}

func initCmd(_ context.Context, c *Command, args []string) error {
	flags := c.newFlags("init", "")
	dir := flags.String("dir", ".", "the repository to scaffold")
	force := flags.Bool("force", false, "overwrite existing files")
	if err := parse(flags, args); err != nil {
		return err
	}
	for _, f := range scaffoldFiles {
		dst := filepath.Join(*dir, f.dst)
		if _, err := os.Stat(dst); err == nil && !*force {
			return invalid(fmt.Errorf("%s already exists; pass --force to overwrite it", dst))
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return runError(fmt.Errorf("could not check %q: %w", dst, err))
		}
	}
	for _, f := range scaffoldFiles {
		data, err := scaffold.ReadFile(f.src)
		if err != nil {
			return runError(err)
		}
		dst := filepath.Join(*dir, f.dst)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return runError(fmt.Errorf("could not create %q: %w", filepath.Dir(dst), err))
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return runError(fmt.Errorf("could not write %q: %w", dst, err))
		}
		fmt.Fprintf(c.Stdout, "wrote %s\n", dst)
	}
	fmt.Fprintln(c.Stdout, "\nNext: run `evalgate run`; then point agent.exec in evalgate.yaml at your agent.")
	return nil
}
