package cli

import "github.com/evalgate/evalgate/internal/memtune"

// tuneGC sets the collector's target for a run (internal/memtune) unless
// the environment sets GOGC.
func (c *Command) tuneGC() { memtune.Run(c.Getenv("GOGC")) }
