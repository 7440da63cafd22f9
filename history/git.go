package history

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/redact"
)

// MaxPushRetries bounds how often a rejected push is tried again on the
// branch another writer moved: each try re-adds the one new file.
const MaxPushRetries = 3

// retryWait is how long a writer whose push was rejected waits before it
// tries again: a random wait, longer each retry, so that writers that
// collided do not collide again. A variable so tests can change it.
var retryWait = func(retry int) time.Duration {
	return time.Duration(rand.Int64N(int64(retry) * int64(200*time.Millisecond)))
}

// gitTimeout bounds one git command: a fetch or a push over the network
// that hangs must not hold the run.
var gitTimeout = 2 * time.Minute

// gitStore keeps one file per record at the top of a branch, written
// with git's plumbing (no checkout, no change to the working tree) and
// pushed.
type gitStore struct {
	dir    string // the work tree git runs in
	branch string
	remote string
	ref    string // the local ref the branch is fetched into
	// retries counts the rejected pushes of the last write or prune.
	retries int
	// writing is set while a write or prune fetches: it must have the
	// branch as the remote has it, never an older copy.
	writing bool
	// stale says why the last read read the local copy of the branch.
	stale string
}

func openGit(branch string, o Options) (Store, error) {
	if branch == "" {
		branch = DefaultBranch
	}
	if err := checkBranch(branch); err != nil {
		return nil, &UsageError{fmt.Sprintf("history store \"git:%s\": %v", clip(branch), err)}
	}
	return &gitStore{dir: o.Dir, branch: branch, remote: cmp.Or(o.Remote, "origin"), ref: "refs/evalgate/history/" + branch}, nil
}

// checkBranch accepts a branch name that git takes and that cannot reach
// git as an option: letters, digits, '.', '_', '/' and '-', not starting
// with '-', '.' or '/', without "..", "//" or a trailing '/' or ".lock".
func checkBranch(b string) error {
	switch {
	case strings.HasPrefix(b, "-"), strings.HasPrefix(b, "."), strings.HasPrefix(b, "/"), strings.HasSuffix(b, "/"),
		strings.HasSuffix(b, ".lock"), strings.Contains(b, ".."), strings.Contains(b, "//"), len(b) > 200:
		return fmt.Errorf("%q is not a branch name; name one such as evalgate-history", b)
	}
	for _, r := range b {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._/-", r)) {
			return fmt.Errorf("the branch %q holds %q; name one with letters, digits, '.', '_', '/' and '-'", b, r)
		}
	}
	return nil
}

func (s *gitStore) String() string { return GitPrefix + s.branch }
func (s *gitStore) Close() error   { return nil }

// gitError is a git command that failed: what git said, credentials
// removed.
type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string { return "git " + e.args[0] + ": " + e.msg }

// userInfo is the user part of a URL, where a token may sit alone
// (https://TOKEN@host/...), which no password mask would find.
var userInfo = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`://[^/@\s]*@`) })

// clean removes credentials from what git said.
func clean(s string) string {
	return userInfo().ReplaceAllString(redact.New().String(s), "://")
}

// git runs git with args in the work tree, with stdin, and returns its
// output (at most maxOut bytes). Hooks are off (a push would run
// pre-push), as are the background jobs git may start after a fetch
// (gc, maintenance), and git never asks for a password.
func (s *gitStore) git(ctx context.Context, stdin []byte, maxOut int64, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	full := append([]string{"git", "-c", "core.hooksPath=/dev/null", "-c", "gc.auto=0", "-c", "maintenance.auto=false",
		"-c", "fetch.writeCommitGraph=false", "-c", "credential.interactive=false"}, args...)
	env := append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=evalgate", "GIT_AUTHOR_EMAIL=evalgate@localhost",
		"GIT_COMMITTER_NAME=evalgate", "GIT_COMMITTER_EMAIL=evalgate@localhost")
	var out bytes.Buffer
	p, err := process.Run(ctx, process.Spec{Command: full, Dir: s.dir, Env: env, Stdin: stdin,
		MaxStdoutBytes: maxOut, MaxStderrBytes: 16 << 10}, &out)
	if se, ok := errors.AsType[*process.StartError](err); ok {
		return nil, &gitError{args: args, msg: clean(se.Err.Error())}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, &gitError{args: args, msg: fmt.Sprintf("no answer within %s", gitTimeout)}
		}
		return nil, &gitError{args: args, msg: clean(err.Error())}
	}
	if !p.Success() {
		msg := strings.TrimSpace(string(p.Stderr()))
		if msg == "" {
			msg = p.Exit()
		}
		return out.Bytes(), &gitError{args: args, msg: clean(msg)}
	}
	return out.Bytes(), nil
}

