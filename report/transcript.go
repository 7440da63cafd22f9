package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/jsonvalue"
)

// Transcript is everything one task trial said and did: the input, the
// output, every tool call with its result, the usage, the error and the
// agent's stderr, and the judge's reasons. It is the only output that holds
// task content, written only with --transcripts and never posted anywhere.
type Transcript struct {
	SuiteID string          `json:"suiteId"`
	TaskID  string          `json:"taskId"`
	Trial   int             `json:"trial"` // 1-based
	Input   json.RawMessage `json:"input"`
	// Output is the agent's final output; null when the trial errored.
	Output json.RawMessage `json:"output"`
	// Replies are a conversation's replies before the final output, in
	// order (docs/worlds.md).
	Replies   []json.RawMessage `json:"replies,omitempty"`
	ToolCalls []fixtures.Call   `json:"toolCalls"`
	// State is the task's world as the trial left it; absent without one.
	State json.RawMessage  `json:"state,omitempty"`
	Usage TranscriptUsage  `json:"usage"`
	Error *TranscriptError `json:"error,omitempty"`
	// Stderr is what the agent wrote to stderr, as kept by the runner.
	Stderr string `json:"stderr,omitempty"`
	// JudgeReasons holds the judge's reason per rubric criterion, by the
	// criterion's index in the task's rubric.
	JudgeReasons map[int]string `json:"judgeReasons,omitempty"`
}

// TranscriptUsage is the model usage of a trial.
type TranscriptUsage struct {
	Model        string  `json:"model,omitempty"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUsd      float64 `json:"costUsd"`
}

// TranscriptError is why a trial did not produce a usable output. Message
// may quote the agent, which is why it lives only in transcripts.
type TranscriptError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// TranscriptPath returns where WriteTranscript puts tr under the output
// folder dir: dir/transcripts/<suiteId>/<taskId>.trial-<n>.json.
func TranscriptPath(dir string, tr *Transcript) string {
	return filepath.Join(dir, "transcripts", tr.SuiteID, tr.TaskID+".trial-"+strconv.Itoa(tr.Trial)+".json")
}

// WriteTranscript writes tr to TranscriptPath(dir, tr), indented, through a
// temporary file and a rename. The folders are created readable by the owner
// only and the file is mode 0600, because a transcript may hold whatever the
// agent saw or said. A symbolic link where the transcripts folder, the
// suite's folder or the file belong is replaced, not followed. Every string in it goes through red first (URL
// passwords only when red is nil): what a server echoed of the request, or
// an agent of its environment, may be a credential.
func WriteTranscript(dir string, tr *Transcript, red *redact.Redactor) error {
	if tr == nil {
		return errors.New("could not write transcript: no transcript")
	}
	if err := safeName(tr.SuiteID); err != nil {
		return fmt.Errorf("could not write transcript of suite %q: %w", tr.SuiteID, err)
	}
	if err := safeName(tr.TaskID); err != nil {
		return fmt.Errorf("could not write transcript of task %q in suite %q: %w", tr.TaskID, tr.SuiteID, err)
	}
	if tr.Trial < 1 {
		return fmt.Errorf("could not write transcript of task %q in suite %q: trial %d is not 1 or more", tr.TaskID, tr.SuiteID, tr.Trial)
	}
	path := TranscriptPath(dir, tr)
	data, err := jsonvalue.MarshalFile(normalizeTranscript(tr))
	if err != nil {
		// The only values that can fail are the raw JSON ones; the
		// encoder's own message names Go types, so say it plainly.
		return fmt.Errorf("could not write transcript %q: the input, the output or a tool call is not valid JSON", path)
	}
	for _, d := range []string{filepath.Join(dir, "transcripts"), filepath.Dir(path)} {
		if err := atomicfile.EnsureDir(d, 0o700); err != nil {
			return fmt.Errorf("could not write transcript %q: %w", path, err)
		}
	}
	if err := atomicfile.WriteFile(path, red.JSON(data), 0o600, 0o700); err != nil {
		return fmt.Errorf("could not write transcript %q: %w", path, err)
	}
	return nil
}

// normalizeTranscript returns a copy of tr where absent JSON values are null
// and a missing tool-call list is empty, so that only invalid JSON can make
// the encoding fail.
func normalizeTranscript(tr *Transcript) *Transcript {
	out := *tr
	out.Input = rawOrNull(tr.Input)
	out.Output = rawOrNull(tr.Output)
	out.ToolCalls = make([]fixtures.Call, len(tr.ToolCalls))
	for i, c := range tr.ToolCalls {
		c.Args = rawOrNull(c.Args)
		c.Result = rawOrNull(c.Result)
		out.ToolCalls[i] = c
	}
	return &out
}

// rawOrNull returns m, or nil (written as null) when m is empty.
func rawOrNull(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	return m
}
