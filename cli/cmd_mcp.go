package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalgate/evalgate/internal/mcpserver"
	"github.com/evalgate/evalgate/runner"
)

// mcpCmd is `evalgate mcp stdio`: the bridge a stdio-only MCP client
// launches to reach the trial's MCP server, named by the EVALGATE_MCP_URL
// it inherits from the agent (docs/mcp.md).
func mcpCmd(ctx context.Context, c *Command, args []string) error {
	fs := c.newFlags("mcp", "stdio")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "stdio" {
		return invalid(errors.New(`mcp: expected "stdio"`))
	}
	url := c.Getenv(runner.EnvMCPURL)
	if url == "" {
		return invalid(fmt.Errorf("mcp stdio: %s is not set; evalgate sets it for agents with agent.mcp: true", runner.EnvMCPURL))
	}
	if err := mcpserver.Bridge(ctx, url, c.Stdin, c.Stdout); err != nil {
		return runError(fmt.Errorf("mcp stdio: %w", err))
	}
	return nil
}
