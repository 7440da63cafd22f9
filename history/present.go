package history

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
)

// What evalgate history prints: each function writes one view of the
// records it is given, oldest first, as a table a person reads or as a
// file another tool reads.

func table(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }

func when(t time.Time) string { return t.UTC().Format("2006-01-02 15:04Z") }

func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return cmp.Or(commit, "-")
}

func percent(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" }

// WriteList lists the records, one line each.
func WriteList(w io.Writer, recs []*Record) error {
	tw := table(w)
	fmt.Fprintln(tw, "STARTED\tRUN\tEVENT\tREF\tCOMMIT\tAGENT\tSCORE\tPASS RATE\tTASKS\tTRUST")
	for _, r := range recs {
		score, pass := r.Figures()
		trust := "-"
		if r.Trust != nil {
			trust = fmt.Sprintf("TL%d %.1f", r.Trust.Level, r.Trust.Score)
		}
		agent := "-"
		if r.Agent != nil && r.Agent.ID != "" {
			agent = r.Agent.ID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%s\t%d\t%s\n", when(r.StartedAt), r.RunID, r.Event, cmp.Or(strings.TrimPrefix(r.Ref, "refs/heads/"), "-"),
			short(r.Commit), agent, score, percent(pass), len(r.Tasks), trust)
	}
	return tw.Flush()
}

// WriteShow writes one record as indented JSON, as it is stored.
func WriteShow(w io.Writer, r *Record) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// suiteIDs are the suites the records hold, in order of first appearance.
func suiteIDs(recs []*Record) []string {
	var ids []string
	for _, r := range recs {
		for _, s := range r.Suites {
			if !slices.Contains(ids, s.SuiteID) {
				ids = append(ids, s.SuiteID)
			}
		}
	}
	return ids
}

// WriteTrend writes each suite's figures in every record holding it, with
// a sparkline of its score over them; only suite when it is not "".
func WriteTrend(w io.Writer, recs []*Record, suite string) error {
	ids := suiteIDs(recs)
	if suite != "" {
		if !slices.Contains(ids, suite) {
			return fmt.Errorf("no record holds suite %q%s", suite, closest(suite, ids))
		}
		ids = []string{suite}
	}
	tw := table(w)
	for i, id := range ids {
		points := Trend(recs, id)
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s  %s  %s\n", id, report.TrendLine(points, nil), words.Count(len(points), "run", "runs"))
		fmt.Fprintln(tw, "STARTED\tRUN\tSCORE\tPASS RATE\tCOST USD\tP95 MS")
		for _, p := range points {
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%s\t%.4f\t%d\n", when(p.StartedAt), p.RunID, p.Score, percent(p.PassRate), p.CostUsd, p.P95LatencyMs)
		}
	}
	return tw.Flush()
}

// WriteTaskTrend writes one task's outcome in every record holding it
// (task is "<suiteId>/<taskId>", or a task id that one suite holds).
func WriteTaskTrend(w io.Writer, recs []*Record, task string) error {
	key, err := taskKey(recs, task)
	if err != nil {
		return err
	}
	tw := table(w)
	f := FlakesOf(recs)[key]
	fmt.Fprintf(tw, "%s  flipped %d %s in the last %s\n", key, f.Flips, words.Plural(f.Flips, "time", "times"), words.Count(f.Runs, "run", "runs"))
	fmt.Fprintln(tw, "STARTED\tRUN\tSTATUS\tTRIALS PASSED\tLATENCY MS\tCOST USD")
	for _, r := range recs {
		if t, ok := r.Tasks[key]; ok {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d\t%.4f\n", when(r.StartedAt), r.RunID, t.Status, t.PassedTrials, t.Trials, t.LatencyMs, t.CostUsd)
		}
	}
	return tw.Flush()
}

// taskKey finds the record key of task: itself when a record holds it,
// else the one key whose task id it is.
func taskKey(recs []*Record, task string) (string, error) {
	keys := map[string]bool{}
	for _, r := range recs {
		for k := range r.Tasks {
			keys[k] = true
		}
	}
	if keys[task] {
		return task, nil
	}
	var found []string
	for k := range keys {
		if _, id, _ := strings.Cut(k, "/"); id == task {
			found = append(found, k)
		}
	}
	slices.Sort(found)
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("no record holds task %q%s", task, closest(task, slices.Sorted(maps.Keys(keys))))
	}
	return "", fmt.Errorf("task %q is in several suites (%s): name it as <suiteId>/<taskId>", task, strings.Join(found, ", "))
}

