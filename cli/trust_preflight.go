package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/history"
	"github.com/evalgate/evalgate/pipeline"
	"github.com/evalgate/evalgate/trust"
)

// trustPreflightCmd is `evalgate trust preflight --agent ID --level TLn
// [--store URL]`: whether the agent's newest record in the history store
// is at the level or above, for release pipelines (docs/history.md).
// Exit 0 yes, 1 no, 2 bad input, 3 the store could not be read.
func trustPreflightCmd(ctx context.Context, c *Command, args []string) error {
	fs := c.newFlags("trust", "preflight --agent ID --level TLn [--store URL]")
	var (
		f                           pipeline.HistoryFlags
		configPath, agent, levelArg string
	)
	fs.StringVar(&configPath, "config", "", "project `file` whose history: block names the store and whose assessment.agent.id is the default agent")
	fs.StringVar(&f.Store, "store", "", "history `store`: dir:PATH, git:BRANCH, postgres: or a postgres:// URL (default: history.store, else "+history.DefaultStore+")")
	fs.StringVar(&agent, "agent", "", "the agent's `id` (assessment.agent.id when its runs were recorded; default the config's)")
	fs.StringVar(&levelArg, "level", "", "the trust `level` the agent must be at or above: TL0 to TL4")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return invalid(fmt.Errorf("trust preflight: unexpected argument %q", pos[0]))
	}
	level, err := parseLevel(levelArg)
	if err != nil {
		return invalid(err)
	}
	return c.env.TrustPreflight(ctx, configPath, &f, agent, level)
}

// parseLevel reads a trust level: TL0 to TL4 (or 0 to 4).
func parseLevel(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(s), "TL"))
	if s == "" || err != nil || n < 0 || n >= len(trust.Levels) {
		return 0, fmt.Errorf("trust preflight: --level %q: expected a trust level, TL0 to TL4", s)
	}
	return n, nil
}
