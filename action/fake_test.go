package action

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// fakeGitHub is the part of the GitHub REST API evalgate uses, served on
// loopback: issue comments (paged), workflow runs, their artifacts, and
// artifact downloads. Each endpoint is one HandleFunc; calls are counted,
// and failures are scripted per endpoint.
type fakeGitHub struct {
	t      *testing.T
	srv    *httptest.Server
	prefix string // "/api/v3" for a GitHub Enterprise Server layout

	mu    sync.Mutex
	calls map[string]int
	fail  map[string][]fakeFailure // endpoint -> answers to give before serving
	token string                   // the bearer token every API call must carry; "" accepts any
	// login is the token's account: GET /user answers it, and the comments
	// the token creates are by it. "" is the workflow's GITHUB_TOKEN: GET
	// /user is 403 and comments are by github-actions[bot].
	login string
	// app is the bot login of a GitHub App's installation token, when
	// login is "": GET /user is 403 as for any installation token, GraphQL's
	// viewer answers it, and the token's comments are by it.
	app      string
	pageSize int
	comments []fakeComment
	nextID   int64
	runs     []fakeRun
	blobs    map[int64][]byte // artifact id -> zip
	pulls    []fakePull
}

// fakePull is an open pull request, for GET pulls: head is owner:branch.
type fakePull struct {
	Number    int
	Head, SHA string
}

type fakeFailure struct {
	status     int
	retryAfter string
	message    string
}

type fakeComment struct {
	PR   int    `json:"-"` // the pull request it is on
	ID   int64  `json:"id"`
	Body string `json:"body"`
	User struct {
		Login string `json:"login"`
	} `json:"user"`
	HTMLURL string `json:"html_url"`
}

type fakeRun struct {
	ID        int64
	Branch    string
	Status    string // success, failure
	Artifacts []fakeArtifact
}

type fakeArtifact struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Expired bool   `json:"expired"`
	Size    int64  `json:"size_in_bytes"`
}

// Endpoint keys for calls and failures.
const (
	epListComments  = "GET comments"
	epCreateComment = "POST comment"
	epEditComment   = "PATCH comment"
	epListRuns      = "GET runs"
	epListArtifacts = "GET artifacts"
	epDownload      = "GET artifact zip"
	epBlob          = "GET blob"
	epUser          = "GET user"
	epGraphQL       = "POST graphql"
	epListPulls     = "GET pulls"
	epGetPull       = "GET pull"
)

func newFakeGitHub(t *testing.T, prefix string) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{
		t: t, prefix: prefix, calls: map[string]int{}, fail: map[string][]fakeFailure{},
		pageSize: 2, nextID: 1000, blobs: map[int64][]byte{},
	}
	mux := http.NewServeMux()
	p := prefix
	mux.HandleFunc("GET "+p+"/repos/{owner}/{repo}/issues/{pr}/comments", f.handle(epListComments, f.listComments))
	mux.HandleFunc("POST "+p+"/repos/{owner}/{repo}/issues/{pr}/comments", f.handle(epCreateComment, f.createComment))
	mux.HandleFunc("PATCH "+p+"/repos/{owner}/{repo}/issues/comments/{id}", f.handle(epEditComment, f.editComment))
	mux.HandleFunc("GET "+p+"/repos/{owner}/{repo}/actions/runs", f.handle(epListRuns, f.listRuns))
	mux.HandleFunc("GET "+p+"/repos/{owner}/{repo}/actions/runs/{id}/artifacts", f.handle(epListArtifacts, f.listArtifacts))
	mux.HandleFunc("GET "+p+"/repos/{owner}/{repo}/actions/artifacts/{id}/zip", f.handle(epDownload, f.download))
	mux.HandleFunc("GET "+p+"/user", f.handle(epUser, f.user))
	graphql := "/graphql"
	if p != "" {
		graphql = "/api/graphql" // GitHub Enterprise Server
	}
	mux.HandleFunc("POST "+graphql, f.handle(epGraphQL, f.viewer))
	mux.HandleFunc("GET "+p+"/repos/{owner}/{repo}/pulls", f.handle(epListPulls, f.listPulls))
	mux.HandleFunc("GET "+p+"/repos/{owner}/{repo}/pulls/{pr}", f.handle(epGetPull, f.getPull))
	mux.HandleFunc("GET /blobs/{id}", f.handleBlob)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// apiURL is what GITHUB_API_URL says for this server.
