package regression

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/results"
)

// Prefixes of the baseline specs that are not plain paths.
const (
	GitPrefix      = "git:"
	ArtifactPrefix = "github-artifact:"
)

// File names looked for in a baseline folder, in order.
const (
	ResultsFile  = "results.json"
	BaselineFile = "baseline.json"
)

// ErrArtifactSpec is returned by Load for a github-artifact: spec, which
// only the GitHub Action can resolve to a file.
var ErrArtifactSpec = errors.New("github-artifact baselines need the GitHub Action (GITHUB_ACTIONS=true)")

// Load reads a baseline: a results.json or a promoted baseline file, a
// folder holding one (or holding openwop summaries, directly or under
// summaries/), an openwop EvalSummary file, or git:<ref>:<path>, read with
// `git show <ref>:<path>` in dir (the working tree the spec is relative to;
// the current folder when empty). Summaries become a run whose tasks have a
// score, a verdict, a cost and a latency, and whose run id is derived from
// the files' content, since an EvalSummary carries none.
func Load(ctx context.Context, spec, dir string) (*results.Run, error) {
	return load(ctx, "baseline", spec, dir)
}

// LoadResults reads a finished run in any form Load takes, for a command
// that reads a run rather than a baseline (report, diff, a history): its
// errors say "could not read results".
func LoadResults(ctx context.Context, spec, dir string) (*results.Run, error) {
	return load(ctx, "results", spec, dir)
}

// load is Load, its errors naming what was read as what.
func load(ctx context.Context, what, spec, dir string) (*results.Run, error) {
	switch {
	case spec == "":
		return nil, fmt.Errorf("could not read the %[1]s: no %[1]s given", what)
	case strings.HasPrefix(spec, ArtifactPrefix):
		return nil, ErrArtifactSpec
	case strings.HasPrefix(spec, GitPrefix):
		return loadGit(ctx, what, spec, dir)
	}
	return loadPath(what, spec)
}

// loadGit reads git:<ref>:<path>. A ref cannot contain a colon, so the
// first colon after the prefix ends it. The spec may come from a pull
// request (evalgate.yaml), so it never reaches git as an option: the ref
// must be a revision (checkRef) and --end-of-options ends git's options
// before it.
func loadGit(ctx context.Context, what, spec, dir string) (*results.Run, error) {
	ref, path, ok := strings.Cut(strings.TrimPrefix(spec, GitPrefix), ":")
	if !ok || ref == "" || path == "" {
		return nil, fmt.Errorf("could not read %s %q: expected git:<ref>:<path>, such as git:main:.evalgate/baseline.json", what, spec)
	}
	if err := checkRef(ref); err != nil {
		return nil, fmt.Errorf("could not read %s %q: %w", what, spec, err)
	}
	data, err := gitShow(ctx, dir, ref, path)
	if err != nil {
		return nil, fmt.Errorf("could not read %s %q: git show: %w", what, spec, err)
	}
	r, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("could not read %s %q: %w", what, spec, err)
	}
	return r, nil
}

// gitShow reads path at ref with `git show --end-of-options <ref>:<path>`
// in dir (ref checked by checkRef). The error says why git did not give
// the file: the first line of what it said, else how it ended.
func gitShow(ctx context.Context, dir, ref, path string) ([]byte, error) {
	var out bytes.Buffer
	p, err := process.Run(ctx, process.Spec{
		Command:        []string{"git", "show", "--end-of-options", ref + ":" + path},
		Dir:            dir,
		Env:            os.Environ(),
		MaxStdoutBytes: MaxBaselineBytes,
	}, &out)
	if se, ok := errors.AsType[*process.StartError](err); ok {
		return nil, se.Err
	}
	if err != nil {
		return nil, err
	}
	if !p.Success() {
		if msg := strings.TrimSpace(firstLine(string(p.Stderr()))); msg != "" {
			return nil, errors.New(msg)
		}
		return nil, errors.New(p.Exit())
	}
	return out.Bytes(), nil
}

