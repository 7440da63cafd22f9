package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/evalgate/evalgate/regression"
	"github.com/evalgate/evalgate/report"
)

// diffCmd is `evalgate diff [--format text|md] BASE HEAD`. BASE and HEAD are
// anything a baseline may be: results.json, its folder, a promoted
// baseline, openwop summaries or git:<ref>:<path>. It exits 0 whatever the
// verdict: gating is the job of run and merge.
func diffCmd(ctx context.Context, c *Command, args []string) error {
	fs := c.newFlags("diff", "BASE HEAD")
	format := fs.String("format", "text", "output `format`: text (the terminal) or md (Markdown)")
	noColor := fs.Bool("no-color", false, "no colour (NO_COLOR is honoured too)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return invalid(errors.New("diff: expected two results, BASE and HEAD"))
	}
	if *format != "text" && *format != "md" {
		return invalid(fmt.Errorf("--format: expected text or md, got %q", *format))
	}
	base, err := readResults(ctx, pos[0])
	if err != nil {
		return invalid(err)
	}
	head, err := readResults(ctx, pos[1])
	if err != nil {
		return invalid(err)
	}
	regression.Compare(base, head, regression.Options{Source: pos[0]})
	out := report.Diff(base, head, report.DiffOptions{
		Markdown: *format == "md",
		Color:    *format == "text" && c.env.ColorEnabled(*noColor),
		LinkBase: c.env.ScorecardOptions(head).LinkBase,
	})
	_, err = io.WriteString(c.Stdout, out)
	return err
}
