package action

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

const baselineJSON = `{"runId":"baseline-run","passed":true}`

func TestDownloadBaseline(t *testing.T) {
	type testCase struct {
		name      string
		setup     func(t *testing.T, f *fakeGitHub)
		wantFound bool
		wantData  string
		wantErr   string
		wantCalls map[string]int
	}
	run := func(t *testing.T, tc testCase) {
		fastRetries(t)
		f := newFakeGitHub(t, "")
		tc.setup(t, f)
		client, err := NewClient(nil, f.apiURL(), "ghs_test")
		assert.NilError(t, err)
		dest := filepath.Join(t.TempDir(), "baseline")
		path, found, err := DownloadBaseline(context.Background(), client, "acme", "agent", "main", "evalgate-results", dest)
		for ep, n := range tc.wantCalls {
			assert.Equal(t, f.count(ep), n, "calls of %s", ep)
		}
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			return
		}
		assert.NilError(t, err)
		assert.Equal(t, found, tc.wantFound)
		if !found {
			assert.Equal(t, path, "")
			return
		}
		assert.Equal(t, path, filepath.Join(dest, "results.json"))
		data, err := os.ReadFile(path)
		assert.NilError(t, err)
		assert.Equal(t, string(data), tc.wantData)
	}
	for _, tc := range []testCase{
		{
			name: "newest successful run with the artifact",
			setup: func(t *testing.T, f *fakeGitHub) {
				f.runs = []fakeRun{
					{ID: 9, Branch: "main", Status: "failure", Artifacts: []fakeArtifact{{ID: 90, Name: "evalgate-results"}}},
					{ID: 8, Branch: "feature", Status: "success", Artifacts: []fakeArtifact{{ID: 80, Name: "evalgate-results"}}},
					{ID: 7, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 70, Name: "coverage"}}},
					{ID: 6, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 60, Name: "evalgate-results", Expired: true}}},
					{ID: 5, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 50, Name: "evalgate-results"}}},
					{ID: 4, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 40, Name: "evalgate-results"}}},
				}
				f.blobs[90] = zipOf(t, map[string]string{"results.json": `{"runId":"failed-run"}`})
				f.blobs[80] = zipOf(t, map[string]string{"results.json": `{"runId":"feature-run"}`})
				f.blobs[50] = zipOf(t, map[string]string{"results.json": baselineJSON, "scorecard.md": "## evalgate"})
				f.blobs[40] = zipOf(t, map[string]string{"results.json": `{"runId":"older-run"}`})
			},
			wantFound: true, wantData: baselineJSON,
			// Runs 7, 6 and 5 are on pages 1 and 2 (two a page); run 5 wins.
			wantCalls: map[string]int{epListRuns: 2, epListArtifacts: 3, epDownload: 1, epBlob: 1},
		},
		{
			name: "results.json in a folder of the artifact",
			setup: func(t *testing.T, f *fakeGitHub) {
				f.runs = []fakeRun{{ID: 5, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 50, Name: "evalgate-results"}}}}
				f.blobs[50] = zipOf(t, map[string]string{
					"evalgate-out/transcripts/results.json": `{"runId":"deeper"}`,
					"evalgate-out/results.json":             baselineJSON,
				})
			},
			wantFound: true, wantData: baselineJSON,
		},
		{
			name: "none yet",
			setup: func(t *testing.T, f *fakeGitHub) {
				f.runs = []fakeRun{{ID: 3, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 30, Name: "other"}}}}
			},
			wantFound: false,
			wantCalls: map[string]int{epListRuns: 1, epListArtifacts: 1, epDownload: 0},
		},
		{
			name:      "no runs at all",
			setup:     func(t *testing.T, f *fakeGitHub) {},
			wantFound: false,
		},
		{
			name: "artifact without results.json",
			setup: func(t *testing.T, f *fakeGitHub) {
				f.runs = []fakeRun{{ID: 5, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 50, Name: "evalgate-results"}}}}
				f.blobs[50] = zipOf(t, map[string]string{"summary.json": "{}"})
			},
			wantErr: `could not read baseline artifact "evalgate-results" (id 50): no results.json in the artifact`,
		},
		{
			name: "token without actions read",
			setup: func(t *testing.T, f *fakeGitHub) {
				f.failNext(epListRuns, fakeFailure{status: http.StatusForbidden, message: "Resource not accessible by integration"})
			},
			wantErr: `could not list the workflow runs of branch "main"`,
		},
		{
			name: "storage hiccup then success",
			setup: func(t *testing.T, f *fakeGitHub) {
				f.runs = []fakeRun{{ID: 5, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 50, Name: "evalgate-results"}}}}
				f.blobs[50] = zipOf(t, map[string]string{"results.json": baselineJSON})
				f.failNext(epDownload, fakeFailure{status: http.StatusBadGateway})
			},
			wantFound: true, wantData: baselineJSON,
			wantCalls: map[string]int{epDownload: 2, epBlob: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestDownloadBaselineReplacesLinks: the baseline goes into a real folder
// of the output folder; symbolic links planted for the folder or for the
// file are replaced, and what they point at is left alone.
func TestDownloadBaselineReplacesLinks(t *testing.T) {
	fastRetries(t)
	f := newFakeGitHub(t, "")
	f.runs = []fakeRun{{ID: 5, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 50, Name: "evalgate-results"}}}}
	f.blobs[50] = zipOf(t, map[string]string{"results.json": baselineJSON})
	client, err := NewClient(nil, f.apiURL(), "ghs_test")
	assert.NilError(t, err)

	out, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "results.json")
	assert.NilError(t, os.WriteFile(target, []byte("keep"), 0o644))
	assert.NilError(t, os.Symlink(outside, filepath.Join(out, "linked")))
	assert.NilError(t, os.Mkdir(filepath.Join(out, "real"), 0o755))
	assert.NilError(t, os.Symlink(target, filepath.Join(out, "real", "results.json")))
	for _, dest := range []string{"linked", "real"} {
		path, found, err := DownloadBaseline(context.Background(), client, "acme", "agent", "main", "evalgate-results", filepath.Join(out, dest))
		assert.NilError(t, err)
		assert.Assert(t, found)
		fi, err := os.Lstat(path)
		assert.NilError(t, err)
		assert.Assert(t, fi.Mode().IsRegular(), "%s is %v", path, fi.Mode())
		fi, err = os.Lstat(filepath.Join(out, dest))
		assert.NilError(t, err)
		assert.Assert(t, fi.IsDir(), "%s is %v", dest, fi.Mode())
	}
	data, err := os.ReadFile(target)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "keep")
	entries, err := os.ReadDir(outside)
	assert.NilError(t, err)
	assert.Equal(t, len(entries), 1)
}

