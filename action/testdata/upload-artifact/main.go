// Command upload-artifact stands in for actions/upload-artifact v4 in the
// offline act test: the runner cannot fetch the real action, and its code
// is not ours to copy. Like the real action it zips the files that the path
// input names, with paths relative to their root (for one file, its folder),
// and uploads the zip to the run's artifact service with the v4 protocol
// that act's artifact server speaks: CreateArtifact, the zip to the signed
// URL, FinalizeArtifact.
//
// It supports the inputs name, path (files, folders and globs without **,
// one a line), if-no-files-found, retention-days, compression-level,
// overwrite and include-hidden-files. Exclude patterns (!path) and ** fail
// the step rather than upload something else than the real action would.
//
// It uses the standard library only and is run with `go run main.go`: act
// copies just this folder for the action, so it shares no code with the
// download-artifact stand-in.
package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
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

func run(ctx context.Context) error {
	name := os.Getenv("ARTIFACT_NAME")
	if err := checkName(name); err != nil {
		return err
	}
	workspace := os.Getenv("GITHUB_WORKSPACE")
	if workspace == "" {
		var err error
		if workspace, err = os.Getwd(); err != nil {
			return err
		}
	}
	files, root, err := find(workspace, os.Getenv("ARTIFACT_PATH"), os.Getenv("INCLUDE_HIDDEN_FILES") == "true")
	if err != nil {
		return err
	}
	if len(files) == 0 {
		msg := fmt.Sprintf("No files were found with the provided path: %s. No artifacts will be uploaded.", os.Getenv("ARTIFACT_PATH"))
		switch mode := os.Getenv("IF_NO_FILES_FOUND"); mode {
		case "error":
			return errors.New(msg)
		case "ignore":
			fmt.Println(msg)
		case "warn", "":
			fmt.Printf("::warning::%s\n", escape(msg))
		default:
			return fmt.Errorf("unknown if-no-files-found %q: want warn, error or ignore", mode)
		}
		return nil
	}
	fmt.Printf("With the provided path, there will be %d file(s) uploaded\n", len(files))

	level := 6
	if s := os.Getenv("COMPRESSION_LEVEL"); s != "" {
		if level, err = strconv.Atoi(s); err != nil || level < 0 || level > 9 {
			return fmt.Errorf("invalid compression-level %q: want 0 to 9", s)
		}
	}
	zipped, err := zipFiles(files, root, level)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(zipped)
	digest := hex.EncodeToString(sum[:])

	c, err := newClient()
	if err != nil {
		return err
	}
	if os.Getenv("OVERWRITE") == "true" {
		if err := c.call(ctx, "DeleteArtifact", c.ids(map[string]any{"name": name}), nil); err != nil {
			return err
		}
	}
	create := c.ids(map[string]any{"name": name, "version": 4})
	if s := os.Getenv("RETENTION_DAYS"); s != "" {
		days, err := strconv.Atoi(s)
		if err != nil || days < 0 {
			return fmt.Errorf("invalid retention-days %q", s)
		}
		if days > 0 {
			create["expires_at"] = time.Now().UTC().AddDate(0, 0, days).Format(time.RFC3339)
		}
	}
	var created struct {
		OK              bool   `json:"ok"`
		SignedUploadURL string `json:"signedUploadUrl"`
	}
	if err := c.call(ctx, "CreateArtifact", create, &created); err != nil {
		return err
	}
	if !created.OK || created.SignedUploadURL == "" {
		return fmt.Errorf("CreateArtifact: the artifact service did not accept %q", name)
	}
	// As the blob client does: the zip as a block, then the block list.
	blockID := base64.StdEncoding.EncodeToString([]byte("block-000000"))
	if err := put(ctx, created.SignedUploadURL+"&comp=block&blockid="+url.QueryEscape(blockID), zipped); err != nil {
		return err
	}
	blockList := `<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>` + blockID + `</Latest></BlockList>`
	if err := put(ctx, created.SignedUploadURL+"&comp=blocklist", []byte(blockList)); err != nil {
		return err
	}
	var finalized struct {
		OK         bool   `json:"ok"`
		ArtifactID string `json:"artifactId"`
	}
	finalize := c.ids(map[string]any{"name": name, "size": strconv.Itoa(len(zipped)), "hash": "sha256:" + digest})
	if err := c.call(ctx, "FinalizeArtifact", finalize, &finalized); err != nil {
		return err
	}
	if !finalized.OK {
		return fmt.Errorf("FinalizeArtifact: the artifact service did not accept %q", name)
	}
	fmt.Printf("Artifact %s has been successfully uploaded! Final size is %d bytes. Artifact ID is %s\n", name, len(zipped), finalized.ArtifactID)
	artifactURL := fmt.Sprintf("%s/%s/actions/runs/%s/artifacts/%s",
		os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID"), finalized.ArtifactID)
	return output(map[string]string{"artifact-id": finalized.ArtifactID, "artifact-url": artifactURL, "artifact-digest": digest})
}

// checkName refuses the names the real action refuses.
func checkName(name string) error {
	if name == "" {
		return errors.New("the artifact name is empty")
	}
	if i := strings.IndexAny(name, "\"<>|*?\r\n\\/:"); i >= 0 {
		return fmt.Errorf("the artifact name %q holds %q, which is not allowed", name, name[i])
	}
	return nil
}

// find returns the files that the lines of paths name (relative paths are
// in workspace) and their root: the folder the zip's paths are relative to.
// Like the real action: one file named as it is has its folder as root;
// otherwise the root is the search path (the part of a glob before its
// first wildcard), or the common folder of several.
func find(workspace, paths string, hidden bool) (files []string, root string, err error) {
	var searchPaths []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for line := range strings.Lines(paths) {
		p := strings.TrimSpace(line)
		switch {
		case p == "":
			continue
		case strings.HasPrefix(p, "!"):
			return nil, "", fmt.Errorf("exclude pattern %q: not supported by this stand-in", p)
		case strings.Contains(p, "**"):
			return nil, "", fmt.Errorf("pattern %q: ** is not supported by this stand-in", p)
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(workspace, p)
		}
		p = filepath.Clean(p)
		search, matches := p, []string{p}
		if strings.ContainsAny(p, "*?[") {
			search = string(filepath.Separator)
			for _, seg := range strings.Split(p, string(filepath.Separator)) {
				if strings.ContainsAny(seg, "*?[") {
					break
				}
				search = filepath.Join(search, seg)
			}
			if matches, err = filepath.Glob(p); err != nil {
				return nil, "", fmt.Errorf("pattern %q: %w", p, err)
			}
		}
		searchPaths = append(searchPaths, search)
		for _, m := range matches {
			err := filepath.WalkDir(m, func(f string, d fs.DirEntry, err error) error {
				if errors.Is(err, fs.ErrNotExist) && f == m {
					return nil // a path that names nothing
				}
				if err != nil {
					return err
				}
				if !hidden && strings.HasPrefix(d.Name(), ".") {
					if d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
				if d.Type()&fs.ModeSymlink != 0 { // followed, as the real action does
					if info, err := os.Stat(f); err == nil && info.Mode().IsRegular() {
						add(f)
					}
					return nil
				}
				if d.Type().IsRegular() {
					add(f)
				}
				return nil
			})
			if err != nil {
				return nil, "", err
			}
		}
	}
	switch {
	case len(files) == 0:
		return nil, "", nil
	case len(files) == 1 && files[0] == searchPaths[0]:
		return files, filepath.Dir(files[0]), nil
	case len(searchPaths) > 1:
		return files, commonDir(searchPaths), nil
	}
	return files, searchPaths[0], nil
}

// commonDir is the deepest folder that holds every one of paths.
func commonDir(paths []string) string {
	common := strings.Split(paths[0], string(filepath.Separator))
	for _, p := range paths[1:] {
		segs := strings.Split(p, string(filepath.Separator))
		n := 0
		for n < len(common) && n < len(segs) && common[n] == segs[n] {
			n++
		}
		common = common[:n]
	}
	return string(filepath.Separator) + filepath.Join(common...)
}

// zipFiles zips files with their paths relative to root.
func zipFiles(files []string, root string, level int) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, level) })
	slices.Sort(files)
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		h, err := zip.FileInfoHeader(info)
		if err != nil {
			return nil, err
		}
		h.Name, h.Method = filepath.ToSlash(rel), zip.Deflate
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		in, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(w, in)
		in.Close()
		if err != nil {
			return nil, fmt.Errorf("could not zip %s: %w", f, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
// into resp, unless resp is nil.
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
	if resp == nil {
		return nil
	}
	if err := json.Unmarshal(data, resp); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// put uploads body to a signed blob URL.
func put(ctx context.Context, u string, body []byte) error {
	r, err := http.NewRequestWithContext(ctx, http.MethodPut, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	r.Header.Set("x-ms-blob-type", "BlockBlob")
	res, err := (&http.Client{Timeout: 2 * time.Minute}).Do(r)
	if err != nil {
		return fmt.Errorf("could not upload the zip: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		data, _ := io.ReadAll(res.Body)
		return fmt.Errorf("could not upload the zip: HTTP %d: %s", res.StatusCode, data)
	}
	return nil
}

// output appends the step's outputs to GITHUB_OUTPUT.
func output(outs map[string]string) error {
	f, err := os.OpenFile(os.Getenv("GITHUB_OUTPUT"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("could not write the outputs: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(outs)) {
		fmt.Fprintf(f, "%s=%s\n", k, outs[k])
	}
	return f.Close()
}

// escape keeps a message on one workflow-command line.
func escape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}
