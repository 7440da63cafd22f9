package action

import (
	"fmt"
	"strings"
	"time"
)

// publishShard publishes one shard of a sharded run (the Action's shard
// input): a line in the job summary and the step outputs, and nothing a
// whole run's verdict would say. The merge job gates, comments and
// annotates once, on every shard's tasks; a comment or annotations from
// each shard would say what only part of the run shows.
func publishShard(getenv func(string) string, opts PublishOptions) (Published, error) {
	var pub Published
	r, sh := opts.Run, opts.Run.Shard
	if getenv("GITHUB_STEP_SUMMARY") != "" {
		parts := []string{fmt.Sprintf("%d/%d tasks passed", r.PassedCount, r.TaskCount)}
		if r.ErroredCount > 0 {
			parts = append(parts, fmt.Sprintf("%d errored", r.ErroredCount))
		}
		parts = append(parts, "ran in "+r.FinishedAt.Sub(r.StartedAt).Round(100*time.Millisecond).String())
		if sh.Balanced {
			parts = append(parts, "planned "+(time.Duration(sh.PlannedMs)*time.Millisecond).Round(100*time.Millisecond).String())
		}
		line := fmt.Sprintf("evalgate shard %d of %d: %s. The merge job gates on every shard; this one's results are in `%s`.\n",
			sh.Index, sh.Count, strings.Join(parts, ", "), opts.ResultsPath)
		if _, err := AppendStepSummary(getenv, line); err != nil {
			return pub, err
		}
	}
	if getenv("GITHUB_OUTPUT") != "" {
		outs := stepOutputs(opts, "")
		// A shard's trust scorecard saw part of the run: the merge job's
		// is the level.
		delete(outs, OutputTrustLevel)
		if err := WriteOutputs(getenv, outs); err != nil {
			return pub, err
		}
	}
	return pub, nil
}
