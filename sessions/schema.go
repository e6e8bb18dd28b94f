package sessions

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// SchemaVersion is the store layout this examtui writes, on both engines. Stores written by
// older versions are migrated forward on Open; a store from a newer version is refused rather
// than misread.
const SchemaVersion = 15

// migration is one schema step, written once per engine. Both engines share the version
// numbers, so "schema version N" means the same layout whichever database holds it.
type migration struct {
	version  int
	name     string
	sqlite   func(ctx context.Context, tx *sqlTx) error
	postgres func(ctx context.Context, tx *sqlTx) error
}

// migrations run in order, all in one transaction with the version bump, so a store is never
// left half-migrated.
var migrations = []migration{
	// PostgreSQL stores were introduced at the v2 layout: nothing to do for v1 there.
	{1, "initial layout", migrateV1, func(context.Context, *sqlTx) error { return nil }},
	{2, "columnar events, owner and aggregate columns", migrateV2, pgMigrateV2},
	{3, "summarized flag (exam_completed stored)", migrateV3, migrateV3},
	{4, "commands table (the control room's channel)", migrateV4, migrateV4},
	{5, "usage column (tokens per model)", migrateV5, migrateV5},
	{6, "variant_draws table (balanced variant draws)", migrateV6, migrateV6},
	{7, "join_codes table (candidate join links)", migrateV7, migrateV7},
	{8, "marks, final_marks and mark_locks tables (marking)", migrateV8, migrateV8},
	{9, "join_codes.revoked_ns (revoked join links)", migrateV9, migrateV9},
	{10, "marking roster, candidate roster, a session's candidate id; marking's row-level security (PostgreSQL)", migrateV10, pgMigrateV10},
	{11, "access_log table (append-only, hash-chained); the recording notice's acknowledgement", migrateV11SQLite, migrateV11Postgres},
	{12, "lti_launches and lti_scores tables (LMS launches and grade passback)", migrateV12, migrateV12},
	{13, "panel_runs table (the model panel's runs, kept as marking evidence)", migrateV13, migrateV13},
	{14, "join_codes.candidate_id (the roster candidate a join link is for)", migrateV14, migrateV14},
	{15, "lti_links table (the exam an instructor tied a course link to)", migrateV15, migrateV15},
}

// migrateV3 adds the flag recovery uses to find ended sessions whose exam_completed (their
// summary) was never stored, because the owner died between the two events, and partial
// indexes over the few sessions recovery looks at.
func migrateV3(ctx context.Context, tx *sqlTx) error {
	return tx.execAll(ctx,
		`ALTER TABLE sessions ADD COLUMN summarized INTEGER NOT NULL DEFAULT 0`,
		`UPDATE sessions SET summarized = 1 WHERE id IN (SELECT DISTINCT session_id FROM events WHERE type = 'exam_completed')`,
		// Every Open looks for sessions to recover; these keep that look off the whole table.
		`CREATE INDEX sessions_live ON sessions (id) WHERE ended_ns IS NULL AND interrupted = 0`,
		`CREATE INDEX sessions_unsummarized ON sessions (id) WHERE ended_ns IS NOT NULL AND summarized = 0`,
	)
}

// schemaV1 is the first layout: events kept as whole envelope JSON, times as RFC 3339 text.
const schemaV1 = `
CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	exam_id    TEXT NOT NULL,
	title      TEXT NOT NULL,
	candidate  TEXT NOT NULL DEFAULT '',
	started_at TEXT NOT NULL,
	ended_at   TEXT,
	state      TEXT NOT NULL,
	exam_json  TEXT NOT NULL,
	spec_path  TEXT NOT NULL DEFAULT ''
);
CREATE TABLE events (
	session_id TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	type       TEXT NOT NULL,
	ts         TEXT NOT NULL,
	envelope   TEXT NOT NULL,
	PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
`

func migrateV1(ctx context.Context, tx *sqlTx) error {
	_, err := tx.ExecContext(ctx, schemaV1)
	return err
}

