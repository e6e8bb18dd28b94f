package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Marks (docs/marking.md). A marker's level for one criterion of one session is one row of
// marks; an adjudicated final level is one row of final_marks; a locked session has one row
// of mark_locks with the digest over its events and marks and the manifest that lets
// `marks verify` name what changed. Once a session is locked the store refuses every further
// mark, final mark or lock for it, whatever path asks, so a lock cannot be talked round.
const marksSchema = `
CREATE TABLE IF NOT EXISTS marks (
	session_id    TEXT NOT NULL,
	criterion     TEXT NOT NULL,
	marker        TEXT NOT NULL,
	level         TEXT NOT NULL,
	marks         INTEGER NOT NULL,
	justification TEXT NOT NULL,
	at_ns         BIGINT NOT NULL,
	PRIMARY KEY (session_id, criterion, marker)
);
CREATE TABLE IF NOT EXISTS final_marks (
	session_id    TEXT NOT NULL,
	criterion     TEXT NOT NULL,
	marker        TEXT NOT NULL,
	level         TEXT NOT NULL,
	marks         INTEGER NOT NULL,
	justification TEXT NOT NULL,
	at_ns         BIGINT NOT NULL,
	PRIMARY KEY (session_id, criterion)
);
CREATE TABLE IF NOT EXISTS mark_locks (
	session_id TEXT PRIMARY KEY,
	marker     TEXT NOT NULL,
	at_ns      BIGINT NOT NULL,
	digest     TEXT NOT NULL,
	manifest   TEXT NOT NULL
)`