// checkRef accepts the refs of a git: spec: a branch, a tag, a commit, or
// a revision such as HEAD~1, origin/main or main@{1}; that is, letters,
// digits and . _ / @ { } ~ ^ + -, not starting with "-", which git would
// read as an option.
func checkRef(ref string) error {
	if strings.HasPrefix(ref, "-") {
		return fmt.Errorf("the ref %q starts with \"-\", which git would take for an option; name a branch, tag or commit, such as git:main:.evalgate/baseline.json", ref)
	}
	for _, r := range ref {
		if !refChar(r) {
			return fmt.Errorf("the ref %q holds %q, which no branch, tag or commit name needs; name one such as main, v1.2.0 or HEAD~1", ref, r)
		}
	}
	return nil
}

// refChar reports whether r may appear in the ref of a git: spec.
func refChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._/@{}~^+-", r)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// loadPath reads a file or a folder.
func loadPath(what, path string) (*results.Run, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("could not read %s %q: %w", what, path, unwrapPathError(err))
	}
	if !fi.IsDir() {
		return loadFile(what, "", path)
	}
	// The files of a folder must stay inside it, links resolved: a
	// baseline folder may be an artifact the pull request wrote.
	file, summaries := folderFiles(path)
	switch {
	case file != "":
		return loadFile(what, path, file)
	case summaries != nil:
		return loadSummaries(what, path, summaries)
	}
	return nil, fmt.Errorf("could not read %s %q: the folder holds no %s, %s or summaries/*.json", what, path, ResultsFile, BaselineFile)
}

// folderFiles is what a baseline folder holds: its results.json or
// baseline.json, else its openwop summaries (under summaries/, else in
// it), sorted.
func folderFiles(path string) (file string, summaries []string) {
	for _, name := range []string{ResultsFile, BaselineFile} {
		p := filepath.Join(path, name)
		if _, err := os.Lstat(p); err == nil {
			return p, nil
		}
	}
	for _, d := range []string{filepath.Join(path, "summaries"), path} {
		files, _ := filepath.Glob(filepath.Join(d, "*.json"))
		if len(files) > 0 {
			slices.Sort(files)
			return "", files
		}
	}
	return "", nil
}

// unwrapPathError drops the path an *fs.PathError repeats.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// MaxBaselineBytes bounds a baseline file, as any results file read back
// (results.MaxFileBytes): the results.json of a 100,000-task run is some
// 170 MB.
const MaxBaselineBytes = results.MaxFileBytes

// readFile reads a baseline file, which the pull request may have put
// there: a regular file (not /dev/zero, a FIFO or a device) of at most
// MaxBaselineBytes, read through that limit, inside the folder root when
// it was found in one ("" for a file named directly).
func readFile(root, path string) ([]byte, error) {
	data, err := inputfile.ReadIn(root, path, MaxBaselineBytes)
	if _, ok := errors.AsType[*inputfile.NotRegularError](err); ok {
		return nil, errors.New("not a regular file; name a results.json, a promoted baseline or a folder holding one")
	}
	if _, ok := errors.AsType[*inputfile.TooLargeError](err); ok {
		return nil, fmt.Errorf("larger than %d MiB, more than any run's results", MaxBaselineBytes>>20)
	}
	if out, ok := errors.AsType[*inputfile.OutsideError](err); ok {
		return nil, fmt.Errorf("a symbolic link out of the baseline folder %s (to %s); name a results.json inside it", out.Root, out.Real)
	}
	return data, err
}

func loadFile(what, root, path string) (*results.Run, error) {
	data, err := readFile(root, path)
	if err != nil {
		return nil, fmt.Errorf("could not read %s %q: %w", what, path, unwrapPathError(err))
	}
	r, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("could not read %s %q: %w", what, path, err)
	}
	return r, nil
}

// probe tells the formats apart by their top-level keys.
type probe struct {
	Suites  json.RawMessage `json:"suites"`
	SuiteID string          `json:"suiteId"`
}

// decode parses a results.json, a promoted baseline or one EvalSummary.
func decode(data []byte) (*results.Run, error) {
	var p probe
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, results.DecodeError(err)
	}
	switch {
	case p.Suites != nil:
		var r results.Run
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("not a results file: %w", results.DecodeError(err))
		}
		if r.RunID == "" {
			return nil, errors.New("not a results file: no runId")
		}
		// Its numbers are summed and compared: one out of range (a score
		// of 1e308) made the run's own figures infinite, and results.json
		// unwritable.
		if err := r.Check(); err != nil {
			return nil, err
		}
		fillStats(&r)
		return &r, nil
	case p.SuiteID != "":
		s, err := decodeSummary(data)
		if err != nil {
			return nil, err
		}
		id := contentID(data)
		s.RunID = id
		run := &results.Run{Schema: results.Schema, RunID: id, Suites: []results.Suite{*s}}
		run.Stats = gates.Combine(run.Suites)
		return run, nil
	}
	return nil, errors.New("neither a results file (no \"suites\") nor an openwop EvalSummary (no \"suiteId\")")
}