// schemaV2 stores the envelope in columns (type, timestamp in Unix nanoseconds, payload) so
// reading a 100k-event session does not decode 100k envelopes, keeps per-session aggregates
// so listing a thousand sessions never touches their events, and moves compiled exams to a
// content-addressed table: sessions of one exam share one copy, and a sessions row stays
// small enough to list without reading overflow pages.
const schemaV2 = `
CREATE TABLE sessions_v2 (
	id             TEXT PRIMARY KEY,
	exam_id        TEXT NOT NULL,
	title          TEXT NOT NULL,
	candidate      TEXT NOT NULL DEFAULT '',
	examiner       TEXT NOT NULL DEFAULT '',
	input          TEXT NOT NULL DEFAULT '',
	started_ns     INTEGER NOT NULL,
	ended_ns       INTEGER,
	state          TEXT NOT NULL,
	interrupted    INTEGER NOT NULL DEFAULT 0,
	exam_sha256    TEXT NOT NULL,
	spec_path      TEXT NOT NULL DEFAULT '',
	recordings     TEXT NOT NULL DEFAULT '[]',
	owner_pid      INTEGER NOT NULL DEFAULT 0,
	event_count    INTEGER NOT NULL DEFAULT 0,
	last_event_ns  INTEGER,
	evidence_count INTEGER NOT NULL DEFAULT 0,
	coverage       REAL NOT NULL DEFAULT 0
);
CREATE INDEX sessions_started ON sessions_v2(started_ns DESC);
CREATE TABLE exams (
	sha256    TEXT PRIMARY KEY,
	exam_json TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE events_v2 (
	session_id TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	type       TEXT NOT NULL,
	ts_ns      INTEGER NOT NULL,
	payload    BLOB NOT NULL,
	PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
`

func migrateV2(ctx context.Context, tx *sqlTx) error {
	if _, err := tx.ExecContext(ctx, schemaV2); err != nil {
		return err
	}
	if err := copyEventsV1(ctx, tx); err != nil {
		return err
	}
	if err := copySessionsV1(ctx, tx); err != nil {
		return err
	}
	return tx.execAll(ctx,
		`DROP TABLE events`, `DROP TABLE sessions`,
		`ALTER TABLE events_v2 RENAME TO events`, `ALTER TABLE sessions_v2 RENAME TO sessions`,
	)
}

func copyEventsV1(ctx context.Context, tx *sqlTx) error {
	rows, err := tx.QueryContext(ctx, `SELECT session_id, seq, envelope FROM events ORDER BY session_id, seq`)
	if err != nil {
		return err
	}
	defer rows.Close()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO events_v2 (session_id, seq, type, ts_ns, payload) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for rows.Next() {
		var id string
		var seq int64
		var envelope []byte
		if err := rows.Scan(&id, &seq, &envelope); err != nil {
			return err
		}
		var ev runtime.Event
		if err := json.Unmarshal(envelope, &ev); err != nil {
			return fmt.Errorf("session %s seq %d: decode v1 envelope: %w", id, seq, err)
		}
		if _, err := ins.ExecContext(ctx, id, seq, string(ev.Event), ev.Timestamp.UnixNano(), []byte(ev.Payload)); err != nil {
			return err
		}
	}
	return rows.Err()
}

type v1Session struct {
	id, examID, title, candidate, startedAt, state, examJSON, specPath string
	endedAt                                                            sql.NullString
}