func (s *gitStore) unreachable(err error) error {
	return fmt.Errorf("%w: %s: %v", ErrUnreachable, s, err)
}

// fetch fetches the branch's newest commit alone into s.ref and returns
// it; "" when the remote has no such branch yet.
func (s *gitStore) fetch(ctx context.Context) (string, error) {
	_, err := s.git(ctx, nil, 1<<20, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--depth=1",
		"--", s.remote, "+refs/heads/"+s.branch+":"+s.ref)
	if err != nil {
		if ge, ok := errors.AsType[*gitError](err); ok && strings.Contains(ge.msg, "couldn't find remote ref") {
			_, _ = s.git(ctx, nil, 1<<10, "update-ref", "-d", s.ref)
			return "", nil
		}
		// A copy fetched before, with credentials this process lacks (the
		// Action's fetch step holds the token, its run step none), is
		// read instead, and the read says so.
		if out, lerr := s.git(ctx, nil, 1<<10, "rev-parse", "--verify", "--quiet", s.ref+"^{commit}"); lerr == nil && !s.writing {
			s.stale = fmt.Sprintf("could not fetch %s (%v); read the copy fetched before", s, err)
			return strings.TrimSpace(string(out)), nil
		}
		return "", s.unreachable(err)
	}
	out, err := s.git(ctx, nil, 1<<10, "rev-parse", "--verify", "--quiet", s.ref+"^{commit}")
	if err != nil {
		return "", s.unreachable(err)
	}
	return strings.TrimSpace(string(out)), nil
}

// tree lists the files at the top of commit, with their sizes.
func (s *gitStore) tree(ctx context.Context, commit string) ([]fileEntry, error) {
	if commit == "" {
		return nil, nil
	}
	out, err := s.git(ctx, nil, 256<<20, "ls-tree", "-z", "--long", commit)
	if err != nil {
		return nil, s.unreachable(err)
	}
	var files []fileEntry
	for _, line := range bytes.Split(out, []byte{0}) {
		head, name, ok := bytes.Cut(line, []byte{'\t'})
		f := strings.Fields(string(head))
		if !ok || len(f) != 4 || f[1] != "blob" {
			continue
		}
		size, _ := strconv.ParseInt(f[3], 10, 64)
		files = append(files, fileEntry{name: string(name), size: size, id: f[2]})
	}
	return files, nil
}

func (s *gitStore) list(ctx context.Context) ([]fileEntry, error) {
	tip, err := s.fetch(ctx)
	if err != nil {
		return nil, err
	}
	return s.tree(ctx, tip)
}

