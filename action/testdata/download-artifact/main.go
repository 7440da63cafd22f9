// Command download-artifact stands in for actions/download-artifact v4 in
// the offline act test: the runner cannot fetch the real action, and its
// code is not ours to copy. Like the real action it lists the run's
// artifacts on the artifact service with the v4 protocol that act's
// artifact server speaks (ListArtifacts), keeps the one named or those the
// pattern matches, and for each asks for a signed URL
// (GetSignedArtifactURL), downloads the zip and unzips it: into path for
// one artifact named or with merge-multiple, else into path/<artifact name>.
//
// It supports the inputs name, path, pattern and merge-multiple, for the
// current run. A github-token (another run's artifacts) fails the step.
//
// It uses the standard library only and is run with `go run main.go`: act
// copies just this folder for the action, so it shares no code with the
// upload-artifact stand-in.
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"time"
)

const service = "/twirp/github.actions.results.api.v1.ArtifactService/"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Printf("::error::%s\n", escape(err.Error()))
		os.Exit(1)
	}
}

type artifact struct {
	Name string `json:"name"`
	ID   string `json:"databaseId"`
	Size string `json:"size"`
}

func run(ctx context.Context) error {
	if os.Getenv("OTHER_RUN_TOKEN") != "" {
		return errors.New("github-token: downloads from another run are not supported by this stand-in")
	}
	name, pattern := os.Getenv("ARTIFACT_NAME"), os.Getenv("PATTERN")
	merge := os.Getenv("MERGE_MULTIPLE") == "true"
	workspace := os.Getenv("GITHUB_WORKSPACE")
	if workspace == "" {
		var err error
		if workspace, err = os.Getwd(); err != nil {
			return err
		}
	}
	dest := os.Getenv("DOWNLOAD_PATH")
	if rest, ok := strings.CutPrefix(dest, "~"); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
		dest = os.Getenv("HOME") + rest
	}
	if !filepath.IsAbs(dest) {
		dest = filepath.Join(workspace, dest)
	}
	dest = filepath.Clean(dest)

	c, err := newClient()
	if err != nil {
		return err
	}
	list := c.ids(map[string]any{})
	if name != "" {
		list["name_filter"] = name
	}
	var listed struct {
		Artifacts []artifact `json:"artifacts"`
	}
	if err := c.call(ctx, "ListArtifacts", list, &listed); err != nil {
		return err
	}
	artifacts := listed.Artifacts
	switch {
	case name != "":
		if len(artifacts) == 0 {
			return fmt.Errorf("unable to download artifact(s): artifact not found for name: %s", name)
		}
		artifacts = artifacts[:1]
	case pattern != "":
		fmt.Printf("Filtering artifacts by pattern '%s'\n", pattern)
		var kept []artifact
		for _, a := range artifacts {
			ok, err := path.Match(pattern, a.Name)
			if err != nil {
				return fmt.Errorf("pattern %q: %w", pattern, err)
			}
			if ok {
				kept = append(kept, a)
			}
		}
		artifacts = kept
	default:
		fmt.Println("No inputs.name or inputs.pattern provided. Downloading all artifacts.")
	}
	if len(artifacts) > 0 {
		fmt.Println("Preparing to download the following artifacts:")
		for _, a := range artifacts {
			fmt.Printf("- %s (ID: %s, Size: %s)\n", a.Name, a.ID, a.Size)
		}
	}
	for _, a := range artifacts {
		dir := dest
		if name == "" && !merge {
			dir = filepath.Join(dest, a.Name)
		}
		if err := c.download(ctx, a.Name, dir); err != nil {
			return fmt.Errorf("could not download artifact %q: %w", a.Name, err)
		}
		fmt.Printf("Artifact download completed successfully: %s to %s\n", a.Name, dir)
	}
	fmt.Printf("Total of %d artifact(s) downloaded\n", len(artifacts))
	return output(map[string]string{"download-path": dest})
}

// download fetches the zip of the artifact name and unzips it into dir.
func (c *client) download(ctx context.Context, name, dir string) error {
	var signed struct {
		SignedURL string `json:"signedUrl"`
	}
	if err := c.call(ctx, "GetSignedArtifactURL", c.ids(map[string]any{"name": name}), &signed); err != nil {
		return err
	}
	if signed.SignedURL == "" {
		return errors.New("GetSignedArtifactURL: no URL")
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, signed.SignedURL, nil)
	if err != nil {
		return err
	}
	res, err := c.http.Do(r)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", res.StatusCode, data)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("the artifact is not a zip: %w", err)
	}
	for _, f := range zr.File {
		// A zip from elsewhere must not write outside dir.
		if !filepath.IsLocal(f.Name) {
			return fmt.Errorf("malformed extraction path: %s", f.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(f.Name))
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := unzipFile(f, target); err != nil {
			return err
		}
	}
	return nil
}

func unzipFile(f *zip.File, target string) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	in, err := f.Open()
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("could not unzip %s: %w", f.Name, err)
	}
	return out.Close()
}

// client calls the artifact service at ACTIONS_RESULTS_URL with the job's
// ACTIONS_RUNTIME_TOKEN, whose scope names the run and job it acts for.
type client struct {
	base, token string
	run, job    string
	http        *http.Client
}

func newClient() (*client, error) {
	token, results := os.Getenv("ACTIONS_RUNTIME_TOKEN"), os.Getenv("ACTIONS_RESULTS_URL")
	if token == "" || results == "" {
		return nil, errors.New("ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL are not set: is act running with --artifact-server-path?")
	}
	u, err := url.Parse(results)
	if err != nil {
		return nil, fmt.Errorf("invalid ACTIONS_RESULTS_URL: %w", err)
	}
	c := &client{base: u.Scheme + "://" + u.Host, token: token, http: &http.Client{Timeout: 2 * time.Minute}}
	// The token is a JWT; its scp claim holds "Actions.Results:RUN:JOB".
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("ACTIONS_RUNTIME_TOKEN is not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, fmt.Errorf("could not decode ACTIONS_RUNTIME_TOKEN: %w", err)
	}
	var claims struct {
		Scp string `json:"scp"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, fmt.Errorf("could not decode ACTIONS_RUNTIME_TOKEN: %w", err)
	}
	for _, scope := range strings.Fields(claims.Scp) {
		if f := strings.Split(scope, ":"); len(f) == 3 && f[0] == "Actions.Results" {
			c.run, c.job = f[1], f[2]
			return c, nil
		}
	}
	return nil, errors.New("ACTIONS_RUNTIME_TOKEN has no Actions.Results scope")
}

// ids adds the run and job to a request.
func (c *client) ids(req map[string]any) map[string]any {
	req["workflow_run_backend_id"], req["workflow_job_run_backend_id"] = c.run, c.job
	return req
}

// call posts req as JSON to the service's method and decodes the answer
// into resp.
func (c *client) call(ctx context.Context, method string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+service+method, bytes.NewReader(body))
	if err != nil {
		return err
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+c.token)
	res, err := c.http.Do(r)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", method, res.StatusCode, data)
	}
	if err := json.Unmarshal(data, resp); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// output appends the step's outputs to GITHUB_OUTPUT.
func output(outs map[string]string) error {
	f, err := os.OpenFile(os.Getenv("GITHUB_OUTPUT"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("could not write the outputs: %w", err)
	}
	for k, v := range outs {
		fmt.Fprintf(f, "%s=%s\n", k, v)
	}
	return f.Close()
}

// escape keeps a message on one workflow-command line.
func escape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}