func TestResolveBaseline(t *testing.T) {
	type testCase struct {
		name       string
		spec       string
		event      string
		setup      func(t *testing.T, f *fakeGitHub)
		wantPath   bool
		wantFound  bool
		wantNotice string
		wantErr    string
	}
	run := func(t *testing.T, tc testCase) {
		fastRetries(t)
		f := newFakeGitHub(t, "/api/v3")
		f.token = "ghs_test"
		if tc.setup != nil {
			tc.setup(t, f)
		}
		dir := t.TempDir()
		eventPath := filepath.Join(dir, "event.json")
		assert.NilError(t, os.WriteFile(eventPath, []byte(tc.event), 0o644))
		env := map[string]string{
			"GITHUB_ACTIONS": "true", "GITHUB_API_URL": f.apiURL(), "GITHUB_REPOSITORY": "acme/agent",
			"GITHUB_EVENT_PATH": eventPath, "GITHUB_EVENT_NAME": "pull_request", "INPUT_GITHUB_TOKEN": "ghs_test",
		}
		var out bytes.Buffer
		path, found, err := ResolveBaseline(context.Background(), BaselineOptions{
			Spec: tc.spec, DestDir: filepath.Join(dir, "baseline"), Getenv: envOf(env), Stdout: &out,
		})
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			return
		}
		assert.NilError(t, err)
		assert.Equal(t, found, tc.wantFound)
		assert.Equal(t, path != "", tc.wantPath)
		if tc.wantNotice != "" {
			assert.Assert(t, bytes.Contains(out.Bytes(), []byte(tc.wantNotice)), out.String())
		}
		if tc.spec != "baseline.json" {
			assert.Assert(t, bytes.Contains(out.Bytes(), []byte("::add-mask::ghs_test\n")), out.String())
		}
	}
	prEvent := `{"pull_request":{"number":7,"base":{"ref":"release/1.x"}}}`
	for _, tc := range []testCase{
		{name: "a path is kept", spec: "baseline.json", event: prEvent, wantPath: true, wantFound: true},
		{
			name: "artifact from the PR base branch", spec: "github-artifact:evalgate-results", event: prEvent,
			setup: func(t *testing.T, f *fakeGitHub) {
				f.runs = []fakeRun{
					{ID: 2, Branch: "main", Status: "success", Artifacts: []fakeArtifact{{ID: 20, Name: "evalgate-results"}}},
					{ID: 1, Branch: "release/1.x", Status: "success", Artifacts: []fakeArtifact{{ID: 10, Name: "evalgate-results"}}},
				}
				f.blobs[10] = zipOf(t, map[string]string{"results.json": baselineJSON})
			},
			wantPath: true, wantFound: true,
		},
		{
			name: "first run", spec: "github-artifact:evalgate-results", event: prEvent,
			wantNotice: `::notice title=evalgate baseline::no baseline yet: no artifact "evalgate-results" from a successful run on "release/1.x"; this run has no regression block`,
		},
		{
			name: "no permission", spec: "github-artifact:evalgate-results", event: prEvent,
			setup: func(t *testing.T, f *fakeGitHub) {
				f.failNext(epListRuns, fakeFailure{status: http.StatusForbidden})
			},
			wantErr: "actions: read",
		},
		{name: "no name", spec: "github-artifact:", event: prEvent, wantErr: "no artifact name"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
