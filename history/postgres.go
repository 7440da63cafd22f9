package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/evalgate/evalgate/internal/redact"
)

// SchemaVersion is the version of the tables this evalgate reads and
// writes; `evalgate history migrate` brings a database to it.
const SchemaVersion = 1

// migrations are the statements that bring the tables from version i to
// i+1, at index i.
var migrations = [][]string{
	{
		`CREATE TABLE evalgate_history_runs (
			run_id      text PRIMARY KEY,
			started_at  timestamptz NOT NULL,
			event       text NOT NULL,
			ref         text NOT NULL DEFAULT '',
			repository  text NOT NULL DEFAULT '',
			agent_id    text NOT NULL DEFAULT '',
			record      jsonb NOT NULL,
			recorded_at timestamptz NOT NULL DEFAULT now()
		)`,
		`CREATE INDEX evalgate_history_runs_window ON evalgate_history_runs (repository, started_at DESC, run_id DESC)`,
	},
}

// connectTimeout bounds connecting when the DSN sets no connect_timeout.
const connectTimeout = 15 * time.Second

// pgStore keeps the records in a PostgreSQL database, one row per run.
type pgStore struct {
	conn *pgx.Conn
	name string // the URL, password masked
	red  *redact.Redactor
}

// openPostgres connects to the database of url (postgres: alone reads
// the DSN from EVALGATE_HISTORY_DSN). Every message is redacted of the
// password.
func openPostgres(ctx context.Context, url string, o Options) (Store, error) {
	cfg, red, err := pgConfig(url, o.Getenv)
	if err != nil {
		return nil, err
	}
	s := &pgStore{name: PostgresPrefix + "//" + dsnHost(cfg), red: red}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, s.unreachable(err)
	}
	s.conn = conn
	return s, nil
}

// pgConfig parses the store's URL, or the DSN EVALGATE_HISTORY_DSN holds
// for "postgres:", and returns the redactor of its password.
func pgConfig(url string, getenv func(string) string) (*pgx.ConnConfig, *redact.Redactor, error) {
	dsn := url
	if url == PostgresPrefix {
		if getenv == nil {
			getenv = os.Getenv
		}
		if dsn = getenv(DSNVar); dsn == "" {
			return nil, nil, &UsageError{fmt.Sprintf("history store \"postgres:\": set %s to the database's connection string (postgres://user:password@host:5432/db)", DSNVar)}
		}
	}
	red := redact.New(redact.URLSecrets(dsn)...)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, nil, &UsageError{fmt.Sprintf("history store %s: %s", red.String(dsnName(dsn)), red.String(pgMessage(err)))}
	}
	return cfg, redact.New(append(redact.URLSecrets(dsn), cfg.Password)...), nil
}

// Secrets are the credentials a store's URL holds (the password of a
// postgres: store's DSN, as it is and as HTTP Basic would carry it), for
// everything evalgate prints to redact; none for other stores.
func Secrets(url string, getenv func(string) string) []string {
	if url != PostgresPrefix && !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return nil
	}
	dsn := url
	if url == PostgresPrefix {
		if getenv == nil {
			getenv = os.Getenv
		}
		dsn = getenv(DSNVar)
	}
	out := redact.URLSecrets(dsn)
	if cfg, err := pgx.ParseConfig(dsn); err == nil && cfg.Password != "" {
		out = append(out, cfg.Password)
	}
	return out
}

// dsnName names a DSN that did not parse: its scheme and host at most.
func dsnName(dsn string) string {
	if i := strings.Index(dsn, "@"); i >= 0 {
		dsn = dsn[i+1:]
	}
	return clip(dsn)
}

// dsnHost names the database: user, host, port and database, never the
// password.
func dsnHost(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}

func (s *pgStore) String() string { return s.name }

func (s *pgStore) Close() error {
	if s.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.conn.Close(ctx)
}

func (s *pgStore) unreachable(err error) error {
	return fmt.Errorf("%w: %s: %s", ErrUnreachable, s.name, s.red.String(pgMessage(err)))
}

// pgMessage words a driver error: the server's message and code, or the
// connection's error.
func pgMessage(err error) string {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return fmt.Sprintf("%s (SQLSTATE %s)", pe.Message, pe.Code)
	}
	return err.Error()
}

// undefinedTable is the SQLSTATE of a table that does not exist.
const undefinedTable = "42P01"

