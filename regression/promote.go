package regression

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/results"
)

// A promoted baseline keeps, per task, only what a comparison reads. Its
// field names are those of results.json, so it loads like one.
type (
	promotedTask struct {
		ID        string          `json:"taskId"`
		Status    string          `json:"status"`
		Passed    bool            `json:"passed"`
		Score     float64         `json:"score"`
		CostUsd   float64         `json:"costUsd"`
		LatencyMs int64           `json:"latencyMs"`
		Trials    []promotedTrial `json:"trials"`
		// Levels are the graded criteria's levels, which diff compares
		// (docs/regression.md); absent when the task has none.
		Levels []results.Level `json:"levels,omitempty"`
	}
	promotedTrial struct {
		Trial  int     `json:"trial"`
		Score  float64 `json:"score"`
		Passed bool    `json:"passed"`
	}
)

// PromoteProblem is one reason a run should not become the baseline.
type PromoteProblem struct {
	What string // what is wrong with the run
	Fix  string // what to do
}

func (p PromoteProblem) String() string { return p.What + ": " + p.Fix }

// PromoteProblemsAt says why run should not replace the baseline at out:
// the run's own problems, and the tasks of the baseline already there that
// it lacks. A file at out that is not a baseline is a problem too, rather
// than overwritten unseen. The error is a failure to look at out.
func PromoteProblemsAt(ctx context.Context, run *results.Run, out string) ([]PromoteProblem, error) {
	if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
		return PromoteProblems(run, nil), nil
	} else if err != nil {
		return nil, fmt.Errorf("could not read the baseline %q: %w", out, err)
	}
	old, err := Load(ctx, out, "")
	if err != nil {
		return append(PromoteProblems(run, nil), PromoteProblem{
			What: fmt.Sprintf("%s is there and is not a baseline evalgate can read (%v)", filepath.ToSlash(out), err),
			Fix:  "choose another --out",
		}), nil
	}
	return PromoteProblems(run, old), nil
}

// PromoteProblems says why run r should not become the baseline in place of
// old (nil when there is none yet). A baseline is the bar every later run
// is compared with, so it should hold every task of the suites, each scored
// on what the agent answered: not a filtered, sharded, interrupted or
// errored run, and not fewer tasks than the baseline it replaces, which
// would stop comparing the ones left out. None means r is fit.
func PromoteProblems(r, old *results.Run) []PromoteProblem {
	var problems []PromoteProblem
	var filters []string
	if f := r.Selection.Flags(); f != "" {
		filters = append(filters, f)
	}
	if r.Shard != nil {
		filters = append(filters, fmt.Sprintf("--shard %d/%d", r.Shard.Index, r.Shard.Count))
	}
	if len(filters) > 0 {
		problems = append(problems, PromoteProblem{
			What: fmt.Sprintf("it ran only some of the tasks (%s)", strings.Join(filters, " ")),
			Fix:  "promote a run of every task (for a sharded run, what evalgate merge wrote)",
		})
	}
	if r.Interrupted {
		problems = append(problems, PromoteProblem{
			What: "it was interrupted, so it holds only the tasks that finished",
			Fix:  "promote a run that finished",
		})
	}
	var errored []string
	have := map[[2]string]bool{}
	for _, s := range r.Suites {
		for _, t := range s.Tasks {
			have[[2]string{s.ID, t.ID}] = true
			if t.Status == results.StatusError {
				errored = append(errored, s.ID+"/"+t.ID)
			}
		}
	}
	if len(errored) > 0 {
		problems = append(problems, PromoteProblem{
			What: fmt.Sprintf("%s ended in an error (%s), and an error's score of 0 says nothing about the agent", count(len(errored), "task", "tasks"), someOf(errored)),
			Fix:  "fix what stopped the agent and run again",
		})
	}
	if old != nil {
		var dropped []string
		for _, s := range old.Suites {
			for _, t := range s.Tasks {
				if !have[[2]string{s.ID, t.ID}] {
					dropped = append(dropped, s.ID+"/"+t.ID)
				}
			}
		}
		if len(dropped) > 0 {
			problems = append(problems, PromoteProblem{
				What: fmt.Sprintf("it lacks %s of the baseline it would replace (%s), which would no longer be compared", count(len(dropped), "task", "tasks"), someOf(dropped)),
				Fix:  "promote a run of every task, or pass --force when they left the suites on purpose",
			})
		}
	}
	return problems
}

