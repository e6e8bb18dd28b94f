package sessions

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
)

// The access log (docs/records.md): one row for every read or change of a session's content by
// a person — who (the store's Identity, never a flag), what, which session, when and from
// where. Rows are only ever appended: each carries the SHA-256 of the row before it and of
// itself, so `examtui audit verify` finds a row edited, removed or inserted out of turn. The
// store refuses UPDATE and DELETE on the table (triggers on both engines; on PostgreSQL the
// privileges too), and a session's deletion leaves its tombstone here.

// Access is what a person did with a session's records.
type Access string

// The accesses the access log records.
const (
	AccessShow            Access = "sessions.show"
	AccessExport          Access = "sessions.export"
	AccessReplay          Access = "replay"
	AccessWatch           Access = "watch"
	AccessMonitorOpen     Access = "monitor.open"
	AccessMarks           Access = "marks"
	AccessMarking         Access = "mark"
	AccessCandidateExport Access = "candidates.export"
	AccessDelete          Access = "sessions.delete"
	AccessPurge           Access = "sessions.purge"
)

func (a Access) String() string { return string(a) }

// AccessEntry is one row of the access log.
type AccessEntry struct {
	Seq       int64     `json:"seq"`
	At        time.Time `json:"at"`
	Who       string    `json:"who"`
	Action    Access    `json:"action"`
	SessionID string    `json:"sessionId,omitempty"`
	// From is where the access came from: the host examtui ran on (and, on PostgreSQL, the
	// client address the server saw).
	From string `json:"from"`
	// Detail says more, in words that never hold the candidate's name (a format, a reason, a
	// subcommand).
	Detail   string `json:"detail,omitempty"`
	PrevHash string `json:"prevHash"`
	Hash     string `json:"hash"`
}

// accessLogSchema is the table and its append-only guard on SQLite.
var accessLogSQLite = []string{
	accessLogTable,
	`CREATE INDEX access_log_session ON access_log (session_id)`,
	`CREATE TRIGGER access_log_no_update BEFORE UPDATE ON access_log BEGIN SELECT RAISE(ABORT, 'the access log is append-only'); END`,
	`CREATE TRIGGER access_log_no_delete BEFORE DELETE ON access_log BEGIN SELECT RAISE(ABORT, 'the access log is append-only'); END`,
}

// accessLogPostgres is the table on PostgreSQL: the triggers refuse UPDATE, DELETE and
// TRUNCATE whoever asks (only the table's owner can disable them, and verify then finds what
// changed), and PUBLIC gets no UPDATE, DELETE or TRUNCATE privilege to begin with.
var accessLogPostgres = []string{
	accessLogTable,
	`CREATE INDEX access_log_session ON access_log (session_id)`,
	`CREATE FUNCTION examtui_access_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'the access log is append-only' USING ERRCODE = 'insufficient_privilege';
END $$`,
	`CREATE TRIGGER access_log_no_change BEFORE UPDATE OR DELETE ON access_log FOR EACH ROW EXECUTE FUNCTION examtui_access_log_append_only()`,
	`CREATE TRIGGER access_log_no_truncate BEFORE TRUNCATE ON access_log FOR EACH STATEMENT EXECUTE FUNCTION examtui_access_log_append_only()`,
	`REVOKE UPDATE, DELETE, TRUNCATE ON access_log FROM PUBLIC`,
}

const accessLogTable = `CREATE TABLE access_log (
	seq        BIGINT PRIMARY KEY,
	at_ns      BIGINT NOT NULL,
	who        TEXT NOT NULL,
	action     TEXT NOT NULL,
	session_id TEXT NOT NULL DEFAULT '',
	origin     TEXT NOT NULL DEFAULT '',
	detail     TEXT NOT NULL DEFAULT '',
	prev_hash  TEXT NOT NULL,
	hash       TEXT NOT NULL
)`

// RecordAccess appends e to the access log. Who is the store's Identity, At the store's clock
// and From this host unless e names one; Seq and the hashes are the log's.
func (s *Store) RecordAccess(ctx context.Context, e AccessEntry) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if e.Action == "" {
		return fmt.Errorf("%w: access without an action", ErrInvalidOption)
	}
	if e.Who == "" {
		who, err := s.Identity(ctx)
		if err != nil {
			return err
		}
		e.Who = who
	}
	if e.At.IsZero() {
		e.At = s.cfg.now()
	}
	if e.From == "" {
		e.From = s.origin(ctx)
	}
	e.Who, e.From, e.Detail = textsafe.Line(e.Who), textsafe.Line(e.From), textsafe.Line(e.Detail)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("access log: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := appendAccess(ctx, tx, &e); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("access log: %w", err)
	}
	return nil
}

