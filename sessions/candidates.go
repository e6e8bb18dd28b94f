package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Candidate is one entry of the candidate roster: the institution's identifiers for a person
// who takes exams, which the gradebook exports carry so an LMS can match its rows
// (docs/marking.md, "Candidates"). Only CandidateID is required.
type Candidate struct {
	CandidateID string `json:"candidateId"`
	Name        string `json:"name,omitempty"`
	Email       string `json:"email,omitempty"`
	Username    string `json:"username,omitempty"`
	SISUserID   string `json:"sisUserId,omitempty"`
	SISLoginID  string `json:"sisLoginId,omitempty"`
	LMSUserID   string `json:"lmsUserId,omitempty"`
	Section     string `json:"section,omitempty"`
}

// PutCandidates adds or replaces roster entries by candidate id, all in one transaction: a
// roster is imported whole or not at all.
func (s *Store) PutCandidates(ctx context.Context, cs []Candidate) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	for i, c := range cs {
		if strings.TrimSpace(c.CandidateID) == "" {
			return fmt.Errorf("%w: candidate %d has no candidate_id", ErrInvalidOption, i+1)
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	now := s.cfg.now().UnixNano()
	for _, c := range cs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO candidates (candidate_id, name, email, username, sis_user_id, sis_login_id,
			lms_user_id, section, imported_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (candidate_id) DO UPDATE SET
			name = excluded.name, email = excluded.email, username = excluded.username, sis_user_id = excluded.sis_user_id,
			sis_login_id = excluded.sis_login_id, lms_user_id = excluded.lms_user_id, section = excluded.section,
			imported_ns = excluded.imported_ns`,
			c.CandidateID, c.Name, c.Email, c.Username, c.SISUserID, c.SISLoginID, c.LMSUserID, c.Section, now); err != nil {
			return fmt.Errorf("candidate %s: %w", c.CandidateID, err)
		}
	}
	return tx.Commit()
}

const candidateColumns = `candidate_id, name, email, username, sis_user_id, sis_login_id, lms_user_id, section`

func scanCandidate(r scanner) (Candidate, error) {
	var c Candidate
	err := r.Scan(&c.CandidateID, &c.Name, &c.Email, &c.Username, &c.SISUserID, &c.SISLoginID, &c.LMSUserID, &c.Section)
	return c, err
}

// Candidates lists the roster by candidate id.
func (s *Store) Candidates(ctx context.Context) ([]Candidate, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+candidateColumns+` FROM candidates ORDER BY candidate_id`)
	if err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	defer rows.Close()
	var out []Candidate
	for rows.Next() {
		c, err := scanCandidate(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CandidateOf returns the roster entry attached to a session, and false when none is (no id
// attached, or an id the roster does not hold: then only CandidateID is set).
func (s *Store) CandidateOf(ctx context.Context, sessionID string) (Candidate, bool, error) {
	if err := s.checkOpen(); err != nil {
		return Candidate{}, false, err
	}
	var id string
	if err := s.db.QueryRowContext(ctx, `SELECT candidate_id FROM sessions WHERE id = ?`, sessionID).Scan(&id); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return Candidate{}, false, fmt.Errorf("%w: %q", ErrNotFound, sessionID)
		}
		return Candidate{}, false, err
	}
	if id == "" {
		return Candidate{}, false, nil
	}
	c, err := scanCandidate(s.db.QueryRowContext(ctx, `SELECT `+candidateColumns+` FROM candidates WHERE candidate_id = ?`, id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Candidate{CandidateID: id}, false, nil
	case err != nil:
		return Candidate{}, false, fmt.Errorf("candidate of %s: %w", sessionID, err)
	}
	return c, true, nil
}

// AttachCandidate records which roster candidate sat a session (join links, dispatch and
// `run --candidate-id` call it). The id must be in the roster.
func (s *Store) AttachCandidate(ctx context.Context, sessionID, candidateID string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM candidates WHERE candidate_id = ?`, candidateID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("attach %q to %s: %w", candidateID, sessionID, ErrNoCandidate)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET candidate_id = ? WHERE id = ?`, candidateID, sessionID)
	if err != nil {
		return fmt.Errorf("attach %q to %s: %w", candidateID, sessionID, err)
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, sessionID)
	}
	return nil
}

// LookupCandidate returns the roster entry of a candidate id, and false when the roster does
// not hold it.
func (s *Store) LookupCandidate(ctx context.Context, candidateID string) (Candidate, bool, error) {
	if err := s.checkOpen(); err != nil {
		return Candidate{}, false, err
	}
	c, err := scanCandidate(s.db.QueryRowContext(ctx, `SELECT `+candidateColumns+` FROM candidates WHERE candidate_id = ?`, candidateID))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Candidate{}, false, nil
	case err != nil:
		return Candidate{}, false, fmt.Errorf("candidate %s: %w", candidateID, err)
	}
	return c, true, nil
}