// closest is a did-you-mean for name among names: the one sharing the
// longest prefix with it, when one shares at least half of it.
func closest(name string, names []string) string {
	best, n := "", 0
	for _, c := range names {
		k := 0
		for k < len(c) && k < len(name) && c[k] == name[k] {
			k++
		}
		if k > n {
			best, n = c, k
		}
	}
	if best == "" || n*2 < len(name) {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// FlakyTask is one task's flakiness over the flake window.
type FlakyTask struct {
	Key string
	Flakes
}

// FlakyTasks are the tasks that flipped at least once in the newest
// FlakeWindow records, the most flips first.
func FlakyTasks(recs []*Record) []FlakyTask {
	var out []FlakyTask
	for k, f := range FlakesOf(recs) {
		if f.Flips > 0 {
			out = append(out, FlakyTask{k, f})
		}
	}
	slices.SortFunc(out, func(a, b FlakyTask) int {
		return cmp.Or(cmp.Compare(b.Flips, a.Flips), strings.Compare(a.Key, b.Key))
	})
	return out
}

// WriteFlaky writes the tasks that flipped in the flake window, the known
// flaky ones labelled.
func WriteFlaky(w io.Writer, recs []*Record) error {
	tasks := FlakyTasks(recs)
	n := min(len(recs), FlakeWindow)
	if len(tasks) == 0 {
		_, err := fmt.Fprintf(w, "no task changed its verdict in the last %s\n", words.Count(n, "run", "runs"))
		return err
	}
	tw := table(w)
	fmt.Fprintf(tw, "tasks that changed their verdict in the last %s (known-flaky: %d flips or more)\n", words.Count(n, "run", "runs"), KnownFlakyFlips)
	fmt.Fprintln(tw, "TASK\tRUNS\tPASSED\tFLIPS\tFLIP RATE\tLABEL")
	for _, t := range tasks {
		label := "-"
		if t.Known() {
			label = results.FlakyKnown
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\n", t.Key, t.Runs, t.Passed, t.Flips, percent(t.FlipRate()), label)
	}
	return tw.Flush()
}

// Export formats.
const (
	FormatCSV    = "csv"
	FormatNDJSON = "ndjson"
)

// Export writes the records: ndjson, each record on a line as it is
// stored; csv, one row per record and suite.
func Export(w io.Writer, recs []*Record, format string) error {
	switch format {
	case FormatNDJSON:
		for _, r := range recs {
			data, err := Encode(r)
			if err != nil {
				return err
			}
			if _, err := w.Write(data); err != nil {
				return err
			}
		}
		return nil
	case FormatCSV:
		cw := csv.NewWriter(w)
		cw.Write([]string{"runId", "startedAt", "durationMs", "event", "ref", "commit", "repository", "agentId", "agentVersion", "evalgateVersion",
			"suiteId", "suiteVersion", "score", "passed", "taskCount", "passedCount", "errorCount", "costUsd", "userCostUsd", "p95LatencyMs"})
		for _, r := range recs {
			var agent Agent
			if r.Agent != nil {
				agent = *r.Agent
			}
			for _, s := range r.Suites {
				cw.Write([]string{r.RunID, r.StartedAt.UTC().Format(time.RFC3339), strconv.FormatInt(r.DurationMs, 10), r.Event, r.Ref, r.Commit,
					r.Repository, agent.ID, agent.Version, r.EvalgateVersion, s.SuiteID, s.Version, num(s.Score), strconv.FormatBool(s.Passed),
					strconv.Itoa(s.TaskCount), strconv.Itoa(s.PassedCount), strconv.Itoa(s.ErrorCount), num(s.CostUsd), num(s.UserCostUsd),
					strconv.FormatInt(s.P95LatencyMs, 10)})
			}
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("export format %q: expected %s or %s", format, FormatCSV, FormatNDJSON)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