// version is the tables' version: 0 when there are none.
func (s *pgStore) version(ctx context.Context) (int, error) {
	var v *int
	err := s.conn.QueryRow(ctx, `SELECT max(version) FROM evalgate_history_schema`).Scan(&v)
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == undefinedTable {
		return 0, nil
	}
	if err != nil {
		return 0, s.unreachable(err)
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}

// ready checks that the tables are at SchemaVersion.
func (s *pgStore) ready(ctx context.Context) error {
	v, err := s.version(ctx)
	switch {
	case err != nil:
		return err
	case v == 0:
		return fmt.Errorf("%w: %s holds no evalgate history tables yet: run evalgate history migrate --store %s", ErrUnreachable, s.name, s.name)
	case v > SchemaVersion:
		return fmt.Errorf("%w: %s was migrated by a newer evalgate (version %d; this one knows %d): upgrade evalgate", ErrUnreachable, s.name, v, SchemaVersion)
	case v < SchemaVersion:
		return fmt.Errorf("%w: %s has the tables of version %d: run evalgate history migrate --store %s", ErrUnreachable, s.name, v, s.name)
	}
	return nil
}

// Migrate brings the tables to SchemaVersion, in one transaction under a
// lock, so two migrations at once do it once. It says from which version.
func Migrate(ctx context.Context, st Store) (from int, err error) {
	s, ok := st.(*pgStore)
	if !ok {
		return 0, &UsageError{fmt.Sprintf("%s needs no migration: only a postgres: store has tables", st)}
	}
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		return 0, s.unreachable(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit, a no-op
	stmts := []string{
		`SELECT pg_advisory_xact_lock(hashtext('evalgate_history'))`,
		`CREATE TABLE IF NOT EXISTS evalgate_history_schema (version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`,
	}
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return 0, s.unreachable(err)
		}
	}
	var v *int
	if err := tx.QueryRow(ctx, `SELECT max(version) FROM evalgate_history_schema`).Scan(&v); err != nil {
		return 0, s.unreachable(err)
	}
	if v != nil {
		from = *v
	}
	if from > SchemaVersion {
		return from, fmt.Errorf("%s was migrated by a newer evalgate (version %d; this one knows %d): upgrade evalgate", s.name, from, SchemaVersion)
	}
	for i := from; i < SchemaVersion; i++ {
		for _, q := range migrations[i] {
			if _, err := tx.Exec(ctx, q); err != nil {
				return from, s.unreachable(err)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO evalgate_history_schema (version) VALUES ($1)`, i+1); err != nil {
			return from, s.unreachable(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return from, s.unreachable(err)
	}
	return from, nil
}

// Write inserts the record's row; a row of the same run id stays as it
// is.
func (s *pgStore) Write(ctx context.Context, rec *Record, data []byte) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	_, err := s.conn.Exec(ctx, `INSERT INTO evalgate_history_runs (run_id, started_at, event, ref, repository, agent_id, record)
		VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) ON CONFLICT (run_id) DO NOTHING`,
		rec.RunID, rec.StartedAt, rec.Event, rec.Ref, rec.Repository, agentID(rec), string(data))
	if err != nil {
		return s.unreachable(err)
	}
	return nil
}

// Read selects the rows by their columns, newest first, and decodes and
// checks each record as any store's; a record over MaxRecordBytes is not
// sent at all.
func (s *pgStore) Read(ctx context.Context, q Query) (*Window, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	var limit *int
	if q.Limit > 0 {
		limit = &q.Limit
	}
	agent := q.Agent
	anyAgent := agent == AnyAgent
	if anyAgent {
		agent = ""
	}
	events := q.Events
	if events == nil {
		events = []string{}
	}
	rows, err := s.conn.Query(ctx, `SELECT run_id, octet_length(record::text),
			CASE WHEN octet_length(record::text) <= $1 THEN record::text END
		FROM evalgate_history_runs
		WHERE ($2 = '' OR repository = $2 OR repository = '')
		  AND (cardinality($3::text[]) = 0 OR event = ANY($3))
		  AND ($4 = '' OR ref = $4 OR ref = 'refs/heads/' || $4)
		  AND ($5 OR agent_id = $6)
		  AND ($7 = '' OR run_id = $7)
		ORDER BY started_at DESC, run_id DESC
		LIMIT $8`,
		MaxRecordBytes, q.Repository, events, q.Ref, anyAgent, agent, q.RunID, limit)
	if err != nil {
		return nil, s.unreachable(err)
	}
	defer rows.Close()
	w := &Window{Store: s.name}
	for rows.Next() {
		var id string
		var size int64
		var text *string
		if err := rows.Scan(&id, &size, &text); err != nil {
			return nil, s.unreachable(err)
		}
		name := "run " + clip(id)
		if text == nil {
			w.Skipped = append(w.Skipped, Skipped{Name: name, Reason: "the record is " + sizeOf(size) + ", over the " + sizeOf(MaxRecordBytes) + " a record may hold"})
			continue
		}
		rec, err := Decode([]byte(*text))
		switch {
		case err != nil:
			w.Skipped = append(w.Skipped, Skipped{Name: name, Reason: err.Error()})
		case rec.RunID != id:
			w.Skipped = append(w.Skipped, Skipped{Name: name, Reason: "its runId " + clip(rec.RunID) + " is not the row's"})
		case q.matches(rec):
			w.Records = append(w.Records, rec)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.unreachable(err)
	}
	for i, j := 0, len(w.Records)-1; i < j; i, j = i+1, j-1 {
		w.Records[i], w.Records[j] = w.Records[j], w.Records[i]
	}
	return w, nil
}

// Prune deletes all but the newest keep rows of the repository (of every
// repository when it is "").
func (s *pgStore) Prune(ctx context.Context, keep int, repository string) (int, error) {
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	tag, err := s.conn.Exec(ctx, `DELETE FROM evalgate_history_runs WHERE ($1 = '' OR repository = $1) AND run_id NOT IN (
			SELECT run_id FROM evalgate_history_runs WHERE ($1 = '' OR repository = $1)
			ORDER BY started_at DESC, run_id DESC LIMIT $2)`, repository, keep)
	if err != nil {
		return 0, s.unreachable(err)
	}
	return int(tag.RowsAffected()), nil
}