// fetch reads the blobs with one `git cat-file --batch`, its output
// bounded by their sizes.
func (s *gitStore) fetchBlobs(ctx context.Context, files []fileEntry, got func(fileEntry, []byte, error)) error {
	var in bytes.Buffer
	var total int64
	for _, f := range files {
		in.WriteString(f.id + "\n")
		total += f.size + 128
	}
	out, err := s.git(ctx, in.Bytes(), total, "cat-file", "--batch")
	if err != nil {
		return s.unreachable(err)
	}
	for _, f := range files {
		header, rest, ok := bytes.Cut(out, []byte{'\n'})
		fields := strings.Fields(string(header))
		if !ok || len(fields) != 3 || fields[0] != f.id {
			got(f, nil, errors.New("git cat-file gave no content for it"))
			return nil
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil || size > len(rest) || size > MaxRecordBytes {
			got(f, nil, errors.New("git cat-file gave a size that does not fit"))
			return nil
		}
		got(f, rest[:size], nil)
		out = bytes.TrimPrefix(rest[size:], []byte{'\n'})
	}
	return nil
}

type gitSource struct{ *gitStore }

func (g gitSource) fetch(ctx context.Context, files []fileEntry, got func(fileEntry, []byte, error)) error {
	return g.fetchBlobs(ctx, files, got)
}

func (s *gitStore) Read(ctx context.Context, q Query) (*Window, error) {
	s.stale = ""
	w, err := readFiles(ctx, gitSource{s}, s.String(), q)
	if w != nil {
		w.Note = s.stale
	}
	return w, err
}

// Write adds the record's file to the branch in a new commit and pushes
// it. A push rejected because another writer moved the branch is tried
// again on the branch as it now is, with the one new file added again,
// at most MaxPushRetries times.
func (s *gitStore) Write(ctx context.Context, rec *Record, data []byte) error {
	out, err := s.git(ctx, data, 1<<10, "hash-object", "-w", "--stdin")
	if err != nil {
		return s.unreachable(err)
	}
	blob := strings.TrimSpace(string(out))
	name := FileName(rec)
	return s.update(ctx, "evalgate: record run "+rec.RunID, func(files []fileEntry) ([]fileEntry, bool) {
		if recordFile(files, rec.RunID) != "" {
			return nil, false
		}
		return append(files, fileEntry{name: name, id: blob}), true
	})
}

// Prune removes all but the newest keep records in a new commit.
func (s *gitStore) Prune(ctx context.Context, keep int, _ string) (int, error) {
	removed := 0
	err := s.update(ctx, fmt.Sprintf("evalgate: keep the newest %d records", keep), func(files []fileEntry) ([]fileEntry, bool) {
		gone := map[string]bool{}
		for _, f := range pruned(files, keep) {
			gone[f.name] = true
		}
		removed = len(gone)
		if removed == 0 {
			return nil, false
		}
		var kept []fileEntry
		for _, f := range files {
			if !gone[f.name] {
				kept = append(kept, f)
			}
		}
		return kept, true
	})
	return removed, err
}

// update commits change's tree of the branch's files on its tip and
// pushes it; change says false when there is nothing to commit. A
// rejected push is retried from a fresh fetch.
func (s *gitStore) update(ctx context.Context, message string, change func([]fileEntry) ([]fileEntry, bool)) error {
	s.retries, s.writing = 0, true
	defer func() { s.writing = false }()
	for {
		tip, err := s.fetch(ctx)
		if err != nil {
			return err
		}
		files, err := s.tree(ctx, tip)
		if err != nil {
			return err
		}
		files, ok := change(files)
		if !ok {
			return nil
		}
		var in bytes.Buffer
		for _, f := range files {
			fmt.Fprintf(&in, "100644 blob %s\t%s\x00", f.id, f.name)
		}
		out, err := s.git(ctx, in.Bytes(), 1<<10, "mktree", "-z")
		if err != nil {
			return s.unreachable(err)
		}
		args := []string{"commit-tree", strings.TrimSpace(string(out)), "-m", message}
		if tip != "" {
			args = append(args, "-p", tip)
		}
		if out, err = s.git(ctx, nil, 1<<10, args...); err != nil {
			return s.unreachable(err)
		}
		commit := strings.TrimSpace(string(out))
		out, err = s.git(ctx, nil, 1<<20, "push", "--porcelain", "--quiet", "--", s.remote, commit+":refs/heads/"+s.branch)
		if err == nil {
			_, _ = s.git(ctx, nil, 1<<10, "update-ref", s.ref, commit)
			return nil
		}
		if !rejected(out) {
			return s.unreachable(err)
		}
		if s.retries == MaxPushRetries {
			return s.unreachable(fmt.Errorf("the push was rejected %d times: other writers moved the branch each time; try again", s.retries+1))
		}
		s.retries++
		select {
		case <-ctx.Done():
			return s.unreachable(ctx.Err())
		case <-time.After(retryWait(s.retries)):
		}
	}
}

// rejected reports whether push's porcelain output says the remote
// refused the push because the branch moved meanwhile: not a
// fast-forward any more, or made or moved by another push while this one
// was being received. A rule of the remote's or missing credentials are
// not retried.
func rejected(porcelain []byte) bool {
	for _, line := range strings.Split(string(porcelain), "\n") {
		if !strings.HasPrefix(line, "!") {
			continue
		}
		if strings.Contains(line, "[rejected]") {
			return true
		}
		for _, moved := range []string{"cannot lock ref", "reference already exists", "incorrect old value", "failed to update ref"} {
			if strings.Contains(line, "[remote rejected]") && strings.Contains(line, moved) {
				return true
			}
		}
	}
	return false
}