// summary is the part of an openwop EvalSummary a comparison needs.
type summary struct {
	SuiteID      string `json:"suiteId"`
	SuiteVersion string `json:"suiteVersion"`
	ModelClass   string `json:"evaluatedModelClass"`
	Tasks        []struct {
		TaskID    string  `json:"taskId"`
		Score     float64 `json:"score"`
		Passed    bool    `json:"passed"`
		CostUsd   float64 `json:"costUsd"`
		LatencyMs int64   `json:"latencyMs"`
	} `json:"tasks"`
}

func decodeSummary(data []byte) (*results.Suite, error) {
	var sum summary
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, fmt.Errorf("not an openwop EvalSummary: %w", results.DecodeError(err))
	}
	s := &results.Suite{ID: sum.SuiteID, Version: sum.SuiteVersion, ModelClass: sum.ModelClass, Trials: 1}
	for i, t := range sum.Tasks {
		if err := results.CheckTask(fmt.Sprintf("/tasks/%d", i), t.Score, t.CostUsd, t.LatencyMs); err != nil {
			return nil, err
		}
		status := results.StatusFailed
		if t.Passed {
			status = results.StatusPassed
		}
		s.Tasks = append(s.Tasks, results.Task{
			ID: t.TaskID, Status: status, Score: t.Score, Passed: t.Passed, PassAtK: t.Passed,
			CostUsd: t.CostUsd, AgentCostUsd: t.CostUsd, LatencyMs: t.LatencyMs,
		})
	}
	s.Stats = gates.Aggregate(s.Tasks)
	return s, nil
}

// loadSummaries reads a folder of EvalSummary files as one run.
func loadSummaries(what, dir string, files []string) (*results.Run, error) {
	h := sha256.New()
	run := &results.Run{Schema: results.Schema}
	seen := map[string]string{}
	for _, f := range files {
		data, err := readFile(dir, f)
		if err != nil {
			return nil, fmt.Errorf("could not read %s %q: %w", what, f, unwrapPathError(err))
		}
		s, err := decodeSummary(data)
		if err != nil {
			return nil, fmt.Errorf("could not read %s %q: %w", what, f, err)
		}
		if s.ID == "" {
			return nil, fmt.Errorf("could not read %s %q: not an openwop EvalSummary (no \"suiteId\")", what, f)
		}
		if prev, ok := seen[s.ID]; ok {
			return nil, fmt.Errorf("could not read %s %q: suite %q is also in %s", what, dir, s.ID, prev)
		}
		seen[s.ID] = f
		h.Write(data)
		run.Suites = append(run.Suites, *s)
	}
	run.RunID = "summaries-" + hex.EncodeToString(h.Sum(nil))[:16]
	for i := range run.Suites {
		run.Suites[i].RunID = run.RunID
	}
	run.Stats = gates.Combine(run.Suites)
	return run, nil
}

// contentID names a baseline that carries no run id by its content.
func contentID(data []byte) string {
	sum := sha256.Sum256(data)
	return "summary-" + hex.EncodeToString(sum[:])[:16]
}

// fillStats computes the figures a promoted baseline leaves out.
func fillStats(r *results.Run) {
	for i := range r.Suites {
		s := &r.Suites[i]
		for j := range s.Tasks {
			// A promoted baseline keeps the task's total cost only.
			t := &s.Tasks[j]
			if t.AgentCostUsd == 0 && t.JudgeCostUsd == 0 {
				t.AgentCostUsd = t.CostUsd
			}
			// It keeps each trial's verdict, not pass@k.
			if !t.PassAtK {
				for _, tr := range t.Trials {
					if tr.Passed {
						t.TrialsPassed++
					}
				}
				t.PassAtK = t.Passed || t.TrialsPassed > 0
			}
		}
		if s.TaskCount == 0 && len(s.Tasks) > 0 {
			s.Stats = gates.Aggregate(s.Tasks)
		}
	}
	if r.TaskCount == 0 {
		r.Stats = gates.Combine(r.Suites)
	}
}
