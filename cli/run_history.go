package cli

import (
	"flag"

	"github.com/evalgate/evalgate/pipeline"
)

// historyFlags registers run's and merge's flags over the config's
// history: block (docs/history.md).
func historyFlags(fs *flag.FlagSet, h *pipeline.HistoryFlags) {
	fs.StringVar(&h.Store, "history-store", "", "history `store` to read and record runs in: dir:PATH, git:BRANCH, postgres: or a postgres:// URL (overrides history.store; turns the history on)")
	fs.Var(optionalBool{&h.Record}, "history-record", "write this run's record to the history store (history.record; the Action records pushes to the default branch)")
	fs.StringVar(&h.Ref, "history-ref", "", "read the history window of this `ref` rather than the default branch's")
}