func (f *fakeGitHub) apiURL() string { return f.srv.URL + f.prefix }

func (f *fakeGitHub) count(ep string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[ep]
}

func (f *fakeGitHub) failNext(ep string, fails ...fakeFailure) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[ep] = append(f.fail[ep], fails...)
}

// addComment adds a comment on pull request 7.
func (f *fakeGitHub) addComment(login, body string) int64 {
	return f.addCommentOn(7, login, body)
}

func (f *fakeGitHub) addCommentOn(pr int, login, body string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	c := fakeComment{PR: pr, ID: f.nextID, Body: body, HTMLURL: fmt.Sprintf("https://github.example/o/r/pull/%d#issuecomment-%d", pr, f.nextID)}
	c.User.Login = login
	f.comments = append(f.comments, c)
	return c.ID
}

func (f *fakeGitHub) snapshot() []fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeComment(nil), f.comments...)
}

// handle counts the call, checks the token, plays a scripted failure if
// one is queued, and otherwise serves.
func (f *fakeGitHub) handle(ep string, serve func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls[ep]++
		var fail *fakeFailure
		if q := f.fail[ep]; len(q) > 0 {
			fail = &q[0]
			f.fail[ep] = q[1:]
		}
		token := f.token
		f.mu.Unlock()
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message":"Bad credentials"}`))
			return
		}
		if fail != nil {
			if fail.retryAfter != "" {
				w.Header().Set("Retry-After", fail.retryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(fail.status)
			msg := fail.message
			if msg == "" {
				msg = http.StatusText(fail.status)
			}
			_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		serve(w, r)
	}
}

func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request) {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page < 1 {
		page = 1
	}
	pr, _ := strconv.Atoi(r.PathValue("pr"))
	all := []fakeComment{}
	for _, c := range f.snapshot() {
		if c.PR == pr {
			all = append(all, c)
		}
	}
	lo := min((page-1)*f.pageSize, len(all))
	hi := min(lo+f.pageSize, len(all))
	if hi < len(all) {
		next := *r.URL
		q := next.Query()
		q.Set("page", strconv.Itoa(page+1))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, f.srv.URL, next.RequestURI()))
	}
	_ = json.NewEncoder(w).Encode(all[lo:hi])
}

func (f *fakeGitHub) createComment(w http.ResponseWriter, r *http.Request) {
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, `{"message":"bad json"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	login := f.self()
	f.mu.Unlock()
	pr, _ := strconv.Atoi(r.PathValue("pr"))
	id := f.addCommentOn(pr, login, in.Body)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(f.comment(id))
}

func (f *fakeGitHub) editComment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, `{"message":"bad json"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	found := false
	for i := range f.comments {
		if f.comments[i].ID == id {
			f.comments[i].Body = in.Body
			found = true
		}
	}
	f.mu.Unlock()
	if !found {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	_ = json.NewEncoder(w).Encode(f.comment(id))
}

func (p fakePull) json() map[string]any {
	owner, branch, _ := strings.Cut(p.Head, ":")
	return map[string]any{"number": p.Number, "state": "open", "head": map[string]any{
		"label": p.Head, "ref": branch, "sha": p.SHA, "user": map[string]any{"login": owner},
	}}
}

// listPulls lists the open pull requests, filtered by head=owner:branch.
func (f *fakeGitHub) listPulls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("state") != "open" {
		f.t.Errorf("fake GitHub: pulls listed with state=%q; only open ones can be commented on", q.Get("state"))
	}
	f.mu.Lock()
	out := []map[string]any{}
	for _, p := range f.pulls {
		if head := q.Get("head"); head == "" || head == p.Head {
			out = append(out, p.json())
		}
	}
	f.mu.Unlock()
	_ = json.NewEncoder(w).Encode(out)
}

func (f *fakeGitHub) getPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("pr"))
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.pulls {
		if p.Number == n {
			_ = json.NewEncoder(w).Encode(p.json())
			return
		}
	}
	http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
}

