package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/evalgate/evalgate/results"
)

// Settings say which store a command reads and writes, and how: the
// history: block of evalgate.yaml with the flags over it.
type Settings struct {
	Store  string // the URL; "" for DefaultStore
	Keep   int    // the window's size; 0 for DefaultKeep
	Ref    string // the window's ref; "" for the default branch
	Record bool   // run writes its record
	// Dir is the config's folder: a dir: store's relative path and a
	// git: store's work tree.
	Dir    string
	Getenv func(string) string
	// Agent is the agent's identity, from the config: its records are
	// the window.
	Agent *Agent
}

func (s *Settings) getenv(name string) string {
	if s.Getenv == nil {
		return os.Getenv(name)
	}
	return s.Getenv(name)
}

// URL is the store's URL.
func (s *Settings) URL() string { return cmp.Or(s.Store, DefaultStore) }

// Open opens the store.
func (s *Settings) Open(ctx context.Context) (Store, error) {
	return Open(ctx, s.URL(), Options{Dir: s.Dir, Getenv: s.Getenv})
}

// AgentID is the id the agent's records carry.
func (s *Settings) AgentID() string {
	if s.Agent == nil {
		return ""
	}
	return s.Agent.ID
}

// Meta says what started the run and of which repository: from GitHub
// Actions' variables, else from git in the config's folder.
func (s *Settings) Meta(ctx context.Context) Meta {
	m := Meta{Event: EventLocal, Ref: s.getenv("GITHUB_REF"), Commit: s.getenv("GITHUB_SHA"), Repository: s.getenv("GITHUB_REPOSITORY"), Agent: s.Agent}
	if s.getenv("GITHUB_ACTIONS") == "true" {
		switch e := s.getenv("GITHUB_EVENT_NAME"); e {
		case EventPush, EventSchedule:
			m.Event = e
		case "pull_request", "pull_request_target", "merge_group":
			m.Event = EventPullRequest
		}
	}
	if m.Ref == "" || m.Repository == "" {
		g := &gitStore{dir: s.Dir}
		if m.Ref == "" {
			if out, err := g.git(ctx, nil, 1<<10, "symbolic-ref", "--quiet", "HEAD"); err == nil {
				m.Ref = strings.TrimSpace(string(out))
			}
		}
		if m.Repository == "" {
			if out, err := g.git(ctx, nil, 1<<12, "remote", "get-url", "origin"); err == nil {
				m.Repository = repositoryOf(strings.TrimSpace(string(out)))
			}
		}
	}
	return m
}

// repositoryOf names the repository a remote URL is of, as GitHub names
// one: "owner/name", from https://host/owner/name.git or
// git@host:owner/name.git; "" for anything else (a path on disk).
func repositoryOf(url string) string {
	rest, ok := "", false
	if i := strings.Index(url, "://"); i >= 0 {
		rest = url[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest, ok = rest[j+1:], true
		}
	} else if i := strings.Index(url, ":"); i > 0 && !strings.Contains(url[:i], "/") {
		rest, ok = url[i+1:], true
	}
	if !ok {
		return ""
	}
	rest = strings.TrimSuffix(strings.TrimSuffix(rest, "/"), ".git")
	parts := strings.Split(rest, "/")
	if len(parts) < 2 || parts[len(parts)-2] == "" || parts[len(parts)-1] == "" {
		return ""
	}
	name := parts[len(parts)-2] + "/" + parts[len(parts)-1]
	if !printable(name) || len(name) > maxIDBytes {
		return ""
	}
	return name
}

// Window reads the window a run compares itself with: the newest Keep
// records of the default branch (or of Ref) of this repository and
// agent. A store that cannot be read is an error wrapping
// ErrUnreachable; the run goes on without it.
func (s *Settings) Window(ctx context.Context, m Meta) (*Window, error) {
	st, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.Read(ctx, WindowQuery(s.Keep, s.Ref, m.Repository, s.AgentID()))
}

// ErrNotRecorded is a run that is not history: a pull request's, or not a
// run of every task (RecordProblem). Its message says why.
var ErrNotRecorded = errors.New("not recorded")

// Write writes the run's record to the store, and says where. A pull
// request's run, or a run that is not of every task, is ErrNotRecorded.
func (s *Settings) Write(ctx context.Context, run *results.Run, m Meta) (string, error) {
	if m.Event == EventPullRequest {
		return "", fmt.Errorf("%w: a pull request's run only reads the history (its record would be the pull request's, not the branch's)", ErrNotRecorded)
	}
	if p := RecordProblem(run); p != "" {
		return "", fmt.Errorf("%w: %s", ErrNotRecorded, p)
	}
	rec := FromRun(run, m)
	data, err := Encode(rec)
	if err != nil {
		return "", err
	}
	st, err := s.Open(ctx)
	if err != nil {
		return "", err
	}
	defer st.Close()
	if err := st.Write(ctx, rec, data); err != nil {
		return "", err
	}
	return st.String(), nil
}