// migrateV8 adds the marks, final_marks and mark_locks tables (same SQL on both engines).
func migrateV8(ctx context.Context, tx *sqlTx) error {
	for _, stmt := range strings.Split(marksSchema, ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// Mark is one marker's level for one criterion of one session; for a final mark, Marker is
// the adjudicator.
type Mark struct {
	SessionID     string    `json:"sessionId"`
	Criterion     string    `json:"criterion"`
	Marker        string    `json:"marker"`
	Level         string    `json:"level"`
	Marks         int       `json:"marks"`
	Justification string    `json:"justification"`
	At            time.Time `json:"at"`
}

// MarkLock is a session's finalised marking: who locked it, when, and the digest over its
// events and marks (Manifest: the canonical per-item hashes the digest covers).
type MarkLock struct {
	SessionID string    `json:"sessionId"`
	Marker    string    `json:"marker"`
	At        time.Time `json:"at"`
	Digest    string    `json:"digest"`
	Manifest  string    `json:"manifest"`
}

func (m Mark) validate() error {
	switch {
	case strings.TrimSpace(m.SessionID) == "":
		return fmt.Errorf("%w: no session", ErrInvalidMark)
	case strings.TrimSpace(m.Criterion) == "":
		return fmt.Errorf("%w: no criterion", ErrInvalidMark)
	case strings.TrimSpace(m.Marker) == "":
		return fmt.Errorf("%w: no marker", ErrInvalidMark)
	case strings.TrimSpace(m.Level) == "":
		return fmt.Errorf("%w: no level", ErrInvalidMark)
	case m.Marks < 0:
		return fmt.Errorf("%w: negative marks %d", ErrInvalidMark, m.Marks)
	case m.At.IsZero():
		return fmt.Errorf("%w: no time", ErrInvalidMark)
	}
	return nil
}

// SetMark records (or replaces) a marker's level for a criterion of a session.
func (s *Store) SetMark(ctx context.Context, m Mark) error {
	if err := s.putMark(ctx, "marks", `(session_id, criterion, marker) DO UPDATE SET level = excluded.level,
		marks = excluded.marks, justification = excluded.justification, at_ns = excluded.at_ns`, m); err != nil {
		return fmt.Errorf("set mark of %s/%s by %s: %w", m.SessionID, m.Criterion, m.Marker, err)
	}
	return nil
}

// SetFinalMark records (or replaces) the adjudicated final level for a criterion of a session.
func (s *Store) SetFinalMark(ctx context.Context, m Mark) error {
	if err := s.putMark(ctx, "final_marks", `(session_id, criterion) DO UPDATE SET marker = excluded.marker,
		level = excluded.level, marks = excluded.marks, justification = excluded.justification, at_ns = excluded.at_ns`, m); err != nil {
		return fmt.Errorf("set final mark of %s/%s by %s: %w", m.SessionID, m.Criterion, m.Marker, err)
	}
	return nil
}

func (s *Store) putMark(ctx context.Context, table, conflict string, m Mark) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := m.validate(); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.lockSessionMarks(ctx, tx, m.SessionID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (session_id, criterion, marker, level, marks, justification, at_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT `+conflict,
		m.SessionID, m.Criterion, m.Marker, m.Level, m.Marks, m.Justification, m.At.UnixNano()); err != nil {
		return err
	}
	return tx.Commit()
}

// lockSessionMarks checks, inside tx, that the session exists and is not locked; on
// PostgreSQL it first takes the session's marking lock, so a mark and a lock of the same
// session never interleave (SQLite's write transactions are serialised already).
func (s *Store) lockSessionMarks(ctx context.Context, tx *sqlTx, id string) error {
	if s.engine == EnginePostgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(?))`, "examtui.marks:"+id); err != nil {
			return err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	var marker string
	var atNs int64
	err := tx.QueryRowContext(ctx, `SELECT marker, at_ns FROM mark_locks WHERE session_id = ?`, id).Scan(&marker, &atNs)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("%w: by %s at %s", ErrMarksLocked, marker, time.Unix(0, atNs).UTC().Format(time.RFC3339))
}

// Marks returns every marker's marks of a session, by criterion then marker.
func (s *Store) Marks(ctx context.Context, sessionID string) ([]Mark, error) {
	return s.readMarks(ctx, `SELECT session_id, criterion, marker, level, marks, justification, at_ns FROM marks
		WHERE session_id = ? ORDER BY criterion, marker`, sessionID)
}

// FinalMarks returns a session's adjudicated final marks, by criterion.
func (s *Store) FinalMarks(ctx context.Context, sessionID string) ([]Mark, error) {
	return s.readMarks(ctx, `SELECT session_id, criterion, marker, level, marks, justification, at_ns FROM final_marks
		WHERE session_id = ? ORDER BY criterion`, sessionID)
}

// ExamMarks returns every marker's marks of every session of an exam, by session, criterion
// and marker: what agreement is computed over.
func (s *Store) ExamMarks(ctx context.Context, examID string) ([]Mark, error) {
	return s.readMarks(ctx, `SELECT m.session_id, m.criterion, m.marker, m.level, m.marks, m.justification, m.at_ns
		FROM marks m JOIN sessions ON sessions.id = m.session_id WHERE sessions.exam_id = ?
		ORDER BY m.session_id, m.criterion, m.marker`, examID)
}

func (s *Store) readMarks(ctx context.Context, q string, arg string) ([]Mark, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, q, arg)
	if err != nil {
		return nil, fmt.Errorf("read marks of %s: %w", arg, err)
	}
	defer rows.Close()
	var out []Mark
	for rows.Next() {
		var m Mark
		var atNs int64
		if err := rows.Scan(&m.SessionID, &m.Criterion, &m.Marker, &m.Level, &m.Marks, &m.Justification, &atNs); err != nil {
			return nil, fmt.Errorf("read marks of %s: %w", arg, err)
		}
		m.At = time.Unix(0, atNs).UTC()
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read marks of %s: %w", arg, err)
	}
	return out, nil
}

// LockMarks finalises a session's marking. A session is locked once: a second lock is
// refused with ErrMarksLocked.
func (s *Store) LockMarks(ctx context.Context, l MarkLock) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if strings.TrimSpace(l.Marker) == "" || l.Digest == "" || l.At.IsZero() {
		return fmt.Errorf("lock marks of %s: %w: a lock needs a marker, a time and a digest", l.SessionID, ErrInvalidMark)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.lockSessionMarks(ctx, tx, l.SessionID); err != nil {
		return fmt.Errorf("lock marks of %s: %w", l.SessionID, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO mark_locks (session_id, marker, at_ns, digest, manifest) VALUES (?, ?, ?, ?, ?)`,
		l.SessionID, l.Marker, l.At.UnixNano(), l.Digest, l.Manifest); err != nil {
		return fmt.Errorf("lock marks of %s: %w", l.SessionID, err)
	}
	return tx.Commit()
}

// MarkLock returns a session's lock, and false when it is not locked.
func (s *Store) MarkLock(ctx context.Context, sessionID string) (MarkLock, bool, error) {
	if err := s.checkOpen(); err != nil {
		return MarkLock{}, false, err
	}
	l := MarkLock{SessionID: sessionID}
	var atNs int64
	err := s.db.QueryRowContext(ctx, `SELECT marker, at_ns, digest, manifest FROM mark_locks WHERE session_id = ?`, sessionID).
		Scan(&l.Marker, &atNs, &l.Digest, &l.Manifest)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return MarkLock{}, false, nil
	case err != nil:
		return MarkLock{}, false, fmt.Errorf("read lock of %s: %w", sessionID, err)
	}
	l.At = time.Unix(0, atNs).UTC()
	return l, true, nil
}

// markableExam matches the compiled exams that carry a marking scheme. The compiled JSON has
// a top-level "marking" key only then, and a string value cannot hold that text unescaped.
const markableExam = `exams.exam_json LIKE '%"marking":{%'`

// AwaitingMarks counts finished sessions of exams with a marking scheme whose marking is not
// locked yet, candidate scripts' sessions (ScriptCandidatePrefix) left out: what the control
// room shows as waiting to be marked.
func (s *Store) AwaitingMarks(ctx context.Context) (int, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions JOIN exams ON exams.sha256 = sessions.exam_sha256
		WHERE sessions.ended_ns IS NOT NULL AND `+markableExam+` AND sessions.candidate NOT LIKE 'script:%'

		AND NOT EXISTS (SELECT 1 FROM mark_locks WHERE mark_locks.session_id = sessions.id)`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count sessions awaiting marks: %w", err)
	}
	return n, nil
}

// LockedSessions returns the ids of an exam's sessions whose marking is locked.
func (s *Store) LockedSessions(ctx context.Context, examID string) (map[string]bool, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT mark_locks.session_id FROM mark_locks JOIN sessions ON sessions.id = mark_locks.session_id
		WHERE sessions.exam_id = ?`, examID)
	if err != nil {
		return nil, fmt.Errorf("locked sessions of %s: %w", examID, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// MarkCounts is how many markers gave each criterion of a session a level, whoever may read
// those levels (on PostgreSQL through a function that counts past the row-level security, and
// tells nothing else).
func (s *Store) MarkCounts(ctx context.Context, sessionID string) (map[string]int, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	q := `SELECT criterion, COUNT(*) FROM marks WHERE session_id = ? GROUP BY criterion`
	if s.engine == EnginePostgres {
		q = `SELECT criterion, n FROM examtui_mark_counts(?)`
	}
	rows, err := s.db.QueryContext(ctx, q, sessionID)
	if err != nil {
		return nil, fmt.Errorf("count marks of %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var c string
		var n int
		if err := rows.Scan(&c, &n); err != nil {
			return nil, err
		}
		out[c] = n
	}
	return out, rows.Err()
}
