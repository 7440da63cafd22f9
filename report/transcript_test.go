package report

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/fixtures"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

func refundTranscript() *Transcript {
	return &Transcript{
		SuiteID: "acme.support.evals.refunds",
		TaskID:  "late-fee",
		Trial:   2,
		Input:   json.RawMessage(`{"question":"Can I get a refund for order A-17?"}`),
		Output:  json.RawMessage(`"Yes <within 30 days> & no fee"`),
		ToolCalls: []fixtures.Call{{
			ID: "c1", Name: "crm:lookup", Args: json.RawMessage(`{"orderId":"A-17"}`),
			Result: json.RawMessage(`{"status":"delivered"}`), Fixture: 0, StartMs: 12, DurationMs: 3,
		}},
		Usage:        TranscriptUsage{Model: "m", InputTokens: 812, OutputTokens: 95, CostUsd: 0.0011},
		Stderr:       "warning: slow start\n",
		JudgeReasons: map[int]string{0: "mentions the 30-day window", 2: "no apology"},
	}
}

func TestWriteTranscript(t *testing.T) {
	type testCase struct {
		name     string
		tr       func() *Transcript
		wantPath string // under the output folder
		golden   string
		check    func(t *testing.T, doc map[string]any)
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		tr := tc.tr()
		assert.NilError(t, WriteTranscript(dir, tr, nil))
		path := filepath.Join(dir, filepath.FromSlash(tc.wantPath))
		assert.Equal(t, TranscriptPath(dir, tr), path)
		data, err := os.ReadFile(path)
		assert.NilError(t, err)
		if runtime.GOOS != "windows" {
			info, err := os.Stat(path)
			assert.NilError(t, err)
			assert.Equal(t, info.Mode().Perm(), os.FileMode(0o600))
			info, err = os.Stat(filepath.Join(dir, "transcripts"))
			assert.NilError(t, err)
			assert.Equal(t, info.Mode().Perm(), os.FileMode(0o700))
		}
		if tc.golden != "" {
			golden.Assert(t, string(data), tc.golden)
		}
		var back Transcript
		assert.NilError(t, json.Unmarshal(data, &back))
		assert.Equal(t, back.SuiteID, tr.SuiteID)
		assert.Equal(t, back.TaskID, tr.TaskID)
		assert.Equal(t, back.Trial, tr.Trial)
		if tc.check != nil {
			var doc map[string]any
			assert.NilError(t, json.Unmarshal(data, &doc))
			tc.check(t, doc)
		}
	}
	testCases := []testCase{
		{
			name:     "full",
			tr:       refundTranscript,
			wantPath: "transcripts/acme.support.evals.refunds/late-fee.trial-2.json",
			golden:   "transcript-full.golden",
			check: func(t *testing.T, doc map[string]any) {
				want := refundTranscript()
				var back Transcript
				data, _ := json.Marshal(doc)
				assert.NilError(t, json.Unmarshal(data, &back))
				// Raw JSON comes back re-indented; compare it as values.
				assert.Check(t, cmp.Diff(want.JudgeReasons, back.JudgeReasons) == "")
				assert.Equal(t, back.Stderr, want.Stderr)
				assert.Equal(t, back.Usage, want.Usage)
				assert.Equal(t, doc["output"], "Yes <within 30 days> & no fee")
			},
		},
		{
			name: "errored trial",
			tr: func() *Transcript {
				return &Transcript{
					SuiteID: "acme.support.evals.refunds", TaskID: "slow-lookup", Trial: 1,
					Input:  json.RawMessage(`null`),
					Error:  &TranscriptError{Kind: results.ErrTimeout, Message: "no final line within 30s"},
					Stderr: "",
				}
			},
			wantPath: "transcripts/acme.support.evals.refunds/slow-lookup.trial-1.json",
			golden:   "transcript-error.golden",
			check: func(t *testing.T, doc map[string]any) {
				assert.Equal(t, doc["output"], nil)
				assert.DeepEqual(t, doc["toolCalls"], []any{})
				assert.DeepEqual(t, doc["error"], map[string]any{"kind": "timeout", "message": "no final line within 30s"})
				assert.Check(t, !has(doc, "judgeReasons"))
			},
		},
		{
			name: "empty raw values written as null",
			tr: func() *Transcript {
				tr := refundTranscript()
				tr.Input = json.RawMessage{}
				tr.ToolCalls[0].Result = nil
				tr.ToolCalls[0].Args = json.RawMessage{}
				return tr
			},
			wantPath: "transcripts/acme.support.evals.refunds/late-fee.trial-2.json",
			check: func(t *testing.T, doc map[string]any) {
				assert.Equal(t, doc["input"], nil)
				call := doc["toolCalls"].([]any)[0].(map[string]any)
				assert.Equal(t, call["args"], nil)
				assert.Equal(t, call["result"], nil)
			},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestWriteTranscriptErrors(t *testing.T) {
	type testCase struct {
		name    string
		edit    func(tr *Transcript)
		wantErr string
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		tr := refundTranscript()
		tc.edit(tr)
		err := WriteTranscript(dir, tr, nil)
		assert.ErrorContains(t, err, tc.wantErr)
		assert.Check(t, !strings.Contains(err.Error(), "json.RawMessage"), "a Go type in %q", err)
		entries, _ := os.ReadDir(filepath.Join(dir, "transcripts", tr.SuiteID))
		for _, e := range entries {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	testCases := []testCase{
		{name: "suite id escaping the folder", edit: func(tr *Transcript) { tr.SuiteID = ".." }, wantErr: `could not write transcript of suite "..": the id ".." is not a file name`},
		{name: "task id with a slash", edit: func(tr *Transcript) { tr.TaskID = "../../etc/x" }, wantErr: `could not write transcript of task "../../etc/x" in suite "acme.support.evals.refunds": the id "../../etc/x" holds a path separator`},
		{name: "empty task id", edit: func(tr *Transcript) { tr.TaskID = "" }, wantErr: "the id is empty"},
		{name: "trial 0", edit: func(tr *Transcript) { tr.Trial = 0 }, wantErr: "trial 0 is not 1 or more"},
		{name: "output not JSON", edit: func(tr *Transcript) { tr.Output = json.RawMessage(`{"a":`) }, wantErr: "the input, the output or a tool call is not valid JSON"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
	assert.Error(t, WriteTranscript(t.TempDir(), nil, nil), "could not write transcript: no transcript")
}

// TestWriteTranscriptRedacts: a credential the run knows, and the password
// of any URL, are in no transcript, wherever in it they turn up.
func TestWriteTranscriptRedacts(t *testing.T) {
	const key = "sk-test-0123456789"
	tr := refundTranscript()
	tr.Output = json.RawMessage(`{"echo": "Bearer ` + key + `"}`)
	tr.Stderr = "using " + key + "\n"
	tr.Error = &TranscriptError{Kind: "model", Message: "the model API answered 401: http://user:hunter22@127.0.0.1:9/v1 rejected " + key}
	tr.JudgeReasons = map[int]string{0: "the answer quotes " + key}
	dir := t.TempDir()
	assert.NilError(t, WriteTranscript(dir, tr, redact.New(key)))
	data, err := os.ReadFile(TranscriptPath(dir, tr))
	assert.NilError(t, err)
	assert.Assert(t, json.Valid(data), "%s", data)
	assert.Assert(t, !strings.Contains(string(data), key), "%s", data)
	assert.Assert(t, !strings.Contains(string(data), "hunter22"), "%s", data)
	assert.Assert(t, strings.Contains(string(data), `"stderr": "using [redacted]\n"`), "%s", data)
	assert.Assert(t, strings.Contains(string(data), "http://user:xxxxx@127.0.0.1:9/v1"), "%s", data)
}

// TestWritersReplaceLinks: transcripts and summaries go into real folders
// of the output folder. A symbolic link planted for the transcripts
// folder, a suite's transcript folder, a transcript, the summaries folder
// or a summary is replaced; nothing is written where it points.
func TestWritersReplaceLinks(t *testing.T) {
	tr := refundTranscript()
	s := resultstest.Refunds()
	for _, links := range [][]string{
		{"transcripts", "summaries"},
		{"transcripts/" + tr.SuiteID},
		{"transcripts/" + tr.SuiteID + "/" + tr.TaskID + ".trial-1.json", "summaries/" + s.ID + ".json"},
	} {
		out, outside := t.TempDir(), t.TempDir()
		for i, l := range links {
			target := filepath.Join(outside, fmt.Sprint(i))
			if strings.HasSuffix(l, ".json") {
				assert.NilError(t, os.WriteFile(target, []byte("keep"), 0o644))
			} else {
				assert.NilError(t, os.Mkdir(target, 0o755))
			}
			p := filepath.Join(out, filepath.FromSlash(l))
			assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			assert.NilError(t, os.Symlink(target, p))
		}
		assert.NilError(t, WriteTranscript(out, tr, nil))
		assert.NilError(t, WriteSummary(filepath.Join(out, "summaries"), &s, ""))
		for _, p := range []string{TranscriptPath(out, tr), filepath.Join(out, "summaries", s.ID+".json")} {
			fi, err := os.Lstat(p)
			assert.NilError(t, err)
			assert.Check(t, fi.Mode().IsRegular(), "%s is %v", p, fi.Mode())
		}
		err := filepath.WalkDir(outside, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(path)
				assert.Check(t, is.Equal(string(data), "keep"), "%s was written through a link", path)
			} else if err == nil && path != outside {
				entries, _ := os.ReadDir(path)
				assert.Check(t, is.Len(entries, 0), "%s was written into through a link", path)
			}
			return err
		})
		assert.NilError(t, err)
	}
}
