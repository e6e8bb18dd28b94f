package sessions

import (
	"context"
	"fmt"
	"time"
)

// PanelRun is one run of the model panel on a session, kept as evidence: who ran it, when, and
// the panel's whole result as JSON (members, models, endpoints, prompt digests, replies,
// citations, revision round), which the store does not interpret.
type PanelRun struct {
	SessionID string
	Seq       int // 1 for a session's first run
	RunBy     string
	At        time.Time
	Result    []byte
}

// migrateV13 adds panel_runs, the model panel's runs per session (same SQL on both engines).
func migrateV13(ctx context.Context, tx *sqlTx) error {
	return tx.execAll(ctx,
		`CREATE TABLE panel_runs (
			session_id TEXT NOT NULL,
			seq        INTEGER NOT NULL,
			run_by     TEXT NOT NULL,
			at_ns      BIGINT NOT NULL,
			result     TEXT NOT NULL,
			PRIMARY KEY (session_id, seq))`)
}

// PutPanelRun stores a panel run as the session's next (its Seq is set), refused once the
// session's marking is locked: the lock covers the runs it saw.
func (s *Store) PutPanelRun(ctx context.Context, r *PanelRun) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.lockSessionMarks(ctx, tx, r.SessionID); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM panel_runs WHERE session_id = ?`, r.SessionID).Scan(&n); err != nil {
		return err
	}
	r.Seq = n + 1
	if _, err := tx.ExecContext(ctx, `INSERT INTO panel_runs (session_id, seq, run_by, at_ns, result) VALUES (?, ?, ?, ?, ?)`,
		r.SessionID, r.Seq, r.RunBy, r.At.UnixNano(), string(r.Result)); err != nil {
		return fmt.Errorf("store panel run of %s: %w", r.SessionID, err)
	}
	return tx.Commit()
}

// PanelRuns returns a session's panel runs, oldest first.
func (s *Store) PanelRuns(ctx context.Context, sessionID string) ([]PanelRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, run_by, at_ns, result FROM panel_runs WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PanelRun
	for rows.Next() {
		r := PanelRun{SessionID: sessionID}
		var atNs int64
		var res string
		if err := rows.Scan(&r.Seq, &r.RunBy, &atNs, &res); err != nil {
			return nil, err
		}
		r.At, r.Result = time.Unix(0, atNs).UTC(), []byte(res)
		out = append(out, r)
	}
	return out, rows.Err()
}