// user is GET /user: the token's account, or the 403 GitHub gives the
// workflow's GITHUB_TOKEN, which belongs to no user.
func (f *fakeGitHub) user(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	login := f.login
	f.mu.Unlock()
	if login == "" {
		w.WriteHeader(http.StatusForbidden)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "Resource not accessible by integration"})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"login": login, "type": "User"})
}

// self is the login the token's comments are by. f.mu is held.
func (f *fakeGitHub) self() string {
	switch {
	case f.login != "":
		return f.login
	case f.app != "":
		return f.app
	}
	return "github-actions[bot]"
}

// viewer is GraphQL's query { viewer { login } }: GitHub names an App's
// bot without the "[bot]" that its REST API adds.
func (f *fakeGitHub) viewer(w http.ResponseWriter, r *http.Request) {
	var in struct{ Query string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || !strings.Contains(in.Query, "viewer") {
		http.Error(w, `{"message":"bad query"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	login := strings.TrimSuffix(f.self(), "[bot]")
	f.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"viewer": map[string]string{"login": login}}})
}

func (f *fakeGitHub) comment(id int64) fakeComment {
	for _, c := range f.snapshot() {
		if c.ID == id {
			return c
		}
	}
	return fakeComment{}
}

func (f *fakeGitHub) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	var runs []map[string]any
	for _, run := range f.runs { // newest first, as GitHub lists them
		if run.Branch == q.Get("branch") && (q.Get("status") == "" || q.Get("status") == run.Status) {
			runs = append(runs, map[string]any{"id": run.ID, "head_branch": run.Branch, "conclusion": run.Status})
		}
	}
	f.mu.Unlock()
	page, _ := strconv.Atoi(q.Get("page"))
	if page < 1 {
		page = 1
	}
	lo := min((page-1)*f.pageSize, len(runs))
	hi := min(lo+f.pageSize, len(runs))
	if hi < len(runs) {
		q.Set("page", strconv.Itoa(page+1))
		w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, f.srv.URL, r.URL.Path, q.Encode()))
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"total_count": len(runs), "workflow_runs": runs[lo:hi]})
}

func (f *fakeGitHub) listArtifacts(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	f.mu.Lock()
	arts := []fakeArtifact{}
	for _, run := range f.runs {
		if run.ID == id {
			arts = append(arts, run.Artifacts...)
		}
	}
	f.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"total_count": len(arts), "artifacts": arts})
}

func (f *fakeGitHub) download(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	f.mu.Lock()
	_, ok := f.blobs[id]
	f.mu.Unlock()
	if !ok {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Location", fmt.Sprintf("%s/blobs/%d?sig=signed", f.srv.URL, id))
	w.WriteHeader(http.StatusFound)
}

// handleBlob is the storage the download redirects to: it must not see the
// GitHub token.
func (f *fakeGitHub) handleBlob(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls[epBlob]++
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	data, ok := f.blobs[id]
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "" {
		f.t.Errorf("fake storage: the GitHub token was sent to the artifact storage")
	}
	if !ok || r.URL.Query().Get("sig") != "signed" {
		http.Error(w, "no such blob", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	_, _ = w.Write(data)
}

// zipOf builds an artifact zip from name -> content.
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Unix(0, 0)})
		assert.NilError(t, err)
		_, err = fw.Write([]byte(content))
		assert.NilError(t, err)
	}
	assert.NilError(t, zw.Close())
	return buf.Bytes()
}

// fastRetries shrinks the retry waits for the test.
func fastRetries(t *testing.T) {
	t.Helper()
	oldI, oldM := retryInterval, maxRetryWait
	retryInterval, maxRetryWait = time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { retryInterval, maxRetryWait = oldI, oldM })
}

// envOf is a Getenv over a map.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}
