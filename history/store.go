package history

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/spelling"
	"github.com/evalgate/evalgate/internal/words"
)

// Prefixes of a store's URL.
const (
	DirPrefix      = "dir:"
	GitPrefix      = "git:"
	PostgresPrefix = "postgres:"
)

// DefaultStore is the store of a project that names none.
const DefaultStore = "dir:.evalgate/history"

// DefaultBranch is the branch of a git: store that names none.
const DefaultBranch = "evalgate-history"

// DefaultKeep is how many records the window holds when history.keep
// says nothing.
const DefaultKeep = 100

// DSNVar holds the connection string of a store named "postgres:" alone.
const DSNVar = "EVALGATE_HISTORY_DSN"

// WindowEvents are the events of the records a window reads by default:
// runs of the default branch (pushes and schedules) and runs on a
// machine, never a pull request's.
var WindowEvents = []string{EventPush, EventSchedule, EventLocal}

// Store is where the records are kept: a folder, a branch of the
// repository, or a PostgreSQL database.
type Store interface {
	// Write stores a record, encoded by Encode. A record of the same run
	// already there is left as it is: a retried write changes nothing.
	Write(ctx context.Context, rec *Record, data []byte) error
	// Read returns the records q selects, oldest first, with those it
	// skipped.
	Read(ctx context.Context, q Query) (*Window, error)
	// Prune removes all but the newest keep records of q's repository
	// (all of them when it is ""), and says how many it removed.
	Prune(ctx context.Context, keep int, repository string) (int, error)
	// Close releases the store's connection, if any.
	Close() error
	// String names the store in messages, without credentials.
	String() string
}

// Query selects records.
type Query struct {
	// Events keeps records of these events; nil keeps every event.
	Events []string
	// Ref keeps records of this ref (refs/heads/main); "" any.
	Ref string
	// Repository keeps records of this repository and those that name
	// none; "" any.
	Repository string
	// Agent keeps records of this agent id; AnyAgent keeps all.
	Agent string
	// RunID keeps the record of this run only; "" any.
	RunID string
	// Limit keeps the newest Limit records; 0 keeps all.
	Limit int
}

// AnyAgent is Query.Agent for records of every agent.
const AnyAgent = "\x00any"

// WindowQuery is the query of the window a run reads: the newest keep
// records of the default branch (or of ref, when given), of this
// repository and agent.
func WindowQuery(keep int, ref, repository, agent string) Query {
	q := Query{Events: WindowEvents, Repository: repository, Agent: agent, Limit: keep}
	if q.Limit <= 0 {
		q.Limit = DefaultKeep
	}
	if ref != "" {
		q.Events, q.Ref = nil, ref
	}
	return q
}

// matches reports whether rec is one q selects.
func (q *Query) matches(rec *Record) bool {
	if q.Events != nil && !slices.Contains(q.Events, rec.Event) {
		return false
	}
	if q.Ref != "" && rec.Ref != q.Ref && rec.Ref != "refs/heads/"+q.Ref {
		return false
	}
	if q.Repository != "" && rec.Repository != "" && rec.Repository != q.Repository {
		return false
	}
	if q.Agent != AnyAgent && agentID(rec) != q.Agent {
		return false
	}
	return q.RunID == "" || rec.RunID == q.RunID
}

func agentID(rec *Record) string {
	if rec.Agent == nil {
		return ""
	}
	return rec.Agent.ID
}

// Window is what a read found: the records, oldest first, and those it
// skipped with the reason.
type Window struct {
	Store   string
	Records []*Record
	Skipped []Skipped
	// Note says how the read fell short without failing: a git: store
	// read from the copy fetched before, when the branch could not be
	// fetched.
	Note string
}

// Skipped is a record a read did not take: its name in the store (a file,
// a run id) and what was wrong with it.
type Skipped struct {
	Name   string
	Reason string
}

// Warning says, in one line, which records were skipped and why; "" when
// none was.
func (w *Window) Warning() string {
	if w == nil || len(w.Skipped) == 0 && w.Note == "" {
		return ""
	}
	var b strings.Builder
	if w.Note != "" {
		b.WriteString("history: " + w.Note)
		if len(w.Skipped) == 0 {
			return b.String()
		}
		b.WriteString("; ")
	}
	fmt.Fprintf(&b, "history: skipped %d %s in %s:", len(w.Skipped), words.Plural(len(w.Skipped), "record", "records"), w.Store)
	for i, s := range w.Skipped {
		if i == 5 {
			fmt.Fprintf(&b, " … and %d more", len(w.Skipped)-i)
			break
		}
		fmt.Fprintf(&b, " %s (%s);", s.Name, s.Reason)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Options say where a store's relative paths and repository are.
type Options struct {
	// Dir is the folder a dir: store's relative path is relative to, and
	// the git work tree a git: store is a branch of.
	Dir string
	// Getenv reads the environment (EVALGATE_HISTORY_DSN); os.Getenv when
	// nil.
	Getenv func(string) string
	// Remote is the git remote of a git: store; "origin" when "".
	Remote string
}

// ErrUnreachable wraps every error of a store that could not be reached
// or read: the run goes on without its history.
var ErrUnreachable = errors.New("history store unreachable")

// UsageError is a store URL that names no store evalgate has.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// Check checks a store URL without reaching the store: a *UsageError
// when evalgate cannot read it.
func Check(url string, getenv func(string) string) error {
	switch {
	case strings.HasPrefix(url, DirPrefix):
		_, err := openDir(strings.TrimPrefix(url, DirPrefix), Options{})
		return err
	case strings.HasPrefix(url, GitPrefix):
		_, err := openGit(strings.TrimPrefix(url, GitPrefix), Options{})
		return err
	case url == PostgresPrefix || strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://"):
		_, _, err := pgConfig(url, getenv)
		return err
	}
	_, err := Open(context.Background(), url, Options{})
	return err
}

// Open opens the store a URL names: dir:PATH, git:BRANCH, postgres: (the
// DSN from EVALGATE_HISTORY_DSN) or a postgres:// or postgresql:// URL.
// A URL evalgate cannot read is a *UsageError; a store that cannot be
// reached wraps ErrUnreachable. Nothing it says holds a password.
func Open(ctx context.Context, url string, o Options) (Store, error) {
	switch {
	case strings.HasPrefix(url, DirPrefix):
		return openDir(strings.TrimPrefix(url, DirPrefix), o)
	case strings.HasPrefix(url, GitPrefix):
		return openGit(strings.TrimPrefix(url, GitPrefix), o)
	case url == PostgresPrefix || strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://"):
		return openPostgres(ctx, url, o)
	}
	msg := fmt.Sprintf("history store %q: expected dir:PATH, git:BRANCH, postgres: (with %s) or a postgres:// URL", redact.New().String(clip(url)), DSNVar)
	if scheme, _, ok := strings.Cut(url, ":"); ok {
		if near := spelling.Nearest(scheme+":", []string{DirPrefix, GitPrefix, PostgresPrefix}, 2); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		}
	}
	return nil, &UsageError{msg}
}