// someOf lists the first three ids, and how many more there are.
func someOf(ids []string) string {
	const shown = 3
	if len(ids) <= shown {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:shown], ", "), len(ids)-shown)
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Promote renders r as the canonical baseline file: content-free, keys in a
// fixed order, indented by two spaces, suites sorted by id and one line per
// task in suite-file order, so that a baseline update reads in review as
// one changed line per changed task. A task row holds its id, status,
// verdict (pass^k), mean score, cost, latency and the score and verdict of
// each trial; the trust scorecard's summary, when the run has one, is one
// line of its own. The file loads as a baseline, and as results.json. Whether r
// should be promoted at all is PromoteProblems's question.
func Promote(r *results.Run) ([]byte, error) {
	if r == nil || r.RunID == "" {
		return nil, errors.New("could not promote the baseline: the results have no run id")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"$schema\": %s,\n  \"runId\": %s,\n  \"tool\": %s,\n",
		mustJSON(results.Schema), mustJSON(r.RunID), mustJSON(r.Tool))
	if r.Assessment != nil {
		// The assessment's summary, on one line: the next run's
		// re-assessment compares with it (#12).
		fmt.Fprintf(&b, "  \"assessment\": %s,\n", mustJSON(r.Assessment))
	}
	if r.GitSHA != "" {
		fmt.Fprintf(&b, "  \"gitSha\": %s,\n", mustJSON(r.GitSHA))
	}
	if r.Trust != nil {
		// One line, so that a change of level reads as one changed line; a
		// later run is flagged when its level falls below this one.
		t := results.Trust{Score: r.Trust.Score, Level: r.Trust.Level, LevelName: r.Trust.LevelName, Dimensions: r.Trust.Dimensions}
		fmt.Fprintf(&b, "  \"trust\": %s,\n", mustJSON(t))
	}
	b.WriteString("  \"suites\": [")
	order := make([]int, len(r.Suites))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, c int) int { return strings.Compare(r.Suites[a].ID, r.Suites[c].ID) })
	for n, i := range order {
		s := &r.Suites[i]
		if n > 0 {
			b.WriteByte(',')
		}
		// The suite's fields one per line, then its tasks one per line.
		fmt.Fprintf(&b, "\n    {\n      \"suiteId\": %s,\n      \"version\": %s,\n", mustJSON(s.ID), mustJSON(s.Version))
		if s.File != "" {
			fmt.Fprintf(&b, "      \"file\": %s,\n", mustJSON(s.File))
		}
		fmt.Fprintf(&b, "      \"runId\": %s,\n      \"trials\": %d,\n      \"passed\": %t,\n", mustJSON(s.RunID), s.Trials, s.Passed)
		b.WriteString("      \"tasks\": [")
		tasks := slices.Clone(s.Tasks)
		slices.SortStableFunc(tasks, func(x, y results.Task) int {
			if x.Line != y.Line {
				return x.Line - y.Line
			}
			return strings.Compare(x.ID, y.ID)
		})
		for j := range tasks {
			t := &tasks[j]
			if j > 0 {
				b.WriteByte(',')
			}
			row := promotedTask{ID: t.ID, Status: t.Status, Passed: t.Passed, Score: t.Score, CostUsd: t.CostUsd,
				LatencyMs: t.LatencyMs, Trials: make([]promotedTrial, len(t.Trials)), Levels: t.Levels}
			for k, tr := range t.Trials {
				row.Trials[k] = promotedTrial{Trial: tr.Trial, Score: tr.Score, Passed: tr.Passed}
			}
			b.WriteString("\n        ")
			b.Write(mustJSON(row))
		}
		if len(tasks) > 0 {
			b.WriteString("\n      ")
		}
		b.WriteString("]\n    }")
	}
	if len(order) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	return b.Bytes(), nil
}

// mustJSON encodes values that cannot fail to encode (strings, numbers,
// plain structs of them) without escaping <, > and &.
func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// WritePromoted writes the canonical baseline of r to path, creating its
// folder.
func WritePromoted(path string, r *results.Run) error {
	data, err := Promote(r)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, data, 0o644, 0o755); err != nil {
		return fmt.Errorf("could not write the baseline %q: %w", path, err)
	}
	return nil
}
