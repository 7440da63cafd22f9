package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/promptfoo"
)

// importCmd imports another tool's evals: `import promptfoo CONFIG` writes
// the project file(s), the suite, its program checks and
// import-report.json into --out, and prints what mapped to what and what
// did not (#18).
func importCmd(_ context.Context, c *Command, args []string) error {
	fs := c.newFlags("import", "promptfoo CONFIG [--out DIR] [--force]")
	out := fs.String("out", ".", "the folder to write the imported files into")
	force := fs.Bool("force", false, "overwrite files the import writes that are there already")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 && pos[0] != "promptfoo" && didYouMean(pos[0], []string{"promptfoo"}, "") != "" {
		return unknownSubcommand("import", pos, "promptfoo")
	}
	if len(pos) != 2 || pos[0] != "promptfoo" {
		return invalid(errors.New("import: expected promptfoo and one config file, as in: evalgate import promptfoo promptfooconfig.yaml"))
	}
	res, err := promptfoo.Import(pos[1], promptfoo.Options{Out: *out})
	if err != nil {
		return invalid(fmt.Errorf("import: %w", err))
	}
	names := make([]string, 0, len(res.Files))
	for name := range res.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	if !*force {
		var there []string
		for _, name := range names {
			if _, err := os.Lstat(filepath.Join(*out, name)); err == nil {
				there = append(there, filepath.Join(*out, name))
			}
		}
		if len(there) > 0 {
			return invalid(fmt.Errorf("import: would overwrite %s; pass --force, or another --out", strings.Join(there, ", ")))
		}
	}
	for _, name := range names {
		if err := atomicfile.WriteFile(filepath.Join(*out, name), res.Files[name], 0o644, 0o755); err != nil {
			return fmt.Errorf("import: could not write %s: %w", name, err)
		}
	}
	// The report has a task for each provider that runs it.
	tasks := map[[2]string]bool{}
	for _, t := range res.Report.Tasks {
		tasks[[2]string{t.SuiteID, t.TaskID}] = true
	}
	providers := ""
	if n := len(res.Report.Providers); n > 1 {
		providers = fmt.Sprintf(" for %d providers, a project file each,", n)
	}
	w := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "%d tasks%s from %s into %s\n\nMAPPED\tTYPE\tTO\n", len(tasks), providers, escape.Text(pos[1]), escape.Text(*out))
	for _, m := range res.Report.Mapped {
		fmt.Fprintf(w, "%s\t%s\t%s\n", escape.Text(m.Location), escape.Text(m.Type), escape.Text(m.To))
	}
	if len(res.Report.Unsupported) > 0 {
		fmt.Fprintf(w, "\nNOT IMPORTED\tTYPE\tWHY\n")
		for _, u := range res.Report.Unsupported {
			fmt.Fprintf(w, "%s\t%s\t%s\n", escape.Text(u.Location), escape.Text(u.Type), escape.Text(u.Reason))
		}
	}
	fmt.Fprintf(w, "\nwrote %s\n", strings.Join(names, ", "))
	return w.Flush()
}
