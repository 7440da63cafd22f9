package action

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/google/go-github/v60/github"
)

// ArtifactPrefix starts a baseline spec that names an Actions artifact.
const ArtifactPrefix = "github-artifact:"

// Limits of the baseline search and download.
const (
	maxRunsScanned    = 100     // successful runs on the base branch looked at
	maxArtifactBytes  = 1 << 28 // zip as downloaded
	maxResultsJSON    = 1 << 28 // results.json inside it
	artifactResultsJS = "results.json"
)

// DownloadBaseline fetches the baseline results.json from the newest
// unexpired artifact called name that a successful workflow run on baseRef
// uploaded, and writes it to destDir/results.json. found is false, with no
// error, when there is no such artifact yet (the first run on a branch):
// the run then has no regression block, which is not a failure.
func DownloadBaseline(ctx context.Context, client *github.Client, owner, repo, baseRef, name, destDir string) (path string, found bool, err error) {
	if name == "" {
		return "", false, fmt.Errorf("could not fetch the baseline artifact: no artifact name after %q", ArtifactPrefix)
	}
	if baseRef == "" {
		return "", false, fmt.Errorf("could not fetch baseline artifact %q: no base branch (not a pull request or push event)", name)
	}
	art, err := findArtifact(ctx, client, owner, repo, baseRef, name)
	if err != nil || art == nil {
		return "", false, err
	}
	if art.GetSizeInBytes() > maxArtifactBytes {
		return "", false, fmt.Errorf("could not fetch baseline artifact %q: %d bytes is over the %d byte limit", name, art.GetSizeInBytes(), maxArtifactBytes)
	}
	loc, _, err := client.Actions.DownloadArtifact(ctx, owner, repo, art.GetID(), 0)
	if err != nil {
		return "", false, fmt.Errorf("could not fetch baseline artifact %q (id %d): %w", name, art.GetID(), err)
	}
	zipped, err := downloadBlob(ctx, loc.String())
	if err != nil {
		return "", false, fmt.Errorf("could not download baseline artifact %q (id %d): %w", name, art.GetID(), err)
	}
	data, err := resultsFromZip(zipped)
	if err != nil {
		return "", false, fmt.Errorf("could not read baseline artifact %q (id %d): %w", name, art.GetID(), err)
	}
	// destDir is in the output folder: a link there is replaced, not
	// written through.
	if err := atomicfile.EnsureDir(destDir, 0o755); err != nil {
		return "", false, fmt.Errorf("could not write the baseline: %w", err)
	}
	out := filepath.Join(destDir, artifactResultsJS)
	if err := atomicfile.WriteFile(out, data, 0o644, 0o755); err != nil {
		return "", false, fmt.Errorf("could not write the baseline: %w", err)
	}
	return out, true, nil
}

// findArtifact walks the successful runs on baseRef, newest first, and
// returns the first unexpired artifact called name; nil when none of the
// newest maxRunsScanned runs has one.
func findArtifact(ctx context.Context, client *github.Client, owner, repo, baseRef, name string) (*github.Artifact, error) {
	opts := &github.ListWorkflowRunsOptions{Branch: baseRef, Status: "success", ListOptions: github.ListOptions{PerPage: 50}}
	scanned := 0
	for {
		runs, resp, err := client.Actions.ListRepositoryWorkflowRuns(ctx, owner, repo, opts)
		if err != nil {
			return nil, fmt.Errorf("could not list the workflow runs of branch %q: %w", baseRef, err)
		}
		for _, run := range runs.WorkflowRuns {
			if scanned >= maxRunsScanned {
				return nil, nil
			}
			scanned++
			aopts := &github.ListOptions{PerPage: 100}
			for {
				arts, aresp, err := client.Actions.ListWorkflowRunArtifacts(ctx, owner, repo, run.GetID(), aopts)
				if err != nil {
					return nil, fmt.Errorf("could not list the artifacts of workflow run %d: %w", run.GetID(), err)
				}
				for _, a := range arts.Artifacts {
					if a.GetName() == name && !a.GetExpired() {
						return a, nil
					}
				}
				if aresp.NextPage == 0 {
					break
				}
				aopts.Page = aresp.NextPage
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// downloadBlob fetches the artifact zip from the storage URL the API
// redirected to. The URL is pre-signed: the GitHub token is not sent along.
func downloadBlob(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: retryTransport(nil), Timeout: 5 * time.Minute}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("storage answered %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxArtifactBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxArtifactBytes {
		return nil, fmt.Errorf("the zip is over the %d byte limit", maxArtifactBytes)
	}
	return data, nil
}

// resultsFromZip returns results.json from the artifact zip: the one at the
// top, else the shallowest one in a folder (an uploaded out directory).
func resultsFromZip(data []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not a zip archive: %w", err)
	}
	var best *zip.File
	for _, f := range zr.File {
		name := strings.TrimPrefix(path.Clean(strings.ReplaceAll(f.Name, `\`, "/")), "/")
		if path.Base(name) != artifactResultsJS || f.FileInfo().IsDir() {
			continue
		}
		if best == nil || strings.Count(name, "/") < strings.Count(path.Clean(best.Name), "/") {
			best = f
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no %s in the artifact", artifactResultsJS)
	}
	rc, err := best.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	out, err := io.ReadAll(io.LimitReader(rc, maxResultsJSON+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxResultsJSON {
		return nil, fmt.Errorf("%s is over the %d byte limit", artifactResultsJS, maxResultsJSON)
	}
	return out, nil
}