// appendAccess appends e inside tx (a deletion writes its tombstone in its own transaction).
func appendAccess(ctx context.Context, tx *sqlTx, e *AccessEntry) error {
	if tx.pg {
		// Appenders take turns, so no two rows chain from the same predecessor (SQLite's
		// write transactions are serialised already).
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('examtui.access_log', 0))`); err != nil {
			return fmt.Errorf("access log: lock: %w", err)
		}
	}
	var last sql.NullInt64
	var prev sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT seq, hash FROM access_log ORDER BY seq DESC LIMIT 1`).Scan(&last, &prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("access log: last entry: %w", err)
	}
	e.Seq = last.Int64 + 1
	e.PrevHash = prev.String
	e.Hash = e.digest()
	_, err = tx.ExecContext(ctx, `INSERT INTO access_log (seq, at_ns, who, action, session_id, origin, detail, prev_hash, hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.Seq, e.At.UnixNano(), e.Who, string(e.Action), e.SessionID, e.From, e.Detail, e.PrevHash, e.Hash)
	if err != nil {
		return fmt.Errorf("access log: append: %w", err)
	}
	return nil
}

// digest is the entry's hash: SHA-256 over its fields and its predecessor's hash, in one
// canonical JSON array (so no field can bleed into the next).
func (e AccessEntry) digest() string {
	b, _ := json.Marshal([]any{e.Seq, e.At.UnixNano(), e.Who, string(e.Action), e.SessionID, e.From, e.Detail, e.PrevHash})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// origin is where this process reaches the store from: the host name, and on PostgreSQL the
// client address the server sees.
func (s *Store) origin(ctx context.Context) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	if s.engine == EnginePostgres {
		var addr sql.NullString
		if err := s.db.QueryRowContext(ctx, `SELECT host(inet_client_addr())`).Scan(&addr); err == nil && addr.Valid {
			return host + " (" + addr.String + ")"
		}
	}
	return host
}

// AccessFilter narrows AccessLog; empty fields match everything.
type AccessFilter struct {
	SessionID string
	Who       string
}

// AccessLog returns the access log's entries matching f, oldest first.
func (s *Store) AccessLog(ctx context.Context, f AccessFilter) ([]AccessEntry, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var where []string
	var args []any
	if f.SessionID != "" {
		where, args = append(where, "session_id = ?"), append(args, f.SessionID)
	}
	if f.Who != "" {
		where, args = append(where, "who = ?"), append(args, f.Who)
	}
	q := `SELECT seq, at_ns, who, action, session_id, origin, detail, prev_hash, hash FROM access_log`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY seq", args...)
	if err != nil {
		return nil, fmt.Errorf("access log: %w", err)
	}
	defer rows.Close()
	var out []AccessEntry
	for rows.Next() {
		var e AccessEntry
		var at int64
		var action string
		if err := rows.Scan(&e.Seq, &at, &e.Who, &action, &e.SessionID, &e.From, &e.Detail, &e.PrevHash, &e.Hash); err != nil {
			return nil, fmt.Errorf("access log: %w", err)
		}
		e.At, e.Action = time.Unix(0, at).UTC(), Access(action)
		out = append(out, e)
	}
	return out, rows.Err()
}

// VerifyAccessLog checks the whole chain: numbered from 1 without gaps, each entry's hash its
// own and each chaining from the one before. It returns how many entries it checked, and
// ErrAccessLogBroken naming the first entry that fails.
func (s *Store) VerifyAccessLog(ctx context.Context) (int, error) {
	all, err := s.AccessLog(ctx, AccessFilter{})
	if err != nil {
		return 0, err
	}
	prev := ""
	for i, e := range all {
		want := int64(i + 1)
		switch {
		case e.Seq != want:
			return i, fmt.Errorf("%w: entry %d is missing (found %d next)", ErrAccessLogBroken, want, e.Seq)
		case e.PrevHash != prev:
			return i, fmt.Errorf("%w: entry %d does not follow entry %d (an entry before it was changed or removed)", ErrAccessLogBroken, e.Seq, e.Seq-1)
		case e.digest() != e.Hash:
			return i, fmt.Errorf("%w: entry %d was changed after it was written", ErrAccessLogBroken, e.Seq)
		}
		prev = e.Hash
	}
	return len(all), nil
}

// migrateV11SQLite adds the access log and the recording notice's acknowledgement columns.
func migrateV11SQLite(ctx context.Context, tx *sqlTx) error {
	return tx.execAll(ctx, append(accessLogSQLite, noticeColumns...)...)
}

// migrateV11Postgres is migrateV11SQLite on PostgreSQL.
func migrateV11Postgres(ctx context.Context, tx *sqlTx) error {
	return tx.execAll(ctx, append(accessLogPostgres, noticeColumns...)...)
}