func copySessionsV1(ctx context.Context, tx *sqlTx) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, exam_id, title, candidate, started_at, ended_at, state, exam_json, spec_path FROM sessions`)
	if err != nil {
		return err
	}
	var old []v1Session
	for rows.Next() {
		var s v1Session
		if err := rows.Scan(&s.id, &s.examID, &s.title, &s.candidate, &s.startedAt, &s.endedAt, &s.state, &s.examJSON, &s.specPath); err != nil {
			rows.Close()
			return err
		}
		old = append(old, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, s := range old {
		started, err := time.Parse(time.RFC3339Nano, s.startedAt)
		if err != nil {
			return fmt.Errorf("session %s: started_at %q: %w", s.id, s.startedAt, err)
		}
		var ended sql.NullInt64
		if s.endedAt.Valid {
			t, err := time.Parse(time.RFC3339Nano, s.endedAt.String)
			if err != nil {
				return fmt.Errorf("session %s: ended_at %q: %w", s.id, s.endedAt.String, err)
			}
			ended = sql.NullInt64{Int64: t.UnixNano(), Valid: true}
		}
		// v1 kept no aggregates: rebuild them from the session's events with the same code
		// the journal uses, so a migrated session lists exactly like a new one.
		var exam spec.Exam
		if err := json.Unmarshal([]byte(s.examJSON), &exam); err != nil {
			return fmt.Errorf("session %s: decode exam: %w", s.id, err)
		}
		agg := newAggregate(&exam, runtime.ExamState(s.state))
		if err := replayAggregate(ctx, tx, s.id, "events_v2", agg); err != nil {
			return fmt.Errorf("session %s: %w", s.id, err)
		}
		if !ended.Valid && agg.endedNs != 0 {
			ended = sql.NullInt64{Int64: agg.endedNs, Valid: true}
		}
		sum, err := putExam(ctx, tx, []byte(s.examJSON))
		if err != nil {
			return fmt.Errorf("session %s: %w", s.id, err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sessions_v2 (id, exam_id, title, candidate, started_ns, ended_ns,
			state, exam_sha256, spec_path, event_count, last_event_ns, evidence_count, coverage)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.id, s.examID, s.title, s.candidate, started.UnixNano(), ended, string(agg.state), sum, s.specPath,
			agg.eventCount, nullNs(agg.lastEventNs), agg.evidenceCount, agg.coverage())
		if err != nil {
			return err
		}
	}
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// putExam stores a compiled exam once under its SHA-256 and returns the hash.
func putExam(ctx context.Context, x execer, examJSON []byte) (string, error) {
	h := sha256.Sum256(examJSON)
	sum := hex.EncodeToString(h[:])
	if _, err := x.ExecContext(ctx, `INSERT INTO exams (sha256, exam_json) VALUES (?, ?) ON CONFLICT DO NOTHING`, sum, string(examJSON)); err != nil {
		return "", fmt.Errorf("store exam: %w", err)
	}
	return sum, nil
}

func nullNs(ns int64) sql.NullInt64 {
	return sql.NullInt64{Int64: ns, Valid: ns != 0}
}

// replayAggregate feeds a session's stored events through agg.
func replayAggregate(ctx context.Context, q querier, id, table string, agg *aggregate) error {
	rows, err := q.QueryContext(ctx, `SELECT seq, type, ts_ns, payload FROM `+table+` WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		ev, err := scanEvent(rows, id)
		if err != nil {
			return err
		}
		agg.apply(ev)
	}
	return rows.Err()
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

type scanner interface {
	Scan(dest ...any) error
}

func scanEvent(r scanner, sessionID string) (runtime.Event, error) {
	var (
		ev      runtime.Event
		typ     string
		tsNs    int64
		payload []byte
	)
	if err := r.Scan(&ev.Seq, &typ, &tsNs, &payload); err != nil {
		return runtime.Event{}, fmt.Errorf("scan event: %w", err)
	}
	ev.Event = runtime.EventType(typ)
	ev.SessionID = sessionID
	ev.Timestamp = time.Unix(0, tsNs).UTC()
	ev.Payload = payload
	return ev, nil
}

// migrate brings the store to SchemaVersion.
func migrate(ctx context.Context, db *sqlDB) error {
	// Fast path: a store already at this version needs no write transaction (and, on
	// PostgreSQL, no migration lock), which is most opens.
	var v int
	fastErr := db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if fastErr == nil && v == SchemaVersion {
		return nil
	}
	if db.pg {
		// A marker's or moderator's role reads the store; only its owner creates or migrates
		// it, so such a role is told so instead of attempting DDL it has no right to.
		owner, err := pgIsOwner(ctx, db)
		if err != nil {
			return fmt.Errorf("check the store's owner: %w", err)
		}
		if !owner && fastErr != nil {
			return fmt.Errorf("%w: %w", ErrNoAccess, fastErr)
		}
		if !owner {
			return fmt.Errorf("%w: the store is at schema version %d, this examtui needs %d", ErrNeedsOwner, v, SchemaVersion)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if db.pg {
		// Processes opening a new database at once must not both create the tables: the
		// first migrates, the others wait here and then find it done. (SQLite's immediate
		// transactions serialise this already.)
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('examtui.migrate', 0))`); err != nil {
			return fmt.Errorf("lock for migration: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_version: %w", err)
	}
	var current int
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&current)
	switch {
	case err == sql.ErrNoRows:
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return fmt.Errorf("init schema_version: %w", err)
		}
	case err != nil:
		return fmt.Errorf("read schema version: %w", err)
	}
	if current > SchemaVersion {
		return fmt.Errorf("%w: schema version %d, this examtui reads up to %d", ErrStoreTooNew, current, SchemaVersion)
	}
	for _, m := range migrations {
		if m.version <= current {
			continue
		}
		up := m.sqlite
		if db.pg {
			up = m.postgres
		}
		if err := up(ctx, tx); err != nil {
			return fmt.Errorf("migrate to v%d (%s): %w", m.version, m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, m.version); err != nil {
			return fmt.Errorf("record schema v%d: %w", m.version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	return nil
}
