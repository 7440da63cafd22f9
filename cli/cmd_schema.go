package cli

import (
	"context"
	"fmt"

	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

func schemaCmd(_ context.Context, c *Command, args []string) error {
	fs := c.newFlags("schema", "suite|summary|results")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return invalid(fmt.Errorf("schema: expected one of suite, summary, results"))
	}
	var data []byte
	switch fs.Arg(0) {
	case "suite":
		data = suites.SchemaJSON()
	case "summary":
		data = report.SummarySchemaJSON()
	case "results":
		data = results.SchemaJSON()
	default:
		return invalid(fmt.Errorf("schema: expected one of suite, summary, results, got %q%s", fs.Arg(0), didYouMean(fs.Arg(0), []string{"suite", "summary", "results"}, "")))
	}
	_, err := c.Stdout.Write(data)
	return err
}
